"""Running a template's functions in this process, as Lambda would run them in their containers.

A function's handler file is loaded once (its init phase) under a module name of its own, then
called in a worker thread (`anyio.to_thread.run_sync`) with a Lambda-like context object. A handler
that raises or overruns its timeout gives the error document Lambda would return.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from rhumbline.local.template import FunctionDef, Template

ACCOUNT_ID = "000000000000"
REGION = "us-east-1"

LambdaHandler = Callable[[Any, Any], Any]
NAME_VARIABLE = "AWS_LAMBDA_FUNCTION_NAME"


class LocalLambdaContext:
    """The parts of Lambda's context object that handlers (and Mangum) use."""

    def __init__(self, function: FunctionDef, request_id: str) -> None:
        self.function_name = function.name
        self.function_version = "$LATEST"
        self.invoked_function_arn = function_arn(function.name)
        self.memory_limit_in_mb = function.memory_mb
        self.aws_request_id = request_id
        self.log_group_name = f"/aws/lambda/{function.name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + function.timeout

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def function_arn(name: str) -> str:
    return f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{name}"


@dataclass(frozen=True)
class Invocation:
    request_id: str
    result: Any = None
    error: dict[str, Any] | None = None  # Lambda's error document when the function failed


def load_handler(function: FunctionDef) -> LambdaHandler:
    path = function.handler_file
    if not path.is_file():
        raise FileNotFoundError(f"{function.logical_id}: handler file {path} does not exist")
    module_name = f"rhumbline_local_function_{function.logical_id}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{function.logical_id}: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered like any imported module: dataclasses and pickling look their module up there.
    sys.modules[module_name] = module
    with _init_environment(function):
        spec.loader.exec_module(module)
    handler = getattr(module, function.handler_attribute, None)
    if not callable(handler):
        raise AttributeError(f"{function.logical_id}: {path} has no callable {function.handler_attribute!r}")
    return handler


@contextmanager
def _init_environment(function: FunctionDef) -> Iterator[None]:
    """AWS_LAMBDA_FUNCTION_NAME, as Lambda sets it, while the function's handler file is loaded
    (its init: a tool function learns its tool from its name). Callers hold the runner's load lock."""
    saved = os.environ.get(NAME_VARIABLE)
    os.environ[NAME_VARIABLE] = function.name
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(NAME_VARIABLE, None)
        else:
            os.environ[NAME_VARIABLE] = saved


def error_document(error: BaseException, request_id: str) -> dict[str, Any]:
    return {
        "errorMessage": str(error),
        "errorType": type(error).__name__,
        "requestId": request_id,
        "stackTrace": traceback.format_tb(error.__traceback__),
    }


class FunctionRunner:
    """Warm "containers" for the template's functions: each handler loaded once, then reused.

    Each function has its own limit of `concurrency` invocations at once, as each Lambda function
    has its own containers: a busy gateway waiting on a tool function must not use up what that
    tool needs to answer it.
    """

    def __init__(self, template: Template, *, concurrency: int = 8) -> None:
        self.template = template
        self.concurrency = concurrency
        self._handlers: dict[str, LambdaHandler] = {}
        self._limiters: dict[str, anyio.CapacityLimiter] = {}
        self._lock = threading.Lock()
        self._load_lock = threading.Lock()

    def _limiter(self, logical_id: str) -> anyio.CapacityLimiter:
        with self._lock:
            if logical_id not in self._limiters:
                self._limiters[logical_id] = anyio.CapacityLimiter(self.concurrency)
            return self._limiters[logical_id]

    def handler(self, logical_id: str) -> LambdaHandler:
        # Under the lock: a second caller waits for the first init instead of loading the file twice.
        with self._load_lock:
            if logical_id not in self._handlers:
                self._handlers[logical_id] = load_handler(self.template.function(logical_id))
            return self._handlers[logical_id]

    def invoke(self, logical_id: str, event: Any, request_id: str | None = None) -> Invocation:
        """Blocking: run the handler on this thread."""
        request_id = request_id or str(uuid.uuid4())
        function = self.template.function(logical_id)
        try:
            result = self.handler(logical_id)(event, LocalLambdaContext(function, request_id))
        except Exception as error:  # noqa: BLE001 - Lambda turns any raise into an error document
            return Invocation(request_id, error=error_document(error, request_id))
        return Invocation(request_id, result=result)

    async def invoke_async(self, logical_id: str, event: Any, request_id: str | None = None) -> Invocation:
        """Run the handler in a worker thread, bounded by the function's timeout like Lambda."""
        request_id = request_id or str(uuid.uuid4())
        timeout = self.template.function(logical_id).timeout
        limiter = self._limiter(logical_id)
        try:
            with anyio.fail_after(timeout):
                return await anyio.to_thread.run_sync(
                    self.invoke, logical_id, event, request_id, abandon_on_cancel=True, limiter=limiter
                )
        except TimeoutError:
            # The thread cannot be killed; like a timed-out Lambda, its result is discarded.
            message = f"{request_id} Task timed out after {timeout:.2f} seconds"
            return Invocation(request_id, error={"errorMessage": message, "errorType": "Sandbox.Timedout"})

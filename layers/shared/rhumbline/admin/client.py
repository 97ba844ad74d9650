"""Where an admin command runs: this process (the embedded store, or any store the settings name),
or a hosted stack's admin function, found by the stack's `AdminFunctionName` output and invoked
with the caller's AWS credentials (no VPC access, no database password on the laptop)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rhumbline.admin.commands import AdminError, execute

if TYPE_CHECKING:
    from sqlalchemy import Engine

OUTPUT = "AdminFunctionName"
# The admin function's own timeout (template.yaml) plus room for a cold start.
INVOKE_READ_TIMEOUT = 360


class LocalAdmin:
    def __init__(self, engine: Callable[[], "Engine"]) -> None:
        self._engine = engine

    def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return execute(name, arguments, self._engine())


class StackAdmin:
    def __init__(self, stack: str, *, region: str | None = None, session: Any = None) -> None:
        import boto3

        self.stack = stack
        self._session = session or boto3.session.Session(region_name=region)
        self._function: str | None = None

    def _client(self, service: str, **config: Any) -> Any:
        from botocore.config import Config

        return self._session.client(service, config=Config(connect_timeout=10, **config))

    def function_name(self) -> str:
        if self._function is None:
            from botocore.exceptions import ClientError

            cloudformation = self._client("cloudformation", read_timeout=30, retries={"max_attempts": 3, "mode": "standard"})
            with _aws_errors(f"reading stack {self.stack}"):
                try:
                    [stack] = cloudformation.describe_stacks(StackName=self.stack)["Stacks"]
                except ClientError as error:
                    if "does not exist" in str(error):
                        raise AdminError("stack_not_found", f"no stack {self.stack!r} in {self._session.region_name}") from None
                    raise
            outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
            if OUTPUT not in outputs:
                raise AdminError(
                    "no_admin_function",
                    f"stack {self.stack} has no {OUTPUT} output: deploy a Rhumbline version with the admin function",
                )
            self._function = outputs[OUTPUT]
        return self._function

    def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        function = self.function_name()
        # One attempt: a retried token.create would mint a second token.
        client = self._client("lambda", read_timeout=INVOKE_READ_TIMEOUT, retries={"max_attempts": 1, "mode": "standard"})
        payload = json.dumps({"command": name, "arguments": arguments}).encode()
        with _aws_errors(f"invoking {function}"):
            response = client.invoke(FunctionName=function, InvocationType="RequestResponse", Payload=payload)
        body = response["Payload"].read()
        try:
            answer = json.loads(body)
        except ValueError:
            answer = None
        if response.get("FunctionError"):
            detail = answer if isinstance(answer, dict) else {}
            raise AdminError(
                "function_error",
                f"the admin function {function} failed: {detail.get('errorType', 'error')}: "
                f"{detail.get('errorMessage', body[:500].decode(errors='replace'))}",
            )
        if not isinstance(answer, dict) or "ok" not in answer:
            raise AdminError("bad_answer", f"the admin function {function} answered something else: {body[:200]!r}")
        if not answer["ok"]:
            error = answer.get("error") or {}
            raise AdminError(str(error.get("code", "error")), str(error.get("message", "refused")))
        return dict(answer["result"])


@contextmanager
def _aws_errors(doing: str) -> Iterator[None]:
    """AWS failures as one line the administrator can act on (credentials, permissions, network)."""
    from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

    try:
        yield
    except NoCredentialsError:
        raise AdminError("no_credentials", f"{doing}: no AWS credentials (set AWS_PROFILE or sign in)") from None
    except NoRegionError:
        raise AdminError("no_region", f"{doing}: no AWS region (pass --region or set AWS_REGION)") from None
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code", "")
        message = error.response.get("Error", {}).get("Message", str(error))
        raise AdminError("aws_error", f"{doing}: {code}: {message}") from None
    except BotoCoreError as error:
        raise AdminError("aws_error", f"{doing}: {error}") from None

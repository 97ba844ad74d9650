"""Loading handler files and running them as Lambda would: errors, timeouts, context."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from pathlib import Path
from typing import Any

from rhumbline.local.functions import FunctionRunner, LocalLambdaContext
from rhumbline.local.template import FunctionDef, Template


def template_with(tmp_path: Path, source: str, *, timeout: float = 3.0) -> Template:
    code = tmp_path / "functions" / "thing"
    code.mkdir(parents=True)
    (code / "app.py").write_text(textwrap.dedent(source))
    function = FunctionDef(logical_id="ThingFunction", name="ThingFunction", code_dir=code, handler="app.handler", timeout=timeout, memory_mb=512)
    return Template(path=tmp_path / "template.yaml", functions={"ThingFunction": function}, routes=[])


def test_a_handler_runs_with_a_lambda_like_context(tmp_path: Path) -> None:
    template = template_with(tmp_path, """
        LOADS = []
        LOADS.append(1)
        def handler(event, context):
            return {"event": event, "name": context.function_name, "memory": context.memory_limit_in_mb,
                    "arn": context.invoked_function_arn, "request": context.aws_request_id,
                    "remaining_ok": 0 < context.get_remaining_time_in_millis() <= 3000, "loads": len(LOADS)}
    """)
    runner = FunctionRunner(template)
    first = runner.invoke("ThingFunction", {"x": 1}, request_id="rid-1")
    second = runner.invoke("ThingFunction", {"x": 2})
    assert first.error is None
    assert first.result == {
        "event": {"x": 1}, "name": "ThingFunction", "memory": 512,
        "arn": "arn:aws:lambda:us-east-1:000000000000:function:ThingFunction", "request": "rid-1",
        "remaining_ok": True, "loads": 1,
    }
    # Warm: the module is loaded once, like a container's init phase.
    assert second.result["loads"] == 1


def test_a_raising_handler_gives_lambdas_error_document(tmp_path: Path) -> None:
    template = template_with(tmp_path, """
        def handler(event, context):
            raise KeyError("missing thing")
    """)
    invocation = FunctionRunner(template).invoke("ThingFunction", {}, request_id="rid-2")
    assert invocation.result is None
    assert invocation.error["errorType"] == "KeyError"
    assert invocation.error["errorMessage"] == "'missing thing'"
    assert invocation.error["requestId"] == "rid-2"
    assert any("app.py" in line for line in invocation.error["stackTrace"])


def test_an_overrunning_handler_times_out_like_lambda(tmp_path: Path) -> None:
    template = template_with(tmp_path, """
        import time
        def handler(event, context):
            time.sleep(1.0)
            return "late"
    """, timeout=0.2)
    runner = FunctionRunner(template)
    invocation = asyncio.run(runner.invoke_async("ThingFunction", {}, request_id="rid-3"))
    assert invocation.error == {"errorMessage": "rid-3 Task timed out after 0.20 seconds", "errorType": "Sandbox.Timedout"}


def test_a_missing_handler_file_is_an_invocation_error(tmp_path: Path) -> None:
    function = FunctionDef(logical_id="Gone", name="Gone", code_dir=tmp_path / "nowhere", handler="app.handler")
    template = Template(path=tmp_path / "t.yaml", functions={"Gone": function}, routes=[])
    invocation = FunctionRunner(template).invoke("Gone", {})
    assert invocation.error["errorType"] == "FileNotFoundError"


def test_remaining_time_counts_down() -> None:
    context = LocalLambdaContext(FunctionDef(logical_id="F", name="F", code_dir=Path("."), handler="app.handler", timeout=0.0), "r")
    assert context.get_remaining_time_in_millis() == 0


def test_a_tool_function_sees_its_tool_while_it_loads(tmp_path: Path, monkeypatch) -> None:
    """A function's name is in AWS_LAMBDA_FUNCTION_NAME during its init, as in its own Lambda
    container (a tool function reads its tool there), and only then: this process serves them all."""
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    code = tmp_path / "functions" / "tool"
    code.mkdir(parents=True)
    (code / "app.py").write_text("import os\nNAME = os.environ['AWS_LAMBDA_FUNCTION_NAME']\ndef handler(event, context):\n    return NAME\n")
    functions = {
        f"{tool}Function": FunctionDef(logical_id=f"{tool}Function", name=f"s-tool-{tool}", code_dir=code,
                                       handler="app.handler")
        for tool in ("search", "context")
    }  # fmt: skip
    runner = FunctionRunner(Template(path=tmp_path / "template.yaml", functions=functions, routes=[]))
    assert [runner.invoke(f"{tool}Function", {}).result for tool in ("search", "context")] == [
        "s-tool-search", "s-tool-context"
    ]
    assert "AWS_LAMBDA_FUNCTION_NAME" not in __import__("os").environ


def template_of(tmp_path: Path, sources: dict[str, str]) -> Template:
    functions = {}
    for name, source in sources.items():
        code = tmp_path / "functions" / name
        code.mkdir(parents=True)
        (code / "app.py").write_text(textwrap.dedent(source))
        functions[name] = FunctionDef(logical_id=name, name=name, code_dir=code, handler="app.handler", timeout=5.0)
    return Template(path=tmp_path / "template.yaml", functions=functions, routes=[])


COUNTING = """
    import threading, time
    LOCK = threading.Lock()
    RUNNING = [0]
    MOST = [0]
    def handler(event, context):
        with LOCK:
            RUNNING[0] += 1
            MOST[0] = max(MOST[0], RUNNING[0])
        time.sleep(event.get("sleep", 0.1))
        with LOCK:
            RUNNING[0] -= 1
        return MOST[0]
"""


def test_a_function_runs_at_most_its_concurrency_at_once(tmp_path: Path) -> None:
    runner = FunctionRunner(template_of(tmp_path, {"Counting": COUNTING}), concurrency=2)

    async def main() -> list[Any]:
        invocations = await asyncio.gather(*(runner.invoke_async("Counting", {}) for _ in range(5)))
        return [invocation.result for invocation in invocations]

    assert max(asyncio.run(main())) == 2


BLOCKING = """
    def handler(event, context):
        event["started"].set()
        event["release"].wait(10)
        return "released"
"""


def test_a_busy_function_does_not_hold_up_another(tmp_path: Path) -> None:
    runner = FunctionRunner(template_of(tmp_path, {"Busy": BLOCKING, "Quick": COUNTING}), concurrency=1)
    finished: list[str] = []
    started, release = threading.Event(), threading.Event()

    async def run(name: str, event: dict[str, Any]) -> None:
        await runner.invoke_async(name, event)
        finished.append(name)

    async def main() -> None:
        busy = asyncio.create_task(run("Busy", {"started": started, "release": release}))
        try:
            assert await asyncio.to_thread(started.wait, 10)  # Busy holds its only slot
            await run("Quick", {"sleep": 0})
        finally:
            release.set()
        await busy

    asyncio.run(main())
    assert finished == ["Quick", "Busy"]

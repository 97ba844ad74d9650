from __future__ import annotations

import socket
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rhumbline.local.functions import FunctionRunner
from rhumbline.local.lambda_api import InvokeCredentials, LambdaInvokeApi
from rhumbline.local.server import LocalApi
from rhumbline.local.template import Template, load_template

TEMPLATE = """
Globals:
  Function:
    Handler: app.handler
    Timeout: 5
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: $default
  EchoFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/echo
      Events:
        Post: {Type: HttpApi, Properties: {ApiId: !Ref Api, Method: POST, Path: /echo}}
        Open: {Type: HttpApi, Properties: {ApiId: !Ref Api, Method: GET, Path: "/open/{name}"}}
  BrokenFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/broken
      Events:
        Post: {Type: HttpApi, Properties: {ApiId: !Ref Api, Method: POST, Path: /broken}}
  SlowFunction:
    Type: AWS::Serverless::Function
    Properties: {CodeUri: functions/slow, Timeout: 0.3}
"""

HANDLERS = {
    "echo": """
        import json
        RECEIVED = []
        def handler(event, context):
            RECEIVED.append(event)
            body = {"authorization": event["headers"].get("authorization"), "body": event.get("body"),
                    "isBase64Encoded": event["isBase64Encoded"], "routeKey": event["routeKey"],
                    "pathParameters": event.get("pathParameters"), "function": context.function_name}
            return {"statusCode": 200, "headers": {"content-type": "application/json", "x-echo": "1"},
                    "cookies": ["seen=1"], "body": json.dumps(body)}
    """,
    "broken": """
        def handler(event, context):
            raise ValueError("broken on purpose")
    """,
    "slow": """
        import time
        def handler(event, context):
            time.sleep(float(event.get("sleep", 0)))
            return {"slept": event.get("sleep", 0), "remaining_ms": context.get_remaining_time_in_millis() > 0}
    """,
}


@pytest.fixture
def stand_in_template(tmp_path: Path) -> Template:
    (tmp_path / "template.yaml").write_text(TEMPLATE)
    for name, source in HANDLERS.items():
        directory = tmp_path / "functions" / name
        directory.mkdir(parents=True)
        (directory / "app.py").write_text(textwrap.dedent(source))
    return load_template(tmp_path / "template.yaml")


# The functions the Invoke API serves (as the template's tool functions would be).
INVOKABLE = {name: name for name in ("EchoFunction", "BrokenFunction", "SlowFunction")}


@pytest.fixture
def invoke_credentials() -> InvokeCredentials:
    return InvokeCredentials()


@pytest.fixture
def stand_in(stand_in_template: Template, invoke_credentials: InvokeCredentials) -> LocalApi:
    runner = FunctionRunner(stand_in_template)
    invoke_api = LambdaInvokeApi(runner, functions=INVOKABLE, credentials=invoke_credentials)
    return LocalApi(stand_in_template, runner, invoke_api=invoke_api)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(stand_in: LocalApi) -> Iterator[str]:
    """The stand-in behind a real uvicorn server in a thread (boto3 needs a real endpoint)."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(stand_in, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)

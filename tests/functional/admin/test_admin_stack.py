"""`rhumbline --stack NAME token ...` from a laptop with AWS credentials only.

The AWS side is botocore hooks: `DescribeStacks` answers the stack's outputs, and `lambda.Invoke`
runs the real admin handler in-process against the stack's database (a real SQLite file or a real
PostgreSQL database), in the environment a deployed function has, not the laptop's. The laptop's
own store is never touched.
"""

from __future__ import annotations

import io
import json
import os
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.response import StreamingBody

from rhumbline import cli
from rhumbline.admin import handler as admin_handler
from rhumbline.runtime import resources
from tests.pg_database import fresh_database_url

STACK = "rhumbline-br-feature-x"
FUNCTION = "rhumbline-br-feature-x-admin"


class StackAws:
    """CloudFormation and Lambda as far as the admin client uses them."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self.outputs = {"AdminFunctionName": FUNCTION, "McpEndpoint": "https://x.execute-api/mcp"}
        self.invoked: list[dict[str, Any]] = []
        self.crash = False

    def describe_stacks(self, model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        name = params["body"]["StackName"]
        if name != STACK:
            error = {"Error": {"Code": "ValidationError", "Message": f"Stack with id {name} does not exist"}}
            return AWSResponse("https://cloudformation", 400, {}, None), {**error, "ResponseMetadata": {"HTTPStatusCode": 400}}
        stack = {
            "StackName": STACK,
            "StackStatus": "UPDATE_COMPLETE",
            "CreationTime": datetime(2026, 1, 1, tzinfo=timezone.utc),
            "Outputs": [{"OutputKey": key, "OutputValue": value} for key, value in self.outputs.items()],
        }
        return AWSResponse("https://cloudformation", 200, {}, None), {"Stacks": [stack], "ResponseMetadata": {"HTTPStatusCode": 200}}

    def invoke(self, model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        assert params["url_path"].split("/")[3] == FUNCTION
        event = json.loads(params["body"])
        self.invoked.append(event)
        if self.crash:
            return self.answer({"errorMessage": "connection to server timed out", "errorType": "OperationalError"}, True)
        try:
            return self.answer(self.run_deployed(event), False)
        except Exception as error:  # what Lambda makes of a handler that raises
            return self.answer({"errorMessage": str(error), "errorType": type(error).__name__}, True)

    def run_deployed(self, event: Any) -> Any:
        """The handler with the deployed function's settings, then the laptop's back."""
        laptop = dict(os.environ)
        os.environ.update(RHUMBLINE_MODE="hosted", RHUMBLINE_DATABASE_URL=self.database_url)
        resources.reset()
        try:
            return admin_handler.handler(event, None)
        finally:
            resources.reset()
            os.environ.clear()
            os.environ.update(laptop)

    @staticmethod
    def answer(payload: Any, function_error: bool) -> tuple[AWSResponse, dict[str, Any]]:
        body = json.dumps(payload).encode()
        parsed: dict[str, Any] = {
            "StatusCode": 200,
            "Payload": StreamingBody(io.BytesIO(body), len(body)),
            "ResponseMetadata": {"HTTPStatusCode": 200},
        }
        if function_error:
            parsed["FunctionError"] = "Unhandled"
        return AWSResponse("https://lambda", 200, {}, None), parsed


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def stack_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    from rhumbline.stores.relational import migrate
    from rhumbline.stores.relational.engine import create_engine_from_url

    if request.param == "sqlite":
        url, drop = f"sqlite:///{tmp_path / 'stack.sqlite3'}", None
    else:
        url, drop = fresh_database_url(request.getfixturevalue("postgres_url"), f"admin_{uuid.uuid4().hex[:12]}")
    try:
        engine = create_engine_from_url(url, timeout=10)
        migrate.upgrade(engine)  # the stack's migration resource ran at deploy
        engine.dispose()
        yield url
    finally:
        resources.reset()
        if drop:
            drop()


@pytest.fixture
def aws(stack_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StackAws]:
    service = StackAws(stack_database)
    for name in [n for n in os.environ if n.startswith(("RHUMBLINE_", "AWS_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "laptop"))
    real_session = boto3.session.Session

    def session(*args: Any, **kwargs: Any) -> boto3.session.Session:
        made = real_session(*args, aws_access_key_id="testing", aws_secret_access_key="testing", **kwargs)
        made.events.register("before-call.cloudformation.DescribeStacks", service.describe_stacks)
        made.events.register("before-call.lambda.Invoke", service.invoke)
        return made

    monkeypatch.setattr(boto3.session, "Session", session)
    resources.reset()
    yield service
    resources.reset()
    assert not (tmp_path / "laptop").exists(), "the laptop's own store was opened"


def rhumbline(capsys: pytest.CaptureFixture[str], *arguments: str, stack: str = STACK) -> tuple[int, str, str]:
    code = cli.main(["--stack", stack, "--region", "eu-west-1", *arguments])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def verify(database_url: str, plaintext: str) -> Any:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.session import session_scope

    engine = create_engine_from_url(database_url, timeout=10)
    try:
        with session_scope(engine) as session:
            check = tokens.verify(session, plaintext)
            return check.ok, check.reason
    finally:
        engine.dispose()


def test_create_list_revoke_run_in_the_stack(aws: StackAws, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = rhumbline(
        capsys, "token", "create", "--principal", "ci@example.com", "--projects", "acme/shop",
        "--scopes", "read,write", "--expires-in-days", "1", "--description", "smoke test",
    )  # fmt: skip
    assert code == 0, err
    plaintext = out.strip()
    assert plaintext.startswith("rhl_") and "Created token tk_" in err
    # Exactly one invoke: a create is never retried into a second token.
    assert [event["command"] for event in aws.invoked] == ["token.create"]
    assert verify(aws.database_url, plaintext) == (True, None)

    code, out, err = rhumbline(capsys, "token", "list", "--json")
    assert code == 0, err
    listed = json.loads(out)
    assert listed["total"] == 1
    [token] = listed["tokens"]
    assert (token["principal"], token["projects"], token["scopes"]) == ("ci@example.com", ["acme/shop"], ["read", "write"])
    assert plaintext not in out

    token_id = plaintext.split("_")[1]
    code, out, err = rhumbline(capsys, "token", "revoke", f"tk_{token_id}")
    assert code == 0, err
    assert verify(aws.database_url, plaintext) == (False, "revoked")

    code, out, _ = rhumbline(capsys, "token", "list")
    assert code == 0 and f"tk_{token_id}" in out and "ci@example.com" in out

    code, out, err = rhumbline(capsys, "db", "upgrade")
    assert code == 0, err
    assert out.startswith("Database schema is at revision ")


def test_limits_usage_and_retention_run_in_the_stack(aws: StackAws, capsys: pytest.CaptureFixture[str]) -> None:
    from datetime import timedelta

    from rhumbline.gateway.audit import CallRecord, write_call
    from rhumbline.stores.relational.engine import create_engine_from_url

    code, out, err = rhumbline(
        capsys, "token", "create", "--principal", "team@example.com", "--projects", "*", "--scopes", "read",
        "--rate-limit", "60", "--monthly-quota", "1000",
    )  # fmt: skip
    assert code == 0, err
    token_id = "tk_" + out.strip().split("_")[1]
    code, out, err = rhumbline(capsys, "token", "update", token_id, "--burst", "5", "--monthly-quota", "5000")
    assert (code, out.strip()) == (0, f"Updated {token_id}: rate limit 60/min burst 5; quota 5000/month."), err

    # Two calls in the stack's database, as its gateway writes them: one today, one long ago.
    now = datetime.now(timezone.utc)
    engine = create_engine_from_url(aws.database_url, timeout=10)
    try:
        with engine.begin() as connection:
            for at in (now, now - timedelta(days=400)):
                entry = CallRecord(
                    request_id=uuid.uuid4().hex, principal="team@example.com", token_id=token_id, tool="search",
                    project="acme/shop", arguments={}, outcome="ok", error_code=None, latency_ms=3.0, result_bytes=10, at=at,
                )  # fmt: skip
                write_call(connection, entry)
    finally:
        engine.dispose()

    code, out, err = rhumbline(capsys, "usage", "--by", "principal", "--format", "csv")
    assert code == 0, err
    today, first = now.date().isoformat(), now.date().replace(day=1).isoformat()
    assert out.splitlines()[1] == f"{first},{today},team@example.com,1,1,0,0,0,3.0,10"

    code, out, err = rhumbline(capsys, "audit", "prune", "--older-than", "365d")
    assert code == 0 and out.startswith("Deleted 1 audit rows from before "), err
    assert [event["command"] for event in aws.invoked] == ["token.create", "token.update", "usage", "audit.prune"]
    # The scheduled retention run is the same event, sent by EventBridge.
    assert aws.run_deployed({"command": "audit.prune", "arguments": {"older_than_days": 90}})["result"]["done"] is True


def test_refusals_come_back_as_one_clear_line(aws: StackAws, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = rhumbline(capsys, "token", "create", "--principal", "x", "--projects", "*", "--scopes", "root")
    assert code == 1
    assert err.strip() == "rhumbline: error: unknown scope(s) 'root': choose from admin, cypher, read, write"

    code, _, err = rhumbline(capsys, "token", "revoke", "tk_missing")
    assert (code, err.strip()) == (1, "rhumbline: error: no token 'tk_missing'")

    code, _, err = rhumbline(capsys, "token", "list", stack="rhumbline-br-gone")
    assert (code, err.strip()) == (1, "rhumbline: error: no stack 'rhumbline-br-gone' in eu-west-1")

    aws.outputs.pop("AdminFunctionName")
    code, _, err = rhumbline(capsys, "token", "list")
    assert code == 1 and "has no AdminFunctionName output" in err

    aws.outputs["AdminFunctionName"] = FUNCTION
    aws.crash = True
    code, _, err = rhumbline(capsys, "token", "list")
    assert code == 1
    assert err.strip() == (
        f"rhumbline: error: the admin function {FUNCTION} failed: OperationalError: connection to server timed out"
    )


def test_the_handler_refuses_what_it_cannot_run(aws: StackAws) -> None:
    assert aws.run_deployed(["token.list"]) == {
        "ok": False,
        "error": {"code": "invalid_request", "message": "the event must be a JSON object {command, arguments}"},
    }
    unknown = aws.run_deployed({"command": "token.delete_all"})
    assert unknown["error"]["code"] == "unknown_command"
    assert "one of token.create, token.list, token.revoke, token.update, usage, audit.prune, db.upgrade" in unknown["error"]["message"]
    extra = aws.run_deployed({"command": "token.revoke", "arguments": {"token_id": "tk_x", "force": True}})
    assert extra["error"] == {"code": "invalid_arguments", "message": "token.revoke: force: Extra inputs are not permitted"}
    missing = aws.run_deployed({"command": "token.create", "arguments": {"principal": "x"}})
    assert missing["error"]["message"] == "token.create: projects: Field required; scopes: Field required"


def test_no_credentials_is_said_plainly(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    code, _, err = rhumbline(capsys, "token", "list")
    assert code == 1
    assert err.strip() == f"rhumbline: error: reading stack {STACK}: no AWS credentials (set AWS_PROFILE or sign in)"

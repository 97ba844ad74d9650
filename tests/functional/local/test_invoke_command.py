"""`rhumbline invoke FUNCTION --event FILE` runs every sample event in a fresh directory, with no
environment set up first (no mode, database URL or migration): as the events' README promises."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rhumbline.cli import main
from rhumbline.config import settings
from rhumbline.runtime import resources

EVENTS = Path(__file__).resolve().parents[3] / "events"


@pytest.fixture
def fresh_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A new working directory and nothing configured: the embedded store is made under it."""
    for name in list(os.environ):
        if name.startswith("RHUMBLINE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    settings.cache_clear()
    yield tmp_path
    # The gateway's module holds its container, built for this test's settings: later tests load their own.
    gateway = sys.modules.pop("rhumbline.gateway.lambda_entry", None)
    if gateway is not None:
        gateway.container.stop()
    resources.reset()
    settings.cache_clear()


def invoked(target: str, event: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object], str]:
    status = main(["invoke", target, "--event", str(event)])
    printed = capsys.readouterr()
    # The function's own one-line logs (EMF metrics) may come before the indented result document.
    return status, json.loads(printed.out[printed.out.index("{\n") :]), printed.err


@pytest.mark.parametrize("event", sorted((EVENTS / "gateway").glob("*.json")), ids=lambda path: path.stem)
def test_the_gateway_answers_its_sample_events(event: Path, fresh_directory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, result, err = invoked("GatewayFunction", event, capsys)
    assert status == 0, result
    # Not 421 Invalid Host header: the execute-api Host is delivered as the local API would; the
    # sample's placeholder token is sent as the local development token.
    assert "delivered as localhost" in err
    assert "sent as the local development token" in err
    if json.loads(event.read_text())["routeKey"].startswith("GET"):
        assert result["statusCode"] == 405
        return
    assert result["statusCode"] == 200, result
    answer = json.loads(str(result["body"]))
    assert "result" in answer and "error" not in answer, answer
    assert not answer["result"].get("isError"), answer


@pytest.mark.parametrize("event", sorted((EVENTS / "tools").glob("*.json")), ids=lambda path: path.stem)
def test_every_tool_function_runs_its_sample_event(event: Path, fresh_directory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, outcome, _ = invoked(event.stem, event, capsys)
    assert status == 0, outcome
    assert outcome["contract"] == "rhumbline.tool-outcome/1", outcome
    # An empty store may answer not_found; never an error the user could not act on.
    error = outcome["error"] or {}
    assert outcome["ok"] or error.get("code") not in ("internal_error", "unavailable"), outcome


@pytest.mark.parametrize("event", sorted((EVENTS / "webhooks").glob("*.json")), ids=lambda path: path.stem)
def test_the_webhook_function_accepts_its_signed_samples(
    event: Path, fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The one setting a deployment gives it too: the secret the samples are signed with.
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRETS", json.dumps({"default": "It's a Secret to Everybody"}))
    status, result, _ = invoked("GitHubWebhookFunction", event, capsys)
    assert status == 0 and result["statusCode"] == 202, result


def test_a_loopback_host_is_left_as_it_is() -> None:
    from rhumbline.local.invoke import as_local_api_event

    event = {"version": "2.0", "headers": {"Host": "127.0.0.1:8080"}, "requestContext": {"domainName": "127.0.0.1"}}
    assert as_local_api_event(event) == (event, None)
    # Not an HTTP API event (a tool invocation): untouched.
    assert as_local_api_event({"contract": "rhumbline.tool-invocation/1"})[1] is None

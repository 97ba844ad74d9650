"""The ingest tool with a hosted `source`, through the real tool handler: a GitHub tarball served by
a local HTTP server, an S3 archive (moto), `async` scheduling, and the webhook's push arguments."""

from __future__ import annotations

import io
import json
import tarfile
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.stores import embedded_stores

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.config import settings
from rhumbline.runtime.handler import handle

SHA = "feedfacecafebeef0123456789abcdef01234567"
CART = '''from shop.pricing import price_of


class ShoppingCart:
    """A customer's cart."""

    def total(self, sku):
        return price_of(sku)
'''
PRICING = '''def price_of(sku):
    """Unit price of a SKU."""
    return 3
'''


def shop_tarball(top: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def github(monkeypatch) -> Iterator[dict[str, tuple[int, bytes]]]:  # type: ignore[no-untyped-def]
    routes: dict[str, tuple[int, bytes]] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            status, body = routes.get(self.path, (404, b'{"message":"Not Found"}'))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:  # type: ignore[no-untyped-def]
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("RHUMBLINE_GITHUB_API_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv("RHUMBLINE_GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("RHUMBLINE_GITHUB_TOKEN_SECRET_ARN", raising=False)
    try:
        yield routes
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(params=["local", "hosted"])
def call(request, tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    """Invoke a tool through the handler on stores of the test's own, in either mode (configuration)."""
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", request.param)
    settings.cache_clear()
    with embedded_stores(tmp_path / "stores") as stores:

        def invoke(tool: str, arguments: dict, *, projects=("acme/shop",), scopes=("read", "write")) -> dict:
            return handle(
                tool,
                {
                    "contract": INVOCATION_CONTRACT,
                    "tool": tool,
                    "arguments": arguments,
                    "caller": {"principal": "tester", "token_id": "tk_test", "projects": list(projects), "scopes": list(scopes)},
                    "request_id": f"req-{uuid.uuid4().hex[:8]}",
                    "deadline_ms": int((time.time() + 60) * 1000),
                },
                stores,
            )

        invoke.mode = request.param  # type: ignore[attr-defined]
        invoke.graph = stores.graph()  # type: ignore[attr-defined]
        yield invoke
    settings.cache_clear()


def test_a_github_source_is_fetched_ingested_and_its_commit_recorded(call, github) -> None:  # type: ignore[no-untyped-def]
    github[f"/repos/acme/shop/tarball/{SHA}"] = (200, shop_tarball(f"acme-shop-{SHA[:7]}"))
    outcome = call("ingest", {"source": f"github:acme/shop@{SHA}"})
    assert outcome["ok"], outcome
    result = outcome["result"]
    assert (result["status"], result["project"], result["commit"], result["source"]) == (
        "completed", "acme/shop", SHA, f"github:acme/shop@{SHA}")  # fmt: skip
    assert result["files"] == 3 and result["version"] == 1
    assert result["nodes_by_kind"]["Class"] == 1 and result["nodes_by_kind"]["Method"] == 1

    graph = call.graph
    assert graph.get_node("acme/shop", "class:shop/cart.py:ShoppingCart") is not None
    assert graph.get_node("acme/shop", "function:shop/pricing.py:price_of") is not None
    listed = call("list_projects", {})
    assert listed["ok"], listed
    assert json.dumps(listed["result"]).count(SHA) >= 1, "list_projects shows the ingested commit"


def test_github_errors_are_specific(call, github) -> None:  # type: ignore[no-untyped-def]
    missing = call("ingest", {"source": "github:acme/shop@nope"})
    assert (missing["ok"], missing["error"]["code"]) == (False, "source_not_found"), missing
    github["/repos/acme/shop/tarball/main"] = (401, b'{"message":"Bad credentials"}')
    denied = call("ingest", {"source": "github:acme/shop@main"})
    assert (denied["ok"], denied["error"]["code"]) == (False, "source_auth_failed"), denied


def test_an_unsafe_tarball_is_refused_and_nothing_is_ingested(call, github) -> None:  # type: ignore[no-untyped-def]
    github["/repos/acme/shop/tarball/main"] = (200, shop_tarball("acme-shop-abc1234/../.."))
    outcome = call("ingest", {"source": "github:acme/shop@main"})
    assert (outcome["ok"], outcome["error"]["code"]) == (False, "unsafe_archive"), outcome


def test_a_source_project_the_token_cannot_see_is_forbidden(call, github) -> None:  # type: ignore[no-untyped-def]
    outcome = call("ingest", {"source": "github:rival/shop@main"})
    assert (outcome["ok"], outcome["error"]["code"]) == (False, "forbidden"), outcome


def test_an_s3_archive_is_ingested(call, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from moto import mock_aws

    for name, value in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        import boto3

        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="rhumbline-sources")
        s3.put_object(Bucket="rhumbline-sources", Key="ci/acme-shop.tar.gz", Body=shop_tarball("checkout"))
        outcome = call("ingest", {"source": "s3://rhumbline-sources/ci/acme-shop.tar.gz", "project": "acme/shop"})
        no_project = call("ingest", {"source": "s3://rhumbline-sources/ci/acme-shop.tar.gz"})
    assert outcome["ok"], outcome
    assert (outcome["result"]["files"], outcome["result"]["commit"]) == (3, None)
    assert call.graph.get_node("acme/shop", "class:shop/cart.py:ShoppingCart") is not None
    assert (no_project["ok"], no_project["error"]["code"]) == (False, "invalid_arguments")


def test_async_schedules_the_same_function_in_hosted_mode(call, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import boto3

    sent: list[dict] = []

    class FakeLambda:
        def invoke(self, **params):  # type: ignore[no-untyped-def]
            sent.append(params)
            return {"StatusCode": 202}

    monkeypatch.setattr(boto3, "client", lambda service, **kwargs: FakeLambda())
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "rhumbline-dev-IngestFunction-AbC")
    outcome = call("ingest", {"source": f"github:acme/shop@{SHA}", "async": True})
    if call.mode == "local":
        assert (outcome["ok"], outcome["error"]["code"]) == (False, "invalid_arguments"), outcome
        assert sent == []
        return
    assert outcome["ok"], outcome
    assert (outcome["result"]["status"], outcome["result"]["project"], outcome["result"]["version"]) == (
        "scheduled", "acme/shop", None)  # fmt: skip
    assert [(params["FunctionName"], params["InvocationType"]) for params in sent] == [
        ("rhumbline-dev-IngestFunction-AbC", "Event")
    ]
    payload = json.loads(sent[0]["Payload"])
    assert payload["tool"] == "ingest"
    assert payload["arguments"] == {"source": f"github:acme/shop@{SHA}", "project": "acme/shop", "clear": False}
    assert payload["caller"]["projects"] == ["acme/shop"]


def test_async_starts_the_hosted_ingest_state_machine_when_there_is_one(call, machine) -> None:  # type: ignore[no-untyped-def]
    outcome = call("ingest", {"source": f"github:acme/shop@{SHA}", "async": True, "clear": True})
    inputs = started_runs(machine)
    if call.mode == "local":
        assert (outcome["ok"], outcome["error"]["code"], inputs) == (False, "invalid_arguments", []), outcome
        return
    assert outcome["ok"] and outcome["result"]["status"] == "scheduled", outcome
    assert inputs == [{"project": "acme/shop", "source": f"github:acme/shop@{SHA}", "clear": True}]


@pytest.fixture
def machine(monkeypatch) -> Iterator[tuple[object, str]]:  # type: ignore[no-untyped-def]
    """A state machine in moto, named to the ingest tool as the deployment's ingest state machine."""
    from moto import mock_aws

    for name, value in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        import boto3

        states = boto3.client("stepfunctions", region_name="us-east-1")
        arn = states.create_state_machine(
            name="rhumbline-dev-ingest", roleArn="arn:aws:iam::123456789012:role/ingest",
            definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
        )["stateMachineArn"]  # fmt: skip
        monkeypatch.setenv("RHUMBLINE_INGEST_STATE_MACHINE_ARN", arn)
        yield states, arn


def started_runs(machine: tuple) -> list[dict]:  # type: ignore[type-arg]
    states, arn = machine
    executions = states.list_executions(stateMachineArn=arn)["executions"]
    return [json.loads(states.describe_execution(executionArn=e["executionArn"])["input"]) for e in executions]


@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
def test_a_webhook_reingest_is_routed_by_size(call, github, machine, monkeypatch, large: bool) -> None:  # type: ignore[no-untyped-def]
    """The webhook's arguments (no `async`): a hosted tree above the shard rule's size goes to the
    state machine, a smaller one is ingested by the function itself; a local server ingests both."""
    from rhumbline.ingest.sharded import executors
    from rhumbline.webhooks import reingest

    github[f"/repos/acme/shop/tarball/{SHA}"] = (200, shop_tarball(f"acme-shop-{SHA[:7]}"))
    if large:  # the shop's three files are a few hundred bytes: above this, as a monorepo is above the default
        monkeypatch.setattr(executors, "SHARDED_ABOVE_BYTES", 100)
    outcome = call("ingest", reingest.ingest_arguments("acme/shop", SHA), projects=("acme/shop",), scopes=("write",))

    assert outcome["ok"], outcome
    routed = large and call.mode == "hosted"
    assert outcome["result"]["status"] == ("scheduled" if routed else "completed")
    assert started_runs(machine) == ([{"project": "acme/shop", "source": f"github:acme/shop@{SHA}", "clear": False}] if routed else [])
    assert (call.graph.get_node("acme/shop", "class:shop/cart.py:ShoppingCart") is None) == routed


def test_a_source_past_the_functions_fetch_limits_goes_to_the_state_machine(call, github, machine) -> None:  # type: ignore[no-untyped-def]
    from rhumbline.ingest.discover.sources import FetchLimits, fetch_limits

    github[f"/repos/acme/shop/tarball/{SHA}"] = (200, shop_tarball(f"acme-shop-{SHA[:7]}"))
    with fetch_limits(FetchLimits(download_bytes=10**6, unpacked_bytes=10**6, files=2)):
        outcome = call("ingest", {"source": f"github:acme/shop@{SHA}"})

    if call.mode == "local":  # no state machine: the limit's own error
        assert (outcome["ok"], started_runs(machine)) == (False, []), outcome
        assert "more than 2 files" in outcome["error"]["message"]
        return
    assert outcome["ok"] and outcome["result"]["status"] == "scheduled", outcome
    assert started_runs(machine) == [{"project": "acme/shop", "source": f"github:acme/shop@{SHA}", "clear": False}]


def test_hosted_mode_still_refuses_a_path(call, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outcome = call("ingest", {"path": str(tmp_path)})
    if call.mode == "hosted":
        assert (outcome["ok"], outcome["error"]["code"]) == (False, "unsupported"), outcome


def test_the_webhook_push_names_the_pushed_commit_as_a_github_source() -> None:
    from rhumbline.tools.ingest import IngestInput
    from rhumbline.webhooks import reingest

    arguments = reingest.ingest_arguments("acme/shop", SHA)
    assert arguments == {"project": "acme/shop", "source": f"github:acme/shop@{SHA}"}
    IngestInput.model_validate(arguments)


def git_checkout(root: Path) -> str:
    import subprocess

    (root / "shop").mkdir(parents=True)
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "cart.py").write_text(CART)
    (root / "shop" / "pricing.py").write_text(PRICING)
    (root / "node_modules" / "dep").mkdir(parents=True)
    (root / "node_modules" / "dep" / "index.js").write_text("module.exports = 1\n")
    (root / ".gitignore").write_text("ignored.py\n")
    (root / "ignored.py").write_text("x = 1\n")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x",
           "HOME": str(root), "PATH": "/usr/bin:/bin"}  # fmt: skip
    for command in (["git", "init", "-q"], ["git", "add", "shop", ".gitignore"], ["git", "commit", "-qm", "init"]):
        subprocess.run(command, cwd=root, env=env, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True, capture_output=True, text=True).stdout.strip()


def test_publish_packs_by_the_walk_rules_uploads_and_asks_for_an_ingest(call, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from moto import mock_aws

    from rhumbline import publish

    checkout = tmp_path / "shop-checkout"
    sha = git_checkout(checkout)
    data, commit, files = publish.pack(checkout)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        names = sorted(tar.getnames())
    assert commit == sha
    # The ingester's rules: node_modules and .gitignore'd files stay behind.
    assert names == [f"shop-checkout-{sha}/{path}" for path in (".gitignore", "shop/__init__.py", "shop/cart.py", "shop/pricing.py")]
    assert files == 4

    asked: list[tuple[str, str, dict]] = []

    def fake_call_ingest(endpoint: str, token: str, arguments: dict, **kwargs) -> dict:  # type: ignore[no-untyped-def]
        asked.append((endpoint, token, arguments))
        outcome = call("ingest", arguments)
        assert outcome["ok"], outcome
        return outcome["result"]

    monkeypatch.setattr(publish, "call_ingest", fake_call_ingest)
    for name, value in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        import boto3

        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="ci-sources")
        outcome = publish.publish(checkout, endpoint="https://mcp.example/mcp", token="rl_tok", project="acme/shop", bucket="ci-sources")
    source = f"s3://ci-sources/rhumbline/acme/shop/{sha}.tar.gz"
    assert asked == [("https://mcp.example/mcp", "rl_tok", {"source": source, "project": "acme/shop"})]
    assert (outcome["source"], outcome["commit"]) == (source, sha)
    assert (outcome["result"]["commit"], outcome["result"]["status"]) == (sha, "completed")
    assert call.graph.get_node("acme/shop", "function:shop/pricing.py:price_of") is not None


def test_publish_cli_needs_a_token(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from rhumbline.cli import main

    monkeypatch.delenv("RHUMBLINE_TOKEN", raising=False)
    code = main(["publish", str(tmp_path), "--endpoint", "https://x/mcp", "--project", "acme/shop", "--bucket", "b"])
    assert code == 1
    assert "--token (or RHUMBLINE_TOKEN) is required" in capsys.readouterr().err

"""A review world on both deployment shapes, shared by tests/functional/reviews and .../webhooks.

- embedded: SQLite relational store + SQLite graph (the local default);
- production: PostgreSQL + Neo4j (what the SAM stack runs).

Everything goes through the real code: tools through `rhumbline.runtime.handler.handle` with a real
ToolInvocation, GitHub deliveries through `rhumbline.webhooks.handler.handle` with a real API
Gateway payload-2.0 event (built by the local stand-in's `build_event`) signed with a real HMAC.
Two repositories with their own projects exist; tokens see only what each test gives them.
"""

from __future__ import annotations

import copy
import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime import resources
from rhumbline.runtime.context import Stores
from rhumbline.runtime.handler import handle as handle_tool
from rhumbline.stores.graph.protocol import GraphStore

PAYLOADS = Path(__file__).resolve().parents[1] / "webhooks" / "payloads"
DEFAULT_SECRET = "It's a Secret to Everybody"
OTHER_SECRET = "the-other-repository-has-its-own-secret"
BOT = "rhumbline-reviewer[bot]"


def payload(name: str, repo: str, **changes: Any) -> dict[str, Any]:
    """A GitHub payload fixture re-aimed at `repo`. `changes` are dotted paths → values,
    e.g. {"pull_request.number": 7}."""
    document = copy.deepcopy(json.loads((PAYLOADS / f"{name}.json").read_text()))
    _rename_repository(document, repo)
    for dotted, value in changes.items():
        target = document
        *parents, leaf = dotted.split(".")
        for part in parents:
            target = target[part]
        target[leaf] = value
    return document


def _rename_repository(value: Any, repo: str) -> None:
    if isinstance(value, dict):
        if "full_name" in value and "default_branch" in value:
            value["full_name"] = repo
            value["name"] = repo.split("/", 1)[1]
        for item in value.values():
            _rename_repository(item, repo)
    elif isinstance(value, list):
        for item in value:
            _rename_repository(item, repo)


def github_event(
    event: str | None,
    body: bytes,
    *,
    secret: str | None = DEFAULT_SECRET,
    delivery: str | None = None,
    signature: str | None = None,
    content_type: str = "application/json",
) -> dict[str, Any]:
    """The API Gateway (payload 2.0) event for one GitHub delivery, as the local stand-in builds it."""
    from rhumbline.local.apigw import HttpRequest, build_event
    from rhumbline.webhooks.signature import sign

    headers = [("content-type", content_type), ("user-agent", "GitHub-Hookshot/a1b2c3d")]
    if event is not None:
        headers.append(("x-github-event", event))
    headers.append(("x-github-delivery", delivery if delivery is not None else str(uuid.uuid4())))
    if signature is None and secret is not None:
        signature = sign(secret, body)
    if signature is not None:
        headers.append(("x-hub-signature-256", signature))
    request = HttpRequest(method="POST", path="/webhooks/github", headers=headers, body=body)
    return build_event(request, route_key="POST /webhooks/github")


@dataclass
class Answer:
    status: int
    body: dict[str, Any]


@dataclass
class ReviewWorld:
    shape: str
    repo: str
    other_repo: str
    call: Callable[..., dict]
    deliver: Callable[..., Answer]
    graph: Callable[[], GraphStore]
    # What a tool call reaches: the container's stores (the webhook's too), unless a test gives others.
    stores: Stores | None = None

    def db(self):  # type: ignore[no-untyped-def]
        from rhumbline.stores.relational.session import session_scope

        return session_scope(resources.relational_engine())


def caller(projects, scopes) -> dict:  # type: ignore[no-untyped-def]
    return {"principal": "ci-reviewer", "token_id": "tk_test", "projects": list(projects), "scopes": list(scopes)}


@pytest.fixture
def fake_github() -> Iterator[Any]:
    from tests.functional.reviews.fake_github import serving

    with serving() as fake:
        yield fake


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on: a graph store pointed there is unreachable."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def graph_down(review_world: "ReviewWorld", closed_port: int) -> Callable[[], int]:
    """From when it is called, the world's tool calls reach as their graph store a Neo4j at a closed
    port (given up on in a second); the relational store stays the world's. Returns the port."""
    from dataclasses import replace

    from rhumbline.config import load_settings
    from rhumbline.stores.graph.factory import open_graph_store

    unreachable = replace(
        load_settings(), graph_backend="neo4j", neo4j_uri=f"bolt://127.0.0.1:{closed_port}", neo4j_password="unused",
        neo4j_secret_arn="", graph_timeout=1,
    )  # fmt: skip

    def down() -> int:
        review_world.stores = replace(resources.stores(), graph=lambda: open_graph_store(unreachable))
        return closed_port

    return down


@pytest.fixture(scope="session")
def reviews_database_url(postgres_url: str) -> Iterator[str]:
    from tests.pg_database import fresh_database_url

    url, drop = fresh_database_url(postgres_url, f"rhumbline_reviews_{uuid.uuid4().hex[:8]}")
    yield url
    drop()


def configure_shape(request: pytest.FixtureRequest, shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", "local")
    if shape == "embedded":
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", f"sqlite:///{tmp_path / 'rhumbline.sqlite3'}")
        monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
        monkeypatch.setenv("RHUMBLINE_GRAPH_PATH", str(tmp_path / "graph.sqlite3"))
    else:
        neo4j = request.getfixturevalue("neo4j_server")
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", request.getfixturevalue("reviews_database_url"))
        monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "neo4j")
        monkeypatch.setenv("RHUMBLINE_NEO4J_URI", neo4j["uri"])
        monkeypatch.setenv("RHUMBLINE_NEO4J_USER", neo4j["user"])
        monkeypatch.setenv("RHUMBLINE_NEO4J_PASSWORD", neo4j["password"])


@pytest.fixture(params=["embedded", "production"])
def review_world(request, tmp_path, monkeypatch) -> Iterator[ReviewWorld]:  # type: ignore[no-untyped-def]
    suffix = uuid.uuid4().hex[:10]
    repo, other = f"acme/shop{suffix}", f"rival/shop{suffix}"
    configure_shape(request, request.param, tmp_path, monkeypatch)
    # The PR files a pull_request event makes the webhook read come from a fake GitHub API.
    github = request.getfixturevalue("fake_github")
    monkeypatch.setenv("RHUMBLINE_GITHUB_API_URL", github.url)
    monkeypatch.delenv("RHUMBLINE_GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("RHUMBLINE_GITHUB_TOKEN_SECRET_ARN", raising=False)
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRETS", json.dumps({"default": DEFAULT_SECRET, other: OTHER_SECRET}))
    monkeypatch.delenv("RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN", raising=False)
    monkeypatch.setenv("RHUMBLINE_REVIEW_BOT_LOGINS", f"{BOT}, second-bot")
    resources.reset()

    from rhumbline.stores.relational import migrate, projects

    migrate.upgrade(resources.relational_engine())
    from rhumbline.stores.relational.session import session_scope

    with session_scope(resources.relational_engine()) as session:
        projects.get_or_create(session, repo)
        projects.get_or_create(session, other)

    def call(tool: str, arguments: dict, *, projects=(repo,), scopes=("read",)) -> dict:  # type: ignore[no-untyped-def]
        return handle_tool(
            tool,
            {
                "contract": INVOCATION_CONTRACT,
                "tool": tool,
                "arguments": arguments,
                "caller": caller(projects, scopes),
                "request_id": f"req-{uuid.uuid4().hex[:8]}",
                "deadline_ms": int((time.time() + 30) * 1000),
            },
            world.stores,
        )

    def deliver(event: str | None, document: Any, **options: Any) -> Answer:
        from rhumbline.webhooks.handler import handle as handle_webhook

        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        answer = handle_webhook(github_event(event, body, **options))
        return Answer(answer["statusCode"], json.loads(answer["body"]))

    from rhumbline.config import load_settings

    # Kept to clean up with: a test may point the graph at a closed port.
    original = load_settings()
    world = ReviewWorld(request.param, repo, other, call, deliver, resources.graph_store)
    try:
        yield world
    finally:
        from rhumbline.webhooks import pr_files

        pr_files.drain(10)  # a job still reading must not outlive the world it writes to
        resources.reset()
        from rhumbline.stores.graph.factory import open_graph_store

        graph = open_graph_store(original)
        try:
            for slug in (repo, other, repo.replace("acme/", "newco/")):
                graph.delete_project(slug)
        finally:
            graph.close()

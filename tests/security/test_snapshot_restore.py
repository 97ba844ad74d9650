"""SnapStart: one snapshot of a function's init is restored into many containers, so nothing of one
container's own may survive a restore (rhumbline/runtime/snapshot.py): no connection, no
Secrets Manager client or cached secret, no shared random sequence. The hooks run as Lambda's
runtime runs them, through `snapshot_restore_py` (the runtime's own registry, installed for tests).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import snapshot_restore_py
from sqlalchemy import create_engine, text

from tests.stores import neo4j_environment, sqlite_url

from rhumbline import secrets
from rhumbline.config import settings
from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime import resources, snapshot
from rhumbline.runtime.handler import handle

ROOT = Path(__file__).resolve().parents[2]


def run_after_restore_hooks() -> None:
    """What the runtime does once a container is resumed from the snapshot."""
    for function, args, kwargs in snapshot_restore_py.get_after_restore():
        function(*args, **kwargs)


def backend_connections(url: str) -> int:
    """Sessions of other clients on this database, counted by PostgreSQL itself."""
    engine = create_engine(url.replace("postgresql://", "postgresql+pg8000://", 1) if url.startswith("postgresql://") else url)
    try:
        with engine.connect() as connection:
            query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            return int(connection.execute(text(query)).scalar_one())
    finally:
        engine.dispose()


@pytest.fixture(params=["embedded", "production"])
def container(request, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], dict]]:
    """A tool function's container, configured as the environment of a deployment names its stores
    (this test is about the container's own stores): a `list_projects` call through the handler."""
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", "local")
    if request.param == "embedded":
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", sqlite_url(tmp_path))
        monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
        monkeypatch.setenv("RHUMBLINE_GRAPH_PATH", str(tmp_path / "graph.sqlite3"))
    else:
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", request.getfixturevalue("tools_database_url"))
        for name, value in neo4j_environment(request.getfixturevalue("neo4j_server")).items():
            monkeypatch.setenv(name, value)
    resources.reset()

    def call() -> dict:
        invocation = {
            "contract": INVOCATION_CONTRACT, "tool": "list_projects", "arguments": {}, "request_id": "req-restore",
            "caller": {"principal": "tester", "token_id": "tk_test", "projects": ["*"], "scopes": ["read"]},
            "deadline_ms": int((time.time() + 30) * 1000),
        }  # fmt: skip
        return handle("list_projects", invocation)

    yield call
    resources.reset()


def test_after_restore_closes_what_a_call_before_the_snapshot_opened(container: Callable[[], dict]) -> None:
    assert snapshot.register() is True  # the registry is there: the hook is registered with it
    assert sum(function is snapshot.after_restore for function, _, _ in snapshot_restore_py.get_after_restore()) == 1
    assert container()["ok"] is True  # opens the relational engine and the graph store
    engine, graph, current = resources.relational_engine(), resources.graph_store(), settings()
    postgres = engine.dialect.name == "postgresql"
    if postgres:
        assert backend_connections(str(os.environ["RHUMBLINE_DATABASE_URL"])) >= 1

    run_after_restore_hooks()

    if postgres:
        # Every connection the snapshot would have carried is closed on the server's side too.
        assert backend_connections(str(os.environ["RHUMBLINE_DATABASE_URL"])) == 0
    assert resources.relational_engine() is not engine
    assert resources.graph_store() is not graph
    assert settings() is not current
    assert container()["ok"] is True  # the next call opens its own


def test_after_restore_forgets_the_secrets_client_and_its_cached_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    provider = secrets.secrets_provider()
    assert secrets.secrets_provider() is provider  # one per container, cached values with it
    snapshot.after_restore()
    assert secrets.secrets_provider() is not provider


def test_restored_copies_of_one_snapshot_draw_different_random_numbers() -> None:
    """Two containers resumed from one snapshot start from the same generator state."""
    in_snapshot = random.getstate()
    draws = []
    for _ in range(2):
        random.setstate(in_snapshot)
        snapshot.after_restore()
        draws.append([random.random() for _ in range(4)])
    assert draws[0] != draws[1]


# The gateway's init as Lambda runs it with SnapStart: import, the before-snapshot hooks (what the
# first call would load, loaded now, opening nothing), then a restore.
GATEWAY_SNAPSHOT = """
import json, sys
import snapshot_restore_py
from importlib.util import module_from_spec, spec_from_file_location
spec = spec_from_file_location("app", sys.argv[1])
app = module_from_spec(spec)
spec.loader.exec_module(app)
from rhumbline.runtime import resources
at_init = "sqlalchemy" in sys.modules
before = snapshot_restore_py.get_before_snapshot()
while before:
    function, args, kwargs = before.pop()  # the runtime runs them last registered first
    function(*args, **kwargs)
loaded = "sqlalchemy" in sys.modules and "rhumbline.gateway.meter" in sys.modules
opened = [resources._engine is not None, resources._autocommit_engine is not None, resources._graph is not None]
restored = [function.__qualname__ for function, _, _ in snapshot_restore_py.get_after_restore()]
print(json.dumps({"at_init": at_init, "loaded": loaded, "opened": opened, "after_restore": restored}))
"""


def test_the_gateway_loads_before_the_snapshot_what_its_first_call_needs_and_opens_nothing() -> None:
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("RHUMBLINE_")},
        "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
        "POWERTOOLS_TRACE_DISABLED": "1", "RHUMBLINE_MODE": "hosted", "RHUMBLINE_GRAPH_BACKEND": "neo4j",
        "RHUMBLINE_DISPATCH": "lambda", "RHUMBLINE_TOOL_FUNCTION_PREFIX": "stack-tool-",
        "RHUMBLINE_DATABASE_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbCdEf",
        "RHUMBLINE_NEO4J_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:neo4j-AbCdEf",
    }  # fmt: skip
    entry = str(ROOT / "functions" / "gateway" / "app.py")
    done = subprocess.run([sys.executable, "-c", GATEWAY_SNAPSHOT, entry], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"at_init": False, "loaded": True, "opened": [False, False, False], "after_restore": ["after_restore"]}

from __future__ import annotations

import sys
from dataclasses import replace
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.functional.gateway.gateway_harness import ADMIN_SPEC, ECHO_SPEC, Gateway, tool_module
from tests.stores import embedded_stores, refuse_container_stores

from rhumbline.config import settings
from rhumbline.gateway.audit import AuditLog, RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import Dispatcher, InProcessDispatcher
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.server import build_gateway_app
from rhumbline.runtime import resources
from rhumbline.runtime.context import Stores
from rhumbline.runtime.spec import all_specs


@pytest.fixture
def gateway_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stores]:
    """A real embedded store (SQLite) in tmp_path/home, migrated: what a gateway `make_gateway`
    builds meters, audits and dispatches in-process with. The container's are out of reach."""
    # Configuration, not a store: where a local tool keeps its cursor secret and locks.
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RHUMBLINE_MODE", raising=False)
    refuse_container_stores(monkeypatch)
    with embedded_stores(tmp_path / "home") as stores:
        yield stores


def unreachable_relational(stores: Stores) -> Stores:
    """`stores` with a relational store that cannot exist (its parent is a device, not a directory):
    every reach of it fails, as an unreachable database does."""
    from rhumbline.stores.relational.engine import create_engine_from_url

    def reach() -> Any:
        return create_engine_from_url("sqlite:////dev/null/unwritable/rhumbline.sqlite3")

    return replace(stores, relational=reach, autocommit=reach)


@pytest.fixture
def local_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real embedded store (SQLite) in tmp_path, migrated, named by the environment: for the entry
    points (functions/gateway/app.py) that open the container's stores (runtime/resources.py)."""
    from rhumbline.stores.relational import migrate

    home = tmp_path / "home"
    monkeypatch.setenv("RHUMBLINE_HOME", str(home))
    monkeypatch.setenv("RHUMBLINE_DATABASE_URL", f"sqlite:///{home / 'rhumbline.sqlite3'}")
    monkeypatch.delenv("RHUMBLINE_MODE", raising=False)
    monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
    resources.reset()
    migrate.upgrade(resources.relational_engine())
    yield home
    resources.reset()


def audit_log(engine: Any) -> list[Any]:
    """The audit log in `engine`'s store, oldest first."""
    from rhumbline.stores.relational import audit
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        return list(reversed(audit.recent(session, limit=1000)))


@pytest.fixture
def audit_rows(gateway_stores: Stores) -> Callable[[], list[Any]]:
    """The audit log of `make_gateway`'s gateways, oldest first."""
    return lambda: audit_log(gateway_stores.relational())


@pytest.fixture
def echo_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Add the echo test-double tools to the real ones: their modules, as if in rhumbline.tools."""
    for spec in (ECHO_SPEC, ADMIN_SPEC):
        module = tool_module(spec)
        monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr("rhumbline.gateway.catalog.all_specs", lambda: [*all_specs(), ECHO_SPEC, ADMIN_SPEC])


@pytest.fixture
def make_gateway(gateway_stores: Stores) -> Iterator[Callable[..., Gateway]]:
    """Build a gateway handler (own container) around a dispatcher, as lambda_entry does, with
    `stores` (default: gateway_stores) for its meter, audit log and in-process tools.

    Hosted by default: the events carry API Gateway's Host, which local mode refuses (421).
    """
    containers: list[GatewayContainer] = []

    def build(
        dispatcher: Dispatcher | None = None, *, tool_timeout: float = 10.0, mode: str = "hosted",
        stores: Stores | None = None, audit_log: AuditLog | None = None, **options: Any,
    ) -> Gateway:
        stores = stores or gateway_stores
        # An in-process dispatcher the test made without stores runs its tools against the gateway's.
        if isinstance(dispatcher, InProcessDispatcher) and dispatcher.stores is None:
            dispatcher.stores = stores
        catalog = Catalog.from_registry()
        calls = ToolCalls(
            catalog, dispatcher or InProcessDispatcher(stores), audit_log or RelationalAuditLog(stores),
            RelationalMeter(stores), tool_timeout=tool_timeout, **options,
        )  # fmt: skip
        gateway_settings = replace(settings(), mode=mode)
        container = GatewayContainer(*build_gateway_app(gateway_settings, catalog, calls)).start()
        containers.append(container)
        return Gateway(container.lambda_handler(), stores)

    yield build
    for container in containers:
        container.stop()

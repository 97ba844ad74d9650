from __future__ import annotations

import sys
from dataclasses import replace
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.functional.gateway.gateway_harness import ADMIN_SPEC, ECHO_SPEC, tool_module

from rhumbline.config import settings
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import Dispatcher, InProcessDispatcher
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.server import build_gateway_app
from rhumbline.runtime import resources
from rhumbline.runtime.spec import all_specs


@pytest.fixture
def local_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real embedded store (SQLite) in tmp_path, migrated, used through rhumbline.runtime.resources."""
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


@pytest.fixture
def audit_rows(local_store: Path) -> Callable[[], list[Any]]:
    """The audit log, oldest first."""
    from rhumbline.stores.relational import audit
    from rhumbline.stores.relational.session import session_scope

    def rows() -> list[Any]:
        with session_scope(resources.relational_engine()) as session:
            return list(reversed(audit.recent(session, limit=1000)))

    return rows


@pytest.fixture
def echo_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Add the echo test-double tools to the real ones: their modules, as if in rhumbline.tools."""
    for spec in (ECHO_SPEC, ADMIN_SPEC):
        module = tool_module(spec)
        monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr("rhumbline.gateway.catalog.all_specs", lambda: [*all_specs(), ECHO_SPEC, ADMIN_SPEC])


@pytest.fixture
def make_gateway(local_store: Path) -> Iterator[Callable[..., Callable[[dict, Any], dict]]]:
    """Build a gateway handler (own container) around a dispatcher, as lambda_entry does.

    Hosted by default: the events carry API Gateway's Host, which local mode refuses (421).
    """
    containers: list[GatewayContainer] = []

    def build(
        dispatcher: Dispatcher | None = None, *, tool_timeout: float = 10.0, mode: str = "hosted", **options: Any
    ) -> Callable[[dict, Any], dict]:
        catalog = Catalog.from_registry()
        calls = ToolCalls(
            catalog, dispatcher or InProcessDispatcher(), RelationalAuditLog(resources.stores()), RelationalMeter(resources.stores()),
            tool_timeout=tool_timeout, **options,
        )  # fmt: skip
        gateway_settings = replace(settings(), mode=mode)
        container = GatewayContainer(*build_gateway_app(gateway_settings, catalog, calls)).start()
        containers.append(container)
        return container.lambda_handler()

    yield build
    for container in containers:
        container.stop()

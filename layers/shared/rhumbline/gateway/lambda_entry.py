"""The gateway Lambda's entry point: `functions/gateway/app.py` re-exports `handler`.

Everything is built at import, during the Lambda init phase: the tool catalog, the dispatcher, the
MCP server and its session manager (started once on the container's own loop). A warm invocation
only converts the event and serves one request. The meter is built by the first request it admits:
its modules bring the relational store (SQLAlchemy), the largest import a request may never need;
with SnapStart they are loaded before the snapshot instead (runtime/snapshot.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from rhumbline.config import settings
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import dispatcher_from_environment
from rhumbline.gateway.server import build_gateway_app
from rhumbline.observability import lambda_entry
from rhumbline.runtime import resources, snapshot

if TYPE_CHECKING:
    from rhumbline.config import Settings
    from rhumbline.gateway.meter import Meter


class BuiltOnFirstUse:
    """Stands for what `build` returns, built (once, whichever thread comes first) when one of its
    attributes is first used: the meter's modules load the relational store (SQLAlchemy), which
    no request needs before its first admission."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._built: Any = None
        self._lock = threading.Lock()

    def built(self) -> Any:
        with self._lock:
            if self._built is None:
                self._built = self._build()
            return self._built

    def __getattr__(self, name: str) -> Any:
        return getattr(self.built(), name)


def relational_meter(current: "Settings") -> "Meter":
    from rhumbline.gateway.meter import RelationalMeter

    return RelationalMeter.from_settings(current, resources.stores())


def build_container() -> GatewayContainer:
    current = settings()
    catalog = Catalog.from_registry()
    meter = BuiltOnFirstUse(lambda: relational_meter(current))
    tool_calls = ToolCalls(
        catalog,
        dispatcher_from_environment(current),
        RelationalAuditLog(resources.stores()),
        cast("Meter", meter),
        tool_timeout=current.tool_timeout,
    )
    app, session_manager = build_gateway_app(current, catalog, tool_calls)
    # With SnapStart, what the first call would load is loaded before the snapshot instead.
    snapshot.before_snapshot(meter.built, load_call_modules)
    return GatewayContainer(app, session_manager).start()


def load_call_modules() -> None:
    """What a tools/call loads beyond init: the audit row's and the refusal's modules."""
    import rhumbline.gateway.meter  # noqa: F401
    import rhumbline.stores.relational.audit  # noqa: F401
    import rhumbline.stores.relational.usage  # noqa: F401


container = build_container()
handler = lambda_entry(container.lambda_handler(), function="gateway", trace=True)

"""The SDK's OpenTelemetry middleware is kept only when a tracer provider is installed."""

from __future__ import annotations

import pytest
from opentelemetry import trace

from rhumbline.gateway import server
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.dispatch import InProcessDispatcher
from rhumbline.gateway.throttle import RequestThrottle
from rhumbline.gateway.tool_list import ToolListCache


class RecordingProvider(trace.TracerProvider):
    """Stands for an SDK provider (the layer ships only the API): anything but the API's default."""

    def get_tracer(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return trace.NoOpTracer()


class NoAudit:
    def write(self, entry) -> None:  # type: ignore[no-untyped-def]
        pass


def middleware_names() -> list[str]:
    catalog = Catalog.from_registry()
    calls = ToolCalls(catalog, InProcessDispatcher(), NoAudit(), meter=None, tool_timeout=5.0)  # type: ignore[arg-type]
    return [type(m).__name__ for m in server.build_mcp_server(catalog, calls).middleware]


def test_without_a_tracer_provider_the_sdk_span_middleware_is_dropped() -> None:
    assert not server.tracing_configured()
    assert middleware_names() == [RequestThrottle.__name__, ToolListCache.__name__]


def test_with_a_tracer_provider_the_sdk_span_middleware_stays_outermost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: RecordingProvider())
    assert server.tracing_configured()
    assert middleware_names() == [server.SDK_TRACING_MIDDLEWARE, RequestThrottle.__name__, ToolListCache.__name__]

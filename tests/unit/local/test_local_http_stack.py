"""`rhumbline serve` runs uvicorn on httptools and uvloop when installed, and says so when not."""

from __future__ import annotations

import os
from typing import Any

import pytest

from rhumbline.local import http_stack, server
from rhumbline.local.http_stack import choose_http_stack
from rhumbline.local.template import Template


def test_the_c_parser_and_libuv_loop_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_stack, "_installed", lambda module: True)
    stack = choose_http_stack()
    assert (stack.http, stack.loop, stack.missing) == ("httptools", "uvloop", ())
    assert stack.fallback_note() is None


@pytest.mark.parametrize(
    ("absent", "http", "loop"),
    [({"httptools"}, "h11", "uvloop"), ({"uvloop"}, "httptools", "asyncio"), ({"httptools", "uvloop"}, "h11", "asyncio")],
)
def test_a_missing_package_falls_back_and_is_named(
    monkeypatch: pytest.MonkeyPatch, absent: set[str], http: str, loop: str
) -> None:
    monkeypatch.setattr(http_stack, "_installed", lambda module: module not in absent)
    stack = choose_http_stack()
    assert (stack.http, stack.loop) == (http, loop)
    note = stack.fallback_note()
    assert note is not None and all(name in note for name in absent)
    assert f"uvicorn's {http} parser and the {loop} event loop" in note


def test_the_extras_install_both() -> None:
    # `scripts/up` and `scripts/test` build the venv from these extras; the suite runs what serve runs.
    assert choose_http_stack().missing == ()


def test_serve_hands_the_choice_and_a_freezing_api_to_uvicorn(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import uvicorn

    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: seen.update(app=app, **options))
    monkeypatch.setattr(server, "configure_dispatch", lambda *arguments: None)
    monkeypatch.setattr(http_stack, "_installed", lambda module: module != "uvloop")
    for name in ("POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_LOG_LEVEL"):
        # Recorded as absent first, so the defaults serve writes into os.environ are undone after
        # the test: left behind, a WARNING level silenced the INFO lines later tests look for.
        monkeypatch.setenv(name, "unset")
        monkeypatch.delenv(name)
    template = Template(path=tmp_path / "template.yaml", functions={}, routes=[])
    server.serve(template, port=9999)
    assert (seen["http"], seen["loop"], seen["port"]) == ("httptools", "asyncio", 9999)
    assert (os.environ["POWERTOOLS_METRICS_DISABLED"], os.environ["POWERTOOLS_LOG_LEVEL"]) == ("true", "WARNING")
    assert isinstance(seen["app"], server.LocalApi) and seen["app"].freeze_heap

"""Cursors: the local secret file, and what a cursor binds (rhumbline.tools.cursors)."""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import pytest

from rhumbline.config import settings
from rhumbline.tools import cursors


def _context(token_id: str = "tk_a") -> SimpleNamespace:
    return SimpleNamespace(caller=SimpleNamespace(token_id=token_id))


@pytest.fixture(autouse=True)
def _local_home(tmp_path, monkeypatch):
    monkeypatch.delenv(cursors.SECRET_VARIABLE, raising=False)
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", "local")
    settings.cache_clear()
    cursors._cache.clear()
    yield
    settings.cache_clear()
    cursors._cache.clear()


def test_a_local_secret_is_made_once_with_mode_0600(tmp_path) -> None:
    cursor = cursors.issue(_context(), "t", {"a": 1}, {"offset": 5})
    path = tmp_path / "home" / cursors.SECRET_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    first = path.read_bytes()
    cursors._cache.clear()  # a restarted server reads the same secret: old cursors still work
    assert cursors.read(_context(), "t", {"a": 1}, cursor) == {"offset": 5}
    assert path.read_bytes() == first


def test_the_environment_secret_wins_and_must_be_long(monkeypatch) -> None:
    monkeypatch.setenv(cursors.SECRET_VARIABLE, "k" * 40)
    cursor = cursors.issue(_context(), "t", {}, {"offset": 1})
    monkeypatch.setenv(cursors.SECRET_VARIABLE, "j" * 40)  # a rotated key refuses old cursors
    with pytest.raises(cursors.InvalidCursor) as refused:
        cursors.read(_context(), "t", {}, cursor)
    assert refused.value.details == {"reason": "tampered"}
    monkeypatch.setenv(cursors.SECRET_VARIABLE, "short")
    with pytest.raises(Exception, match="at least 32"):
        cursors.issue(_context(), "t", {}, {})


def test_hosted_without_a_secret_refuses_to_issue(monkeypatch) -> None:
    monkeypatch.setenv("RHUMBLINE_MODE", "hosted")
    settings.cache_clear()
    with pytest.raises(Exception, match="RHUMBLINE_CURSOR_SECRET is not set"):
        cursors.issue(_context(), "t", {}, {})


@pytest.mark.parametrize(
    ("context", "tool", "query", "version", "reason"),
    [
        (_context("tk_b"), "t", {"a": 1}, None, "foreign_caller"),
        (_context(), "other_tool", {"a": 1}, None, "other_query"),
        (_context(), "t", {"a": 2}, None, "other_query"),
        (_context(), "t", {"a": 1}, 3, "graph_changed"),
    ],
)
def test_a_cursor_is_bound_to_caller_query_and_graph(context, tool, query, version, reason) -> None:
    cursor = cursors.issue(_context(), "t", {"a": 1}, {"offset": 5})
    with pytest.raises(cursors.InvalidCursor) as refused:
        cursors.read(context, tool, query, cursor, graph_version=version)
    assert refused.value.details == {"reason": reason}
    assert refused.value.code == "invalid_arguments"


"""The first nodes' search text computed by a helper process while phase 2 resolves
(ingest/texts_early.py): which nodes it is given, the text it sends back, and the stored rows of
a clearing ingest, the same with and without it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import forked
from rhumbline.ingest import texts_early
from rhumbline.ingest.build import build_graph
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph import sqlite_sql as sql
from rhumbline.stores.graph import texts_ahead
from rhumbline.stores.graph.protocol import Node
from rhumbline.stores.graph.sqlite_store import SqliteGraphStore
from rhumbline.stores.graph.texts_ahead import write_order
from rhumbline.stores.graph.words import node_text_values

PROJECT = "acme/texts-early"
# Built before anything is resolved: the structure and every Python definition.
FIRST_KINDS = {"Repository", "Directory", "File", "Module", "Class", "Function", "Method", "Variable"}


def test_phase_2_hands_over_its_first_nodes_before_resolving(pyproj: Path) -> None:
    handed: list[list[Node]] = []
    built = build_graph(pyproj, PROJECT, history=False, defined=handed.append)
    assert len(handed) == 1
    first = handed[0]
    assert 0 < len(first) < len(built.nodes)
    assert all(a is b for a, b in zip(first, built.nodes, strict=False))  # the very objects, in order
    assert {n.kind for n in first} <= FIRST_KINDS
    assert {"Module", "Class", "Method"} <= {n.kind for n in first}
    assert {"Import", "Decorator"} & {n.kind for n in built.nodes[len(first) :]}


def test_the_child_sends_the_text_of_the_nodes_in_write_order(pyproj: Path) -> None:
    hook = texts_early.Hook()
    built = build_graph(pyproj, PROJECT, history=False, defined=hook)
    found = hook.result()
    assert found is not None
    nodes, texts = found
    assert nodes and all(a is b for a, b in zip(nodes, built.nodes, strict=False))
    assert texts == [node_text_values(n.name, n.qualified_name, n.file, n.docstring) for n in nodes]
    assert hook.result() is None  # taken once


def test_no_helper_or_a_failed_one_leaves_the_text_to_the_write(
    pyproj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unused = texts_early.Hook()
    assert unused.result() is None  # phase 2 never called it: the helper is stopped
    monkeypatch.setattr(forked, "room_for", lambda copies: False)
    hook = texts_early.Hook()
    build_graph(pyproj, PROJECT, history=False, defined=hook)
    assert hook.result() is None
    monkeypatch.undo()

    def dies(*_args: object) -> None:
        raise SystemExit(3)

    monkeypatch.setattr(texts_early, "_serve", dies)
    hook = texts_early.Hook()
    build_graph(pyproj, PROJECT, history=False, defined=hook)  # the send may find it gone
    assert hook.result() is None
    hook.close()  # idempotent after the result


def test_a_hook_closed_before_phase_2_stops_its_helper(pyproj: Path) -> None:
    """A failed ingest closes the hook: the helper waiting for the nodes is stopped."""
    hook = texts_early.Hook()
    helper = hook._helper
    assert helper is not None and helper._process.is_alive()
    hook.close()
    assert not helper._process.is_alive()
    build_graph(pyproj, PROJECT, history=False, defined=hook)  # a closed hook ignores the call
    assert hook.result() is None


def _rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    found = conn.execute(f"SELECT rid, {', '.join(sql.NODE_COLUMNS)} FROM nodes ORDER BY rid").fetchall()
    found += conn.execute("SELECT * FROM edges ORDER BY source, relation, target").fetchall()
    found += conn.execute("SELECT rowid, * FROM node_fts ORDER BY rowid").fetchall()
    conn.close()
    return found


def test_a_clearing_ingest_writes_the_first_nodes_with_their_text_from_the_child(
    pyproj: Path, engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    known: list[int] = []
    real_own = texts_ahead.TextsAhead.own

    def own(self: texts_ahead.TextsAhead, nodes: list[Node]) -> list:
        found = real_own(self, nodes)
        known.append(sum(text is not None for text in found))
        return found

    monkeypatch.setattr(texts_ahead.TextsAhead, "own", own)
    store = SqliteGraphStore(tmp_path / "early.sqlite3")
    store.ensure_schema()
    ingest_local(pyproj, PROJECT, store=store, engine=engine, history=False)
    store.close()
    built = build_graph(pyproj, PROJECT, history=False)
    first = sum(1 for n in write_order(built.nodes).values() if n.kind in FIRST_KINDS)
    assert known == [first] and first > 0  # the write computed none of those itself

    monkeypatch.setattr(forked, "room_for", lambda copies: False)  # no child at all
    alone = SqliteGraphStore(tmp_path / "alone.sqlite3")
    alone.ensure_schema()
    ingest_local(pyproj, PROJECT, store=alone, engine=engine, history=False, clear=True)
    alone.close()
    assert _rows(tmp_path / "early.sqlite3") == _rows(tmp_path / "alone.sqlite3")

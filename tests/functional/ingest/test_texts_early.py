"""The nodes' search text computed by a helper process (ingest/texts_early.py): the first nodes'
while phase 2 resolves, the others' once it is done. Which nodes it is given, the text it sends
back, and the stored rows of a clearing ingest, the same with and without it."""

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


def _text(node: Node) -> tuple[str, ...]:
    return node_text_values(node.name, node.qualified_name, node.file, node.docstring)


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


def test_the_helper_sends_the_text_of_the_first_nodes_then_of_the_others(pyproj: Path) -> None:
    hook = texts_early.Hook()
    built = build_graph(pyproj, PROJECT, history=False, defined=hook)
    texts = hook.finish(built.nodes)
    assert texts is not None
    latest = list(write_order(built.nodes).values())
    start = texts.start(len(latest))
    assert 0 < start < len(latest) and all(n.kind in FIRST_KINDS for n in latest[:start])
    assert texts.own(latest[:start]) == [_text(n) for n in latest[:start]]
    assert texts.take(latest) == [_text(n) for n in latest[start:]]
    hook.close()  # idempotent once the text is taken


def test_no_helper_or_a_failed_one_leaves_the_text_to_the_write(
    pyproj: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unused = texts_early.Hook()
    assert unused.finish([]) is None  # phase 2 never handed it the first nodes: stopped
    monkeypatch.setattr(forked, "room_for", lambda copies: False)
    hook = texts_early.Hook()
    built = build_graph(pyproj, PROJECT, history=False, defined=hook)
    assert hook.finish(built.nodes) is None
    monkeypatch.undo()

    def dies(*_args: object) -> None:
        raise SystemExit(3)

    monkeypatch.setattr(texts_early, "_serve", dies)
    hook = texts_early.Hook()
    built = build_graph(pyproj, PROJECT, history=False, defined=hook)  # the send may find it gone
    assert hook.finish(built.nodes) is None
    hook.close()


def test_a_hook_closed_before_phase_2_stops_its_helper(pyproj: Path) -> None:
    """A failed ingest closes the hook: the helper waiting for the nodes is stopped."""
    hook = texts_early.Hook()
    helper = hook._helper
    assert helper is not None and helper._process.is_alive()
    hook.close()
    assert not helper._process.is_alive()
    built = build_graph(pyproj, PROJECT, history=False, defined=hook)  # a closed hook ignores it
    assert hook.finish(built.nodes) is None


def _rows(path: Path) -> list[tuple]:
    conn = sqlite3.connect(path)
    found = conn.execute(f"SELECT rid, {', '.join(sql.NODE_COLUMNS)} FROM nodes ORDER BY rid").fetchall()
    found += conn.execute("SELECT * FROM edges ORDER BY source, relation, target").fetchall()
    found += conn.execute("SELECT rowid, * FROM node_fts ORDER BY rowid").fetchall()
    conn.close()
    return found


def test_a_clearing_ingest_writes_every_node_with_its_text_from_the_helper(
    pyproj: Path, engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    known: list[int] = []
    real_own, real_take = texts_ahead.TextsAhead.own, texts_ahead.TextsAhead.take

    def own(self: texts_ahead.TextsAhead, nodes: list[Node]) -> list:
        found = real_own(self, nodes)
        known.append(sum(text is not None for text in found))
        return found

    def take(self: texts_ahead.TextsAhead, nodes: list[Node]) -> list | None:
        found = real_take(self, nodes)
        known.append(-1 if found is None else len(found))
        return found

    monkeypatch.setattr(texts_ahead.TextsAhead, "own", own)
    monkeypatch.setattr(texts_ahead.TextsAhead, "take", take)
    store = SqliteGraphStore(tmp_path / "early.sqlite3")
    store.ensure_schema()
    ingest_local(pyproj, PROJECT, store=store, engine=engine, history=False)
    store.close()
    latest = list(write_order(build_graph(pyproj, PROJECT, history=False).nodes).values())
    first = sum(1 for n in latest if n.kind in FIRST_KINDS)
    assert known == [first, len(latest) - first] and first > 0  # the write computed none

    monkeypatch.setattr(forked, "room_for", lambda copies: False)  # no helper, no child at all
    alone = SqliteGraphStore(tmp_path / "alone.sqlite3")
    alone.ensure_schema()
    ingest_local(pyproj, PROJECT, store=alone, engine=engine, history=False, clear=True)
    alone.close()
    assert _rows(tmp_path / "early.sqlite3") == _rows(tmp_path / "alone.sqlite3")


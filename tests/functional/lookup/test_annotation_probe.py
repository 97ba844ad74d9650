"""annotation_probe: the read tools' "any annotation here?" check on the pooled DBAPI connection,
on SQLite and PostgreSQL: it answers as the full read would, and leaves the pool as it found it."""

from __future__ import annotations

import uuid

from sqlalchemy import Engine, func, select

from rhumbline import annotations
from rhumbline.contract import Caller
from rhumbline.lookup.annotation_probe import any_annotation
from rhumbline.stores.graph.model import Node
from rhumbline.stores.relational import projects
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.session import session_scope

CALLER = Caller(principal="tester", token_id="tk_probe", projects=("*",), scopes=("write",))


def _slug() -> str:
    return f"probe/p{uuid.uuid4().hex[:10]}"


def _annotate(engine: Engine, project: str, node_id: str) -> None:
    with session_scope(engine) as session:
        node = Node(node_id, "Function", "f", "m.f")
        annotations.add(session, project, node, "Slow on big inputs.", ["perf"], CALLER)


def test_no_annotation_anywhere_in_a_project(engine: Engine) -> None:
    project = _slug()
    with session_scope(engine) as session:
        projects.get_or_create(session, project)
    assert any_annotation(engine, project, ["function:a.py:f"]) is False
    assert any_annotation(engine, project, ["function:a.py:f", "function:a.py:g"]) is False
    assert any_annotation(engine, project, []) is False
    assert any_annotation(engine, _slug(), ["function:a.py:f"]) is False  # no such project at all


def test_one_node_is_probed_by_its_id_several_by_their_project(engine: Engine) -> None:
    project, other = _slug(), _slug()
    _annotate(engine, project, "function:a.py:f")
    _annotate(engine, other, "function:a.py:g")
    assert any_annotation(engine, project, ["function:a.py:f"]) is True
    assert any_annotation(engine, project, ["function:a.py:g"]) is False  # g's note is the other project's
    assert any_annotation(engine, project, ["function:a.py:g", "function:a.py:g"]) is False  # one node, twice
    # Several nodes: the project has annotations, so the caller reads them (exact per-node counts).
    assert any_annotation(engine, project, ["function:a.py:f", "function:a.py:h"]) is True
    assert any_annotation(engine, project, ["function:a.py:h", "function:a.py:i"]) is True
    assert any_annotation(engine, other, ["function:a.py:f"]) is False


def test_the_connection_goes_back_to_the_pool_usable(engine: Engine) -> None:
    project = _slug()
    before = engine.pool.checkedout()
    for _ in range(3):
        any_annotation(engine, project, ["function:a.py:f"])
    assert engine.pool.checkedout() == before
    # A write right after on the same pooled connection commits (no transaction left open by the
    # probe: on PostgreSQL pg8000 began one for the SELECT, the pool's return rolled it back).
    _annotate(engine, project, "function:a.py:f")
    with session_scope(engine) as session:
        assert session.scalar(select(func.count()).select_from(Project).where(Project.slug == project)) == 1
    assert any_annotation(engine, project, ["function:a.py:f"]) is True

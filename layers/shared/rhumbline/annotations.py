"""Annotations: durable knowledge attached to a node, kept in the relational store.

Used by add_annotation / list_annotations / get_node / query_graph, and by the code-context tools
(context, explain), which show them exactly as get_node does:

    views = annotations.for_nodes(session, project, [node.id, ...])   # {node id: [AnnotationView]}
    [view.to_dict() for view in views.get(node.id, [])]                # provenance "CONTRIBUTED"

An annotation names its node by the stable node id, so it survives every rebuild and `clear` of
the graph. When no node has that id any more, the annotation is *orphaned*: decided when read
(against the graph being served, so it is never stale), listed by `orphaned(...)`, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Select, bindparam, func, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.exploration import Annotation, MAX_CONTENT, MAX_NODE_ID
from rhumbline.stores.relational.schema.core import Project

if TYPE_CHECKING:
    from rhumbline.contract import Caller
    from rhumbline.stores.graph.model import Node
    from rhumbline.stores.graph.protocol import GraphStore

# The provenance label of contributed knowledge, next to the graph's EXTRACTED / INFERRED /
# AMBIGUOUS: a person or an agent said it; no parser derived it.
CONTRIBUTED = "CONTRIBUTED"
MAX_TAGS = 10
TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,49}$")
# Per node, what get_node / context / explain show (newest first); the total is always exact.
DEFAULT_PER_NODE = 20
# Orphan detection reads every annotation of a project: a bound on a runaway table.
MAX_SCANNED = 100_000
_ID_BATCH = 5_000


@dataclass(frozen=True, slots=True)
class AnnotationView:
    id: int
    node_id: str
    node_kind: str
    node_label: str
    content: str
    tags: list[str]
    author: str
    created_at: datetime
    orphaned: bool | None = None  # None: not checked (the caller just read it off a live node)
    provenance: str = CONTRIBUTED

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "node_id": self.node_id,
            "node_kind": self.node_kind,
            "node_label": self.node_label,
            "content": self.content,
            "tags": list(self.tags),
            "author": self.author,
            "created_at": self.created_at.isoformat(),
            "orphaned": self.orphaned,
            "provenance": self.provenance,
        }


def check(content: str, tags: Sequence[str] | None) -> tuple[str, list[str]]:
    """The content and tags as stored; ValueError with the reason otherwise."""
    text = content.strip()
    if not text:
        raise ValueError("content must not be blank")
    if len(text) > MAX_CONTENT:
        raise ValueError(f"content is {len(text)} characters; the limit is {MAX_CONTENT}")
    unique: list[str] = []
    for tag in tags or ():
        if not isinstance(tag, str) or not TAG.match(tag):
            raise ValueError(f"tag {tag!r} must match {TAG.pattern}")
        if tag not in unique:
            unique.append(tag)
    if len(unique) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} tags, not {len(unique)}")
    return text, unique


def add(
    session: Session,
    project: str,
    node: Node,
    content: str,
    tags: Sequence[str] | None,
    caller: Caller,
) -> AnnotationView:
    from rhumbline.stores.relational import projects

    text, checked = check(content, tags)
    if len(node.id) > MAX_NODE_ID:
        raise ValueError(f"node id longer than {MAX_NODE_ID} characters")
    row = Annotation(
        project_id=projects.get_or_create(session, project).id,
        node_id=node.id,
        node_kind=node.kind[:100],
        node_label=(node.qualified_name or node.name or node.id)[:1000],
        content=text,
        tags=checked,
        author=caller.principal[:200],
        token_id=caller.token_id[:16],
    )
    session.add(row)
    session.flush()
    return _view(row, orphaned=False)


# Built once: a call pays only for binding (every tool that shows a node asks for these).
_COLUMNS = (
    Annotation.id, Annotation.node_id, Annotation.node_kind, Annotation.node_label, Annotation.content,
    Annotation.tags, Annotation.author, Annotation.created_at,
)  # fmt: skip
_OF_PROJECT = Project.slug == bindparam("project")
_NEWEST_FIRST = (Annotation.node_id, Annotation.created_at.desc(), Annotation.id.desc())
# An expanding IN is re-rendered on every execution; one node (get_node, function, class) gets a
# plain `=` whose compiled form is cached.
_IN_IDS = Annotation.node_id.in_(bindparam("ids", expanding=True))
_IS_ID = Annotation.node_id == bindparam("id")
_JOINED = select(*_COLUMNS).join(Project, Project.id == Annotation.project_id)
_FOR_NODES = _JOINED.where(_OF_PROJECT, _IN_IDS).order_by(*_NEWEST_FIRST)
_FOR_NODE = _JOINED.where(_OF_PROJECT, _IS_ID).order_by(*_NEWEST_FIRST)
_COUNTED = select(Annotation.node_id, func.count()).join(Project, Project.id == Annotation.project_id)
_COUNTS = _COUNTED.where(_OF_PROJECT, _IN_IDS).group_by(Annotation.node_id)
_COUNT = _COUNTED.where(_OF_PROJECT, _IS_ID).group_by(Annotation.node_id)


def _bound(many: Any, one: Any, project: str, ids: Sequence[str]) -> tuple[Any, dict[str, Any]]:
    if len(ids) == 1:
        return one, {"project": project, "id": ids[0]}
    return many, {"project": project, "ids": list(ids)}


def for_nodes(
    session: Session | Connection, project: str, node_ids: Sequence[str], *, per_node: int = DEFAULT_PER_NODE
) -> dict[str, list[AnnotationView]]:
    """The newest `per_node` annotations of each node that has any (see `counts` for totals)."""
    ids = sorted(set(node_ids))
    found: dict[str, list[AnnotationView]] = {}
    for start in range(0, len(ids), _ID_BATCH):
        rows = session.execute(*_bound(_FOR_NODES, _FOR_NODE, project, ids[start : start + _ID_BATCH]))
        for row in rows:
            listed = found.setdefault(row.node_id, [])
            if len(listed) < per_node:
                listed.append(_view(row))
    return found


def counts(session: Session | Connection, project: str, node_ids: Sequence[str]) -> dict[str, int]:
    """How many annotations each node has (nodes without any are left out)."""
    ids = sorted(set(node_ids))
    found: dict[str, int] = {}
    for start in range(0, len(ids), _ID_BATCH):
        rows = session.execute(*_bound(_COUNTS, _COUNT, project, ids[start : start + _ID_BATCH]))
        found.update({node_id: count for node_id, count in rows})
    return found


def listing(
    session: Session,
    project: str,
    graph: GraphStore,
    *,
    node_id: str | None = None,
    orphaned_only: bool = False,
    limit: int = 50,
    offset: int = 0,
) -> tuple[list[AnnotationView], int]:
    """A page of a project's annotations (oldest first, by id), each marked orphaned or not
    against the graph being served, and the exact total."""
    query = _of_project(project).order_by(Annotation.id)
    if node_id is not None:
        query = query.where(Annotation.node_id == node_id)
    if not orphaned_only:
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
        page = list(session.scalars(query.offset(offset).limit(limit)))
        alive = _existing(graph, project, [row.node_id for row in page])
        return [_view(row, orphaned=row.node_id not in alive) for row in page], total
    pairs = list(session.execute(query.with_only_columns(Annotation.id, Annotation.node_id).limit(MAX_SCANNED)))
    alive = _existing(graph, project, [node for _, node in pairs])
    orphan_ids = [annotation_id for annotation_id, node in pairs if node not in alive]
    chosen = orphan_ids[offset : offset + limit]
    rows = {row.id: row for row in session.scalars(select(Annotation).where(Annotation.id.in_(chosen)))} if chosen else {}
    return [_view(rows[i], orphaned=True) for i in chosen], len(orphan_ids)


def orphaned(
    session: Session, project: str, graph: GraphStore, *, limit: int = 50, offset: int = 0
) -> tuple[list[AnnotationView], int]:
    """The project's annotations whose node no longer exists in the graph, and their exact total."""
    return listing(session, project, graph, orphaned_only=True, limit=limit, offset=offset)


def _existing(graph: GraphStore, project: str, node_ids: Sequence[str]) -> set[str]:
    from rhumbline.stores.graph.traversal import MAX_IDS

    ids = sorted(set(node_ids))
    alive: set[str] = set()
    for start in range(0, len(ids), MAX_IDS):
        alive.update(graph.nodes(project, ids[start : start + MAX_IDS]))
    return alive


def _of_project(project: str) -> Select[Annotation]:
    return select(Annotation).join(Project, Project.id == Annotation.project_id).where(Project.slug == project)


def _view(row: Any, *, orphaned: bool | None = None) -> AnnotationView:
    """An AnnotationView from an Annotation or a row of its columns."""
    return AnnotationView(
        id=row.id,
        node_id=row.node_id,
        node_kind=row.node_kind,
        node_label=row.node_label,
        content=row.content,
        tags=list(row.tags or []),
        author=row.author,
        created_at=row.created_at,
        orphaned=orphaned,
    )

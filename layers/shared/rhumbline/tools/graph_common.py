"""What the graph-exploration tools share: node references, lookups by id or name, and the
arguments a cursor is bound to."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field

from rhumbline.errors import Ambiguous, NotFound
from rhumbline.lookup.views import node_ref

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext
    from rhumbline.stores.graph.model import Node

T = TypeVar("T")
MAX_CANDIDATES = 10
# Independent reads of one call overlap their Neo4j round trips on this pool.
_POOL_WORKERS = 4
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
# Relations that say something about code (and documents about code). Left out of exploration:
# CONTAINS (the directory tree connects everything to everything) and the contributor/review
# projection (MODIFIED, AUTHORED, TOUCHES), which get_contributor_stats and friends serve.
CODE_RELATIONS = (
    "CALLS", "DECORATES", "DEFINES", "DOCUMENTS", "IMPLEMENTS", "IMPORTS", "INHERITS", "REFERENCES",
)  # fmt: skip


def cursor_field() -> Any:
    from rhumbline.tools.cursors import MAX_CURSOR

    return Field(
        default=None,
        min_length=1,
        max_length=MAX_CURSOR,
        description="`next_cursor` of a previous call with the same arguments: continue the lists.",
    )


def query_of(arguments: BaseModel, project: str) -> dict[str, Any]:
    """The arguments a cursor is bound to: all but the cursor, with the project resolved."""
    query = arguments.model_dump(mode="json", exclude={"cursor"})
    query["project"] = project
    return query


def resolve_node(context: ToolContext, project: str, reference: str, *, argument: str) -> Node:
    """A node by id, else by (qualified) name when exactly one node has it."""
    graph = context.graph
    node = graph.get_node(project, reference)
    if node is not None:
        return node
    try:
        found, total = graph.find_by_name(project, reference, limit=MAX_CANDIDATES)
    except ValueError:
        found, total = [], 0
    if total == 1:
        return found[0]
    if total > 1:
        raise Ambiguous(
            f"`{argument}` '{reference}' names {total} nodes: pass one of their ids",
            details={"candidates": [node_ref(n).model_dump() for n in found], "total": total},
        )
    raise missing_node(context, project, f"no node '{reference}' in project '{project}' (`{argument}`)")


def missing_node(context: ToolContext, project: str, what: str) -> NotFound:
    """`what` was not found; when the whole project has no graph (never ingested, ingesting, failed,
    empty), that is the answer instead: no id would have been found."""
    from rhumbline.lookup.project_state import empty_project_failure

    empty = empty_project_failure(context, project)
    if empty is not None:
        return empty
    return NotFound(f"{what}; use `search` to find node ids")


def label(node: Node) -> str:
    return node.qualified_name or node.name or node.id


class _Done(Future[Any]):
    """A read already made: what `overlapped` gives when overlapping would not pay."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.set_result(value)


def overlapped(backend: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
    """An independent read: started on the pool when the backend is a network round trip
    (Neo4j), made now otherwise: a SQLite read is quicker than the thread hop that would
    overlap it."""
    if backend == "neo4j":
        return in_background(function, *args, **kwargs)
    return _Done(function(*args, **kwargs))


def in_background(function: Callable[..., T], *args: Any, **kwargs: Any) -> Future[T]:
    """Start an independent read now; `.result()` it when needed. Stores are thread-safe (SQLite:
    a connection per thread; Neo4j: a session per call)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_POOL_WORKERS, thread_name_prefix="rhumbline-read")
    return _pool.submit(function, *args, **kwargs)

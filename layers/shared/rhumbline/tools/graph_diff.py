"""graph_diff: what changed between two retained graph versions of a project.

The difference itself is computed by rhumbline.ingest.snapshots.diff (snapshot against snapshot, exact),
as the model this answer extends (diff_model.py); this tool caps each list at MAX_LISTED with exact counts, and continues every cut list with
`next_cursor`. Versions never change once written, so a diff is kept in this process's memory
for the next page or the next caller.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from pydantic import Field

from rhumbline.errors import NotFound
from rhumbline.ingest.snapshots.diff_model import GraphDiff
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import cursor_field, query_of

MAX_LISTED = 100
LISTS = ("nodes_added", "nodes_removed", "nodes_changed", "edges_added", "edges_removed", "edges_changed")
_CACHE_SLOTS = 4
_cache: OrderedDict[tuple[str, int, int], GraphDiff] = OrderedDict()
_lock = threading.Lock()


class GraphDiffInput(StrictInput):
    project: str | None = project_field()
    from_version: int | None = Field(default=None, ge=1, description="Default: the version before `to_version`.")
    to_version: int | None = Field(default=None, ge=1, description="Default: the newest diffable version.")
    cursor: str | None = cursor_field()


class GraphDiffOutput(GraphDiff):
    offsets: dict[str, int] = Field(description="Position of each list's first entry among its count.")
    next_cursor: str | None = Field(description="Continues every list that was cut at 100.")


def _diff(context: ToolContext, project: str, from_version: int | None, to_version: int | None) -> GraphDiff:
    from rhumbline.ingest.snapshots.diff import VersionNotDiffable, diff_versions

    engine = context.engine
    key = (project, from_version or 0, to_version or 0)
    if from_version is not None and to_version is not None:
        with _lock:
            if key in _cache:
                _cache.move_to_end(key)
                return _cache[key]
    try:
        found = diff_versions(engine, project, from_version, to_version)
    except VersionNotDiffable as error:
        raise NotFound(str(error)) from None
    with _lock:
        # Stored under the resolved versions: defaults move when a new version lands.
        _cache[(project, found.from_version, found.to_version)] = found
        while len(_cache) > _CACHE_SLOTS:
            _cache.popitem(last=False)
    return found


def run(arguments: GraphDiffInput, context: ToolContext) -> GraphDiffOutput:
    from rhumbline.tools import cursors

    project = context.project(arguments.project)
    offsets = dict.fromkeys(LISTS, 0)
    from_version, to_version = arguments.from_version, arguments.to_version
    query = query_of(arguments, project)
    if arguments.cursor:
        position = cursors.read(context, "graph_diff", query, arguments.cursor)
        offsets = {name: cursors.offset(position, name) for name in LISTS}
        # A cursor pins the versions its first page resolved, should newer ones land meanwhile.
        from_version, to_version = cursors.offset(position, "from"), cursors.offset(position, "to")
    diff = _diff(context, project, from_version, to_version)
    page = {name: getattr(diff, name)[offsets[name] : offsets[name] + MAX_LISTED] for name in LISTS}
    ends = {name: offsets[name] + len(page[name]) for name in LISTS}
    next_cursor = None
    if any(ends[name] < getattr(diff.counts, name) for name in LISTS):
        position = {**ends, "from": diff.from_version, "to": diff.to_version}
        next_cursor = cursors.issue(context, "graph_diff", query, position)
    return GraphDiffOutput(
        project=project,
        from_version=diff.from_version,
        to_version=diff.to_version,
        counts=diff.counts,
        offsets=offsets,
        next_cursor=next_cursor,
        **page,
    )


SPEC = ToolSpec(
    name="graph_diff",
    families=("exploration",),
    title="Diff two graph versions",
    description=(
        "What changed in a project's graph between two retained versions (default: the last two): "
        "nodes and edges added, removed and changed — changed nodes with their changed attributes "
        "(signature, location, docstring, hash) — each list capped at 100 with exact counts; "
        "`next_cursor` continues the cut lists."
    ),
    input_model=GraphDiffInput,
    output_model=GraphDiffOutput,
    run=run,
)

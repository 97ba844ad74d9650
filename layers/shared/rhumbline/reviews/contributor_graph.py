"""Git-history contributors as the ingester writes them into the project's graph.

Read: every `Contributor` node (`contributor:<email or login>`) and its outgoing edges:
- `MODIFIED` → File (`file:<path>`), properties {"commits": int, "last_at": ISO 8601};
- an edge to the repository node (`repository:`) whose properties carry `commits`: the
  contributor's exact number of distinct commits. Without it, commits are summed over the
  MODIFIED edges (a commit that touched n files then counts n times) and `exact` says so.

Reads go through the GraphStore protocol only (nodes_of_kind, edges_of), page by page, within the
caller's time budget: when the budget runs out the reader stops and says how far it got.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from rhumbline.stores.graph.model import EdgeView
from rhumbline.stores.graph.protocol import GraphStore

NODE_PAGE = 500
EDGE_PAGE = 1000
MAX_CONTRIBUTORS = 5000
MAX_EDGES_PER_CONTRIBUTOR = 20_000
REPOSITORY_ID = "repository:"
# A fallback for edges written before properties existed: "12 commits, last 2026-10-01T09:30:00Z".
_COMMITS_TEXT = re.compile(r"\b(\d+)\s+commits?\b", re.IGNORECASE)
_NOREPLY = re.compile(r"^(?:\d+\+)?([a-z0-9](?:[a-z0-9-]{0,38}))@users\.noreply\.github\.com$", re.IGNORECASE)


@dataclass
class GraphContributor:
    key: str  # the identity used to merge with PR authors: a login (lower-case) or an email
    display: str
    commits: int = 0
    exact_commits: int | None = None
    files: set[str] = field(default_factory=set)
    last_at: datetime | None = None

    @property
    def commit_count(self) -> int:
        return self.exact_commits if self.exact_commits is not None else self.commits


@dataclass(frozen=True)
class GraphHistory:
    contributors: list[GraphContributor]
    total_nodes: int  # every Contributor node of the project, read or not
    read_nodes: int
    has_history: bool  # at least one MODIFIED edge: the ingester recorded git history
    all_exact: bool  # every commit count came from a repository edge (distinct commits)


def identity_of(node_id: str, name: str) -> tuple[str, str]:
    """(merge key, display name) of a Contributor node. GitHub noreply addresses become logins."""
    raw = node_id.split(":", 1)[1] if ":" in node_id else node_id
    noreply = _NOREPLY.match(raw)
    if noreply:
        login = noreply.group(1)
        return login.lower(), login
    if "@" in raw:
        return raw.lower(), raw
    return raw.lower(), name or raw


def _properties(view: EdgeView) -> dict[str, object]:
    # `properties` is recent in the protocol: a store without it reads as no properties.
    return dict(getattr(view, "properties", None) or {})


def _commits(view: EdgeView) -> int | None:
    value = _properties(view).get("commits")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    found = _COMMITS_TEXT.search(view.explanation or "")
    return int(found.group(1)) if found else None


def _last_at(view: EdgeView) -> datetime | None:
    value = _properties(view).get("last_at")
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _absorb(contributor: GraphContributor, view: EdgeView) -> bool:
    """Fold one outgoing edge into the contributor; True when it is a MODIFIED edge."""
    if view.relation == "MODIFIED" and view.other_id.startswith("file:"):
        contributor.files.add(view.other_id[len("file:"):])
        contributor.commits += _commits(view) or 0
        moment = _last_at(view)
        if moment and (contributor.last_at is None or moment > contributor.last_at):
            contributor.last_at = moment
        return True
    if view.other_id == REPOSITORY_ID and _commits(view) is not None:
        contributor.exact_commits = _commits(view)
    return False


def read_history(graph: GraphStore, project: str, *, deadline: float, clock: Callable[[], float] = time.time) -> GraphHistory:
    """Every Contributor of the project's graph with its history, until `deadline` (epoch seconds).
    Raises GraphUnavailable when the graph is down."""
    found: dict[str, GraphContributor] = {}
    total, read, offset, modified = 0, 0, 0, False
    while offset < MAX_CONTRIBUTORS and clock() < deadline:
        nodes, total = graph.nodes_of_kind(project, "Contributor", limit=NODE_PAGE, offset=offset)
        for node in nodes:
            if clock() >= deadline:
                break
            key, display = identity_of(node.id, node.name)
            contributor = found.setdefault(key, GraphContributor(key=key, display=display))
            edge_offset = 0
            while edge_offset < MAX_EDGES_PER_CONTRIBUTOR:
                views, edge_total = graph.edges_of(project, node.id, "out", limit=EDGE_PAGE, offset=edge_offset)
                modified = any([_absorb(contributor, view) for view in views]) or modified
                edge_offset += len(views)
                if not views or edge_offset >= edge_total:
                    break
            read += 1
        offset += len(nodes)
        if not nodes or offset >= total:
            break
    contributors = list(found.values())
    return GraphHistory(
        contributors=contributors,
        total_nodes=total,
        read_nodes=read,
        has_history=modified,
        all_exact=all(c.exact_commits is not None for c in contributors if c.commits or c.files),
    )

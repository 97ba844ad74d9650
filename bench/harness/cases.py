"""The calls the latency benches time, on Django's `django/` package: (label, tool, arguments,
p50 target in ms on the embedded store or None). The project argument is added per run."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class Case(NamedTuple):
    label: str
    tool: str
    arguments: dict
    target_ms: float | None = None


# The endpoint's own floor (gateway with its authentication, audit row): requests that do next to nothing.
FLOOR = [
    # MCP's own no-op: every call's p50 is also printed as a multiple of this one's.
    Case("ping", "ping", {}),
    Case("tools/list", "tools/list", {}),
    Case("list_projects", "list_projects", {}),
    Case("floor: get_node", "get_node", {"node_id": "file:shortcuts.py", "edge_limit": 1}),
]
CODE = [
    Case("context query.py", "context", {"file": "db/models/query.py"}, 5.0),
    Case("context query.py md", "context", {"file": "db/models/query.py", "format": "markdown"}, 5.0),
    Case("context shortcuts.py", "context", {"file": "shortcuts.py"}, 5.0),
    Case("context http/request.py", "context", {"file": "http/request.py"}, 5.0),
    Case("search get_object_or_404", "search", {"query": "get_object_or_404"}, 5.0),
    Case("search QuerySet", "search", {"query": "QuerySet"}, 5.0),
    Case("search words", "search", {"query": "cache key"}, 5.0),
    Case("search question", "search", {"query": "how are passwords hashed?"}, 5.0),
    Case("function d2 get_object_or_404", "function", {"name": "django.shortcuts.get_object_or_404", "depth": 2}, 10.0),
    Case("function d2 QuerySet.filter", "function", {"name": "QuerySet.filter", "depth": 2}, 10.0),
    Case("class QuerySet", "class", {"name": "django.db.models.query.QuerySet"}),
    Case("explain QuerySet.filter", "explain", {"name": "QuerySet.filter"}),
]
EXPLORATION = [
    Case("get_node default page", "get_node", {"node_id": "file:shortcuts.py"}, 5.0),
    Case("query_graph QuerySet filter", "query_graph", {"question": "how does QuerySet filter work"}, 30.0),
    Case("query_graph csrf", "query_graph", {"question": "csrf token middleware"}, 30.0),
    Case("trace_path render", "trace_path",
         {"from_node": "django.shortcuts.render", "to_node": "django.template.base.Template.render", "max_paths": 3}, 20.0),
    Case("blast_radius QuerySet.filter", "blast_radius", {"node_id": "QuerySet.filter", "depth": 2}, 50.0),
    Case("blast_radius escape", "blast_radius", {"node_id": "django.utils.html.escape", "depth": 2}, 50.0),
    Case("graph_diff", "graph_diff", {}, 1000.0),
]  # fmt: skip
# Neo4j only (the embedded store answers the subset too, but the target is Neo4j's).
QUERY = [
    Case("query RETURN 1", "query", {"cypher": "RETURN 1 AS c"}),
    Case("query count by kind", "query",
         {"cypher": "MATCH (n:CodeNode {project: $project}) RETURN n.kind AS kind, count(*) AS c ORDER BY c DESC"}),
]  # fmt: skip
SETS = {"floor": FLOOR, "code": CODE, "exploration": EXPLORATION, "query": QUERY}
NEO4J_P50_MS = 20.0  # every code-context call on Neo4j; exploration: three times the embedded target

# graph_diff needs a second version: this edit (an added module) is ingested as version 2.
SECOND_VERSION_FILE = ("rhumbline_bench_extra.py", "".join(f"def extra_{i}(value):\n    return value + {i}\n\n\n" for i in range(40)))


def select(names: str, only: str) -> list[Case]:
    """The cases of the comma-separated sets `names` whose label holds a part of `only`."""
    chosen: list[Case] = []
    for name in (part.strip() for part in names.split(",") if part.strip()):
        if name not in SETS:
            raise SystemExit(f"--cases: unknown set {name!r}; sets: {', '.join(SETS)}")
        chosen += SETS[name]
    wanted = [part.strip() for part in only.split(",") if part.strip()]
    chosen = [case for case in chosen if not wanted or any(part in case.label for part in wanted)]
    if not chosen:
        raise SystemExit(f"no case matches --cases {names!r} --only {only!r}")
    return chosen


def with_project(case: Case, project: str) -> dict | None:
    if case.tool in ("tools/list", "ping"):
        return None
    if case.tool == "list_projects":
        return {}
    return {**case.arguments, "project": project}


def target(case: Case, *, neo4j: bool) -> float | None:
    if case.target_ms is None or not neo4j:
        return case.target_ms
    return case.target_ms * 3 if case in EXPLORATION else NEO4J_P50_MS


def add_second_version(tree: Path) -> None:
    name, text = SECOND_VERSION_FILE
    (tree / name).write_text(text)

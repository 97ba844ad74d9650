"""The list of tools, and how to load one without importing the others.

A tool is one module in `rhumbline.tools` that defines `SPEC: ToolSpec`. The gateway loads every
spec to list them; a tool's Lambda loads only its own module, so its cold start pays for nothing
else. Adding a tool = a module here, `functions/<name>/app.py`, and a template entry (the test
suite checks all three exist for every name below).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from rhumbline.contract import Scope
    from rhumbline.runtime.context import ToolContext

# Tool name -> module. Names are a public contract with agents: never rename one.
TOOL_MODULES: dict[str, str] = {
    "list_projects": "rhumbline.tools.list_projects",
    "search": "rhumbline.tools.search",
    "get_node": "rhumbline.tools.get_node",
    "query_graph": "rhumbline.tools.query_graph",
    "trace_path": "rhumbline.tools.trace_path",
    "blast_radius": "rhumbline.tools.blast_radius",
    "graph_diff": "rhumbline.tools.graph_diff",
    "add_annotation": "rhumbline.tools.add_annotation",
    "list_annotations": "rhumbline.tools.list_annotations",
    "ingest": "rhumbline.tools.ingest",
    "record_review": "rhumbline.tools.record_review",
    "get_recent_reviews": "rhumbline.tools.get_recent_reviews",
    "get_contributor_stats": "rhumbline.tools.get_contributor_stats",
    "get_pr_verdict": "rhumbline.tools.get_pr_verdict",
    "get_repo_health": "rhumbline.tools.get_repo_health",
    "context": "rhumbline.tools.context",
    "function": "rhumbline.tools.function",
    "class": "rhumbline.tools.class_",  # `class` is a Python keyword
    "explain": "rhumbline.tools.explain",
    "query": "rhumbline.tools.query",
}


@dataclass(frozen=True, slots=True)
class Dumped:
    """A tool's answer already in its output model's JSON form (what `model_dump(mode="json")`
    would give, key order included), built from trusted store values. A large answer (context's
    50 definitions) then skips building a model per row and walking them all again to dump them;
    the output model still defines the shape, and the functional tool tests check every answer
    is its model's own dump."""

    data: dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Callable[[Any, "ToolContext"], BaseModel | Dumped]
    scope: "Scope" = "read"
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    # True when the tool reaches beyond the project's own data (a GitHub download, say).
    open_world: bool = False

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema()


class UnknownTool(LookupError):
    pass


def load_spec(name: str) -> ToolSpec:
    module_name = TOOL_MODULES.get(name)
    if module_name is None:
        raise UnknownTool(name)
    spec = importlib.import_module(module_name).SPEC
    if spec.name != name:
        raise RuntimeError(f"{module_name} declares tool {spec.name!r}, registered as {name!r}")
    return spec


def all_specs() -> list[ToolSpec]:
    return [load_spec(name) for name in TOOL_MODULES]

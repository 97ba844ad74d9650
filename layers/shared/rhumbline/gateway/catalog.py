"""The tool catalog the gateway advertises: built once per container from the registered specs.

Schemas come from each tool's pydantic models (the same models the tool function validates with),
so what an agent is told and what the tool accepts cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import mcp_types as types

from rhumbline.runtime.spec import ToolSpec, all_specs


def tool_definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        # No annotations.title: the tool's own title says it once.
        annotations=types.ToolAnnotations(
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=spec.open_world,
        ),
    )


@dataclass
class Catalog:
    specs: Mapping[str, ToolSpec]

    @classmethod
    def from_registry(cls) -> "Catalog":
        return cls({spec.name: spec for spec in all_specs()})

    @cached_property
    def tools(self) -> list[types.Tool]:
        return [tool_definition(spec) for spec in self.specs.values()]

    @cached_property
    def definitions(self) -> dict[str, types.Tool]:
        return {tool.name: tool for tool in self.tools}

    @cached_property
    def _input_schemas(self) -> dict[str, dict[str, Any]]:
        return {tool.name: tool.input_schema for tool in self.tools}

    def get(self, name: str) -> ToolSpec | None:
        return self.specs.get(name)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """For the SDK's `Mcp-Param-*` header check, so it need not run `tools/list` per call."""
        return self._input_schemas.get(name)

"""What a tool is (`ToolSpec`), and how to load one without importing the others.

A tool is one module in `rhumbline.tools`, named as the tool (`class_` for `class`, a Python
keyword), that defines `SPEC: ToolSpec`. That module is the tool's only declaration: the gateway
lists every module there with a SPEC; a tool's function loads only its own module, so its cold start
pays for nothing else. Tool names are a public contract with agents: never rename one.
"""

from __future__ import annotations

import importlib
import keyword
import pkgutil
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from rhumbline.contract import Scope
    from rhumbline.runtime.context import ToolContext

TOOLS_PACKAGE = "rhumbline.tools"
TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Callable[[Any, "ToolContext"], BaseModel]
    scope: "Scope" = "read"
    # The argument naming the project a call acts on, which the gateway and the tool function
    # check against the token; None when the tool takes none.
    project_argument: str | None = "project"
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    # True when the tool reaches beyond the project's own data (a GitHub download, say).
    open_world: bool = False

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema()

    def project_in(self, arguments: Mapping[str, Any]) -> str | None:
        """The project that raw (not yet validated) arguments name, if any."""
        value = arguments.get(self.project_argument) if self.project_argument else None
        return value if isinstance(value, str) and value else None


class UnknownTool(LookupError):
    pass


def module_name(tool: str) -> str:
    return f"{TOOLS_PACKAGE}.{tool}_" if keyword.iskeyword(tool) else f"{TOOLS_PACKAGE}.{tool}"


def load_spec(name: str) -> ToolSpec:
    if not TOOL_NAME.fullmatch(name):
        raise UnknownTool(name)
    try:
        module = importlib.import_module(module_name(name))
    except ModuleNotFoundError as error:
        if error.name != module_name(name):
            raise  # the tool's module exists, and something it imports does not
        raise UnknownTool(name) from None
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, ToolSpec) or spec.name != name:
        raise UnknownTool(name)
    return spec


def all_specs() -> list[ToolSpec]:
    """Every tool, by name: each module of the tools package that declares a SPEC."""
    package = importlib.import_module(TOOLS_PACKAGE)
    specs = []
    for module in pkgutil.iter_modules(package.__path__):
        spec = getattr(importlib.import_module(f"{TOOLS_PACKAGE}.{module.name}"), "SPEC", None)
        if spec is None:
            continue  # a module the tools share
        if not isinstance(spec, ToolSpec) or module_name(spec.name) != f"{TOOLS_PACKAGE}.{module.name}":
            raise RuntimeError(f"{TOOLS_PACKAGE}.{module.name} declares tool {getattr(spec, 'name', spec)!r}")
        specs.append(spec)
    return sorted(specs, key=lambda spec: spec.name)

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
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue

from rhumbline.vocabulary import FAMILIES, Family

if TYPE_CHECKING:
    from rhumbline.contract import Scope
    from rhumbline.runtime.context import ToolContext

TOOLS_PACKAGE = "rhumbline.tools"
TOOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")



class WireJsonSchema(GenerateJsonSchema):
    """The JSON Schema agents are sent, without what carries no meaning and costs them tokens:
    titles derived from field and model names, `anyOf [X, null]` where `type: [X, "null"]` says the
    same, a `default: null` on optional inputs, and defaults in output schemas (an output is always
    complete). Descriptions, types, formats, enums, constraints and `required` are kept."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def model_schema(self, schema: Any) -> JsonSchemaValue:
        generated = super().model_schema(schema)
        generated.pop("title", None)
        return generated

    def dataclass_schema(self, schema: Any) -> JsonSchemaValue:
        generated = super().dataclass_schema(schema)
        generated.pop("title", None)
        return generated

    def typed_dict_schema(self, schema: Any) -> JsonSchemaValue:
        generated = super().typed_dict_schema(schema)
        generated.pop("title", None)
        return generated

    def nullable_schema(self, schema: Any) -> JsonSchemaValue:
        inner = self.generate_inner(schema["schema"])
        kind = inner.get("type")
        if isinstance(kind, str) and kind != "null" and "enum" not in inner and "const" not in inner:
            return {**inner, "type": [kind, "null"]}
        return super().nullable_schema(schema)

    def default_schema(self, schema: Any) -> JsonSchemaValue:
        generated = super().default_schema(schema)
        if self.mode == "serialization" or generated.get("default", ...) is None:
            generated.pop("default", None)
        return generated


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    run: Callable[[Any, "ToolContext"], BaseModel]
    scope: "Scope" = "read"
    # The toolsets the tool is listed in (code, exploration, review, admin).
    families: tuple[Family, ...] = ()
    # The argument naming the project a call acts on, which the gateway and the tool function
    # check against the token; None when the tool takes none.
    project_argument: str | None = "project"
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    # True when the tool reaches beyond the project's own data (a GitHub download, say).
    open_world: bool = False

    def __post_init__(self) -> None:
        if not set(self.families) <= set(FAMILIES):
            raise ValueError(f"tool {self.name!r}: families must be some of {FAMILIES}, not {self.families!r}")

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema(schema_generator=WireJsonSchema)

    def output_schema(self) -> dict[str, Any]:
        # Serialization mode: the shape the tool's result is dumped in, not what it would accept.
        return self.output_model.model_json_schema(schema_generator=WireJsonSchema, mode="serialization")

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
        if not spec.families:
            raise RuntimeError(f"tool {spec.name!r} belongs to no toolset: give its SPEC families")
        specs.append(spec)
    return sorted(specs, key=lambda spec: spec.name)

"""What the local stand-in needs from template.yaml: functions and HTTP API routes.

Only the SAM shapes this project uses are understood: `AWS::Serverless::Function` with `HttpApi`
events. The routes have no authorizer to emulate: the gateway authenticates each request itself.
CloudFormation short tags
(`!Ref`, `!Sub`, `!GetAtt`, ...) load as their long forms (`{"Ref": ...}`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DEFAULT_TIMEOUT_SECONDS = 3.0  # SAM's default function timeout
DEFAULT_MEMORY_MB = 128
PREFIX_VARIABLE = "RHUMBLINE_TOOL_FUNCTION_PREFIX"
# What the template's pseudo parameters are locally: the stack name appears in function names.
PSEUDO_PARAMETERS = {
    "AWS::StackName": "rhumbline-local",
    "AWS::Region": "us-east-1",
    "AWS::AccountId": "000000000000",
    "AWS::Partition": "aws",
    "AWS::URLSuffix": "amazonaws.com",
}


class TemplateError(Exception):
    pass


class CloudFormationLoader(yaml.SafeLoader):
    """A safe YAML loader that reads CloudFormation short tags instead of rejecting them."""


def _construct_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    key = suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {key: value}


CloudFormationLoader.add_multi_constructor("!", _construct_tag)


@dataclass(frozen=True)
class FunctionDef:
    logical_id: str
    name: str  # FunctionName as deployed locally, else the logical id
    code_dir: Path
    handler: str  # "module.attribute", e.g. "app.handler"
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    memory_mb: int = DEFAULT_MEMORY_MB
    environment: Mapping[str, Any] = field(default_factory=dict)

    @property
    def handler_file(self) -> Path:
        module, _, _ = self.handler.rpartition(".")
        return self.code_dir / (module.replace(".", "/") + ".py")

    @property
    def handler_attribute(self) -> str:
        return self.handler.rpartition(".")[2]


@dataclass(frozen=True)
class Route:
    method: str  # upper case, or "ANY"
    path: str  # "/mcp", "/items/{id}", "/{proxy+}"
    function: str

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.path}"

    def match(self, method: str, path: str) -> dict[str, str] | None:
        """Path parameters when this route serves the request, else None."""
        if self.method not in ("ANY", method.upper()):
            return None
        found = _path_pattern(self.path).fullmatch(path)
        return found.groupdict() if found else None


@lru_cache(maxsize=256)
def _path_pattern(path: str) -> re.Pattern[str]:
    # Cached: every request is matched against the routes, and building the pattern (a split, an
    # escape, a compile-cache lookup) cost more than matching it.
    pattern = ""
    for piece in re.split(r"(\{[^}]+\})", path):
        if piece.startswith("{") and piece.endswith("+}"):
            pattern += f"(?P<{piece[1:-2]}>.+)"
        elif piece.startswith("{"):
            pattern += f"(?P<{piece[1:-1]}>[^/]+)"
        else:
            pattern += re.escape(piece)
    return re.compile(pattern)


@dataclass(frozen=True)
class Template:
    path: Path
    functions: dict[str, FunctionDef]
    routes: list[Route]

    @property
    def tool_functions(self) -> dict[str, str]:
        """Tool name -> logical id of its function: the functions named `<prefix><tool>`."""
        prefix = self.tool_function_prefix
        if not prefix:
            return {}
        return {
            function.name[len(prefix) :]: logical_id
            for logical_id, function in self.functions.items()
            if function.name.startswith(prefix)
        }

    @property
    def tool_function_prefix(self) -> str | None:
        """What the gateway is told tool functions' names start with (its RHUMBLINE_TOOL_FUNCTION_PREFIX)."""
        for function in self.functions.values():
            if PREFIX_VARIABLE in function.environment:
                return substitute(function.environment[PREFIX_VARIABLE])
        return None

    def route_for(self, method: str, path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            parameters = route.match(method, path)
            if parameters is not None:
                return route, parameters
        return None

    def function(self, logical_id: str) -> FunctionDef:
        try:
            return self.functions[logical_id]
        except KeyError:
            raise TemplateError(f"{self.path} has no function {logical_id!r}") from None

    def function_for_tool(self, tool: str) -> FunctionDef:
        logical_id = self.tool_functions.get(tool)
        if logical_id is None:
            known = ", ".join(sorted(self.tool_functions)) or "none"
            raise TemplateError(f"no function serves tool {tool!r} in {self.path} (tools: {known})")
        return self.function(logical_id)


def load_template(path: Path) -> Template:
    try:
        document = yaml.load(path.read_text(), Loader=CloudFormationLoader)  # noqa: S506 - a safe loader subclass
    except (OSError, yaml.YAMLError) as error:
        raise TemplateError(f"cannot read {path}: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("Resources"), dict):
        raise TemplateError(f"{path} has no Resources section")
    resources: dict[str, Any] = document["Resources"]
    for logical_id, resource in resources.items():
        if resource.get("Type") == "AWS::Serverless::HttpApi" and ((resource.get("Properties") or {}).get("Auth") or {}).get("Authorizers"):
            # Served without it, every route would be open: refuse rather than mislead.
            raise TemplateError(f"{path}: {logical_id} has an authorizer, which the local stand-in does not run")
    globals_ = (document.get("Globals") or {}).get("Function") or {}
    functions = {
        logical_id: _function(path.parent, logical_id, {**globals_, **(resource.get("Properties") or {})})
        for logical_id, resource in resources.items()
        if resource.get("Type") == "AWS::Serverless::Function"
    }
    routes = [
        route
        for logical_id, resource in resources.items()
        if resource.get("Type") == "AWS::Serverless::Function"
        for route in _routes(logical_id, resource.get("Properties") or {})
    ]
    return Template(path=path, functions=functions, routes=routes)


def _function(root: Path, logical_id: str, properties: Mapping[str, Any]) -> FunctionDef:
    code_uri = properties.get("CodeUri")
    handler = properties.get("Handler")
    if not isinstance(code_uri, str) or not isinstance(handler, str) or "." not in handler:
        raise TemplateError(f"function {logical_id} needs a local CodeUri and a module.attribute Handler")
    variables = (properties.get("Environment") or {}).get("Variables") or {}
    name = properties.get("FunctionName")
    return FunctionDef(
        logical_id=logical_id,
        name=substitute(name) if name is not None else logical_id,
        code_dir=(root / code_uri).resolve(),
        handler=handler,
        timeout=float(properties.get("Timeout", DEFAULT_TIMEOUT_SECONDS)),
        memory_mb=int(properties.get("MemorySize", DEFAULT_MEMORY_MB)),
        environment=variables,
    )


def _reference(value: Any) -> str | None:
    """The logical id behind `!Ref X` or `!GetAtt X.Arn`."""
    if isinstance(value, dict) and "Ref" in value:
        return str(value["Ref"])
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return str(value["Fn::GetAtt"][0])
    return None


def _routes(logical_id: str, properties: Mapping[str, Any]) -> list[Route]:
    routes = []
    for event in (properties.get("Events") or {}).values():
        if event.get("Type") != "HttpApi":
            continue
        settings = event.get("Properties") or {}
        method = str(settings.get("Method", "ANY")).upper()
        routes.append(Route(method=method, path=str(settings.get("Path", "/{proxy+}")), function=logical_id))
    return routes


def substitute(value: Any) -> str:
    """A string, or a `!Sub` (string or [string, variables]) resolved with the local pseudo
    parameters, its variables, and each other `${X}` / `${X.Attr}` -> X."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict) or "Fn::Sub" not in value:
        raise TemplateError(f"expected a string or a !Sub, not {value!r}")
    sub = value["Fn::Sub"]
    text, variables = (sub, {}) if isinstance(sub, str) else (sub[0], sub[1] if len(sub) > 1 else {})

    def replace(found: re.Match[str]) -> str:
        name = found.group(1)
        if name in variables:
            reference = _reference(variables[name])
            return PSEUDO_PARAMETERS.get(reference, reference) if reference else str(variables[name])
        return PSEUDO_PARAMETERS.get(name) or name.split(".", 1)[0]

    return re.sub(r"\$\{([^}!][^}]*)\}", replace, text)


def find_template(explicit: Path | None = None) -> Path:
    """The template to serve: --template, else $RHUMBLINE_TEMPLATE, else this checkout's, else the one
    an installed wheel carries (setup.py), else ./template.yaml."""
    import rhumbline

    named = explicit or (Path(os.environ["RHUMBLINE_TEMPLATE"]) if os.environ.get("RHUMBLINE_TEMPLATE") else None)
    if named is not None:
        if not named.is_file():
            raise TemplateError(f"template {named} does not exist")
        return named.resolve()
    package = Path(rhumbline.__file__).resolve().parent
    checkout = package.parents[2] / "template.yaml"
    for candidate in (checkout, package / "stack" / "template.yaml", Path.cwd() / "template.yaml"):
        if candidate.is_file():
            return candidate.resolve()
    raise TemplateError(f"no template.yaml found (looked at {checkout}, {package / 'stack'} and ./template.yaml); pass --template")

"""Which tools a client asked for: toolsets (families) and a read-only switch.

A client chooses with the `X-Rhumbline-Toolsets: code,review` header or the `?toolsets=code,review`
query parameter (for clients that cannot set headers), and `X-Rhumbline-Read-Only: true` or
`?read_only=true`; a token may carry default toolsets. Nothing chosen means every tool. The choice
narrows what `tools/list` shows and what `tools/call` accepts; it never widens a token's scopes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs

from rhumbline.runtime.spec import ToolSpec
from rhumbline.vocabulary import FAMILIES

# Where the edge leaves the request's selection in the ASGI scope for the MCP handlers.
SELECTION_KEY = "rhumbline.selection"
TOOLSETS_HEADER = "x-rhumbline-toolsets"
READ_ONLY_HEADER = "x-rhumbline-read-only"
TOOLSETS_PARAMETER = "toolsets"
READ_ONLY_PARAMETER = "read_only"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})


class SelectionError(ValueError):
    """A toolset or read-only value the client sent that means nothing: said back, never guessed."""


@dataclass(frozen=True)
class Selection:
    families: frozenset[str] | None = None  # None: every family
    read_only: bool = False

    def admits(self, spec: ToolSpec) -> bool:
        if self.read_only and not spec.read_only:
            return False
        return self.families is None or not self.families.isdisjoint(spec.families)

    def refusal(self, spec: ToolSpec) -> str | None:
        """Why a call to `spec` is outside this selection, or None when it is inside."""
        if self.read_only and not spec.read_only:
            return f"'{spec.name}' writes, and this client asked for read-only tools"
        if not self.admits(spec):
            chosen = ", ".join(sorted(self.families or ()))
            return f"'{spec.name}' is in the {', '.join(spec.families)} toolset, and this client chose {chosen}"
        return None


EVERYTHING = Selection()


def parse_families(text: str, *, source: str) -> frozenset[str] | None:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names or names == ["all"]:
        return None
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        raise SelectionError(f"{source}: unknown toolset {', '.join(unknown)}; toolsets are {', '.join(FAMILIES)} (or all)")
    return frozenset(names)


def parse_switch(text: str, *, source: str) -> bool:
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise SelectionError(f"{source}: expected true or false, not {text[:40]!r}")


def selection_from_request(
    headers: Mapping[str, str], query_string: str, token_default: Iterable[str] = ()
) -> Selection:
    """The request's choice (header, else query parameter), else the token's default, else all."""
    query = parse_qs(query_string, keep_blank_values=True)
    families: frozenset[str] | None = None
    if TOOLSETS_HEADER in headers:
        families = parse_families(headers[TOOLSETS_HEADER], source=f"header {TOOLSETS_HEADER}")
    elif TOOLSETS_PARAMETER in query:
        families = parse_families(",".join(query[TOOLSETS_PARAMETER]), source=f"query parameter {TOOLSETS_PARAMETER}")
    else:
        families = parse_families(",".join(token_default), source="the token's default toolsets")
    read_only = False
    if READ_ONLY_HEADER in headers:
        read_only = parse_switch(headers[READ_ONLY_HEADER], source=f"header {READ_ONLY_HEADER}")
    elif READ_ONLY_PARAMETER in query:
        read_only = parse_switch(query[READ_ONLY_PARAMETER][-1], source=f"query parameter {READ_ONLY_PARAMETER}")
    return Selection(families=families, read_only=read_only)

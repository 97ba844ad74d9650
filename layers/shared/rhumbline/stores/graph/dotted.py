"""A dotted name as its file's path spells it: `acme.tools.fmt.render.render_table` for the
function `render_table` of `acme/tools/fmt/render.py`, whatever module name the ingest gave that
file (without `__init__.py` in `acme/` and `acme/tools/`, namespace packages (PEP 420), its module
is `fmt.render`: the interpreter imports it under either name, depending on its search path).

Search finds a node by such a name as by its qualified name (GraphStore.search): the qualified
name's suffixes are looked up (find_by_name), then kept when the node's path-spelled name ends
with the whole query. Shared by both backends, so both find the same nodes.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rhumbline.stores.graph.model import Node

# A dotted identifier as typed (`pkg.sub.mod.func`): at least two parts.
_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)+")
# Suffixes looked up per query, longest first: each is a lookup, and a qualified name drops at
# most the namespace packages above its first regular package, a few directories.
MAX_LOOKUPS = 8
# Files whose dotted path names their package, not a module of their own.
_PACKAGE_STEMS = frozenset({"__init__"})


def shorter_names(query: str) -> list[str]:
    """The query's dotted suffixes a qualified name could be, longest first (`a.b.c` -> `b.c`, `c`),
    at most MAX_LOOKUPS; none when the query is not a dotted identifier."""
    if not _DOTTED.fullmatch(query):
        return []
    parts = query.split(".")
    return [".".join(parts[k:]) for k in range(1, min(len(parts), MAX_LOOKUPS + 1))]


def spells(node: Node, query: str) -> bool:
    """Whether the node's path-spelled name (its file's directories and module, then its
    qualified name past the module) ends with the dotted `query`, at a dot, ignoring case."""
    if not node.file:
        return False
    path = PurePosixPath(node.file.lower())
    folders = [*path.parent.parts, *([] if path.stem in _PACKAGE_STEMS else [path.stem])]
    named = node.qualified_name.lower().split(".")
    # The module name is the longest tail of the file's dotted path the qualified name starts with.
    module = next((k for k in range(min(len(folders), len(named)), 0, -1) if named[:k] == folders[-k:]), 0)
    if not module:
        return False
    spelled = [*folders, *named[module:]]
    wanted = query.lower().split(".")
    return len(spelled) >= len(wanted) and spelled[-len(wanted) :] == wanted

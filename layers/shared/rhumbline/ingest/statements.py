"""Import and Decorator nodes: one per import binding, one per decorator application.

They are occurrences, not named entities, so they stay out of everything that reasons about
dependencies between entities (those keep their direct edges: File -IMPORTS-> Module, decorator
-DECORATES-> definition). They hang off the graph through three relations no dependency reader
follows (graph-model.md):

- <innermost enclosing node> -CONTAINS-> Import / Decorator: the File for a module-level import,
  the function for a local one; the decorated definition for its decorators (its span includes
  them);
- Import -RESOLVES_TO-> the module (or file) the statement loads and the definition the name binds;
  Decorator -RESOLVES_TO-> the function or class the decorator names;
- Decorator -APPLIES_TO-> the decorated definition.

Names are the text (`from .query import QuerySet`, `@login_required`) and qualified names end in
`[…]`, so a lookup of a bare or dotted name (`QuerySet`, `django.utils`) never lands on them.
Ids are `import:<path>:<scope.bound name>` and `decorator:<path>:<decorated>@<decorator>`; a key
seen twice in one file (`try: import json` / `except: import simplejson as json`) gets `~2`, `~3`
in source order, so the same code gives the same ids.
"""

from __future__ import annotations

from hashlib import sha256

from rhumbline.ingest.edges import EdgeSet
from rhumbline.ingest.facts import DecoratorFact, ImportFact
from rhumbline.ingest.ids import decorator_id, import_id
from rhumbline.stores.graph.protocol import Node

IMPORT, DECORATOR = "Import", "Decorator"
RESOLVES_TO, APPLIES_TO = "RESOLVES_TO", "APPLIES_TO"


class Keys:
    """Unique keys within one file: the second `json` is `json~2`."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def unique(self, key: str) -> str:
        count = self._seen.get(key, 0) + 1
        self._seen[key] = count
        return key if count == 1 else f"{key}~{count}"


def import_key(fact: ImportFact, bound: str | None) -> str:
    """The name an import binds in its scope (`QuerySet`, `f.json`); what it loads when it binds
    no name (`cart.h`) or everything (`django.db.models.*`)."""
    if bound and bound != "*":
        key = bound
    elif bound == "*":
        key = f"{fact.module}.*" if fact.module else "*"
    else:
        key = fact.module
    return f"{fact.scope}.{key}" if fact.scope else key


def import_node(
    path: str, language: str | None, key: str, name: str, container: str, fact: ImportFact
) -> Node:
    """`name`: the binding as written; `container`: the qualified name of what contains it."""
    return Node(
        id=import_id(path, key),
        kind=IMPORT,
        name=name,
        qualified_name=f"{container}[{name}]",
        file=path,
        start_line=fact.line,
        end_line=fact.line,
        language=language,
        signature=fact.statement,
        content_hash=sha256(f"{fact.statement}\0{name}".encode()).hexdigest(),
    )


def decorator_node(
    path: str, language: str | None, key: str, decorated: str, decorator: DecoratorFact
) -> Node:
    """`decorated`: the qualified name of the decorated definition."""
    name = f"@{decorator.expression}"
    return Node(
        id=decorator_id(path, key),
        kind=DECORATOR,
        name=name,
        qualified_name=f"{decorated}[{name}]",
        file=path,
        start_line=decorator.line,
        end_line=decorator.end_line,
        language=language,
        signature=decorator.text,
        content_hash=sha256(decorator.text.encode()).hexdigest(),
    )


def add_import_structure(
    edges: EdgeSet, container_id: str, node: Node, path: str, line: int
) -> None:
    explanation = f"`{node.signature}` at {path}:{line}"
    edges.extracted(container_id, "CONTAINS", node.id, explanation, path, line)


def add_decorator_structure(
    edges: EdgeSet, decorated_id: str, what: str, node: Node, path: str, line: int
) -> None:
    """`what`: the decorated definition as prose (`function `index``)."""
    explanation = f"`{node.signature}` at {path}:{line} is applied to {what}"
    edges.extracted(decorated_id, "CONTAINS", node.id, explanation, path, line)
    edges.extracted(node.id, APPLIES_TO, decorated_id, explanation, path, line)

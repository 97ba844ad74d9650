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

from rhumbline.ingest.facts import DecoratorFact, ImportFact
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import decorator_id, import_id
from rhumbline.ingest.graph.records import new_node
from rhumbline.stores.graph.model import Node

IMPORT, DECORATOR = "Import", "Decorator"
RESOLVES_TO, APPLIES_TO = "RESOLVES_TO", "APPLIES_TO"


class _Keys:
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


class StatementNodes:
    """One file's Import and Decorator nodes and the edges that hang them off the graph (CONTAINS,
    APPLIES_TO). Every language places them here, so ids, names and evidence read the same; what
    they RESOLVES_TO is each language's own."""

    def __init__(self, path: str, language: str | None, edges: EdgeSet, nodes: list[Node]) -> None:
        self.path = path
        self.language = language
        self.edges = edges
        self.nodes = nodes  # the new nodes are appended here, in source order
        self._import_keys = _Keys()
        self._decorator_keys = _Keys()

    def add_import(
        self, fact: ImportFact, key: str, name: str, container: str, container_id: str
    ) -> Node:
        """`key`: from `import_key`; `name`: the binding as written; `container` and
        `container_id`: the qualified name and the id of what contains it."""
        node = self._node(
            import_id(self.path, self._import_keys.unique(key)), IMPORT, name, container,
            (fact.line, fact.line), fact.statement, f"{fact.statement}\0{name}",
        )  # fmt: skip
        explanation = f"`{node.signature}` at {self.path}:{fact.line}"
        self.edges.extracted(container_id, "CONTAINS", node.id, explanation, self.path, fact.line)
        return node

    def add_decorator(
        self, decorator: DecoratorFact, qualname: str, decorated_id: str, decorated: str, what: str
    ) -> Node:
        """`qualname`: the decorated definition's within the file; `decorated`: its qualified
        name; `what`: it as prose (`function `index``)."""
        key = self._decorator_keys.unique(f"{qualname}@{decorator.expression}")
        name = f"@{decorator.expression}"
        node = self._node(
            decorator_id(self.path, key), DECORATOR, name, decorated,
            (decorator.line, decorator.end_line), decorator.text, decorator.text,
        )  # fmt: skip
        line = decorator.line
        explanation = f"`{node.signature}` at {self.path}:{line} is applied to {what}"
        self.edges.extracted(decorated_id, "CONTAINS", node.id, explanation, self.path, line)
        self.edges.extracted(node.id, APPLIES_TO, decorated_id, explanation, self.path, line)
        return node

    def _node(
        self, node_id: str, kind: str, name: str, container: str, lines: tuple[int, int],
        text: str, hashed: str,
    ) -> Node:  # fmt: skip
        node = new_node(
            id=node_id,
            kind=kind,
            name=name,
            qualified_name=f"{container}[{name}]",
            file=self.path,
            start_line=lines[0],
            end_line=lines[1],
            language=self.language,
            signature=text,
            content_hash=sha256(hashed.encode()).hexdigest(),
        )
        self.nodes.append(node)
        return node

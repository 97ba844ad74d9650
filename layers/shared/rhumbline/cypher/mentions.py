"""The labels and relationship types a query names, and a warning for each that matches nothing in
the caller's projects: `MATCH (f:Function)` answering no rows must not read as "no functions" when
the graph has no such label (a misspelling, a kind the project lacks, a graph written before kind
labels). Each engine tells which of them its graph lacks (`Mentions.labels`, `Mentions.types`).
Likewise a property no node can have read on a node (`f.path`, where a node's path is `file`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from rhumbline.cypher import syntax as s
from rhumbline.cypher.schema import GRAPH_LABELS, NODE_PROPERTY_TYPES
from rhumbline.stores.graph.rows import NODE_FIELDS, RELATION_NAME


@dataclass(frozen=True)
class Mentions:
    labels: tuple[str, ...] = ()  # labels of the graph's own (schema.GRAPH_LABELS) the query names
    types: tuple[str, ...] = ()  # relationship types it names that the store can write (plain names)
    # Labels and types it names that no element can have: warned about without asking the graph.
    foreign_labels: tuple[str, ...] = ()
    foreign_types: tuple[str, ...] = ()
    node_keys: tuple[str, ...] = ()  # properties read on a node that no node has

    def warnings(self, absent_labels: Collection[str], absent_types: Collection[str]) -> tuple[str, ...]:
        """The answer's warnings, given the labels and types the caller's projects lack."""
        said = [f"the label :{label} matches no node in this token's projects" for label in sorted(absent_labels)]
        said += [
            f"the label :{label} matches no node: nodes are :CodeNode and labelled by their kind (:Function, "
            ":Class, :Method, ...; db.labels() lists those of this token's projects)"
            for label in self.foreign_labels
        ]
        said += [
            f"the relationship type :{name} matches no relationship in this token's projects "
            "(db.relationshipTypes() lists theirs)"
            for name in sorted({*absent_types, *self.foreign_types})
        ]
        said += [
            f"no node has the property `{key}`: it reads null (a node's properties: {_READABLE}; "
            "db.propertyKeys() lists those of this token's projects)"
            for key in self.node_keys
        ]
        return tuple(said)


# The properties a reader asks for (the others are derived search text).
_READABLE = ", ".join(("project", *NODE_FIELDS))


def mentioned(query: s.Query | None) -> Mentions:
    """What `query` names (nothing for a query outside the subset, which is not parsed)."""
    labels: set[str] = set()
    types: set[str] = set()
    nodes: set[str] = set()  # variables a node pattern binds
    rebound: set[str] = set()  # ... and the names bound to anything else somewhere in the query
    read: set[tuple[str, str]] = set()  # (variable, key) of every `variable.key` read
    keys: set[str] = set()  # keys of node patterns' property maps
    pending: list[Any] = [query] if query is not None else []
    while pending:
        item = pending.pop()
        if isinstance(item, (s.NodePattern, s.HasLabels)):
            labels.update(item.labels)
        elif isinstance(item, s.RelPattern):
            types.update(item.types)
        if isinstance(item, s.NodePattern):
            if item.var is not None:
                nodes.add(item.var)
            if item.properties is not None:
                keys.update(key for key, _ in item.properties.items)
        elif isinstance(item, s.RelPattern) and item.var is not None:
            rebound.add(item.var)
        elif isinstance(item, s.Prop) and isinstance(item.subject, s.Var):
            read.add((item.subject.name, item.key))
        elif isinstance(item, (s.Unwind, s.ListComp)):
            rebound.add(item.var)
        elif isinstance(item, s.Item) and item.aliased and not isinstance(item.expr, s.Var):
            rebound.add(item.name)
        elif isinstance(item, s.Procedure):
            rebound.update(alias for _, alias in item.yields or ())
        if isinstance(item, (tuple, list)):
            pending.extend(item)
        elif is_dataclass(item) and not isinstance(item, type):
            pending.extend(getattr(item, f.name) for f in fields(item))
    return Mentions(
        labels=tuple(sorted(labels & GRAPH_LABELS)),
        types=tuple(sorted(t for t in types if RELATION_NAME.fullmatch(t))),
        foreign_labels=tuple(sorted(labels - GRAPH_LABELS)),
        foreign_types=tuple(sorted(t for t in types if not RELATION_NAME.fullmatch(t))),
        node_keys=tuple(sorted(
            ({key for var, key in read if var in nodes - rebound} | keys) - NODE_PROPERTY_TYPES.keys()
        )),
    )  # fmt: skip

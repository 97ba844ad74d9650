"""The labels and relationship types a query names, and a warning for each that matches nothing in
the caller's projects: `MATCH (f:Function)` answering no rows must not read as "no functions" when
the graph has no such label (a misspelling, a kind the project lacks, a graph written before kind
labels). Each engine tells which of them its graph lacks (`Mentions.labels`, `Mentions.types`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from rhumbline.cypher import syntax as s
from rhumbline.cypher.schema import GRAPH_LABELS
from rhumbline.stores.graph.rows import RELATION_NAME


@dataclass(frozen=True)
class Mentions:
    labels: tuple[str, ...] = ()  # labels of the graph's own (schema.GRAPH_LABELS) the query names
    types: tuple[str, ...] = ()  # relationship types it names that the store can write (plain names)
    # Labels and types it names that no element can have: warned about without asking the graph.
    foreign_labels: tuple[str, ...] = ()
    foreign_types: tuple[str, ...] = ()

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
        return tuple(said)


def mentioned(query: s.Query | None) -> Mentions:
    """What `query` names (nothing for a query outside the subset, which is not parsed)."""
    labels: set[str] = set()
    types: set[str] = set()
    pending: list[Any] = [query] if query is not None else []
    while pending:
        item = pending.pop()
        if isinstance(item, (s.NodePattern, s.HasLabels)):
            labels.update(item.labels)
        elif isinstance(item, s.RelPattern):
            types.update(item.types)
        if isinstance(item, (tuple, list)):
            pending.extend(item)
        elif is_dataclass(item) and not isinstance(item, type):
            pending.extend(getattr(item, f.name) for f in fields(item))
    return Mentions(
        labels=tuple(sorted(labels & GRAPH_LABELS)),
        types=tuple(sorted(t for t in types if RELATION_NAME.fullmatch(t))),
        foreign_labels=tuple(sorted(labels - GRAPH_LABELS)),
        foreign_types=tuple(sorted(t for t in types if not RELATION_NAME.fullmatch(t))),
    )

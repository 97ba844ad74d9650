"""Collects edges, one per (source, relation, target), keeping the strongest evidence.

A function that calls `helper()` on five lines gets one CALLS edge: the first site with the best
confidence is its location, and the explanation says how many more sites there are.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields

from rhumbline.stores.graph.model import Confidence, Edge

EXTRACTED_SCORE = 1.0
INFERRED_SCORE = 0.8
# A call on a receiver of unknown type, matched to the only method of that name in the repository.
NAME_MATCH_SCORE = 0.5
MAX_CANDIDATES = 5

_RANK: dict[str, int] = {"EXTRACTED": 3, "INFERRED": 2, "AMBIGUOUS": 1}

EdgeKey = tuple[str, str, str]
# (key → [confidence, score, explanation, file, line, site count]) items, (key → properties) items
Evidence = tuple[list[tuple[EdgeKey, list]], list[tuple[EdgeKey, dict[str, str | int | float | bool]]]]

# Edge is a frozen dataclass: its __init__ sets every field through object.__setattr__, most of
# the cost of building a large graph's edges. Setting the slots through their descriptors gives
# equal objects for much less (edges() below).
# A field added to Edge must be set there too (tests/unit/ingest/test_edges.py compares).
_SET_EDGE_SLOT = {field.name: getattr(Edge, field.name).__set__ for field in fields(Edge)}


class EdgeSet:
    def __init__(self) -> None:
        # key → [confidence, score, explanation, file, line, site count]
        self._edges: dict[tuple[str, str, str], list] = {}
        self._properties: dict[tuple[str, str, str], dict[str, str | int | float | bool]] = {}

    def add(
        self,
        source: str,
        relation: str,
        target: str,
        confidence: Confidence,
        score: float,
        explanation: str,
        file: str | None,
        line: int | None,
    ) -> None:
        key = (source, relation, target)
        current = self._edges.get(key)
        if current is None:
            self._edges[key] = [confidence, score, explanation, file, line, 1]
            return
        current[5] += 1
        if (_RANK[confidence], score) > (_RANK[current[0]], current[1]):
            current[:5] = [confidence, score, explanation, file, line]

    def extracted(
        self,
        source: str,
        relation: str,
        target: str,
        explanation: str,
        file: str | None,
        line: int | None,
    ) -> None:
        """An edge read straight off the code (containment, definition, an import statement)."""
        self.add(source, relation, target, "EXTRACTED", EXTRACTED_SCORE, explanation, file, line)

    def set_properties(
        self, source: str, relation: str, target: str, properties: dict[str, str | int | float | bool]
    ) -> None:
        """Edge.properties of an edge already added (facts about the relationship, see Edge)."""
        self._properties[(source, relation, target)] = properties

    def __len__(self) -> int:
        return len(self._edges)

    def evidence(self) -> Evidence:
        """The set's evidence as builtins only (marshal's types), for EdgeSet.of in another process."""
        return list(self._edges.items()), list(self._properties.items())

    @classmethod
    def of(cls, evidence: Evidence) -> EdgeSet:
        edges = cls()
        edges._edges = dict(evidence[0])
        edges._properties = dict(evidence[1])
        return edges

    def absorb(self, other: EdgeSet) -> None:
        """Add `other`'s edges as if its adds had come after this set's own: the same best
        evidence, site counts and properties, and its new keys after this set's, in its order.
        `other` is left empty."""
        mine = self._edges
        for key, found in other._edges.items():
            current = mine.get(key)
            if current is None:
                mine[key] = found
                continue
            current[5] += found[5]
            if (_RANK[found[0]], found[1]) > (_RANK[current[0]], current[1]):
                current[:5] = found[:5]
        self._properties.update(other._properties)
        other._edges, other._properties = {}, {}

    def edges(self) -> list[Edge]:
        """The edges, in the order their keys were first added."""
        return self._built(self._edges.items())

    def take(self) -> list[Edge]:
        """The edges, as edges() gives them, leaving the set empty: each edge's evidence goes as
        its Edge is made, so a whole graph's edges are never held twice."""
        found, self._edges = self._edges, {}
        built = self._built((key, found.pop(key)) for key in list(found))
        self._properties = {}
        return built

    def _built(self, evidence: Iterable[tuple[tuple[str, str, str], list]]) -> list[Edge]:
        slot = _SET_EDGE_SLOT
        set_source, set_target, set_relation = slot["source"], slot["target"], slot["relation"]
        set_confidence, set_score = slot["confidence"], slot["confidence_score"]
        set_explanation, set_file, set_line = slot["explanation"], slot["file"], slot["line"]
        set_properties = slot["properties"]
        new = object.__new__
        properties = self._properties
        built: list[Edge] = []
        append = built.append
        # A graph has a handful of distinct scores; round() (a decimal conversion) once each.
        rounded: dict[float, float] = {}
        for key, (confidence, score, explanation, file, line, sites) in evidence:
            edge = new(Edge)
            set_source(edge, key[0])
            set_target(edge, key[2])
            set_relation(edge, key[1])
            set_confidence(edge, confidence)
            shown = rounded.get(score)
            if shown is None:
                shown = rounded[score] = round(score, 4)
            set_score(edge, shown)
            set_explanation(edge, explanation if sites == 1 else f"{explanation} (and {sites - 1} more)")
            set_file(edge, file)
            set_line(edge, line)
            set_properties(edge, properties.get(key))
            append(edge)
        return built

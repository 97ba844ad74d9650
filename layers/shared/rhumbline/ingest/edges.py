"""Collects edges, one per (source, relation, target), keeping the strongest evidence.

A function that calls `helper()` on five lines gets one CALLS edge: the first site with the best
confidence is its location, and the explanation says how many more sites there are.
"""

from __future__ import annotations

from rhumbline.stores.graph.protocol import Confidence, Edge

EXTRACTED_SCORE = 1.0
INFERRED_SCORE = 0.8
# A call on a receiver of unknown type, matched to the only method of that name in the repository.
NAME_MATCH_SCORE = 0.5
MAX_CANDIDATES = 5

_RANK: dict[str, int] = {"EXTRACTED": 3, "INFERRED": 2, "AMBIGUOUS": 1}


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

    def edges(self) -> list[Edge]:
        return [
            Edge(
                source=source,
                target=target,
                relation=relation,
                confidence=confidence,
                confidence_score=round(score, 4),
                explanation=explanation if sites == 1 else f"{explanation} (and {sites - 1} more)",
                file=file,
                line=line,
                properties=self._properties.get((source, relation, target)),
            )
            for (source, relation, target), evidence in self._edges.items()
            for confidence, score, explanation, file, line, sites in (evidence,)
        ]

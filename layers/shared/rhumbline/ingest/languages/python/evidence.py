"""Confidence and explanation of an edge from how its target was resolved.

One place decides the labels, so CALLS, INHERITS and DECORATES read alike: a definition in the same
module is EXTRACTED; anything reached through an import, an alias or a base class is INFERRED; two
to five candidates are AMBIGUOUS, each scored 1/n with the candidates named; more than five are
dropped (a guess among six or more helps nobody) and the caller counts the site as unresolved.
"""

from __future__ import annotations

from typing import NamedTuple

from rhumbline.ingest.graph.edges import EXTRACTED_SCORE, INFERRED_SCORE, MAX_CANDIDATES
from rhumbline.ingest.languages.python.resolve import Target
from rhumbline.stores.graph.model import Confidence


class Evidence(NamedTuple):
    node_id: str
    confidence: Confidence
    score: float
    explanation: str


def classify(targets: list[Target], what: str, qualified: dict[str, str]) -> list[Evidence]:
    """`what` describes the site, e.g. "call `f(...)` at pkg/mod.py:12"."""
    return [Evidence(node_id, confidence, score, what + tail)
            for node_id, confidence, score, tail in classify_tails(targets, qualified)]  # fmt: skip


def classify_tails(targets: list[Target], qualified: dict[str, str]) -> list[Evidence]:
    """classify without the site: each Evidence's explanation is what follows the site's
    description, so sites that resolve alike (one name called on many lines) share this work."""
    if not targets or len(targets) > MAX_CANDIDATES:
        return []
    if len(targets) > 1:
        names = ", ".join(sorted(qualified[t.node_id] for t in targets))
        tail = f" has {len(targets)} candidates: {names}"
        return [Evidence(t.node_id, "AMBIGUOUS", 1 / len(targets), tail) for t in targets]
    target = targets[0]
    name = qualified[target.node_id]
    if target.owner is not None:
        tail = f" resolved to `{name}`, inherited from `{qualified[target.owner]}`"
    elif target.imported and target.binding is not None:
        tail = f" resolved through `{target.binding.statement}` to `{name}`"
    elif target.imported:
        tail = f" resolved to `{name}` in another module"
    else:
        tail = f" resolves to `{name}` in the same module"
        return [Evidence(target.node_id, "EXTRACTED", EXTRACTED_SCORE, tail)]
    return [Evidence(target.node_id, "INFERRED", INFERRED_SCORE, tail)]

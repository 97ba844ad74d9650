"""Optional semantic re-ranking of search candidates (RHUMBLINE_SEMANTIC_RANKING, the `semantic` extra).

The lexical ranking (ranking.py) picks and scores the candidates; when this is on, each candidate's
score within its name tier also counts the cosine between the query and the node's name, signature
and docstring, embedded by wordllama's static model (it ships inside the wheel: no network, no
vectors stored, so ingest costs nothing). Only the full-text tier is re-scored: a name match says
more than any meaning, so exact and prefix matches keep their tier and their order.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rhumbline.errors import Unsupported
from rhumbline.stores.graph import ranking
from rhumbline.stores.graph.model import Node
from rhumbline.stores.graph.ranking import Ranked

EXTRA = "semantic"
# The cosine's weight against the lexical relevance: more lets vague semantic neighbours overtake
# partial-identifier matches.
WEIGHT = 0.1
# The most characters of a node's text embedded: a docstring's opening says what the node is for.
MAX_TEXT = 600
_WITHIN = ranking.TIER_SPAN

_lock = threading.Lock()
_model: Any = None


def _load() -> Any:
    try:
        import wordllama
    except ImportError:
        raise Unsupported(
            f"RHUMBLINE_SEMANTIC_RANKING is on but its model is not installed: install rhumbline[{EXTRA}] "
            "(wordllama), or turn the setting off"
        ) from None
    # The wheel ships its tokenizer under `tokenizers/` but the loader looks for it in the package's
    # `tokenizer/` before `<cache_dir>/tokenizers/`: the package's own folder as the cache finds it,
    # and downloads stay off so a missing file is an error, never a network call.
    try:
        return wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except (OSError, ValueError) as error:
        raise Unsupported(f"RHUMBLINE_SEMANTIC_RANKING is on but wordllama's model did not load: {error}") from None


def model() -> Any:
    """The embedding model, loaded once per process on first use."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                _model = _load()
    return _model


def text_of(node: Node) -> str:
    parts = [node.name, node.signature or "", node.docstring or ""]
    return " ".join(part for part in parts if part)[:MAX_TEXT]


def rerank(query: str, ranked: Sequence[Ranked]) -> list[Ranked]:
    """`ranked` (ranking.rank's candidates) re-scored with the semantic blend, best first."""
    named = [r for r in ranked if ranking.tier_of(r.row.flags) > ranking.TIER_FULLTEXT]
    worded = [r for r in ranked if ranking.tier_of(r.row.flags) == ranking.TIER_FULLTEXT]
    if not worded:
        return list(ranked)
    vectors = model().embed([query, *(text_of(r.row.node) for r in worded)], norm=True)
    cosines = vectors[1:] @ vectors[0]
    return ranking.ordered([*named, *(Ranked(blend(r, float(c)), r.row) for r, c in zip(worded, cosines))])


def blend(candidate: Ranked, cosine: float) -> float:
    """The candidate's lexical relevance plus WEIGHT * cosine, mapped back into its tier's span (an
    affine map: the order within a tier is that of relevance + WEIGHT * cosine)."""
    tier = ranking.tier_of(candidate.row.flags)
    within = candidate.score - tier + WEIGHT * (1.0 + max(-1.0, min(1.0, cosine)))
    return round(tier + _WITHIN * within / (_WITHIN + 2.0 * WEIGHT), 9)

"""Search ranking, once for both backends: a query's plan, and the score of each candidate.

A query becomes term groups (a stemmed word and its synonyms, stop words left out) and adjacent
pairs of them (a phrase). Each group is probed in each field of the nodes (words.py: name, context,
doc, body), each pair as a phrase in the doc. A backend first counts each
probe's nodes, up to SELECTIVE + 1 (`GraphStore._probe_counts`). A probe matched by at most
SELECTIVE nodes selects them (OR semantics), rarest first while the nodes selected stay within
SELECTIVE (context and body probes last: a path word alone says little); a more common one only adds to
the score of nodes selected otherwise. The name matches
are always candidates: exact name or qualified name, name prefix, the query's words consecutive in
the name. The backend keeps the best CUT candidates by name tier, then by an integer sum of the
weights of the probes they match (`Weighing.selecting`), then by shorter qualified name and id
(`GraphStore._search_rows`), and reports for each a bit per probe it matches (whole-term string
containment, so both backends give the same bits), its name-match flags and the CALLS edges
reaching it. Their score is
computed here, identically for both:

    relevance = (sum over groups of idf(g) * sat(sum over fields of weight(f) * matched(g, f))
                 + phrase bonuses) * coverage * prior
    coverage  = the idf of the groups matched / the idf of all groups (Lucene's coordination); a
                group matched in the body alone counts BODY_COVERAGE of its idf
    prior     = the node's (words.search_class): test code, modules, files and imports weigh less;
                so do declarations without a body (words.DECLARATION), under the code that runs,
                and a hook's registrations (words.REGISTRATION), under the code that runs the hooks;
                times 1 + CALLS_PRIOR * ln(1 + the CALLS edges reaching it)
    idf(g)    = ln(1 + N_REF / (df(g) + 0.5)), df(g) the most nodes one of its probes matched
                (at most SELECTIVE + 1: common words all weigh about the same, little)
    sat(x)    = x (K1 + 1) / (x + K1)            (BM25's term-frequency saturation)

The doc field's weight is divided by its length relative to AVERAGE_DOC (BM25's b). The score
is a tier plus the relevance mapped into [0, 0.5): exact name 3 (the name's words the query's words
too: `import path` is `import_path`; 3.5 when also spelled as typed),
prefix or name phrase 2, any other match 1. Ties: shorter qualified name, then id, then project.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

from rhumbline.stores.graph import words
from rhumbline.stores.graph.model import Node

FIELDS = ("name_terms", "context_terms", "doc_terms", "body_terms")
NAME, CONTEXT, DOC, BODY = range(len(FIELDS))
WEIGHTS = (3.0, 0.8, 1.2, 0.6)
PHRASE_DOC = 1.0
# A query word only a node's body holds counts this much of its idf towards the node's coverage:
# a body mentions many things it is not about.
BODY_COVERAGE = 0.5
K1 = 1.2
B = 0.75
AVERAGE_DOC = 40.0
# Probes select their nodes rarest first, as long as the nodes selected stay within this many;
# more common ones only rank the nodes selected otherwise. Counts stop past it.
SELECTIVE = 150
N_REF = 50_000.0
MAX_PAIRS = 4
# Name-match flags a backend reports.
FLAG_EXACT = 1  # name or qualified name equals the query, ignoring case; or the name's words are the query's
FLAG_EXACT_CASE = 2  # the name is the query as typed
FLAG_PREFIX = 4  # the name starts with the query, or holds the query's words consecutively
TIER_EXACT, TIER_EXACT_CASE, TIER_PREFIX, TIER_FULLTEXT = 3.0, 3.5, 2.0, 1.0
# A score is its tier plus at most this: no relevance lifts a candidate into the tier above.
TIER_SPAN = 0.499
# The prior of a node's words.search_class; TEST_CODE multiplies.
PRIORS = {
    words.CLASS_DEFINITION: 1.0,
    words.CLASS_MODULE: 0.5,
    words.CLASS_VARIABLE: 0.7,
    words.CLASS_FILE: 0.5,
    words.CLASS_STATEMENT: 0.3,
    words.CLASS_KNOWLEDGE: 1.0,
}
TEST_PRIOR = 0.25
PRIVATE_PRIOR = 0.7
# A declaration without a body (a stub file's, an interface's method) ranks under its
# implementation: the agent asking wants the code that does the work.
DECLARATION_PRIOR = 0.3
# A hook's registration (it only stores the callback it is given) ranks under the code that runs
# the callbacks: a question about a hook is about what happens when it fires.
REGISTRATION_PRIOR = 0.5
# Code called from more places is more often what a question is after (the function doing the
# work, not a one-off helper or a thin entry point): the prior grows with the log of its callers.
CALLS_PRIOR = 0.1

# A small code vocabulary: abbreviations and the words they stand for find each other.
SYNONYMS = (
    ("auth", "authenticate", "authentication"),
    ("authz", "authorize", "authorization"),
    ("db", "database"),
    ("config", "configuration", "cfg", "conf"),
    ("dir", "directory", "folder"),
    ("env", "environment", "environ"),
    ("arg", "argument", "args"),
    ("param", "parameter", "params"),
    ("len", "length"),
    ("msg", "message"),
    ("err", "error"),
    ("exc", "exception"),
    ("req", "request"),
    ("resp", "response"),
    ("repo", "repository"),
    ("tmp", "temp", "temporary"),
    ("str", "string"),
    ("int", "integer"),
    ("num", "number"),
    ("init", "initialize"),
    ("impl", "implementation"),
    ("ctx", "context"),
    ("app", "application"),
    ("func", "function", "fn"),
    ("obj", "object"),
    ("attr", "attribute"),
    ("val", "value"),
    ("cmd", "command"),
    ("opt", "option"),
    ("pkg", "package"),
    ("lib", "library"),
    ("src", "source"),
    ("dest", "destination"),
    ("pwd", "passwd", "password"),
    ("cred", "credentials"),
    ("perm", "permission"),
    ("cb", "callback"),
    ("tz", "timezone"),
    ("dt", "datetime"),
    ("info", "information"),
    ("doc", "docs", "documentation"),
    ("prop", "property"),
    ("addr", "address"),
    ("conn", "connection"),
    ("proc", "process"),
    ("http", "https"),
    ("async", "asynchronous"),
    ("sync", "synchronous"),
    ("cookie", "cookies"),
    ("header", "headers"),
)


def _synonym_table() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for group in SYNONYMS:
        stems = words.unique(words.stem(w) for w in group)
        for one in stems:
            table.setdefault(one, [])
            table[one].extend(other for other in stems if other != one and other not in table[one])
    return {key: tuple(value) for key, value in table.items()}


_SYNONYMS = _synonym_table()


class Probe(NamedTuple):
    """One lookup a backend answers: nodes whose `field` holds one of `needles` (a needle is one
    term, or two adjacent terms for a phrase), as whole space-separated terms."""

    field: str
    needles: tuple[str, ...]
    bit: int


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """A search text, parsed once: what the backend looks up and what the ranking needs."""

    typed: str  # stripped, as typed: exact-case matching
    lower: str  # exact and name-prefix matching
    phrase: str | None  # the query's words joined, not stemmed, stop words kept: name-word phrases
    groups: tuple[tuple[str, ...], ...]  # per query term: its stem, then its synonyms' stems
    pairs: tuple[tuple[int, int], ...]  # adjacent groups in the query, for phrase bonuses
    probes: tuple[Probe, ...]

    @classmethod
    def parse(cls, text: str) -> SearchPlan:
        stripped = text.strip()
        if not stripped:
            raise ValueError("search query is empty")
        if len(stripped) > words.MAX_QUERY_CHARS:
            raise ValueError(f"search query is longer than {words.MAX_QUERY_CHARS} characters")
        return _plan(stripped)

    def doc_probes(self) -> tuple[Probe, ...]:
        return tuple(p for p in self.probes if p.field == FIELDS[DOC])


@lru_cache(maxsize=1_024)
def _plan(stripped: str) -> SearchPlan:
    spoken = words.split_words(stripped)
    kept = [w for w in words.indexed_words(stripped) if w not in words.STOP_WORDS]
    # A query of stop words only ("all", "do it") still means its words.
    stems = words.unique(words.stem(w) for w in (kept or words.indexed_words(stripped)))[: words.MAX_QUERY_TERMS]
    groups = tuple((s, *_SYNONYMS.get(s, ())) for s in stems)
    position = {s: i for i, s in enumerate(stems)}
    sequence = [words.stem(w) for w in spoken if w not in words.STOP_WORDS]
    pairs = words.unique(
        (position[a], position[b]) for a, b in zip(sequence, sequence[1:]) if a != b and a in position and b in position
    )[:MAX_PAIRS]  # fmt: skip
    probes = [
        Probe(field, group, index * len(FIELDS) + f)
        for index, group in enumerate(groups)
        for f, field in enumerate(FIELDS)
    ]
    base = len(groups) * len(FIELDS)
    for j, (a, b) in enumerate(pairs):
        probes.append(Probe(FIELDS[DOC], (f"{stems[a]} {stems[b]}",), base + j))
    return SearchPlan(
        typed=stripped, lower=stripped.lower(), phrase=" ".join(spoken) or None, groups=groups,
        pairs=tuple(pairs), probes=tuple(probes),
    )  # fmt: skip


class SearchRow(NamedTuple):
    """A candidate as a backend reports it."""

    node: Node
    project: str
    qn_length: int
    flags: int
    search_class: int
    doc_len: int
    mask: int  # a bit per probe the node matches (Probe.bit)
    callers: int = 0  # the CALLS edges reaching it (the call prior)


class Ranked(NamedTuple):
    score: float
    row: SearchRow


_GROUP_BITS = (1 << len(FIELDS)) - 1
_BODY_ONLY = 1 << BODY
_SELECT_ORDER = {NAME: 0, DOC: 0, CONTEXT: 1, BODY: 2}

# The candidates whose exact score is computed: the rest rank below them by construction (name
# tier, then the integer weight of their matches).
CUT = 50
# Integer probe weights: sums are exact and identical on both backends.
WEIGHT_SCALE = 1_000


@dataclass(frozen=True, slots=True)
class Weighing:
    """A plan weighed against a graph's counts: what selects, what only ranks."""

    idf: tuple[float, ...]  # per group
    selecting: tuple[tuple[Probe, int], ...]  # probes that select candidates, with integer weights
    common: tuple[Probe, ...]  # probes too common to select: tested on the kept candidates only
    total: float  # the idf of all groups (at least 1)


def idf(matched: int) -> float:
    return math.log(1.0 + N_REF / (matched + 0.5))


def weigh(plan: SearchPlan, counts: Sequence[int], *, docs_only: bool = False) -> Weighing:
    """`counts[i]`: how many nodes plan.probes[i] matched (at most SELECTIVE + 1)."""
    width = len(FIELDS)
    weights = tuple(idf(max(counts[g * width : (g + 1) * width], default=0)) for g in range(len(plan.groups)))
    pair_base = len(plan.groups) * width
    selecting: list[tuple[Probe, int]] = []
    common: list[Probe] = []
    budget = SELECTIVE
    # Rarest first; context probes (a path word alone says little) after the others, body probes
    # (a word a body holds says less) last; ties in probe order.
    order = sorted((_SELECT_ORDER[FIELDS.index(p.field)], c, i) for i, (p, c) in enumerate(zip(plan.probes, counts)) if c)
    for _, count, index in order:
        probe = plan.probes[index]
        field = FIELDS.index(probe.field)
        if (docs_only and field != DOC) or count > budget:
            common.append(probe)  # ranks, never selects: tested on the kept candidates
            continue
        budget -= count
        if probe.bit < pair_base:
            weight = weights[probe.bit // width] * WEIGHTS[field]
        else:
            a, b = plan.pairs[probe.bit - pair_base]
            weight = (weights[a] + weights[b]) / 2 * PHRASE_DOC
        selecting.append((probe, round(weight * WEIGHT_SCALE)))
    return Weighing(weights, tuple(selecting), tuple(common), sum(weights) or 1.0)


def rank(plan: SearchPlan, weighing: Weighing, rows: Sequence[SearchRow]) -> list[Ranked]:
    """The rows scored, best first."""
    return ordered([Ranked(_score(plan, weighing, row), row) for row in rows])


def grouped(scored: Sequence[Ranked]) -> list[tuple[Ranked, list[Ranked]]]:
    """Best first, each declaration without a body (words.DECLARATION) folded into the
    best-ranked implementation above it of the same project, kind and name: (hit, its declarations).
    A declaration with no such implementation above it stays a hit of its own."""
    groups: list[tuple[Ranked, list[Ranked]]] = []
    implementations: dict[tuple[str, str, str], int] = {}
    for ranked in scored:
        node = ranked.row.node
        key = (ranked.row.project, node.kind, node.name)
        if _declared(ranked.row):
            if key in implementations:
                groups[implementations[key]][1].append(ranked)
                continue
        else:
            implementations.setdefault(key, len(groups))
        groups.append((ranked, []))
    return groups


def _declared(row: SearchRow) -> bool:
    """The stored bit (words.DECLARATION), or the node's own evidence for a node written before
    the bit was."""
    node = row.node
    return bool(row.search_class & words.DECLARATION) or words.is_declaration(
        node.kind, node.file, node.language, node.signature
    )


def ordered(scored: Sequence[Ranked]) -> list[Ranked]:
    """Best first; ties: shorter qualified name, then id, then project."""
    return sorted(scored, key=lambda r: (-r.score, r.row.qn_length, r.row.node.id, r.row.project))


def _score(plan: SearchPlan, weighing: Weighing, row: SearchRow) -> float:
    mask, width = row.mask, len(FIELDS)
    doc_weight = WEIGHTS[DOC] / (1.0 - B + B * row.doc_len / AVERAGE_DOC)
    relevance = covered = 0.0
    for g, weight in enumerate(weighing.idf):
        bits = (mask >> (g * width)) & _GROUP_BITS
        if not bits:
            continue
        covered += weight if bits != _BODY_ONLY else weight * BODY_COVERAGE
        x = (
            WEIGHTS[NAME] * (bits & 1) + WEIGHTS[CONTEXT] * ((bits >> CONTEXT) & 1)
            + doc_weight * ((bits >> DOC) & 1) + WEIGHTS[BODY] * ((bits >> BODY) & 1)
        )  # fmt: skip
        relevance += weight * x * (K1 + 1.0) / (x + K1)
    pair_base = len(plan.groups) * width
    for j, (a, b) in enumerate(plan.pairs):
        if (mask >> (pair_base + j)) & 1:
            relevance += (weighing.idf[a] + weighing.idf[b]) / 2 * PHRASE_DOC
    # Lucene's coordination factor: a node holding more of the query's (rarer) words ranks higher.
    relevance *= covered / weighing.total
    prior = PRIORS.get(row.search_class & 7, 1.0)
    if row.search_class & words.TEST_CODE:
        prior *= TEST_PRIOR
    if row.search_class & words.PRIVATE:
        prior *= PRIVATE_PRIOR
    if _declared(row):
        prior *= DECLARATION_PRIOR
    if row.search_class & words.REGISTRATION:
        prior *= REGISTRATION_PRIOR
    prior *= 1.0 + CALLS_PRIOR * math.log1p(row.callers)
    relevance *= prior
    # Within a tier, a name match with no other relevance still ranks by its prior.
    total = weighing.total
    return round(tier_of(row.flags) + TIER_SPAN * (relevance + prior) / (relevance + prior + total), 9)


def tier_of(flags: int) -> float:
    if flags & FLAG_EXACT:
        return TIER_EXACT_CASE if flags & FLAG_EXACT_CASE else TIER_EXACT
    return TIER_PREFIX if flags & FLAG_PREFIX else TIER_FULLTEXT


def match_of(score: float) -> Literal["exact", "prefix", "fulltext"]:
    """The tier a score belongs to."""
    if score >= TIER_EXACT:
        return "exact"
    if score >= TIER_PREFIX:
        return "prefix"
    return "fulltext"

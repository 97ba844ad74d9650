"""Neo4j's named_bundle (function's, class's and explain's name lookup and bundle in one statement)
against the two reads it replaces: find_by_name's page and total, and node_bundle of the node that
lookup.names.choose picks from them — for unique, qualified, cased, ambiguous and unknown names.
And lookup.bundle.resolve_bundle stays right when the statement's guess is not the rule's."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.errors import ToolFailure
from rhumbline.lookup.bundle import resolve_bundle
from rhumbline.lookup.names import CANDIDATES, choose
from rhumbline.stores.graph.model import Around, GraphBatch, Walk
from rhumbline.stores.graph.protocol import GraphStore

pytestmark = pytest.mark.neo4j

F = "pkg/m.py"
NODES = [
    node("Class", "pkg.m.QuerySet", F, start_line=1),
    node("Method", "pkg.m.QuerySet.filter", F, start_line=2),
    node("Method", "pkg.m.Admin.queryset", F, start_line=10),
    node("Method", "pkg.m.Other.queryset", F, start_line=12),
    node("Method", "pkg.m.Fmt.T", F, start_line=20),
    node("Method", "pkg.m.Fmt.t", F, start_line=21),
    node("Function", "pkg.m.helper", F, start_line=30),
    node("Function", "pkg.other.helper", "pkg/other.py", start_line=1),
    node("Function", "pkg.m.only_one", F, start_line=40),
]
ID = {n.qualified_name: n.id for n in NODES}
EDGES = [
    edge(ID["pkg.m.QuerySet"], ID["pkg.m.QuerySet.filter"], "DEFINES"),
    edge(ID["pkg.m.only_one"], ID["pkg.m.helper"]),
    edge(ID["pkg.m.helper"], ID["pkg.m.QuerySet.filter"]),
    edge(ID["pkg.other.helper"], ID["pkg.m.only_one"]),
]
AROUND = [Around("in", ("DECORATES", "DEFINES", "DOCUMENTS"), 20)]
WALKS = [Walk("in", ("CALLS",), 2, 10), Walk("out", ("CALLS",), 2, 10)]
CALLABLE = ["Function", "Method"]
# (typed, kinds): every rule of names.choose and its errors.
TYPED = [
    ("only_one", CALLABLE),  # the only match
    ("helper", CALLABLE),  # ambiguous
    ("pkg.m.helper", CALLABLE),  # the qualified name typed exactly
    ("m.helper", CALLABLE),  # a dotted tail: cased rule
    ("T", CALLABLE),  # T and t match ignoring case; T is spelled as typed
    ("t", None),
    ("QuerySet", None),  # the class, not the queryset methods (cased)
    ("QuerySet", CALLABLE),  # only the queryset methods: other kind / ambiguous error
    ("queryset", CALLABLE),  # both methods spelled so: ambiguous
    ("QUERYSET.FILTER", CALLABLE),  # matches ignoring case only, and only one: the only match
    ("nothing_like_it", None),  # unknown
    ("  only_one  ", None),  # typed with spaces
]


@pytest.fixture
def store(neo4j_graph_store: GraphStore, project: str) -> Iterator[GraphStore]:
    neo4j_graph_store.apply(project, GraphBatch(nodes=NODES, edges=EDGES, clear=True))
    yield neo4j_graph_store
    neo4j_graph_store.delete_project(project)


def _rule(store: GraphStore, project: str, typed: str, kinds: list[str] | None) -> str | None:
    """The id names.choose picks from find_by_name's page, None when it raises."""
    found, total = store.find_by_name(project, typed, kinds=kinds, limit=CANDIDATES + 1)
    context = SimpleNamespace(graph=store)  # the error paths read more; only the pick matters here
    try:
        return choose(context, project, typed.strip(), found, total, kinds=kinds, path=None,  # type: ignore[arg-type]
                      noun="node", other_kind_hint="").id  # fmt: skip
    except (ToolFailure, AttributeError):
        return None


@pytest.mark.parametrize(("typed", "kinds"), TYPED, ids=[f"{t.strip()}-{bool(k)}" for t, k in TYPED])
def test_one_statement_gives_what_the_two_reads_give(store: GraphStore, project: str, typed: str, kinds) -> None:
    found, total, bundle = store.named_bundle(  # type: ignore[attr-defined]
        project, typed, kinds=kinds, limit=CANDIDATES + 1, around=AROUND, walks=WALKS
    )
    assert (found, total) == store.find_by_name(project, typed, kinds=kinds, limit=CANDIDATES + 1)
    picked = _rule(store, project, typed, kinds)
    assert (bundle.node.id if bundle else None) == picked  # the statement guessed the rule's node
    if picked is not None:
        assert bundle == store.node_bundle(project, picked, around=AROUND, walks=WALKS)


def test_the_picks_cover_every_rule(store: GraphStore, project: str) -> None:
    picks = {typed: _rule(store, project, typed, kinds) for typed, kinds in TYPED if kinds}
    assert picks["only_one"] == ID["pkg.m.only_one"]
    assert picks["pkg.m.helper"] == picks["m.helper"] == ID["pkg.m.helper"]
    assert picks["T"] == ID["pkg.m.Fmt.T"]
    assert picks["QUERYSET.FILTER"] == ID["pkg.m.QuerySet.filter"]
    assert picks["helper"] is picks["queryset"] is picks["QuerySet"] is None


def test_resolve_bundle_reads_again_when_the_guess_is_not_the_rules(
    store: GraphStore, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A statement that bundled another node than the rule picks (the rule changed, the statement
    did not): the answer is still the rule's node and its own bundle, read once more."""
    context = SimpleNamespace(graph=store)
    right = ID["pkg.m.only_one"]
    wrong = store.node_bundle(project, ID["pkg.m.helper"], around=AROUND, walks=WALKS)
    honest = store.named_bundle  # type: ignore[attr-defined]

    def guessing_wrong(*args, **kwargs):  # type: ignore[no-untyped-def]
        found, total, _ = honest(*args, **kwargs)
        return found, total, wrong

    monkeypatch.setattr(store, "named_bundle", guessing_wrong)
    node, bundle = resolve_bundle(context, project, "only_one", kinds=CALLABLE, file=None,  # type: ignore[arg-type]
                                  around=AROUND, walks=WALKS)  # fmt: skip
    assert node.id == bundle.node.id == right
    assert bundle == store.node_bundle(project, right, around=AROUND, walks=WALKS)

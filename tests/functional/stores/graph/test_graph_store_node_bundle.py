"""node_bundle (function's, class's and explain's single read) equals its definition,
GraphStore's composition, on both backends: edges around with caps and totals, far-end
degrees, walks to each depth with their limits, ties, cycles, stubs, both directions."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, node
from tests.functional.stores.graph.traversal_graph import ID, STUB, store  # noqa: F401

from rhumbline.stores.graph.model import Around, GraphBatch, Keep, Walk
from rhumbline.stores.graph.protocol import GraphStore

CALLS = ("CALLS",)
WALKS = [
    Walk("out", CALLS, 1, 10), Walk("out", CALLS, 2, 10), Walk("out", CALLS, 4, 10), Walk("out", CALLS, 3, 2),
    Walk("out", CALLS, 3, 1), Walk("in", CALLS, 3, 10), Walk("in", None, 10, 10), Walk("out", None, 10, 3),
    Walk("both", None, 3, 10), Walk("both", ("CALLS", "IMPORTS"), 2, 4), Walk("out", (), 3, 10),
    Walk("out", CALLS, 0, 5), Walk("out", ("INHERITS", "IMPORTS"), 10, 10),
]  # fmt: skip
AROUNDS = [
    Around("out", None, 20), Around("in", None, 1), Around("out", CALLS, 1), Around("in", ("CALLS", "DECORATES"), 20),
    Around("out", ("NONE_SUCH",), 5), Around("out", None, 20, far_degrees=("in", CALLS)),
    Around("out", CALLS, 1, far_degrees=("out", ("CALLS", "IMPORTS"))), Around("in", None, 20, far_degrees=("out", ())),
]  # fmt: skip


def _both(graph: GraphStore, project: str, node_id: str, **specs: object) -> tuple[object, object]:
    return (
        graph.node_bundle(project, node_id, **specs),  # type: ignore[arg-type]
        GraphStore.node_bundle(graph, project, node_id, **specs),  # type: ignore[arg-type]
    )


# A few walks per statement: the tools ask for two; Neo4j's first planning of a statement grows
# with its subqueries (seconds on a loaded machine), and the store's timeout bounds it.
@pytest.mark.parametrize("walks", [WALKS[i : i + 3] for i in range(0, len(WALKS), 3)], ids=lambda w: f"{len(w)}walks")
def test_walks_equal_their_composed_definition(store: GraphStore, project: str, walks: list[Walk]) -> None:  # noqa: F811
    for start in "abcdxge":
        single, composed = _both(store, project, ID[start], walks=walks)
        assert single is not None
        assert single == composed, start


@pytest.mark.parametrize("start", ["a", "c", "d", "g"])
def test_arounds_equal_their_composed_definition(store: GraphStore, project: str, start: str) -> None:  # noqa: F811
    single, composed = _both(store, project, ID[start], around=AROUNDS[:4], walks=WALKS[:1])
    assert single is not None
    assert single == composed
    single, composed = _both(store, project, ID[start], around=AROUNDS[4:], walks=WALKS[1:2])
    assert single is not None
    assert single == composed


def test_what_it_reads(store: GraphStore, project: str) -> None:  # noqa: F811
    found = store.node_bundle(
        project, ID["a"], around=[Around("out", None, 20, far_degrees=("in", CALLS))],
        walks=[Walk("out", CALLS, 2, 10), Walk("out", CALLS, 2, 2), Walk("in", CALLS, 3, 10)],
    )  # fmt: skip
    assert found is not None and found.node.id == ID["a"]
    out = found.around[0]
    assert out["CALLS"].total == 3  # b, c and the stub
    assert [e.edge.other_id for e in out["CALLS"].edges] == sorted([ID["b"], ID["c"], STUB])
    assert found.far_degrees[0] == {ID["b"]: 1, ID["c"]: 1}  # g -> b is DECORATES, not CALLS; the stub is no node
    callees, capped, callers = found.walks
    assert [(s.node.id, s.depth, s.parent) for s in callees.steps] == [
        (ID["a"], 0, None), (ID["b"], 1, ID["a"]), (ID["c"], 1, ID["a"]), (ID["d"], 2, ID["b"]),
    ]  # fmt: skip  — d is reached from b and from c: the smaller parent id wins
    assert (callees.total, callees.truncated) == (4, False)
    assert ([s.node.id for s in capped.steps], capped.total, capped.truncated) == ([ID["a"], ID["b"]], 4, True)
    assert [(s.node.id, s.depth) for s in callers.steps] == [
        (ID["a"], 0), (ID["d"], 1), (ID["x"], 1), (ID["b"], 2), (ID["c"], 2),
    ]  # fmt: skip
    via = callees.steps[1].via
    assert via is not None and (via.relation, via.direction, via.line, via.properties) == ("CALLS", "out", 3, {"weight": 2})


def test_no_node_and_bad_arguments(store: GraphStore, project: str) -> None:  # noqa: F811
    for missing in ("function:pkg/m.py:pkg.none", STUB):  # no node; a stub is no node either
        assert _both(store, project, missing, walks=WALKS[:1], around=AROUNDS[:1]) == (None, None)
    bad = [
        {"walks": [Walk("out", CALLS, 11, 5)]}, {"walks": [Walk("out", CALLS, 1, 0)]},
        {"walks": [Walk("sideways", CALLS, 1, 5)]},  # type: ignore[arg-type]
        {"walks": [Walk("out", ("calls; DROP",), 1, 5)]},
        {"around": [Around("out", None, 0)]}, {"around": [Around("both", None, 5)]},  # type: ignore[arg-type]
    ]  # fmt: skip
    for specs in bad:
        with pytest.raises(ValueError):
            store.node_bundle(project, ID["a"], **specs)  # type: ignore[arg-type]


def test_a_hierarchy_deeper_than_a_call_walk(graph_store: GraphStore, project: str) -> None:
    """class's walks: ten levels of bases, a diamond, subclasses fanning out, a page cut mid-level."""
    classes = [node("Class", f"pkg.C{i:02d}", "pkg/h.py", start_line=i + 1) for i in range(14)]
    ids = [c.id for c in classes]
    edges = [edge(ids[i], ids[i + 1], "INHERITS") for i in range(11)]
    edges += [edge(ids[12], ids[0], "INHERITS"), edge(ids[13], ids[0], "INHERITS"), edge(ids[13], ids[12], "IMPLEMENTS")]
    edges += [edge(ids[0], ids[5], "INHERITS"), edge(ids[0], "class:ext:Base", "INHERITS")]
    graph_store.apply(project, GraphBatch(nodes=classes, edges=edges))
    hierarchy = ("IMPLEMENTS", "INHERITS")
    for limit in (1, 3, 21):  # class's two walks, one statement per limit (the same text)
        walks = [Walk(d, hierarchy, 10, limit) for d in ("out", "in")]
        for start in (ids[0], ids[13], ids[11]):
            single, composed = _both(graph_store, project, start, walks=walks)
            assert single is not None and single == composed
    found = graph_store.node_bundle(project, ids[0], walks=[Walk("out", hierarchy, 10, 21)])
    assert found is not None
    assert [s.depth for s in found.walks[0].steps] == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 6, 7]


# A class whose members sit out of id order in its file: methods, a nested class, a variable, a
# member with no start line, two on the same line, and a stub it DEFINES (no node: never kept).
K = node("Class", "pkg.K", "pkg/k.py", start_line=1)
MEMBERS = [
    node("Method", "pkg.K.zeta", "pkg/k.py", start_line=5),
    node("Method", "pkg.K.alpha", "pkg/k.py", start_line=30),
    node("Function", "pkg.K.helper", "pkg/k.py", start_line=12),
    node("Method", "pkg.K.beta", "pkg/k.py", start_line=12),
    node("Method", "pkg.K.nowhere", "pkg/k.py"),
    node("Variable", "pkg.K.size", "pkg/k.py", start_line=2),
    node("Class", "pkg.K.Inner", "pkg/k.py", start_line=40),
]
CALLER = node("Function", "pkg.use", "pkg/u.py", start_line=1)
MEMBER_STUB = "method:ext:pkg.K.lost"
KEEPS = [
    Around("out", ("DEFINES",), 1000, far_degrees=("in", CALLS), keep=Keep(("Method", "Function"), 3)),
    Around("out", ("DEFINES",), 1000, keep=Keep(("Method", "Function"), 20)),
    Around("out", None, 2, keep=Keep(("Method",), 1)),  # the page (2 per relation) is cut first
    Around("out", ("DEFINES",), 1000, keep=Keep(("Enum",), 5)),  # nothing kept
    Around("in", None, 20, far_degrees=("out", CALLS), keep=Keep(("Function",), 1)),
]


@pytest.fixture
def klass(graph_store: GraphStore, project: str) -> GraphStore:
    edges = [edge(K.id, m.id, "DEFINES") for m in MEMBERS] + [edge(K.id, MEMBER_STUB, "DEFINES")]
    edges += [edge(CALLER.id, MEMBERS[1].id), edge(CALLER.id, MEMBERS[3].id), edge(MEMBERS[2].id, MEMBERS[3].id)]
    edges += [edge(CALLER.id, K.id), edge(MEMBERS[0].id, K.id, "REFERENCES")]
    graph_store.apply(project, GraphBatch(nodes=[K, *MEMBERS, CALLER], edges=edges))
    return graph_store


def test_keep_equals_its_composed_definition(klass: GraphStore, project: str) -> None:
    for start in (K.id, MEMBERS[3].id):
        single, composed = _both(klass, project, start, around=KEEPS, walks=WALKS[:1])
        assert single is not None
        assert single == composed, start


def test_keep_lists_the_first_members_of_its_kinds_in_file_order(klass: GraphStore, project: str) -> None:
    found = klass.node_bundle(project, K.id, around=KEEPS[:2] + KEEPS[3:4])
    assert found is not None
    methods, every, none = found.around
    by_id = {m.id: m.qualified_name for m in MEMBERS}
    # no line first (as 0), then by line, ties by id: helper and beta are both on line 12, and
    # `function:...` sorts before `method:...`
    assert [by_id[e.edge.other_id] for e in methods["DEFINES"].edges] == ["pkg.K.nowhere", "pkg.K.zeta", "pkg.K.helper"]
    assert [by_id[e.edge.other_id] for e in every["DEFINES"].edges][3:] == ["pkg.K.beta", "pkg.K.alpha"]
    assert (methods["DEFINES"].total, found.kept[0], found.kept[1]) == (8, {"DEFINES": 5}, {"DEFINES": 5})
    # callers counted for the kept members only: helper has none (beta's two are not counted)
    assert found.far_degrees[0] == {}
    assert found.far_degrees[1] == {} and klass.node_bundle(
        project, K.id, around=[Around("out", ("DEFINES",), 1000, far_degrees=("in", CALLS), keep=Keep(("Method",), 3))]
    ).far_degrees[0] == {MEMBERS[3].id: 2}  # nowhere, zeta, beta: beta is called by use and helper
    assert (none, found.kept[2]) == ({}, {})


def test_bad_keep_is_refused(klass: GraphStore, project: str) -> None:
    for keep in (Keep((), 3), Keep("Method", 3), Keep(("Method",), 0), Keep(("Method",), 1001)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="keep"):
            klass.node_bundle(project, K.id, around=[Around("out", None, 5, keep=keep)])


# Edges from a node to itself: a kept member's (two relations), a member the Keep cuts out, the
# class's own, and a caller's (a far end of the edges in).
LOOPS = [
    edge(MEMBERS[0].id, MEMBERS[0].id, file="pkg/k.py", line=7, properties={"weight": 3}),
    edge(MEMBERS[0].id, MEMBERS[0].id, "REFERENCES"),
    edge(MEMBERS[3].id, MEMBERS[3].id),
    edge(K.id, K.id),
    edge(CALLER.id, CALLER.id, confidence="INFERRED", confidence_score=0.5),
]


@pytest.fixture
def looped(klass: GraphStore, project: str) -> GraphStore:
    klass.apply(project, GraphBatch(edges=LOOPS))
    return klass


def test_loops_equal_their_composed_definition(looped: GraphStore, project: str) -> None:
    for start in (K.id, MEMBERS[0].id, MEMBERS[3].id, CALLER.id):
        for loops in (["CALLS"], ["CALLS", "REFERENCES"], ["NONE_SUCH"], []):
            single, composed = _both(looped, project, start, around=KEEPS[:1] + KEEPS[4:], walks=WALKS[:1], loops=loops)
            assert single is not None
            assert single == composed, (start, loops)
        single, composed = _both(looped, project, start, walks=WALKS[5:6], loops=["CALLS"])
        assert single == composed, start


def test_loops_are_the_node_s_and_its_far_ends_own_edges(looped: GraphStore, project: str) -> None:
    found = looped.node_bundle(project, K.id, around=KEEPS[:1], walks=WALKS[:1], loops=["CALLS", "REFERENCES"])
    assert found is not None
    # beta calls itself, but the Keep cut it (the first three members are nowhere, zeta, helper)
    assert {node_id: [e.relation for e in edges] for node_id, edges in found.loops.items()} == {
        K.id: ["CALLS"], MEMBERS[0].id: ["CALLS", "REFERENCES"]
    }
    call = found.loops[MEMBERS[0].id][0]
    assert (call.source, call.target, call.file, call.line, call.properties) == (
        MEMBERS[0].id, MEMBERS[0].id, "pkg/k.py", 7, {"weight": 3}
    )
    # a walk never lists the node itself, an edge to itself or not
    assert [s.node.id for s in found.walks[0].steps] == [K.id]
    callers = looped.node_bundle(project, MEMBERS[3].id, around=[Around("in", CALLS, 20)], loops=["CALLS"])
    assert callers is not None
    assert {node_id: [(e.confidence, e.confidence_score) for e in edges] for node_id, edges in callers.loops.items()} == {
        CALLER.id: [("INFERRED", 0.5)], MEMBERS[3].id: [("EXTRACTED", 1.0)]
    }  # helper calls beta too, and not itself
    assert looped.node_bundle(project, K.id, around=KEEPS[:1]).loops == {}  # not asked


def test_bad_loops_are_refused(looped: GraphStore, project: str) -> None:
    for loops in ("CALLS", ["calls; DROP"], [""]):
        with pytest.raises(ValueError, match="loops|relation"):
            looped.node_bundle(project, K.id, loops=loops)  # type: ignore[arg-type]

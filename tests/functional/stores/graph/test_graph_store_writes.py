"""apply / get_node / edges_of / counts / delete_project, identical on SQLite and Neo4j."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, ids, node

from rhumbline.stores.graph.model import EdgeView, GraphBatch, GraphCounts, Node
from rhumbline.stores.graph.protocol import GraphStore

FULL = Node(
    id="method:pkg/models/query.py:QuerySet.filter",
    kind="Method",
    name="filter",
    qualified_name="pkg.models.query.QuerySet.filter",
    file="pkg/models/query.py",
    start_line=120,
    end_line=164,
    language="python",
    signature="def filter(self, *args, **kwargs) -> QuerySet",
    docstring='Return a new QuerySet instance — "ünïcode" kept as is.\n\nSecond paragraph.',
    content_hash="sha256:5f1c",
)
BARE = Node(id="module:", kind="Module", name="", qualified_name="")


def test_get_node_round_trips_every_field(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[FULL, BARE]))

    assert graph_store.get_node(project, FULL.id) == FULL
    assert graph_store.get_node(project, BARE.id) == BARE
    assert graph_store.get_node(project, "method:nope") is None


def test_writing_a_node_or_edge_again_replaces_it(graph_store: GraphStore, project: str) -> None:
    first = node("Function", "pkg.run", "pkg/a.py", start_line=1, docstring="alpha words")
    second = Node(id=first.id, kind="Method", name="run", qualified_name="pkg.Runner.run")
    target = node("Function", "pkg.helper", "pkg/a.py")
    graph_store.apply(project, GraphBatch(
        nodes=[first, target],
        edges=[edge(first.id, target.id, confidence="INFERRED", confidence_score=0.5, line=3)],
    ))  # fmt: skip

    graph_store.apply(project, GraphBatch(
        nodes=[second],
        edges=[edge(first.id, target.id, explanation="resolved by import", line=9)],
    ))  # fmt: skip

    assert graph_store.get_node(project, first.id) == second
    views, total = graph_store.edges_of(project, first.id, "out", limit=10)
    assert total == 1
    assert views == [EdgeView(
        relation="CALLS", direction="out", confidence="EXTRACTED", confidence_score=1.0,
        explanation="resolved by import", file=None, line=9,
        other_id=target.id, other_kind="Function", other_name="helper",
    )]  # fmt: skip
    # The full-text index follows the node: the old docstring no longer matches.
    assert graph_store.search([project], "alpha") == ([], 0)
    assert graph_store.counts(project) == GraphCounts(
        nodes=2, edges=1, nodes_by_kind={"Function": 1, "Method": 1}, edges_by_relation={"CALLS": 1}
    )


def test_edges_of_orders_by_relation_then_other_id_with_exact_totals(
    graph_store: GraphStore, project: str
) -> None:
    center = node("Class", "pkg.Center", "pkg/c.py")
    others = {name: node("Function", f"pkg.{name}", "pkg/o.py") for name in "abcmz"}
    graph_store.apply(project, GraphBatch(
        nodes=[center, *others.values()],
        edges=[
            edge(center.id, others["b"].id, "CALLS"),
            edge(center.id, others["z"].id, "DEFINES"),
            edge(center.id, others["a"].id, "CALLS", confidence="AMBIGUOUS", confidence_score=0.25,
                 explanation="one of two candidates", file="pkg/c.py", line=7),
            edge(center.id, others["m"].id, "CONTAINS"),
            edge(center.id, others["c"].id, "CALLS"),
            edge(others["a"].id, center.id, "IMPORTS"),
            edge(others["b"].id, center.id, "CALLS"),
        ],
    ))  # fmt: skip
    a, b, c, m, z = (others[k].id for k in "abcmz")

    page, total = graph_store.edges_of(project, center.id, "out", limit=2)
    assert total == 5
    assert page[0] == EdgeView(
        relation="CALLS", direction="out", confidence="AMBIGUOUS", confidence_score=0.25,
        explanation="one of two candidates", file="pkg/c.py", line=7,
        other_id=a, other_kind="Function", other_name="a",
    )  # fmt: skip
    assert [(v.relation, v.other_id) for v in page] == [("CALLS", a), ("CALLS", b)]
    page, total = graph_store.edges_of(project, center.id, "out", limit=2, offset=2)
    assert ([(v.relation, v.other_id) for v in page], total) == ([("CALLS", c), ("CONTAINS", m)], 5)
    page, total = graph_store.edges_of(project, center.id, "out", limit=2, offset=4)
    assert ([(v.relation, v.other_id) for v in page], total) == ([("DEFINES", z)], 5)
    assert graph_store.edges_of(project, center.id, "out", limit=2, offset=5) == ([], 5)

    page, total = graph_store.edges_of(project, center.id, "in", limit=10)
    assert total == 2
    assert [(v.relation, v.direction, v.other_id) for v in page] == [
        ("CALLS", "in", b),
        ("IMPORTS", "in", a),
    ]
    assert graph_store.edges_of(project, "function::nowhere", "out", limit=10) == ([], 0)


@pytest.mark.parametrize(
    ("limit", "offset", "direction"), [(0, 0, "out"), (1001, 0, "out"), (5, -1, "out"), (5, 0, "both")]
)
def test_edges_of_rejects_bad_paging(
    graph_store: GraphStore, project: str, limit: int, offset: int, direction: str
) -> None:
    with pytest.raises(ValueError):
        graph_store.edges_of(project, "x", direction, limit=limit, offset=offset)  # type: ignore[arg-type]


def test_a_dangling_edge_shows_its_missing_end_as_unknown(graph_store: GraphStore, project: str) -> None:
    caller = node("Function", "pkg.main", "pkg/main.py")
    graph_store.apply(project, GraphBatch(nodes=[caller], edges=[edge(caller.id, "function:ext:os.getcwd")]))

    views, total = graph_store.edges_of(project, caller.id, "out", limit=10)
    assert total == 1
    assert (views[0].other_id, views[0].other_kind, views[0].other_name) == (
        "function:ext:os.getcwd", "Unknown", "function:ext:os.getcwd",
    )  # fmt: skip
    assert ids(graph_store, project, "function:ext:os.getcwd", "in") == [caller.id]
    assert graph_store.get_node(project, "function:ext:os.getcwd") is None
    assert graph_store.search([project], "getcwd") == ([], 0)
    assert graph_store.counts(project) == GraphCounts(
        nodes=1, edges=1, nodes_by_kind={"Function": 1}, edges_by_relation={"CALLS": 1}
    )

    # The node arrives later: the existing edge now leads to it.
    getcwd = Node(id="function:ext:os.getcwd", kind="Function", name="getcwd", qualified_name="os.getcwd")
    graph_store.apply(project, GraphBatch(nodes=[getcwd]))
    views, _ = graph_store.edges_of(project, caller.id, "out", limit=10)
    assert (views[0].other_kind, views[0].other_name) == ("Function", "getcwd")


def _three_files(store: GraphStore, project: str) -> dict[str, Node]:
    nodes = {
        "A1": node("Function", "a.one", "a.py"),
        "A2": node("Function", "a.two", "a.py"),
        "B1": node("Function", "b.one", "b.py"),
        "B2": node("Class", "b.Two", "b.py"),
        "C1": node("Function", "c.one", "c.py"),
    }
    i = {key: n.id for key, n in nodes.items()}
    store.apply(project, GraphBatch(
        nodes=list(nodes.values()),
        edges=[
            edge(i["A1"], i["A2"]),
            edge(i["B1"], i["A1"]),
            edge(i["A2"], i["B2"], "INHERITS"),
            edge(i["B1"], i["B2"]),
            edge(i["C1"], i["B1"]),
            edge(i["A1"], "module:ext:os", "IMPORTS"),
            edge(i["B2"], "module:ext:sys", "IMPORTS"),
        ],
    ))  # fmt: skip
    return nodes


def test_remove_files_drops_their_nodes_and_every_edge_touching_them(
    graph_store: GraphStore, project: str
) -> None:
    n = _three_files(graph_store, project)
    replacement = node("Function", "a.three", "a.py")

    graph_store.apply(project, GraphBatch(remove_files=["a.py", "never-seen.py"], nodes=[replacement]))

    assert graph_store.get_node(project, n["A1"].id) is None
    assert graph_store.get_node(project, n["A2"].id) is None
    assert graph_store.get_node(project, replacement.id) == replacement
    assert [graph_store.get_node(project, n[k].id) for k in ("B1", "B2", "C1")] == [
        n["B1"], n["B2"], n["C1"],
    ]  # fmt: skip
    assert ids(graph_store, project, n["B1"].id, "out") == [n["B2"].id]
    assert ids(graph_store, project, n["B2"].id, "in") == [n["B1"].id]
    assert ids(graph_store, project, n["B2"].id, "out") == ["module:ext:sys"]
    assert ids(graph_store, project, n["C1"].id, "out") == [n["B1"].id]
    assert graph_store.edges_of(project, "module:ext:os", "in", limit=10) == ([], 0)
    assert graph_store.counts(project) == GraphCounts(
        nodes=4,
        edges=3,
        nodes_by_kind={"Class": 1, "Function": 3},
        edges_by_relation={"CALLS": 2, "IMPORTS": 1},
    )


def test_clear_replaces_the_whole_project_only(
    graph_store: GraphStore, project: str, other_project: str
) -> None:
    _three_files(graph_store, project)
    kept = _three_files(graph_store, other_project)
    fresh = node("Module", "fresh", "fresh.py")

    graph_store.apply(project, GraphBatch(clear=True, nodes=[fresh]))

    assert graph_store.counts(project) == GraphCounts(nodes=1, edges=0, nodes_by_kind={"Module": 1})
    assert graph_store.get_node(project, fresh.id) == fresh
    assert graph_store.counts(other_project).edges == 7
    assert graph_store.get_node(other_project, kept["A1"].id) == kept["A1"]


@pytest.mark.parametrize("clear", [False, True], ids=["remove_files", "clear"])
def test_a_batch_failing_halfway_leaves_the_previous_state(
    graph_store: GraphStore, project: str, clear: bool
) -> None:
    n = _three_files(graph_store, project)
    before = graph_store.counts(project)
    newcomer = node("Function", "d.new", "d.py")
    batch = GraphBatch(
        clear=clear,
        remove_files=["a.py"],
        nodes=[newcomer],
        edges=[edge(newcomer.id, n["B1"].id), edge(newcomer.id, n["C1"].id, "calls")],
    )

    with pytest.raises(ValueError, match="relation"):
        graph_store.apply(project, batch)

    assert graph_store.counts(project) == before
    assert graph_store.get_node(project, newcomer.id) is None
    assert graph_store.get_node(project, n["A1"].id) == n["A1"]
    assert ids(graph_store, project, n["A1"].id, "out") == [n["A2"].id, "module:ext:os"]
    assert ids(graph_store, project, n["B1"].id, "in") == [n["C1"].id]


@pytest.mark.parametrize(
    "bad",
    [
        {"relation": "CALLS`]->() DETACH DELETE (n) //"},
        {"relation": ""},
        {"confidence": "MAYBE"},
        {"confidence_score": 1.5},
        {"explanation": "  "},
        {"target": ""},
    ],
    ids=["injection", "empty-relation", "confidence", "score", "explanation", "target"],
)
def test_invalid_edges_are_rejected(graph_store: GraphStore, project: str, bad: dict) -> None:
    values = {"source": "a", "target": "b", "relation": "CALLS"} | bad
    with pytest.raises(ValueError):
        graph_store.apply(project, GraphBatch(edges=[edge(**values)]))
    assert graph_store.counts(project) == GraphCounts(nodes=0, edges=0)


def test_invalid_nodes_are_rejected(graph_store: GraphStore, project: str) -> None:
    with pytest.raises(ValueError, match="kind"):
        graph_store.apply(project, GraphBatch(nodes=[Node(id="x", kind="", name="x", qualified_name="x")]))


def test_counts_by_kind_and_relation(graph_store: GraphStore, project: str) -> None:
    _three_files(graph_store, project)
    assert graph_store.counts(project) == GraphCounts(
        nodes=5,
        edges=7,
        nodes_by_kind={"Class": 1, "Function": 4},
        edges_by_relation={"CALLS": 4, "IMPORTS": 2, "INHERITS": 1},
    )
    assert graph_store.counts("test/unknown-project") == GraphCounts(nodes=0, edges=0)


def test_delete_project_removes_only_that_project(
    graph_store: GraphStore, project: str, other_project: str
) -> None:
    _three_files(graph_store, project)
    kept = _three_files(graph_store, other_project)

    graph_store.delete_project(project)

    assert graph_store.counts(project) == GraphCounts(nodes=0, edges=0)
    assert graph_store.counts(other_project).nodes == 5
    assert ids(graph_store, other_project, kept["B1"].id) == [kept["B2"].id, kept["A1"].id]


def test_projects_with_identical_ids_stay_apart(
    graph_store: GraphStore, project: str, other_project: str
) -> None:
    mine = Node(id="function:x.py:run", kind="Function", name="run", qualified_name="x.run", file="x.py")
    theirs = Node(id=mine.id, kind="Method", name="run", qualified_name="x.Job.run", file="x.py")
    helper = Node(id="function:x.py:helper", kind="Function", name="helper", qualified_name="x.helper")
    graph_store.apply(project, GraphBatch(nodes=[mine, helper], edges=[edge(mine.id, helper.id)]))
    graph_store.apply(other_project, GraphBatch(nodes=[theirs]))

    assert graph_store.get_node(project, mine.id) == mine
    assert graph_store.get_node(other_project, mine.id) == theirs
    assert ids(graph_store, project, mine.id) == [helper.id]
    assert graph_store.edges_of(other_project, mine.id, "out", limit=10) == ([], 0)
    assert graph_store.get_node(other_project, helper.id) is None

    hits, total = graph_store.search([project, other_project], "run")
    assert total == 2
    assert [(h.project, h.node) for h in hits] == [(project, mine), (other_project, theirs)]

    graph_store.apply(project, GraphBatch(remove_files=["x.py"]))
    assert graph_store.get_node(project, mine.id) is None
    assert graph_store.get_node(other_project, mine.id) == theirs


def test_the_last_of_duplicate_nodes_in_a_batch_wins(graph_store: GraphStore, project: str) -> None:
    first = node("Function", "m.f", "m.py", docstring="alpha")
    last = Node(id=first.id, kind="Function", name="f", qualified_name="m.f", file="m.py", docstring="omega")
    graph_store.apply(project, GraphBatch(nodes=[first, last]))

    assert graph_store.get_node(project, first.id) == last
    assert graph_store.search([project], "alpha") == ([], 0)
    assert [h.node for h in graph_store.search([project], "omega")[0]] == [last]
    assert graph_store.counts(project).nodes == 1

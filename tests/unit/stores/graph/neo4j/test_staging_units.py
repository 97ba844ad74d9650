"""The pure parts of staged Neo4j writes: transaction grouping, physical keys, the key cache."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.neo4j.keys import GUARD, GUARD_MANY, KeyBinder, logical_of
from rhumbline.stores.graph.neo4j.staged import _transactions, staging_key


def _steps(*sizes: int) -> list[tuple[str, dict, int]]:
    return [(f"s{i}", {}, size) for i, size in enumerate(sizes)]


def test_steps_are_grouped_into_bounded_transactions_in_order() -> None:
    groups = list(_transactions(_steps(1), _steps(4, 5, 2, 7, 1), 8))
    assert [[s[2] for s in g] for g in groups] == [[1, 4], [5, 2], [7, 1]]
    # A step larger than the bound is never split: it gets a transaction of its own.
    assert [[s[2] for s in g] for g in _transactions([], _steps(3, 20, 3), 8)] == [[3], [20], [3]]
    assert list(_transactions([], [], 8)) == []


def test_a_staging_key_names_its_project_and_is_new_each_time() -> None:
    first, second = staging_key("acme/shop", 7), staging_key("acme/shop", 7)
    assert first != second and first.startswith("acme/shop@7.") and logical_of(first) == "acme/shop"
    assert staging_key("acme/shop", None).startswith("acme/shop@x.")
    assert logical_of("acme/shop") == "acme/shop"


def test_the_binder_reads_each_key_once_and_again_after_forget() -> None:
    asked: list[list[str]] = []

    def resolve(graphs: list[str]) -> dict[str, str]:
        asked.append(graphs)
        return {g: g + "@1.aa" for g in graphs}

    binder = KeyBinder(resolve)
    text, params, graphs = binder.bind("MATCH (n {project: $project}) RETURN n", {"project": "a/b", "id": 1})
    assert text.startswith(GUARD) and params == {"project": "a/b@1.aa", "graph": "a/b", "id": 1}
    assert graphs == ["a/b"]
    binder.bind("RETURN 1", {"project": "a/b"})
    assert asked == [["a/b"]]
    text, params, graphs = binder.bind("RETURN 1", {"projects": ["a/b", "c/d"]})
    assert text.startswith(GUARD_MANY) and params["projects"] == ["a/b@1.aa", "c/d@1.aa"]
    assert params["graphs"] == ["a/b", "c/d"] and asked == [["a/b"], ["c/d"]]
    binder.forget(["a/b"])
    binder.learn("c/d", "c/d@2.bb")
    assert binder.active(["a/b", "c/d"]) == {"a/b": "a/b@1.aa", "c/d": "c/d@2.bb"}
    assert asked[-1] == ["a/b"]
    # No project parameter: the statement runs as given.
    assert binder.bind("RETURN 1", {"x": 1}) == ("RETURN 1", {"x": 1}, [])


def test_a_store_refuses_a_transaction_bound_below_one() -> None:
    pytest.importorskip("neo4j")
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    with pytest.raises(ValueError, match="tx_rows must be at least 1"):
        Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "x", tx_rows=0)


def test_the_transaction_bound_is_configurable_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import load_settings

    assert load_settings().neo4j_tx_rows == 50_000
    monkeypatch.setenv("RHUMBLINE_NEO4J_TX_ROWS", "2000")
    assert load_settings().neo4j_tx_rows == 2_000
    for bad in ("0", "-5", "many"):
        monkeypatch.setenv("RHUMBLINE_NEO4J_TX_ROWS", bad)
        with pytest.raises(ValueError, match="RHUMBLINE_NEO4J_TX_ROWS must be a positive integer"):
            load_settings()


def test_kinds_are_set_by_the_element_ids_the_creates_returned() -> None:
    from rhumbline.stores.graph.neo4j.bulk import SET_KINDS, created_ids, kind_steps
    from rhumbline.stores.graph.model import Node

    records = [{"created": [["a", "4:x:1"], ["b", "4:x:2"]]}, {}, {"created": [["c", "4:x:3"]]}]
    created = created_ids(records)
    assert created == {"a": "4:x:1", "b": "4:x:2", "c": "4:x:3"}
    kinds = (("a", "Class"), ("b", "Function"), ("a", "Function"), ("c", "File"), ("d", "Strange"))
    created["d"] = "4:x:4"
    nodes = [Node(id=i, kind=k, name=i, qualified_name=i) for i, k in kinds]
    # One row per node id, the last node of an id winning (as in the first pass), `chunk` rows per
    # step, one kind per statement: its label is written in the text, for a kind of the fixed set only.
    def labelled(label: str) -> str:
        return SET_KINDS.replace("{label}", label)

    assert list(kind_steps("p@1.aa", nodes, created, 1)) == [
        (labelled(", n:`File`"), {"project": "p@1.aa", "rows": [["4:x:3", "File"]]}, 1),
        (labelled(", n:`Function`"), {"project": "p@1.aa", "rows": [["4:x:1", "Function"]]}, 1),
        (labelled(", n:`Function`"), {"project": "p@1.aa", "rows": [["4:x:2", "Function"]]}, 1),
        (labelled(""), {"project": "p@1.aa", "rows": [["4:x:4", "Strange"]]}, 1),
    ]
    with pytest.raises(RuntimeError, match="2 staged nodes were not reported created .*'c'"):
        list(kind_steps("p@1.aa", nodes, {"a": "4:x:1", "b": "4:x:2"}, 2))


def test_edges_name_their_ends_by_element_id_and_every_end_must_have_been_created() -> None:
    from rhumbline.stores.graph.neo4j.bulk import edge_steps
    from rhumbline.stores.graph.model import Edge

    def edge(source: str, target: str, relation: str, explanation: str = "seen") -> Edge:
        return Edge(source, target, relation, "EXTRACTED", 1.0, explanation)

    edges = [edge("a", "b", "CALLS"), edge("a", "b", "CALLS", "again, wins"), edge("b", "c", "IMPORTS")]
    created = {"a": "4:x:1", "b": "4:x:2", "c": "4:x:3"}
    steps = list(edge_steps("p@1.aa", edges, created, 10))
    assert [(text.split("`")[1], [row[:2] for row in params["rows"]], n) for text, params, n in steps] == [
        ("CALLS", [["4:x:1", "4:x:2"]], 1),
        ("IMPORTS", [["4:x:2", "4:x:3"]], 1),
    ]
    assert steps[0][1]["rows"][0][4] == "again, wins" and steps[0][1]["project"] == "p@1.aa"
    with pytest.raises(RuntimeError, match="1 staged nodes were not reported created .*'c'"):
        list(edge_steps("p@1.aa", edges, {"a": "4:x:1", "b": "4:x:2"}, 10))


def test_the_writer_count_is_configurable_and_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import NEO4J_MAX_WRITERS, load_settings

    assert load_settings().neo4j_writers == 4
    monkeypatch.setenv("RHUMBLINE_NEO4J_WRITERS", "1")
    assert load_settings().neo4j_writers == 1
    monkeypatch.setenv("RHUMBLINE_NEO4J_WRITERS", str(NEO4J_MAX_WRITERS + 1))
    with pytest.raises(ValueError, match=f"RHUMBLINE_NEO4J_WRITERS must be at most {NEO4J_MAX_WRITERS}, not"):
        load_settings()
    for bad in ("0", "two"):
        monkeypatch.setenv("RHUMBLINE_NEO4J_WRITERS", bad)
        with pytest.raises(ValueError, match="RHUMBLINE_NEO4J_WRITERS must be a positive integer"):
            load_settings()
    pytest.importorskip("neo4j")
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    for writers in (0, NEO4J_MAX_WRITERS + 1):
        with pytest.raises(ValueError, match=f"must number 1 to {NEO4J_MAX_WRITERS}, not {writers}"):
            Neo4jGraphStore("bolt://127.0.0.1:1", "neo4j", "x", writers=writers)


def test_concurrent_writers_run_every_unit_at_most_n_at_once_and_stop_at_a_failure() -> None:
    import threading

    from rhumbline.stores.graph.neo4j.writers import run_concurrently

    lock, running, most, started = threading.Lock(), [0], [0], []
    # The first three units wait for each other: three writers must run at once, whatever the
    # machine's load (a pool of fewer breaks the barrier at its timeout and fails the test).
    gate: list[threading.Barrier | None] = [threading.Barrier(3, timeout=30)]

    def run(unit: int) -> int:
        with lock:
            started.append(unit)
            running[0] += 1
            most[0] = max(most[0], running[0])
        if unit < 3 and gate[0] is not None:
            gate[0].wait()
        with lock:
            running[0] -= 1
        if unit == 5:
            raise KeyError("unit 5")
        return unit * 10

    assert sorted(run_concurrently(run, range(5), 3)) == [0, 10, 20, 30, 40] and most[0] == 3
    gate[0] = None
    taken: list[int] = []

    def units() -> object:
        for unit in range(1000):
            taken.append(unit)
            yield unit

    started.clear()
    with pytest.raises(KeyError, match="unit 5"):
        list(run_concurrently(run, units(), 3))  # type: ignore[arg-type]
    # Units are taken from the generator only as writers free up, and none starts after the failure
    # is seen (those queued then are cancelled); every started one has ended.
    assert len(taken) < 5 + 3 * 3 and len(started) < 5 + 3 * 3 and running[0] == 0
    assert list(run_concurrently(run, range(3), 1)) == [0, 10, 20]

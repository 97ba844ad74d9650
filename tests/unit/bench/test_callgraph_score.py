"""bench/harness/callgraph.py and callgraph_truth.py (bench/ingest.py --callgraph): how a truth
program's records become a truth in our node ids, how our CALLS evidence is keyed by call site,
and how the pairs are scored (dispatch apart, AMBIGUOUS pairs' share right)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).parents[3] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`

from harness.callgraph import IN, OUT, Prediction, Truth, score  # noqa: E402
from harness.callgraph_truth import NodeIndex, predict, truth_from_records  # noqa: E402
from rhumbline.stores.graph.model import Node  # noqa: E402


def _node(node_id: str, name: str, start: int, end: int, file: str = "a.go") -> Node:
    return Node(id=node_id, kind="Method", name=name, qualified_name=name, file=file, start_line=start, end_line=end)


def test_records_become_a_truth_in_our_node_ids():
    index = NodeIndex([
        _node("class:T", "T", 1, 20), _node("method:T.run", "run", 3, 8), _node("method:U.run", "run", 10, 12),
        _node("func:run", "run", 1, 30, file="b.go"), _node("func:helper", "helper", 32, 35, file="b.go"),
    ])  # fmt: skip
    found = {"sites": 7, "records": [
        ["a.go", 4, "run", "in", "a.go:3:run", False, []],
        ["a.go", 5, "run", "in", "a.go:10:run", True, ["a.go:3:run", "zz.go:1:run"]],
        ["a.go", 6, "Println", "out", "fmt.Println", False, []],
        ["a.go", 7, "run", "in", "a.go:3:run", False, []],  # two sites of one key that disagree:
        ["a.go", 7, "run", "out", "os.run", False, []],  # the key is dropped
        ["a.go", 9, "gone", "in", "a.go:9:gone", False, []],  # no node of ours holds it
        ["a.go", 11, "helper", "in", "b.go:40:helper", False, []],  # an overload: the file's one node
    ]}  # fmt: skip
    truth, unnamed = truth_from_records(found, index)
    assert truth.decided == {
        ("a.go", 4, "run"): (IN, "method:T.run"),  # the innermost node holding the line
        ("a.go", 5, "run"): (IN, "method:U.run"),
        ("a.go", 6, "Println"): (OUT, "fmt.Println"),
        ("a.go", 11, "helper"): (IN, "func:helper"),
    }
    assert truth.dispatch == {("a.go", 5, "run"): frozenset({"method:U.run", "method:T.run"})}
    assert unnamed == 1 and truth.sites == 7


def _ours(targets: dict[str, str]) -> Prediction:
    return Prediction(targets, {target: f"a reason for {target}" for target in targets})


def test_pairs_are_scored_with_dispatch_apart_and_ambiguous_share():
    truth = Truth(sites=4)
    truth.decided = {("a", 1, "f"): (IN, "f"), ("a", 2, "g"): (OUT, "fmt.g"), ("a", 3, "m"): (IN, "I.m"),
                     ("a", 4, "h"): (IN, "h"), ("a", 5, "Error"): (OUT, "(error).Error")}  # fmt: skip
    truth.shape = dict.fromkeys(truth.decided, "static")
    # an interface of the project, and one from outside that a type of the project implements
    truth.dispatch = {("a", 3, "m"): frozenset({"I.m", "T.m"}), ("a", 5, "Error"): frozenset({"E.Error"})}
    predictions = {
        ("a", 1, "f"): _ours({"f": "EXTRACTED"}),
        ("a", 2, "g"): _ours({"g": "INFERRED"}),  # a link where the call leaves the project
        ("a", 3, "m"): _ours({"T.m": "AMBIGUOUS", "U.m": "AMBIGUOUS"}),
        ("a", 5, "Error"): _ours({"E.Error": "INFERRED"}),  # right, but not owed
        ("a", 9, "x"): _ours({"x": "INFERRED"}),  # a site the truth does not decide
    }
    found = score("p", truth, predictions)
    assert (found.overall.pairs, found.overall.correct, found.overall.truth, found.overall.found) == (2, 1, 2, 1)
    assert (found.dispatch.pairs, found.dispatch.correct, found.dispatch.truth, found.dispatch.found) == (3, 2, 1, 1)
    assert (found.by_label["AMBIGUOUS"].pairs, found.by_label["AMBIGUOUS"].correct) == (2, 1)
    assert found.overall.figures() == ("0.500", "0.500")
    assert (found.decided_in, found.decided_out, found.undecided_pairs) == (3, 2, 1)
    assert sorted((e["what"], e["line"]) for e in found.errors) == [
        ("missed", 4), ("wrong", 2), ("wrong", 3)
    ]


def test_our_calls_are_keyed_by_file_line_and_called_name(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/m\n\ngo 1.22\n")
    (tmp_path / "main.go").write_text(
        "package main\n\nfunc helper() int { return 1 }\n\nfunc main() {\n\t_ = helper()\n}\n"
    )
    predictions, nodes = predict(tmp_path, "go")
    helper = next(node.id for node in nodes if node.name == "helper")
    assert predictions[("main.go", 6, "helper")].targets == {helper: "EXTRACTED"}

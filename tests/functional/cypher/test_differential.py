"""The same Cypher on the embedded SQLite store and on a real Neo4j, holding the same graphs
(worlds.py), through the real `query` tool with a token limited to two of three projects: every
case the subset accepts gets identical answers on both, every other the same explicit refusal.

Answers are compared after normalizing what differs by design: element ids (a node becomes its
project and id, a relationship its ends and type), the physical graph key Neo4j stores as
`project` (`owner/name@<version>.<token>` -> `owner/name`). Without ORDER BY in the final RETURN
rows are compared as a multiset, and lists inside values whose order the query leaves open
(collect, keys, pattern comprehensions) as multisets too.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.functional.cypher.corpus import CASES, Case
from tests.functional.cypher.worlds import project_names, world

pytestmark = pytest.mark.neo4j

_KEY = re.compile(r"^([a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*)@[0-9a-zA-Z._-]+$")
_FINAL_ORDER = re.compile(r"\bRETURN\b(?!.*\bRETURN\b).*\bORDER\s+BY\b", re.IGNORECASE | re.DOTALL)


def _ask(w: Any, case: Case) -> dict:
    extra = {"project": w.mine} if case.project else {}
    return w.ask(case.cypher, case.params, **extra)


@pytest.fixture(scope="module")
def answers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    tmp = tmp_path_factory.mktemp("differential")
    names = project_names()
    for shape in ("embedded", "production"):
        with world(shape, tmp, request, names) as w:
            found[shape] = [_ask(w, case) for case in CASES]
    return found


def _normal(value: Any, bag: bool) -> Any:
    if isinstance(value, float):
        # Sums in another order (avg over rows the backends read in their own order) differ in the last bits.
        return float(f"{value:.12g}")
    if isinstance(value, str):
        match = _KEY.match(value)
        return match.group(1) if match else value
    if isinstance(value, list):
        items = [_normal(v, bag) for v in value]
        return sorted(items, key=_sort_key) if bag else items
    if isinstance(value, dict):
        if value.get("type") == "node":
            props = _normal(value["properties"], bag)
            return {"node": [props.get("project"), props.get("id")], "labels": value["labels"], "properties": props}
        if value.get("type") == "relationship":
            return {"rel": value["rel_type"], "properties": _normal(value["properties"], bag)}
        if value.get("type") == "path":
            return {
                "path": [_normal(n, False) for n in value["nodes"]],
                "rels": [_normal(r, False) for r in value["relationships"]],
            }
        return {k: _normal(v, bag) for k, v in value.items()}
    return value


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _comparable(outcome: dict, case: Case) -> Any:
    if not outcome["ok"]:
        return {"error": outcome["error"]["code"]}
    result = outcome["result"]
    ordered = bool(_FINAL_ORDER.search(case.cypher))
    rows = [_normal(row, bag=True) for row in result["rows"]]
    if not ordered:
        rows.sort(key=_sort_key)
    return {"columns": result["columns"], "rows": rows, "more": result["more"], "warnings": result["warnings"]}


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.cypher[:60] for c in CASES])
def test_both_backends_answer_alike(answers: dict, index: int) -> None:
    case = CASES[index]
    embedded, neo4j = answers["embedded"][index], answers["production"][index]
    if case.refused is not None:
        for outcome in (embedded, neo4j):
            assert not outcome["ok"], (case.cypher, outcome)
            assert outcome["error"]["code"] in ("forbidden", "unsupported", "invalid_arguments"), outcome["error"]
            assert case.refused in outcome["error"]["message"], outcome["error"]["message"]
        assert embedded["error"]["code"] == neo4j["error"]["code"]
        return
    assert embedded["ok"], (case.cypher, embedded["error"])
    assert neo4j["ok"], (case.cypher, neo4j["error"])
    assert embedded["result"]["backend"] == "sqlite" and neo4j["result"]["backend"] == "neo4j"
    assert embedded["result"]["scoped"] and neo4j["result"]["scoped"]
    assert _comparable(embedded, case) == _comparable(neo4j, case)


def test_the_corpus_is_as_issue_20_asks() -> None:
    accepted = [c for c in CASES if c.refused is None]
    assert len(CASES) >= 150 and len(accepted) >= 120, (len(CASES), len(accepted))
    assert len({c.cypher for c in CASES}) == len(CASES)
    assert sum(c.agent for c in CASES) >= 40

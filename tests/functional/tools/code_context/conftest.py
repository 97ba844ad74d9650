"""The code-context tools on both deployment shapes, over the known graph of shop_graph.py.

`shop` is the parent suite's `world` (embedded SQLite+SQLite or production PostgreSQL+Neo4j)
with its project's graph replaced by shop_graph's. Helpers call a tool and return its result or
its error, failing loudly on the other.
"""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import GraphBatch
from tests.functional.tools.code_context import shop_graph


@pytest.fixture
def shop(world):
    world.graph.apply(world.project, GraphBatch(nodes=shop_graph.NODES, edges=shop_graph.EDGES, clear=True))
    return world


def ok(outcome: dict) -> dict:
    assert outcome["ok"], outcome
    return outcome["result"]


def failed(outcome: dict, code: str) -> dict:
    assert not outcome["ok"], outcome
    assert outcome["error"]["code"] == code, outcome["error"]
    return outcome["error"]

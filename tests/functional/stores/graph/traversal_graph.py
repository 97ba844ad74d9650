"""The graph of the traversal suites (test_graph_store_walk.py, test_graph_store_paths.py).

All Functions in pkg/m.py; X -R-> Y is an edge:

    x -CALLS-> a        a -CALLS-> b        a -CALLS-> c        a -CALLS-> (stub)
    b -CALLS-> d        c -CALLS-> d        c -IMPORTS-> e      d -CALLS-> a (a cycle)
    e -INHERITS-> f     g -DECORATES-> b

Ids sort as their names do (function:pkg/m.py:pkg.a < ...pkg.b < ...).
"""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore

N = {name: node("Function", f"pkg.{name}", "pkg/m.py", start_line=i + 1)
     for i, name in enumerate("abcdefgx")}  # fmt: skip
ID = {name: n.id for name, n in N.items()}
STUB = "function:ext:os.getcwd"
EDGES = [
    edge(ID["x"], ID["a"]),
    edge(ID["a"], ID["b"], file="pkg/m.py", line=3, properties={"weight": 2}),
    edge(ID["a"], ID["c"]),
    edge(ID["a"], STUB),
    edge(ID["b"], ID["d"]),
    edge(ID["c"], ID["d"], confidence="INFERRED", confidence_score=0.5),
    edge(ID["c"], ID["e"], "IMPORTS"),
    edge(ID["d"], ID["a"]),
    edge(ID["e"], ID["f"], "INHERITS"),
    edge(ID["g"], ID["b"], "DECORATES"),
]


@pytest.fixture
def store(graph_store: GraphStore, project: str) -> GraphStore:
    graph_store.apply(project, GraphBatch(nodes=list(N.values()), edges=EDGES))
    return graph_store

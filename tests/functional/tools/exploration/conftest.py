"""The graph-exploration tools on both shapes (the parent conftest's `world`), with the richer
depot graph of depot.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.functional.tools.exploration.depot import DEPOT_EDGES, DEPOT_NODES, Caller

from rhumbline import centrality
from rhumbline.stores.graph.model import GraphBatch


@pytest.fixture(autouse=True)
def _fresh_centrality():
    centrality.forget()
    yield
    centrality.forget()


@pytest.fixture
def depot(world):
    """The world, its project's graph extended with the depot nodes and edges."""
    world.graph.apply(world.project, GraphBatch(nodes=DEPOT_NODES, edges=DEPOT_EDGES))
    return world


@pytest.fixture
def call_as(world) -> Callable[..., dict]:
    return Caller(world)

"""A walk's listing: nearest first, without the start node, cut at the limit with the exact total."""

from __future__ import annotations

from rhumbline.lookup.walks import listing
from rhumbline.stores.graph.model import EdgeView, Node, WalkResult, WalkStep

START = Node(id="function:a.py:f", kind="Function", name="f", qualified_name="a.f", file="a.py", start_line=1)
NEAR = Node(id="function:b.py:g", kind="Function", name="g", qualified_name="b.g", file="b.py", start_line=4)
FAR = Node(id="method:c.py:C.h", kind="Method", name="h", qualified_name="c.C.h", file="c.py", start_line=9)


def _via(other: Node, explanation: str) -> EdgeView:
    return EdgeView(
        relation="CALLS", direction="in", confidence="INFERRED", confidence_score=0.8, explanation=explanation,
        file=other.file, line=7, other_id=other.id, other_kind=other.kind, other_name=other.name,
    )  # fmt: skip


WALK = WalkResult(
    steps=[
        WalkStep(node=START, depth=0, parent=None, via=None),
        WalkStep(node=NEAR, depth=1, parent=START.id, via=_via(NEAR, "g calls f")),
        WalkStep(node=FAR, depth=2, parent=NEAR.id, via=_via(FAR, "h calls g " + "x" * 400)),
    ],
    total=3,
    truncated=False,
)


def test_a_listing_leaves_the_start_node_out() -> None:
    found = listing(WALK, depth=2, limit=20)
    assert [item.id for item in found.items] == [NEAR.id, FAR.id]
    assert (found.total, found.depth, found.items[1].via) == (2, 2, NEAR.id)
    assert len(found.items[1].explanation) == 300  # clipped


def test_a_listing_cuts_at_the_limit_and_keeps_the_total() -> None:
    found = listing(WALK, depth=2, limit=1)
    assert [item.id for item in found.items] == [NEAR.id]
    assert found.total == 2

"""A walk's listing is built as its JSON form: it must be exactly StepListing's dump."""

from __future__ import annotations

import json

from rhumbline.lookup.walks import StepListing, listing_row
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


def test_listing_row_is_the_step_listings_json_form() -> None:
    row = listing_row(WALK, depth=2, limit=20)
    assert json.dumps(StepListing.model_validate(row).model_dump(mode="json")) == json.dumps(row)
    assert [item["id"] for item in row["items"]] == [NEAR.id, FAR.id]  # the start node is not listed
    assert (row["total"], row["depth"], row["items"][1]["via"]) == (2, 2, NEAR.id)
    assert len(row["items"][1]["explanation"]) == 300  # clipped


def test_listing_row_cuts_at_the_limit_and_keeps_the_total() -> None:
    row = listing_row(WALK, depth=2, limit=1)
    assert [item["id"] for item in row["items"]] == [NEAR.id]
    assert row["total"] == 2

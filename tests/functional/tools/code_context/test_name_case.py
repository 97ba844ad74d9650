"""Names match ignoring case, but code is written with it: what an agent types with the exact case
wins over names that only match ignoring it, on both backends (function, class, explain)."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import GraphBatch, Node
from tests.functional.tools.code_context.conftest import failed, ok

PY = "python"
QUERYSET = Node("class:db/query.py:QuerySet", "Class", "QuerySet", "db.query.QuerySet", "db/query.py", 3, 40, PY,
                "class QuerySet")  # fmt: skip
LIST_QUERYSET = Node("method:admin/filters.py:ListFilter.queryset", "Method", "queryset",
                     "admin.filters.ListFilter.queryset", "admin/filters.py", 10, 12, PY, "def queryset(self)")  # fmt: skip
FIELD_QUERYSET = Node("method:admin/filters.py:FieldFilter.queryset", "Method", "queryset",
                      "admin.filters.FieldFilter.queryset", "admin/filters.py", 20, 22, PY, "def queryset(self)")  # fmt: skip
GET = Node("method:db/query.py:QuerySet.get", "Method", "get", "db.query.QuerySet.get", "db/query.py", 5, 9, PY,
           "def get(self)")  # fmt: skip
GET_UPPER = Node("variable:http/request.py:Request.GET", "Variable", "GET", "http.request.Request.GET",
                 "http/request.py", 4, 4, PY, "GET = {}")  # fmt: skip
RENDER = Node("function:views.py:render", "Function", "render", "views.render", "views.py", 1, 3, PY, "def render()")
RENDER_UPPER = Node("function:views.py:Render", "Function", "Render", "views.Render", "views.py", 5, 7, PY,
                    "def Render()")  # fmt: skip


@pytest.fixture
def cased(world):
    nodes = [QUERYSET, LIST_QUERYSET, FIELD_QUERYSET, GET, GET_UPPER, RENDER, RENDER_UPPER]
    world.graph.apply(world.project, GraphBatch(nodes=nodes, edges=[], clear=True))
    return world


def test_the_exact_case_settles_what_ignoring_case_would_leave_ambiguous(cased) -> None:
    assert ok(cased.call("function", {"name": "render"}))["node"]["id"] == RENDER.id
    assert ok(cased.call("function", {"name": "Render"}))["node"]["id"] == RENDER_UPPER.id
    # Any other spelling matches both ignoring case, and neither as typed: candidates, not a guess.
    error = failed(cased.call("function", {"name": "RENDER"}), "ambiguous")
    assert error["details"]["total"] == 2
    assert ok(cased.call("explain", {"name": "GET"}))["node"]["id"] == GET_UPPER.id
    assert ok(cased.call("explain", {"name": "get"}))["node"]["id"] == GET.id


def test_one_match_ignoring_case_is_found_and_the_cased_one_wins_across_kinds(cased) -> None:
    assert ok(cased.call("class", {"name": "queryset"}))["node"]["id"] == QUERYSET.id
    assert ok(cased.call("explain", {"name": "QuerySet"}))["node"]["id"] == QUERYSET.id


def test_a_name_spelled_as_another_kinds_points_there_before_listing_case_variants(cased) -> None:
    error = failed(cased.call("function", {"name": "QuerySet"}), "not_found")
    assert error["message"] == (
        "'QuerySet' names Class node(s), not a function or method: use `class` for classes, `explain` for "
        "anything else; 2 candidates (function or method) match it ignoring case (see candidates)"
    )
    assert error["details"]["reason"] == "other_kind"
    assert [c["id"] for c in error["details"]["candidates"]][0] == QUERYSET.id
    assert {c["id"] for c in error["details"]["candidates"][1:]} == {LIST_QUERYSET.id, FIELD_QUERYSET.id}
    assert error["details"]["total"] == 3
    # Spelled as the methods are, it is the methods' ambiguity.
    ambiguous = failed(cased.call("function", {"name": "queryset"}), "ambiguous")
    assert {c["id"] for c in ambiguous["details"]["candidates"]} == {LIST_QUERYSET.id, FIELD_QUERYSET.id}

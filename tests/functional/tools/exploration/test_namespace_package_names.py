"""A dotted name spelled by the file's path, through namespace packages (directories without
`__init__.py`, where the ingest's module name leaves them out), names its node in the tools that
take a name (`function`, `class`) and in `search`, on both shapes."""

from __future__ import annotations

import uuid

import pytest
from tests.functional.tools.exploration.depot import ok
from tests.functional.tools.exploration.shop_repo import commit, git, ingest

RENDER = "function:acme/tools/fmt/render.py:render_table"
TABLE = "class:acme/tools/fmt/render.py:Table"
FILES = {
    "acme/tools/fmt/__init__.py": "",
    "acme/tools/fmt/render.py": "class Table:\n    pass\n\n\ndef render_table(rows):\n    return Table()\n",
}


@pytest.fixture
def namespaced(world, tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, FILES, "one")
    slug = f"acme/ns{uuid.uuid4().hex[:10]}"
    ingest(world.stores, root, slug)
    yield slug
    world.graph.delete_project(slug)


def test_a_name_through_namespace_packages_names_its_node(call_as, namespaced):
    def call(tool, arguments):
        return ok(call_as(tool, {"project": namespaced, **arguments}, projects=(namespaced,)))

    assert call("function", {"name": "acme.tools.fmt.render.render_table"})["node"]["id"] == RENDER
    assert call("class", {"name": "acme.tools.fmt.render.Table"})["node"]["id"] == TABLE
    hits = call("search", {"query": "acme.tools.fmt.render.render_table"})["hits"]
    assert (hits[0]["id"], hits[0]["match"]) == (RENDER, "exact")
    # A path that does not lead there names nothing.
    missing = call_as("function", {"project": namespaced, "name": "acme.other.fmt.render.render_table"},
                      projects=(namespaced,))  # fmt: skip
    assert not missing["ok"] and missing["error"]["code"] == "not_found"

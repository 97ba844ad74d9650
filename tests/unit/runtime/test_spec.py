"""Tools are found by module: `rhumbline.tools.<name>` (`class_` for `class`) with its SPEC."""

from __future__ import annotations

import pytest

from rhumbline.runtime.spec import UnknownTool, all_specs, load_spec


def test_a_tool_loads_from_its_own_module() -> None:
    assert load_spec("search").name == "search"
    assert load_spec("class").name == "class"  # from rhumbline.tools.class_: `class` is a keyword


@pytest.mark.parametrize("name", ["nope", "common", "cursors", "graph_common", "class_", "Search", "../search", "", "a" * 65])
def test_anything_else_is_an_unknown_tool(name: str) -> None:
    with pytest.raises(UnknownTool):
        load_spec(name)


def test_every_tool_module_is_listed_by_name_and_nothing_else() -> None:
    names = [spec.name for spec in all_specs()]
    assert names == sorted(names) and len(set(names)) == len(names)
    assert {"search", "get_node", "class", "ingest", "get_pr_verdict"} <= set(names)
    assert not {"common", "cursors", "graph_common"} & set(names)
    assert {spec.name: spec.project_argument for spec in all_specs() if spec.project_argument != "project"} == {
        "get_contributor_stats": "repo", "get_pr_verdict": "repo", "get_recent_reviews": "repo",
        "get_repo_health": "repo", "list_projects": None,
    }  # fmt: skip


def test_the_project_argument_is_the_field_holding_a_project_slug() -> None:
    """What the gateway and the handler check against the token is the argument a tool takes a
    project slug in: a tool naming the wrong one would have its project go unchecked."""
    from rhumbline.vocabulary import PROJECT_PATTERN

    for spec in all_specs():
        slugs = [
            name for name, field in spec.input_model.model_fields.items()
            if any(getattr(m, "pattern", None) == PROJECT_PATTERN for m in field.metadata)
        ]  # fmt: skip
        assert slugs == ([spec.project_argument] if spec.project_argument else []), spec.name

"""The schemas agents are sent: no name-derived titles, nullable types as type lists, and the same
validation as the models (checked with jsonschema on valid and invalid inputs)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from rhumbline.runtime.spec import FAMILIES, all_specs

SPECS = all_specs()


def keywords(schema: object, name: str) -> list[object]:
    """Every value of keyword `name` in a schema (never a property called so)."""
    found: list[object] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == name:
                found.append(value)
            children = value.values() if key in ("properties", "$defs") and isinstance(value, dict) else [value]
            for child in children:
                found.extend(keywords(child, name))
    elif isinstance(schema, list):
        for item in schema:
            found.extend(keywords(item, name))
    return found


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_no_titles_and_no_null_defaults_are_sent(spec) -> None:
    for schema in (spec.input_schema(), spec.output_schema()):
        assert keywords(schema, "title") == []
        assert None not in keywords(schema, "default")
    assert keywords(spec.output_schema(), "default") == []
    jsonschema.Draft202012Validator.check_schema(spec.input_schema())
    jsonschema.Draft202012Validator.check_schema(spec.output_schema())


def test_the_compact_input_schema_accepts_and_refuses_what_the_model_does() -> None:
    search = next(spec for spec in SPECS if spec.name == "search")
    validator = jsonschema.Draft202012Validator(search.input_schema())
    for arguments in ({"query": "Cart"}, {"query": "Cart", "project": None}, {"query": "Cart", "project": "acme/shop"}):
        search.input_model.model_validate(arguments)
        assert not list(validator.iter_errors(arguments)), arguments
    for arguments in ({"query": "Cart", "project": 3}, {"query": "Cart", "project": "no slug"}):
        assert list(validator.iter_errors(arguments)), arguments


def test_every_tool_is_in_a_toolset_and_every_toolset_has_tools() -> None:
    assert all(spec.families for spec in SPECS)
    assert {family for spec in SPECS for family in spec.families} == set(FAMILIES)
    assert json.dumps(sorted(spec.name for spec in SPECS if "admin" in spec.families)) == '["delete_project", "get_usage"]'

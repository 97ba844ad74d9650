"""context's advertised output schema: the compact items (no field a list or the bundle already
says) and, since the items no longer carry them, each link list's relation and direction in its
description."""

from __future__ import annotations

from rhumbline.tools.context import SPEC

SCHEMA = SPEC.output_model.model_json_schema()


def item_fields(definition: str) -> list[str]:
    return list(SCHEMA["$defs"][definition]["properties"])


def test_items_carry_only_what_varies() -> None:
    assert item_fields("FileDefinition") == [
        "id", "kind", "name", "qualified_name", "line", "end_line", "signature", "docstring",
    ]  # fmt: skip
    assert item_fields("FileImport") == ["node", "confidence", "confidence_score", "explanation", "evidence_line"]
    assert item_fields("FileImporter") == [
        "about", "node", "confidence", "confidence_score", "explanation", "evidence_line",
    ]  # fmt: skip
    assert item_fields("DocLink") == [
        "about", "node", "confidence", "confidence_score", "explanation", "evidence_file", "evidence_line",
    ]  # fmt: skip
    assert "Link" not in SCHEMA["$defs"] and "Definition" not in SCHEMA["$defs"]


def test_each_link_list_says_its_relation_and_direction() -> None:
    said = {
        "imports": "IMPORTS edges out (file → `node`)",
        "imported_by": "IMPORTS edges in (`node` → `about`)",
        "documented_by": "DOCUMENTS edges in (`node` → `about`)",
        "documents": "DOCUMENTS edges out (`about` → `node`)",
    }
    for field, phrase in said.items():
        assert phrase in SCHEMA["properties"][field]["description"], field

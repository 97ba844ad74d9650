"""A tool answer in `format: markdown` reaches the model as the markdown itself, not as a JSON
string of it; the structured content still carries the whole answer."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from rhumbline.contract import ToolOutcome
from rhumbline.gateway.calls import outcome_to_result


def test_markdown_answers_are_sent_as_text() -> None:
    result = {"project": "acme/shop", "format": "markdown", "markdown": "# shop/cart.py\n- 3 Class `Cart`"}
    translated = outcome_to_result(ToolOutcome.success("r1", result, 1.0))
    assert translated["content"][0]["text"] == "# shop/cart.py\n- 3 Class `Cart`"
    assert translated["structuredContent"] == result


def test_json_answers_stay_json() -> None:
    result = {"project": "acme/shop", "format": "json", "markdown": None, "file": {"path": "shop/cart.py"}}
    translated = outcome_to_result(ToolOutcome.success("r1", result, 1.0))
    text = translated["content"][0]["text"]
    assert json.loads(text) == result
    # Compact separators: the text is what the model reads, every space is a token.
    assert text.startswith('{"project":"acme/shop","format":"json"')


def test_json_text_keeps_non_ascii_and_non_native_values_readable() -> None:
    result = {"name": "Größe", "when": datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)}
    text = outcome_to_result(ToolOutcome.success("r1", result, 1.0))["content"][0]["text"]
    assert text == '{"name":"Größe","when":"2026-11-30T09:00:00Z"}'

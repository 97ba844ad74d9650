"""A tool answer in `format: markdown` reaches the model as the markdown itself, not as a JSON
string of it; the structured content still carries the whole answer."""

from __future__ import annotations

from rhumbline.contract import ToolOutcome
from rhumbline.gateway.calls import outcome_to_result


def test_markdown_answers_are_sent_as_text() -> None:
    result = {"project": "acme/shop", "format": "markdown", "markdown": "# shop/cart.py\n- 3 Class `Cart`"}
    translated = outcome_to_result(ToolOutcome.success("r1", result, 1.0))
    assert translated.content[0].text == "# shop/cart.py\n- 3 Class `Cart`"
    assert translated.structured_content == result


def test_json_answers_stay_json() -> None:
    result = {"project": "acme/shop", "format": "json", "markdown": None, "file": {"path": "shop/cart.py"}}
    translated = outcome_to_result(ToolOutcome.success("r1", result, 1.0))
    assert translated.content[0].text.startswith('{"project": "acme/shop", "format": "json"')

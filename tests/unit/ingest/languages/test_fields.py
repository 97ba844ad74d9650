"""`this.field.m()`: the field's type comes from its declaration or its assignment."""

from __future__ import annotations

import pytest

from rhumbline.ingest.build import build_graph

CASES = {
    "typescript": {
        "money.ts": "export class Money {\n  render() {}\n}\n",
        "cart.ts": (
            'import { Money } from "./money";\n'
            "export class Cart {\n"
            "  constructor(private readonly total: Money) {}\n"
            "  show() {\n    this.total.render();\n  }\n}\n"
        ),
    },
    "javascript": {
        "money.js": "export class Money {\n  render() {}\n}\n",
        "cart.js": (
            'import { Money } from "./money.js";\n'
            "export class Cart {\n"
            "  constructor() {\n    this.total = new Money();\n  }\n"
            "  show() {\n    this.total.render();\n  }\n}\n"
        ),
    },
    "ruby": {
        "money.rb": "class Money\n  def render; end\nend\n",
        "cart.rb": (
            "class Cart\n  def initialize\n    @total = Money.new\n  end\n\n"
            "  def show\n    @total.render\n  end\nend\n"
        ),
    },
    "php": {
        "money.php": "<?php\nclass Money {\n    public function render() {}\n}\n",
        "cart.php": (
            "<?php\nclass Cart {\n    public function __construct() {\n"
            "        $this->total = new Money();\n    }\n"
            "    public function show() {\n        $this->total->render();\n    }\n}\n"
        ),
    },
}
SHOW = {
    "typescript": "method:cart.ts:Cart.show",
    "javascript": "method:cart.js:Cart.show",
    "ruby": "method:cart.rb:Cart#show",
    "php": "method:cart.php:Cart::show",
}
RENDER = {
    "typescript": "method:money.ts:Money.render",
    "javascript": "method:money.js:Money.render",
    "ruby": "method:money.rb:Money#render",
    "php": "method:money.php:Money::render",
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_a_field_typed_by_its_assignment_types_its_receiver(write_tree, language):
    # A second class with `render` makes a by-name match ambiguous: only the field's type
    # can make this edge INFERRED.
    files = dict(CASES[language])
    other = {
        "typescript": ("other.ts", "export class Other {\n  render() {}\n}\n"),
        "javascript": ("other.js", "export class Other {\n  render() {}\n}\n"),
        "ruby": ("other.rb", "class Other\n  def render; end\nend\n"),
        "php": ("other.php", "<?php\nclass Other {\n    public function render() {}\n}\n"),
    }[language]
    files[other[0]] = other[1]
    built = build_graph(write_tree(files), "t/fields", workers=1, history=False)
    calls = [
        (e.target, e.confidence, e.explanation)
        for e in built.edges
        if e.relation == "CALLS" and e.source == SHOW[language]
    ]
    assert [(target, confidence) for target, confidence, _ in calls] == [(RENDER[language], "INFERRED")]
    assert "through field `total` declared as `Money`" in calls[0][2]

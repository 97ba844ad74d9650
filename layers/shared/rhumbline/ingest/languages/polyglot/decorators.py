"""Decorators, annotations and attributes of a definition, per grammar (phase 1).

Each function takes the definition's node (and its outer node, with `export` and the like) and
returns DecoratorFacts in source order: the dotted name a resolver looks up (`Cached`,
`org.junit.Test`, `tokio::main` → `tokio.main`), its lines and its text as written. A decorator
whose name is not a plain (dotted) name (`@(a || b)`) is skipped: nothing could resolve it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tree_sitter import Node

from rhumbline.ingest.facts import DecoratorFact
from rhumbline.ingest.languages.polyglot.extract import STATEMENT_LIMIT, Context
from rhumbline.ingest.languages.text import collapse, shortened

_DOTTED = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def fact(x: Context, node: Node, name: str, text: str | None = None) -> DecoratorFact | None:
    """`name` as written (`::` and `\\` count as dots); None when it is not a dotted name."""
    dotted = name.replace("::", ".").replace("\\", ".").strip(".")
    if not _DOTTED.fullmatch(dotted):
        return None
    written = shortened(collapse(text if text is not None else x.text(node)), STATEMENT_LIMIT)
    return DecoratorFact(dotted, node.start_point.row + 1, node.end_point.row + 1, written)


def _found(facts: Iterable[DecoratorFact | None]) -> tuple[DecoratorFact, ...]:
    return tuple(f for f in facts if f is not None)


def _children(node: Node | None, *types: str) -> Iterator[Node]:
    if node is not None:
        for child in node.named_children:
            if child.type in types:
                yield child


def java_annotations(x: Context, node: Node) -> tuple[DecoratorFact, ...]:
    """`@Override`, `@Cached(size = 2)`, `@org.junit.Test` in the declaration's modifiers."""
    return _found(
        fact(x, a, x.text(a.child_by_field_name("name")))
        for modifiers in _children(node, "modifiers")
        for a in _children(modifiers, "marker_annotation", "annotation")
    )


def kotlin_annotations(x: Context, node: Node) -> tuple[DecoratorFact, ...]:
    """`@Service`, `@Cached(size = 2)`: a user type, alone or in a constructor invocation."""
    found = []
    for modifiers in _children(node, "modifiers"):
        for annotation in _children(modifiers, "annotation"):
            target = next(_children(annotation, "user_type", "constructor_invocation"), None)
            if target is not None and target.type == "constructor_invocation":
                target = next(_children(target, "user_type"), None)
            if target is not None:
                found.append(fact(x, annotation, x.text(target)))
    return _found(found)


def csharp_attributes(x: Context, node: Node) -> tuple[DecoratorFact, ...]:
    """`[Serializable]`, `[HttpGet("x"), Authorize]`: one fact per attribute."""
    return _found(
        fact(x, a, x.text(a.child_by_field_name("name")), f"[{x.text(a)}]")
        for attributes in _children(node, "attribute_list")
        for a in _children(attributes, "attribute")
    )


def php_attributes(x: Context, node: Node) -> tuple[DecoratorFact, ...]:
    """`#[Route("/x"), Other]`: one fact per attribute."""
    return _found(
        fact(x, a, x.text(next(_children(a, "name", "qualified_name"), None)), f"#[{x.text(a)}]")
        for attributes in _children(node, "attribute_list")
        for group in _children(attributes, "attribute_group")
        for a in _children(group, "attribute")
    )


def typescript_decorators(x: Context, node: Node, outer: Node) -> tuple[DecoratorFact, ...]:
    """`@Component({...})` on a class (inside `export` too) and `@Input()` before a member: the
    grammar puts a member's decorators before it in the class body, as its siblings."""
    found: list[Node] = []
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("decorator", "comment"):
        if sibling.type == "decorator":
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    found.extend(_children(outer, "decorator") if outer is not node else ())
    found.extend(_children(node, "decorator"))
    # In `export class`, the decorators are both the class's siblings and the export's children.
    unique = sorted({d.start_byte: d for d in found}.values(), key=lambda d: d.start_byte)
    return _found(fact(x, d, _decorator_name(x, d)) for d in unique)


def _decorator_name(x: Context, decorator: Node) -> str:
    expression = decorator.named_children[0] if decorator.named_child_count else None
    if expression is not None and expression.type == "call_expression":
        expression = expression.child_by_field_name("function")
    if expression is None or expression.type not in ("identifier", "member_expression"):
        return ""
    return x.text(expression)


def rust_attributes(x: Context, outer: Node) -> tuple[DecoratorFact, ...]:
    """`#[derive(Debug)]`, `#[test]`, `#[tokio::main]`: the attribute items right above."""
    found: list[Node] = []
    sibling = outer.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
        if sibling.type == "attribute_item":
            found.append(sibling)
        sibling = sibling.prev_named_sibling
    found.reverse()
    facts = []
    for item in found:
        attribute = next(_children(item, "attribute"), None)
        path = attribute.named_children[0] if attribute is not None and attribute.named_child_count else None
        if path is not None:
            facts.append(fact(x, item, x.text(path)))
    return _found(facts)

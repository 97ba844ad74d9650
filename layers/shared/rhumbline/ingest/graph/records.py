"""Node objects built at about half the cost of Node(...), for the phase-2 builders' hot loops.

Node is a frozen dataclass: its __init__ sets each of its fields through
object.__setattr__, which made building a graph's nodes a visible part of phase 2 (sdist: 77k
nodes). Setting the slots through their descriptors gives equal objects (tests/unit/ingest/
test_records.py compares them field by field). edges.py does the same for Edge.
"""

from __future__ import annotations

from dataclasses import fields

from rhumbline.stores.graph.model import Node

# A field added to Node must be set in new_node too (the test fails until it is).
_SET = {field.name: getattr(Node, field.name).__set__ for field in fields(Node)}
_set_id, _set_kind, _set_name = _SET["id"], _SET["kind"], _SET["name"]
_set_qualified_name, _set_file = _SET["qualified_name"], _SET["file"]
_set_start_line, _set_end_line, _set_language = _SET["start_line"], _SET["end_line"], _SET["language"]
_set_signature, _set_docstring, _set_content_hash = _SET["signature"], _SET["docstring"], _SET["content_hash"]
_set_body, _set_declaration, _set_registration = _SET["body"], _SET["declaration"], _SET["registration"]
_new = object.__new__


def new_node(
    id: str,  # noqa: A002 — Node's own field names, so call sites read like Node(...)
    kind: str,
    name: str,
    qualified_name: str,
    file: str | None = None,
    start_line: int | None = None,
    end_line: int | None = None,
    language: str | None = None,
    signature: str | None = None,
    docstring: str | None = None,
    content_hash: str | None = None,
    body: str | None = None,
    declaration: bool = False,
    registration: bool = False,
) -> Node:
    """Node(...) with the same arguments and defaults, built faster."""
    node = _new(Node)
    _set_id(node, id)
    _set_kind(node, kind)
    _set_name(node, name)
    _set_qualified_name(node, qualified_name)
    _set_file(node, file)
    _set_start_line(node, start_line)
    _set_end_line(node, end_line)
    _set_language(node, language)
    _set_signature(node, signature)
    _set_docstring(node, docstring)
    _set_content_hash(node, content_hash)
    _set_body(node, body)
    _set_declaration(node, declaration)
    _set_registration(node, registration)
    return node

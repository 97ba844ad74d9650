"""new_node builds exactly what Node(...) builds."""

from __future__ import annotations

from dataclasses import fields

from rhumbline.ingest.graph.records import new_node
from rhumbline.stores.graph.model import Node


def test_new_node_equals_the_dataclass_with_every_field_and_default():
    full = {
        "id": "function:a.py:f", "kind": "Function", "name": "f", "qualified_name": "a.f",
        "file": "a.py", "start_line": 1, "end_line": 3, "language": "python",
        "signature": "def f()", "docstring": "Doc.", "content_hash": "ab", "body": "return g",
        "declaration": True, "registration": True,
    }  # fmt: skip
    assert set(full) == {field.name for field in fields(Node)}  # a new field needs setting
    for kwargs in (full, {"id": "repository:", "kind": "Repository", "name": "p", "qualified_name": "p"}):
        built = new_node(**kwargs)
        assert built == Node(**kwargs)
        assert hash(built) == hash(Node(**kwargs))
        assert all(getattr(built, f.name) == getattr(Node(**kwargs), f.name) for f in fields(Node))

"""A Python file's interface (python/interface.py): blind to bodies and lines, not to names."""

from __future__ import annotations

from rhumbline.ingest.languages.python.extract import extract_python as extract
from rhumbline.ingest.languages.python.interface import interface

BASE = b"""\
from .b import thing as other
__all__ = ["f"]


class C(Base):
    def m(self):
        return 1


def f(x):
    return other(x)
"""


def test_bodies_lines_and_comments_do_not_change_the_interface():
    moved = b"# a comment\n\n" + BASE.replace(b"return 1", b"y = 2\n        return y")
    assert interface(extract(moved)) == interface(extract(BASE))


def test_names_bases_imports_and_exports_do():
    for old, new in [
        (b"def m(self)", b"def n(self)"),  # a method renamed (the by-name index changes)
        (b"class C(Base)", b"class C(Other)"),
        (b"thing as other", b"thing as another"),
        (b'["f"]', b'["f", "C"]'),
        (b"def f(x):\n    return other(x)\n", b""),
        (b"def f(x)", b"def f(y)"),  # parameters: conservative (they only shadow names inside)
    ]:
        assert interface(extract(BASE.replace(old, new))) != interface(extract(BASE)), new

"""Phase 1 for Python: exact facts extracted from source text."""

from __future__ import annotations

import pickle
from hashlib import sha256

from rhumbline.ingest.facts import CallSite, DecoratorFact, ImportFact
from rhumbline.ingest.languages.python.extract import extract_python

SOURCE = b'''"""Module doc."""
import os, pkg.sub as sub
from . import sibling
from ..parent.mod import Thing as Alias, other
from .star import *

LIMIT: int = 10
first = second = sub.helper
__all__ = ["run", "Widget"]
__all__ += ["extra"]

try:
    import json
except ImportError:
    json = None


@register(kind="x")
@sub.decorate
async def run(value=default_value(),
              *args) -> int:
    """Run it.

        Indented detail.
    """
    def inner():
        return helper(value)
    return inner().result()


class Widget(Base, sub.Mixin[int], metaclass=Meta):  # trailing comment
    # a comment before the docstring
    "Widget doc."
    size = compute_size()

    def draw(self):
        super().draw()
        self.paint()

    class Part:
        def fit(self):
            from os import path
            return path.join("a")
'''


def test_definitions_are_exact():
    facts = extract_python(SOURCE)
    summary = [
        (d.kind, d.qualname, d.parent, d.start_line, d.end_line, d.signature)
        for d in facts.definitions
    ]
    assert summary == [
        ("Function", "run", "", 18, 28, "async def run(value=default_value(), *args) -> int"),
        ("Function", "run.inner", "run", 26, 27, "def inner()"),
        ("Class", "Widget", "", 31, 43, "class Widget(Base, sub.Mixin[int], metaclass=Meta)"),
        ("Method", "Widget.draw", "Widget", 36, 38, "def draw(self)"),
        ("Class", "Widget.Part", "Widget", 40, 43, "class Part"),
        ("Method", "Widget.Part.fit", "Widget.Part", 41, 43, "def fit(self)"),
    ]
    run, _, widget, *_ = facts.definitions
    assert run.docstring == "Run it.\n\nIndented detail."
    assert run.decorators == (
        DecoratorFact("register", 18, 18, '@register(kind="x")'),
        DecoratorFact("sub.decorate", 19, 19, "@sub.decorate"),
    )
    assert run.parameters == ("value", "args")
    assert facts.definitions[3].parameters == ("self",)
    assert widget.parameters == ()
    assert widget.docstring == "Widget doc."
    assert widget.bases == ("Base", "sub.Mixin")
    lines = SOURCE.split(b"\n")
    assert run.content_hash == sha256(b"\n".join(lines[17:28])).hexdigest()  # decorators included
    assert facts.docstring == "Module doc."


def test_calls_belong_to_the_innermost_scope_and_defaults_to_the_outer_one():
    facts = extract_python(SOURCE)
    assert facts.calls == (
        CallSite("", "register", 18),
        CallSite("", "default_value", 20),  # a default value runs when the def statement runs
        CallSite("run.inner", "helper", 27),
        CallSite("run", "inner", 28),
        CallSite("run", "inner().result", 28, "0"),  # a chain, with what it passes
        CallSite("Widget", "compute_size", 34),  # class body: the class is the caller
        CallSite("Widget.draw", "super", 37),
        CallSite("Widget.draw", "super().draw", 37),
        CallSite("Widget.draw", "self.paint", 38),
        CallSite("Widget.Part.fit", "path.join", 43),  # join: a str method, never matched by name
    )
    assert facts.dynamic_calls == 0


FROM_PARENT = "from ..parent.mod import Thing as Alias, other"


def test_imports_are_one_fact_per_bound_name():
    facts = extract_python(SOURCE)
    assert facts.imports == (
        ImportFact("", 2, "import os, pkg.sub as sub", "os", 0, None, None),
        ImportFact("", 2, "import os, pkg.sub as sub", "pkg.sub", 0, None, "sub"),
        ImportFact("", 3, "from . import sibling", "", 1, "sibling", None),
        ImportFact("", 4, FROM_PARENT, "parent.mod", 2, "Thing", "Alias"),
        ImportFact("", 4, FROM_PARENT, "parent.mod", 2, "other", None),
        ImportFact("", 5, "from .star import *", "star", 1, "*", None),
        ImportFact("", 13, "import json", "json", 0, None, None),
        ImportFact("Widget.Part.fit", 42, "from os import path", "os", 0, "path", None),
    )


def test_module_variables_and_literal_exports():
    facts = extract_python(SOURCE)
    assert [(v.name, v.start_line, v.snippet, v.alias_of) for v in facts.variables] == [
        ("LIMIT", 7, "LIMIT: int = 10", None),
        ("first", 8, "first = second = sub.helper", "sub.helper"),
        ("second", 8, "first = second = sub.helper", "sub.helper"),
        ("__all__", 9, '__all__ = ["run", "Widget"]', None),
        ("json", 15, "json = None", None),
    ]
    assert facts.exports == ("run", "Widget", "extra")
    assert facts.syntax_errors is False


def test_a_redefinition_is_a_second_site_and_the_implementation_keeps_the_name():
    facts = extract_python(b"try:\n    def f(): return 1\nexcept E:\n    def f(): return 2\n")
    assert [(d.qualname, d.start_line) for d in facts.definitions] == [("f", 2), ("f~2", 4)]
    facts = extract_python(
        b"class C:\n"
        b"    @overload\n    def m(self, a: int) -> int: ...\n"  # 2
        b"    @typing.overload\n    def m(self, a: str) -> str: ...\n"  # 4
        b"    def m(self, a):\n        def inner(): pass\n        return a\n"  # 6
        b"    @property\n    def x(self): return 1\n"  # 9
        b"    @x.setter\n    def x(self, value):\n        def inner(): pass\n"  # 11
    )
    assert [(d.qualname, d.start_line, d.parent) for d in facts.definitions] == [
        ("C", 1, ""),
        ("C.m~1", 2, "C"),
        ("C.m~2", 4, "C"),
        ("C.m", 6, "C"),
        ("C.m.inner", 7, "C.m"),
        ("C.x", 9, "C"),
        ("C.x~2", 11, "C"),
        ("C.x~2.inner", 13, "C.x~2"),
    ]


def test_syntax_errors_are_flagged_and_the_rest_still_parses():
    facts = extract_python(b"def ok():\n    return 1\n\ndef bad(:\n    pass\n")
    assert facts.syntax_errors is True
    assert [d.qualname for d in facts.definitions] == ["ok", "bad"]


def test_multiline_signatures_collapse_to_one_line():
    facts = extract_python(b"def f(\n    a,\n    b: int = 2,\n) -> None:\n    pass\n")
    assert facts.definitions[0].signature == "def f(a, b: int = 2) -> None"


def test_facts_survive_a_pickle_round_trip():
    facts = extract_python(SOURCE)
    assert pickle.loads(pickle.dumps(facts)) == facts


def test_every_kind_of_parameter_is_named():
    facts = extract_python(b"def f(a, b: int, c=1, d: int = 2, *args, e, /, **kw):\n    pass\n")
    assert facts.definitions[0].parameters == ("a", "b", "c", "d", "args", "e", "kw")


def test_headers_end_at_each_kinds_last_part_and_repeated_callees_count_per_site():
    # Classes and functions look for the end of their header among their own fields only, and a
    # callee text seen before (dynamic or not) is checked once but counted at every site.
    facts = extract_python(
        b"def f[T](x: T) -> T:\n    g()[0]()\n    g()[0]()\n    g()\n\n"
        b"class C[T](Base):\n    pass\n\nclass D[T]:  # comment\n    def m[U](self): pass\n"
    )
    assert [(d.qualname, d.signature) for d in facts.definitions] == [
        ("f", "def f[T](x: T) -> T"),
        ("C", "class C[T](Base)"),
        ("D", "class D[T]"),
        ("D.m", "def m[U](self)"),
    ]
    assert facts.calls == (CallSite("f", "g", 2), CallSite("f", "g", 3), CallSite("f", "g", 4))
    assert facts.dynamic_calls == 2


def test_a_definition_spans_its_own_decorators_only():
    """A definition's lines, hash and decorators include the decorators written on it, never
    those of an enclosing decorated class that ends where it ends."""
    source = (
        b"@outer\n"  # 1
        b"class A:\n"  # 2
        b"    def plain(self):\n"  # 3
        b"        pass\n"  # 4
        b"\n"
        b"    @inner(1)\n"  # 6
        b"    @other\n"  # 7
        b"    def last(self):\n"  # 8
        b"        pass\n"  # 9
        b"\n"
        b"@solo\n"  # 11
        b"def f():\n"  # 12
        b"    class B:\n"  # 13
        b"        def g(self):\n"  # 14
        b"            pass\n"  # 15
    )
    by_name = {d.qualname: d for d in extract_python(source).definitions}
    lines = source.split(b"\n")
    expected = {
        "A": (1, 9, ("outer",)), "A.plain": (3, 4, ()), "A.last": (6, 9, ("inner", "other")),
        "f": (11, 15, ("solo",)), "f.B": (13, 15, ()), "f.B.g": (14, 15, ()),
    }  # fmt: skip
    for qualname, (start, end, decorators) in expected.items():
        definition = by_name[qualname]
        assert (definition.start_line, definition.end_line) == (start, end), qualname
        assert tuple(d[0] for d in definition.decorators) == decorators, qualname
        text = b"\n".join(lines[start - 1 : end])
        assert definition.content_hash == sha256(text.strip()).hexdigest(), qualname


HINTED = b'''from typing import Optional, Union

Alias = Union[A, "B"]
default = make().build()


def f(a: Optional["Client"], b: "A | None" = None, *rest: int, c: list[A] = ()) -> Union[A, B]:
    x = y = Client(a)
    z = p or q.r
    w: Final[Session] = open_it()
    with Client() as entered, other as (p, q):
        pass
    try:
        pass
    except (KeyError, errors.Bad) as error:
        pass
    for item in a.items[0]:
        pass
    return [each for each in z]


class C:
    label: "Client"

    def __init__(self):
        self.pool = await self.connect()
        self.x.y = 1


x.a(), y.a(), b.a(), c.a(), w.a(), entered.a(), error.a(), item.a(), each.a()
'''


def test_hints_say_what_assignments_annotations_and_as_targets_hold():
    hints = [(h.scope, h.name, h.how, h.expression, h.line) for h in extract_python(HINTED).hints]
    assert hints == [
        ("f", "a", ":", "Client", 7),
        ("f", "b", ":", "A", 7),
        ("f", "c", ":", "list[A]", 7),  # *rest: int holds a tuple of ints: left out
        ("f", "->", ":", "A|B", 7),
        ("", "Alias", "type", "A|B", 3),  # then the statements, in source order
        ("", "default", "=", "make().build()", 4),
        ("f", "x", "=", "Client()", 8),
        ("f", "y", "=", "Client()", 8),
        ("f", "z", "=", "p", 9),
        ("f", "z", "=", "q.r", 9),
        ("f", "w", ":", "Session", 10),
        ("f", "entered", "as", "Client()", 11),
        ("f", "error", "as", "KeyError", 15),
        ("f", "error", "as", "errors.Bad", 15),
        ("f", "item", "in", "a.items[]", 17),
        ("f", "each", "in", "z", 19),
        ("C", "label", ":", "Client", 23),
        ("C.__init__", "self.pool", "=", "self.connect()", 26),
    ]


def test_a_local_hint_is_kept_only_when_its_name_is_used():
    source = b"def f(a: A, b: B):\n    x = X()\n    y = Y()\n    z = y\n    z.go()\n    return a\n"
    hints = [(h.scope, h.name, h.expression) for h in extract_python(source).hints]
    # a and x start no callee and no other hint's value; y does (z = y), z does (z.go())
    assert hints == [("f", "y", "Y()"), ("f", "z", "y")]


REGISTRATIONS = b'''\
from typing import Callable


class App:
    def before_request(self, f):
        """Register a function to run before each request."""
        self.before_request_funcs.setdefault(None, []).append(f)
        return f

    def on(self, event: str, listener: Callable[[], None]) -> "App":
        self.listeners[event] = listener
        return self

    def add_header(self, key, value):
        self.headers.append((key, value))

    def __setitem__(self, key, value):
        self.data[key] = value

    def push(self, item):
        self.items.append(item)
        return item.name

    def route(self, rule):
        def decorator(f):
            self.add_url_rule(rule, f)
            return f
        return decorator


def register(func):
    registry[func.__name__] = func
    return func


def register_and_log(func):
    registry.append(func)
    print("registered", func)
    return func
'''


def test_a_definition_that_only_stores_a_callback_it_is_given_is_a_registration():
    facts = extract_python(REGISTRATIONS)
    assert sorted(d.qualname for d in facts.definitions if d.registers) == ["App.before_request", "App.on", "register"]

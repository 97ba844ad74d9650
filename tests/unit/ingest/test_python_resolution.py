"""Name resolution rules, each on a small tree written inline."""

from __future__ import annotations

from rhumbline.ingest.build import build_graph


def _edges(root, relation="CALLS"):
    built = build_graph(root, "t/p")
    return {
        (e.source, e.target, e.confidence, e.confidence_score)
        for e in built.edges
        if e.relation == relation
    }, built.unresolved_calls


def test_a_conditional_import_makes_an_ambiguous_call(write_tree):
    root = write_tree(
        {
            "a/__init__.py": "",
            "a/fast.py": "def parse():\n    pass\n",
            "a/slow.py": "def parse():\n    pass\n",
            "a/use.py": (
                "try:\n    from a.fast import parse\nexcept ImportError:\n    from a.slow import parse\n"
                "\n\ndef run():\n    parse()\n"
            ),
        }
    )
    edges, _ = _edges(root)
    assert edges == {
        ("function:a/use.py:run", "function:a/fast.py:parse", "AMBIGUOUS", 0.5),
        ("function:a/use.py:run", "function:a/slow.py:parse", "AMBIGUOUS", 0.5),
    }


def test_star_imports_honour_dunder_all_and_local_imports_count(write_tree):
    root = write_tree(
        {
            "pkg/__init__.py": "from .impl import *\n",
            "pkg/impl.py": '__all__ = ["public"]\n\ndef public():\n    pass\n\ndef hidden():\n    pass\n',
            "user.py": (
                "from pkg import public, hidden\n\npublic()\nhidden()\n\n"
                "def later():\n    from pkg.impl import hidden as h\n    h()\n"
            ),
        }
    )
    edges, unresolved = _edges(root)
    assert edges == {
        ("file:user.py", "function:pkg/impl.py:public", "INFERRED", 0.8),
        ("function:user.py:later", "function:pkg/impl.py:hidden", "INFERRED", 0.8),
    }
    assert unresolved == 1  # hidden() at module level: not in pkg's __all__


def test_re_export_cycles_end_and_aliases_are_followed(write_tree):
    root = write_tree(
        {
            "c1/__init__.py": "from c1.b import thing\n",
            "c1/b.py": "from c1 import thing\n",
            "m.py": "def real():\n    pass\n\nshortcut = real\nloop_a = loop_b\nloop_b = loop_a\n",
            "user.py": (
                "from c1 import thing\nfrom m import shortcut, loop_a\n\n"
                "thing()\nshortcut()\nloop_a()\n"
            ),
        }
    )
    edges, unresolved = _edges(root)
    assert edges == {("file:user.py", "function:m.py:real", "INFERRED", 0.8)}
    assert unresolved == 2


def test_self_and_super_follow_the_c3_order_across_files(write_tree):
    root = write_tree(
        {
            "base.py": "class A:\n    def hello(self):\n        pass\n\n    def only_c(self):\n        pass\n",
            "left.py": "from base import A\n\nclass B(A):\n    def hello(self):\n        super().hello()\n",
            "right.py": "from base import A\n\nclass C(A):\n    def only_c(self):\n        pass\n",
            "diamond.py": (
                "from left import B\nfrom right import C\n\n"
                "class D(B, C):\n    def go(self):\n        self.only_c()\n        super().hello()\n"
                "        def inner():\n            return self.go()\n"
            ),
        }
    )
    edges, _ = _edges(root)
    assert edges == {
        # D's MRO is D, B, C, A: C.only_c shadows A.only_c (depth-first would pick A's).
        ("method:diamond.py:D.go", "method:right.py:C.only_c", "INFERRED", 0.8),
        ("method:diamond.py:D.go", "method:left.py:B.hello", "INFERRED", 0.8),
        ("function:diamond.py:D.go.inner", "method:diamond.py:D.go", "EXTRACTED", 1.0),
        ("method:left.py:B.hello", "method:base.py:A.hello", "INFERRED", 0.8),
    }
    inherits, _ = _edges(root, "INHERITS")
    assert inherits == {
        ("class:left.py:B", "class:base.py:A", "INFERRED", 0.8),
        ("class:right.py:C", "class:base.py:A", "INFERRED", 0.8),
        ("class:diamond.py:D", "class:left.py:B", "INFERRED", 0.8),
        ("class:diamond.py:D", "class:right.py:C", "INFERRED", 0.8),
    }


def test_name_matching_is_bounded(write_tree):
    classes = "".join(f"class K{i}:\n    def frobnicate(self):\n        pass\n\n" for i in range(6))
    root = write_tree(
        {
            "many.py": classes + "class Box:\n    def append(self, x):\n        pass\n\n"
            "    def listdir(self):\n        pass\n\n    def unique_name(self):\n        pass\n",
            "use.py": (
                "import os\n\n\ndef run(x, items):\n    x.frobnicate()\n    items.append(1)\n"
                "    os.listdir()\n    x.unique_name()\n"
            ),
        }
    )
    edges, unresolved = _edges(root)
    # six candidates: dropped; `append` is a list method; `os` is external; one match: low score
    assert edges == {("function:use.py:run", "method:many.py:Box.unique_name", "INFERRED", 0.5)}
    assert unresolved == 3


def test_nested_classes_class_bodies_and_decorators(write_tree):
    root = write_tree(
        {
            "deco.py": "def register(cls):\n    return cls\n",
            "shapes.py": (
                "from deco import register\n\n\n@register\nclass Outer:\n    class Inner:\n        pass\n\n"
                "    default = Inner()\n\n    @staticmethod\n    def build():\n        return Outer.Inner()\n"
            ),
        }
    )
    edges, _ = _edges(root)
    assert edges == {
        ("class:shapes.py:Outer", "class:shapes.py:Outer.Inner", "EXTRACTED", 1.0),
        ("method:shapes.py:Outer.build", "class:shapes.py:Outer.Inner", "EXTRACTED", 1.0),
    }
    decorates, _ = _edges(root, "DECORATES")
    assert decorates == {("function:deco.py:register", "class:shapes.py:Outer", "INFERRED", 0.8)}


def test_a_parameter_hides_a_module_function_and_packages_import_their_submodules(write_tree):
    root = write_tree(
        {
            "p/__init__.py": "from . import sub\n\nsub.work()\n",
            "p/sub.py": "def work():\n    pass\n\ndef callback():\n    pass\n",
            "user.py": (
                "import p\nfrom p.sub import callback\n\n"
                "def run(callback):\n    callback()\n    p.sub.work()\n"
            ),
        }
    )
    edges, unresolved = _edges(root)
    assert edges == {
        ("file:p/__init__.py", "function:p/sub.py:work", "INFERRED", 0.8),
        ("function:user.py:run", "function:p/sub.py:work", "INFERRED", 0.8),
    }
    assert unresolved == 1  # callback(): the parameter, not p.sub.callback


def test_scopes_share_a_resolution_only_where_the_same_binding_decides_it(write_tree):
    # calls.FileCalls resolves `helper()` once for every scope that sees the module's binding; a
    # parameter, a local import or a class of its own must still decide for its own scope.
    root = write_tree(
        {
            "lib.py": "def helper():\n    pass\n",
            "other.py": "def helper():\n    pass\n",
            "use.py": (
                "from lib import helper\n\n"
                "def a():\n    helper()\n\n"
                "def b(helper):\n    helper()\n\n"
                "def c():\n    from other import helper\n    helper()\n\n"
                "def d():\n    def inner():\n        helper()\n    inner()\n\n"
                "class A:\n    def helper(self):\n        pass\n\n"
                "    def m(self):\n        self.helper()\n        helper()\n\n"
                "class B:\n    def helper(self):\n        pass\n\n"
                "    def m(self):\n        self.helper()\n"
            ),
        }
    )
    edges, unresolved = _edges(root)
    assert {(source, target) for source, target, _, _ in edges} == {
        ("function:use.py:a", "function:lib.py:helper"),
        ("function:use.py:c", "function:other.py:helper"),
        ("function:use.py:d.inner", "function:lib.py:helper"),
        ("function:use.py:d", "function:use.py:d.inner"),
        ("method:use.py:A.m", "method:use.py:A.helper"),
        ("method:use.py:A.m", "function:lib.py:helper"),
        ("method:use.py:B.m", "method:use.py:B.helper"),
    }
    assert unresolved == 1  # b's helper() calls its parameter

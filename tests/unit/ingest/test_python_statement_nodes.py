"""Python Import and Decorator nodes: exact ids, fields and edges on a small tree."""

from __future__ import annotations

from rhumbline.ingest.build import build_graph

PROJECT = "acme/statements"

TREE = {
    "app/__init__.py": "from .core import cached, Service\n",
    "app/core.py": (
        "import os\n"
        "def cached(func):\n"
        "    return func\n"
        "class Service:\n"
        "    pass\n"
    ),
    "app/views.py": (
        "try:\n"
        "    import json\n"
        "except ImportError:\n"
        "    import simplejson as json\n"
        "from app import cached\n"
        "from app.core import *\n"
        "\n"
        "@cached\n"
        "@cached\n"
        "@route(\n"
        "    '/x',\n"
        ")\n"
        "def index():\n"
        "    from app.core import Service\n"
        "    return Service()\n"
        "\n"
        "class Page:\n"
        "    @property\n"
        "    def title(self):\n"
        "        return ''\n"
    ),
}


def _graph(write_tree):
    built = build_graph(write_tree(TREE), PROJECT, workers=1, history=False)
    nodes = {n.id: n for n in built.nodes if n.kind in ("Import", "Decorator")}
    edges = {
        (e.source, e.relation, e.target, e.confidence)
        for e in built.edges
        if e.relation in ("RESOLVES_TO", "APPLIES_TO") or e.target.startswith(("import:", "decorator:"))
    }
    return built, nodes, edges


def _import(name: str, container: str, line: int, statement: str | None = None) -> tuple:
    """An Import node as the summary reads it; `statement` defaults to the binding itself."""
    return ("Import", name, f"{container}[{name}]", line, line, statement or name)


def _decorator(name: str, decorated: str, start: int, end: int, text: str | None = None) -> tuple:
    """A Decorator node as the summary reads it; `text` defaults to the name."""
    return ("Decorator", name, f"{decorated}[{name}]", start, end, text or name)


def test_statement_node_ids_names_and_fields(write_tree):
    _, nodes, _ = _graph(write_tree)
    summary = {
        node_id: (n.kind, n.name, n.qualified_name, n.start_line, n.end_line, n.signature)
        for node_id, n in nodes.items()
    }
    statement = "from .core import cached, Service"
    assert summary == {
        "import:app/__init__.py:cached": _import("from .core import cached", "app", 1, statement),
        "import:app/__init__.py:Service": _import("from .core import Service", "app", 1, statement),
        "import:app/core.py:os": _import("import os", "app.core", 1),
        # The same name bound twice in one scope: the second gets `~2`.
        "import:app/views.py:json": _import("import json", "app.views", 2),
        "import:app/views.py:json~2": _import("import simplejson as json", "app.views", 4),
        "import:app/views.py:cached": _import("from app import cached", "app.views", 5),
        "import:app/views.py:app.core.*": _import("from app.core import *", "app.views", 6),
        # A function-local import is keyed and named inside its function.
        "import:app/views.py:index.Service": _import("from app.core import Service", "app.views.index", 14),
        "decorator:app/views.py:index@cached": _decorator("@cached", "app.views.index", 8, 8),
        "decorator:app/views.py:index@cached~2": _decorator("@cached", "app.views.index", 9, 9),
        "decorator:app/views.py:index@route": _decorator("@route", "app.views.index", 10, 12, "@route('/x')"),
        "decorator:app/views.py:Page.title@property": _decorator("@property", "app.views.Page.title", 18, 18),
    }
    for n in nodes.values():
        assert n.language == "python" and n.file == n.id.split(":")[1] and n.docstring is None
        assert len(n.content_hash) == 64


def test_statement_edges_are_exact(write_tree):
    _, _, edges = _graph(write_tree)
    views, core = "app/views.py", "app/core.py"
    assert edges == {
        ("file:app/__init__.py", "CONTAINS", "import:app/__init__.py:cached", "EXTRACTED"),
        ("import:app/__init__.py:cached", "RESOLVES_TO", "module:app.core", "EXTRACTED"),
        ("import:app/__init__.py:cached", "RESOLVES_TO", f"function:{core}:cached", "EXTRACTED"),
        ("file:app/__init__.py", "CONTAINS", "import:app/__init__.py:Service", "EXTRACTED"),
        ("import:app/__init__.py:Service", "RESOLVES_TO", "module:app.core", "EXTRACTED"),
        ("import:app/__init__.py:Service", "RESOLVES_TO", f"class:{core}:Service", "EXTRACTED"),
        # `import os`: outside the repository, resolves to nothing.
        (f"file:{core}", "CONTAINS", f"import:{core}:os", "EXTRACTED"),
        (f"file:{views}", "CONTAINS", f"import:{views}:json", "EXTRACTED"),
        (f"file:{views}", "CONTAINS", f"import:{views}:json~2", "EXTRACTED"),
        (f"file:{views}", "CONTAINS", f"import:{views}:cached", "EXTRACTED"),
        (f"import:{views}:cached", "RESOLVES_TO", "module:app", "EXTRACTED"),
        # Re-exported by app/__init__.py: inferred.
        (f"import:{views}:cached", "RESOLVES_TO", f"function:{core}:cached", "INFERRED"),
        (f"file:{views}", "CONTAINS", f"import:{views}:app.core.*", "EXTRACTED"),
        (f"import:{views}:app.core.*", "RESOLVES_TO", "module:app.core", "EXTRACTED"),
        (f"function:{views}:index", "CONTAINS", f"import:{views}:index.Service", "EXTRACTED"),
        (f"import:{views}:index.Service", "RESOLVES_TO", "module:app.core", "EXTRACTED"),
        (f"import:{views}:index.Service", "RESOLVES_TO", f"class:{core}:Service", "EXTRACTED"),
        (f"function:{views}:index", "CONTAINS", f"decorator:{views}:index@cached", "EXTRACTED"),
        (f"decorator:{views}:index@cached", "APPLIES_TO", f"function:{views}:index", "EXTRACTED"),
        (f"decorator:{views}:index@cached", "RESOLVES_TO", f"function:{core}:cached", "INFERRED"),
        (f"function:{views}:index", "CONTAINS", f"decorator:{views}:index@cached~2", "EXTRACTED"),
        (f"decorator:{views}:index@cached~2", "APPLIES_TO", f"function:{views}:index", "EXTRACTED"),
        (f"decorator:{views}:index@cached~2", "RESOLVES_TO", f"function:{core}:cached", "INFERRED"),
        # `route` is not defined anywhere, `property` is a builtin: applied, resolved to nothing.
        (f"function:{views}:index", "CONTAINS", f"decorator:{views}:index@route", "EXTRACTED"),
        (f"decorator:{views}:index@route", "APPLIES_TO", f"function:{views}:index", "EXTRACTED"),
        (f"method:{views}:Page.title", "CONTAINS", f"decorator:{views}:Page.title@property", "EXTRACTED"),
        (f"decorator:{views}:Page.title@property", "APPLIES_TO", f"method:{views}:Page.title", "EXTRACTED"),
    }


def test_direct_edges_stay_and_statement_nodes_add_no_dependency_edges(write_tree):
    built, nodes, _ = _graph(write_tree)
    direct = {(e.source, e.relation, e.target) for e in built.edges if e.relation in ("IMPORTS", "DECORATES")}
    assert direct == {
        ("file:app/__init__.py", "IMPORTS", "module:app.core"),
        ("file:app/views.py", "IMPORTS", "module:app"),
        ("file:app/views.py", "IMPORTS", "module:app.core"),
        ("function:app/core.py:cached", "DECORATES", "function:app/views.py:index"),
    }
    dependency = ("CALLS", "IMPORTS", "INHERITS", "IMPLEMENTS", "REFERENCES", "DECORATES", "DEFINES")
    assert not [e for e in built.edges if e.relation in dependency and (e.source in nodes or e.target in nodes)]


def test_statement_edges_explain_their_evidence(write_tree):
    built, _, _ = _graph(write_tree)
    explanations = {(e.source, e.relation, e.target): e for e in built.edges}
    views = "app/views.py"
    binds = explanations[(f"import:{views}:cached", "RESOLVES_TO", "function:app/core.py:cached")]
    assert (binds.explanation, binds.confidence_score, binds.file, binds.line) == (
        "`from app import cached` at app/views.py:5 binds `app.core.cached`, re-exported by `app`", 0.8, views, 5
    )
    applied = explanations[(f"decorator:{views}:index@route", "APPLIES_TO", f"function:{views}:index")]
    assert (applied.explanation, applied.line) == ("`@route('/x')` at app/views.py:10 is applied to function `index`", 10)
    resolved = explanations[(f"decorator:{views}:index@cached", "RESOLVES_TO", "function:app/core.py:cached")]
    assert resolved.explanation == (
        "`@cached` at app/views.py:8 resolved through `from app import cached` to `app.core.cached`"
    )

"""Python packages named as Python imports them — namespace packages (PEP 420), the src layout,
package roots from pyproject.toml and setup.cfg — and sources read in their declared or detected
encoding, stored alike on the SQLite and the Neo4j graph store."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.ingest.build import build_graph
from rhumbline.ingest.languages.python.modules import ModuleIndex
from rhumbline.ingest.languages.python.packaging import package_dirs
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.graph_dump import dump

TREE = {
    # A src layout whose package holds a namespace directory (no __init__.py in sansio/).
    "src/web/__init__.py": "",
    "src/web/sansio/app.py": "class App:\n    def run(self):\n        return 1\n",
    "src/web/server.py": (
        "from web.sansio.app import App\nfrom tools.text import slug\nfrom oldpkg.mod import legacy\n\n\n"
        "def serve():\n    App().run()\n    slug()\n    legacy()\n"
    ),
    # A root declared by pyproject.toml, holding only namespace packages.
    "pyproject.toml": '[project]\nname = "web"\n\n[tool.setuptools.packages.find]\nwhere = ["lib"]\n',
    "lib/tools/text.py": "def slug():\n    return 'x'\n",
    # A root declared by setup.cfg's package_dir, in a project of its own.
    "legacy/setup.cfg": "[metadata]\nname = oldpkg\n\n[options]\npackage_dir =\n    = code\n",
    "legacy/code/oldpkg/mod.py": "def legacy():\n    return 2\n",
}
LATIN_1 = {
    "java/com/shop/Cart.java": (
        "package com.shop;\n\n/** Le panier de la Société, réécrit. */\npublic class Cart {\n"
        "    void add() { total(); }\n    int total() { return 0; }\n}\n"
    ),
    "old.py": '# -*- coding: latin-1 -*-\ndef café():\n    "Déjà vu."\n    return café\n',
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    for path, text in LATIN_1.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode("latin-1"))
    return root


def test_packages_resolve_as_python_imports_them_and_latin_1_sources_are_read(
    tree: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    built = build_graph(tree, unique_project, workers=1, history=False)
    assert not built.failures and not [s for s in built.skipped if s.reason == "undecodable"]
    ingest_local(tree, unique_project, store=store, engine=engine, workers=1)
    nodes, edges = dump(store, unique_project)
    names = {node_id: fields[2] for node_id, fields in nodes.items()}  # qualified_name
    by_name = {name: node_id for node_id, name in names.items()}
    assert {"web.sansio.app.App", "web.sansio.app.App.run", "tools.text.slug", "oldpkg.mod.legacy"} <= set(by_name)
    serve = by_name["web.server.serve"]
    called = {names[t] for (s, relation, t) in edges if relation == "CALLS" and s == serve}
    assert called == {"web.sansio.app.App", "web.sansio.app.App.run", "tools.text.slug", "oldpkg.mod.legacy"}
    imported = {t for (s, relation, t) in edges if relation == "IMPORTS" and s == "file:src/web/server.py"}
    assert {names.get(t) for t in imported} >= {"web.sansio.app", "tools.text", "oldpkg.mod"}

    assert nodes[by_name["com.shop.Cart"]][8] == "Le panier de la Société, réécrit."  # its docstring, from Latin-1
    assert (by_name["com.shop.Cart.add"], "CALLS", by_name["com.shop.Cart.total"]) in edges
    assert nodes[by_name["old.café"]][8] == "Déjà vu."  # PEP 263


def test_a_directory_without_init_inside_a_package_keeps_the_prefix() -> None:
    index = ModuleIndex("repo", [
        "pkg/__init__.py", "pkg/sansio/app.py", "pkg/sansio/deep/er.py", "tests/admin/__init__.py",
        "tests/admin/models.py", "scripts/run.py", "ns/only/mod.py",
    ])  # fmt: skip
    assert index.name_of == {
        "pkg/__init__.py": "pkg", "pkg/sansio/app.py": "pkg.sansio.app", "pkg/sansio/deep/er.py": "pkg.sansio.deep.er",
        "tests/admin/__init__.py": "admin", "tests/admin/models.py": "admin.models", "scripts/run.py": "run",
        "ns/only/mod.py": "mod",
    }  # fmt: skip
    assert index.absolute("pkg/sansio/app.py", "deep.er", 1) == "pkg.sansio.deep.er"


def test_package_dirs_read_setuptools_declarations(tmp_path: Path) -> None:
    files = {
        "a/pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "src", "extra" = "lib/extra"}\n',
        "b/setup.cfg": "[options]\npackage_dir =\n    = source\n[options.packages.find]\nwhere = source\n",
        "c/pyproject.toml": "[tool.setuptools\nbroken",  # malformed: declares nothing
        "d/pyproject.toml": '[tool.setuptools.packages.find]\nwhere = ["../../outside", "."]\n',
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert package_dirs(tmp_path, files) == {"a/src": "", "a/lib/extra": "extra", "b/source": ""}
    index = ModuleIndex("t", ["a/lib/extra/x.py", "a/src/p/q.py", "b/source/m.py"], package_dirs(tmp_path, files))
    assert index.name_of == {"a/lib/extra/x.py": "extra.x", "a/src/p/q.py": "p.q", "b/source/m.py": "m"}


def test_a_changed_package_root_rebuilds_the_module_names(
    tree: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    """pyproject.toml has no extractor, yet moving a package root renames modules: never partial."""
    ingest_local(tree, unique_project, store=store, engine=engine, workers=1)
    (tree / "pyproject.toml").write_text('[project]\nname = "web"\n')  # lib/ is no longer a root
    summary = ingest_local(tree, unique_project, store=store, engine=engine, workers=1)
    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == "pyproject.toml may move Python packages"
    names = {fields[2] for fields in dump(store, unique_project)[0].values()}
    assert "text.slug" in names and "tools.text.slug" not in names  # lib/tools/ is outside every package

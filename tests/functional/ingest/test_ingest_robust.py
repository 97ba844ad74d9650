"""No single file can fail an ingest: each case below once cost a whole project its graph.

Every test writes a minimal tree in tmp_path, ingests it through the pipeline into the SQLite
and the Neo4j graph stores, and reads back what the store holds: the version completed, the
rest of the graph is there, and any file that did fail is in the summary with its stage and
reason (rhumbline/ingest/failures.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import cli
from rhumbline.ingest import pipeline
from rhumbline.ingest.build import MAX_LISTED
from rhumbline.ingest.discover import read
from rhumbline.ingest.languages.polyglot.calls import CallResolution
from rhumbline.ingest.languages.python import calls, statement_nodes
from rhumbline.ingest.summary import IngestSummary
from rhumbline.runtime import resources
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def _ingest(root: Path, project: str, store: GraphStore, engine: Engine, **options) -> IngestSummary:
    summary = pipeline.ingest_local(root, project, store=store, engine=engine, history=False, **options)
    with session_scope(engine) as session:
        assert versions.latest(session, project).status == "completed"
    return summary


def _calls(store: GraphStore, project: str, caller: str) -> set[str]:
    views, _ = store.edges_of(project, caller, "out", limit=100)
    return {view.other_id for view in views if view.relation == "CALLS"}


ITERATORS = {
    "pkg/__init__.py": "",
    "pkg/it.py": '''from typing import Iterator, Self


class Item:
    def use(self) -> None:
        pass


class Tokens:
    def __iter__(self) -> "Tokens":
        return self

    def scan(self) -> None:
        for token in self:
            token.strip()


class Words:
    def __iter__(self) -> Self:
        return self

    def scan(self) -> None:
        for word in self:
            word.lower()


class Items:
    def __iter__(self) -> Iterator["Item"]:
        yield Item()

    def scan(self) -> None:
        for item in self:
            item.use()
''',
}


def test_an_iterator_of_its_own_class_is_inferred_without_end(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    # `__iter__ -> "X"` / `-> Self` with a method called on the items: RecursionError, nothing written.
    summary = _ingest(_write(tmp_path / "lib", ITERATORS), unique_project, store, engine)
    assert (summary.failure_count, summary.failures) == (0, [])
    assert store.get_node(unique_project, "method:pkg/it.py:Words.scan") is not None
    # inference still works beside the cycles: Items' items are Item instances
    assert _calls(store, unique_project, "method:pkg/it.py:Items.scan") == {"method:pkg/it.py:Item.use"}
    assert _calls(store, unique_project, "method:pkg/it.py:Tokens.scan") == set()


CARGO = '[package]\nname = "cyc"\nversion = "0.1.0"\n'
# `pub use` cycles through each path form; the last alone (a test module re-importing what its
# module re-exports) was enough for a RecursionError.
RUST = {
    "Cargo.toml": CARGO,
    "src/lib.rs": "pub mod m;\npub mod n;\npub use crate::m::X;\n\npub fn top() { n::make(); }\n",
    "src/m.rs": (
        "pub use crate::X;\npub use self::X as Y;\npub use super::m::Y as X;\n\n"
        "#[cfg(test)]\nmod tests {\n    use crate::m::X;\n    fn t() { X::new(); }\n}\n"
    ),
    "src/n.rs": (
        "pub use crate::n::Z;\n\npub fn make() {}\n\n"
        "#[cfg(test)]\nmod tests {\n    use crate::n::Z;\n    use super::make;\n    fn t() { make(); }\n}\n"
    ),
}


def test_rust_re_export_cycles_resolve_without_end(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    summary = _ingest(_write(tmp_path / "cyc", RUST), unique_project, store, engine)
    assert (summary.failure_count, summary.failures) == (0, [])
    assert _calls(store, unique_project, "function:src/lib.rs:top") == {"function:src/n.rs:make"}
    assert summary.files_by_language["rust"] == 3


def test_a_gitignore_line_git_skips_is_a_warning(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    # Not a git work tree: our own walker reads the .gitignore files (git accepts `!` and skips it).
    root = _write(
        tmp_path / "tree",
        {"sub/.gitignore": "!\n*.log\nkeep\\\n", "sub/a.py": "x = 1\n", "sub/b.log": "noise\n", "c.py": "y = 2\n"},
    )
    summary = _ingest(root, unique_project, store, engine)
    assert summary.warning_count == 2
    assert summary.warnings == [
        "sub/.gitignore:1: `!` is not a pattern; ignored, as git does",
        "sub/.gitignore:3: `keep\\` is not a pattern; ignored, as git does",
    ]
    assert store.get_node(unique_project, "file:sub/a.py") is not None
    assert store.get_node(unique_project, "file:sub/b.log") is None  # the other lines still apply
    assert summary.failure_count == 0


# A registry tarball: package.json's entry points are in dist/ and no src/ builds it, so dist/ is
# the package's code, not build output to skip.
NPM_DIST = {
    "package.json": '{"name": "d", "main": "./dist/index.js", "types": "dist/index.d.ts"}',
    "dist/index.js": "function parse(text) { return trim(text); }\nfunction trim(text) { return text; }\n",
    "dist/index.d.ts": "export declare function parse(text: string): string;\n",
}


def test_an_npm_package_shipping_only_dist_is_ingested(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    summary = _ingest(_write(tmp_path / "pkg", NPM_DIST), unique_project, store, engine)
    assert summary.failure_count == 0
    assert store.get_node(unique_project, "function:dist/index.d.ts:parse") is not None
    assert _calls(store, unique_project, "function:dist/index.js:parse") == {"function:dist/index.js:trim"}


# A registry tarball shipping its sources (lib/) and a bundle of them (dist/, whose package.json
# entry point keeps dist/ in the ingest), the bundle declaring its source map.
NPM_LIB_AND_BUNDLE = {
    "package.json": '{"name": "d", "main": "./lib/index.js", "browser": "./dist/d.js"}',
    "lib/index.js": "export function parse(text) { return trim(text); }\nexport function trim(text) { return text; }\n",
    "dist/d.js": "function parse(text) { return trim(text); }\nfunction trim(text) { return text; }\n"
    "//# sourceMappingURL=d.js.map\n",
    "dist/d.js.map": json.dumps({"version": 3, "sources": ["../lib/index.js"], "mappings": ""}),
}


def test_a_bundle_of_the_trees_own_sources_is_skipped_and_calls_resolve_into_them(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    root = _write(tmp_path / "pkg", NPM_LIB_AND_BUNDLE)
    summary = _ingest(root, unique_project, store, engine)
    assert summary.failure_count == 0 and summary.skipped == {"generated": 2}  # the map, the bundle
    assert [e.detail for e in summary.skipped_examples if e.path == "dist/d.js"] == [
        "a build copy of lib/index.js, which dist/d.js.map names"
    ]
    assert store.get_node(unique_project, "function:dist/d.js:parse") is None
    assert _calls(store, unique_project, "function:lib/index.js:parse") == {"function:lib/index.js:trim"}
    # The verdict depends on other files: without its sources the unchanged bundle is the code.
    (root / "lib" / "index.js").unlink()
    summary = _ingest(root, unique_project, store, engine)
    assert summary.skipped == {"generated": 1}
    assert _calls(store, unique_project, "function:dist/d.js:parse") == {"function:dist/d.js:trim"}
    # And a map that cannot be read keeps the bundle, without failing anything.
    (root / "dist" / "d.js.map").write_text('{"sources": [')
    assert _ingest(root, unique_project, store, engine).failure_count == 0
    assert store.get_node(unique_project, "function:dist/d.js:parse") is not None


def test_a_file_whose_resolution_raises_is_reported_and_the_rest_is_built(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _write(
        tmp_path / "app",
        {
            "app/__init__.py": "",
            "app/good.py": "def helper():\n    pass\n\n\ndef main():\n    helper()\n",
            "app/bad.py": "from app.good import helper\n\n\ndef run():\n    helper()\n",
            "lib/src/lib.rs": "pub fn one() { two(); }\npub fn two() {}\n",
            "lib/src/other.rs": "pub fn three() { four(); }\npub fn four() {}\n",
        },
    )
    add_calls, resolve_call = calls.add_calls, CallResolution.resolve_call

    def python_breaks_on_bad(path, *args):
        if path == "app/bad.py":
            raise RuntimeError("a resolver bug")
        return add_calls(path, *args)

    def rust_breaks_on_other(self, f, call):
        if f.path == "lib/src/other.rs":
            raise RecursionError("maximum recursion depth exceeded")
        return resolve_call(self, f, call)

    monkeypatch.setattr(calls, "add_calls", python_breaks_on_bad)
    monkeypatch.setattr(CallResolution, "resolve_call", rust_breaks_on_other)
    summary = _ingest(root, unique_project, store, engine)
    failures = {(f.file, f.stage, f.reason) for f in summary.failures}
    assert failures == {
        ("app/bad.py", "resolve python", "RuntimeError: a resolver bug"),
        ("lib/src/other.rs", "resolve rust", "RecursionError: maximum recursion depth exceeded"),
    }
    assert summary.failure_count == 2
    # the failed files keep their File nodes and definitions; every other file is resolved
    assert store.get_node(unique_project, "function:app/bad.py:run") is not None
    assert store.get_node(unique_project, "function:lib/src/other.rs:three") is not None
    assert _calls(store, unique_project, "function:app/good.py:main") == {"function:app/good.py:helper"}
    assert _calls(store, unique_project, "function:lib/src/lib.rs:one") == {"function:lib/src/lib.rs:two"}
    counts = store.counts(unique_project)
    assert (counts.nodes, counts.edges) == (summary.node_count, summary.edge_count)
    with session_scope(engine) as session:
        stats = versions.latest(session, unique_project).stats
    assert stats["failure_count"] == 2

    # Re-ingested unchanged: the same inputs, the same failures (the stored graph is reused).
    again = _ingest(root, unique_project, store, engine)
    assert again.changes.phase2 == "skipped"
    assert (again.failure_count, {(f.file, f.stage) for f in again.failures}) == (2, {(a, b) for a, b, _ in failures})

    # A changed file is not resolved alone when others failed: the kept files' failures would go unreported.
    (root / "app/good.py").write_text("def helper():\n    pass\n\n\ndef main():\n    helper()\n    helper()\n")
    changed = _ingest(root, unique_project, store, engine)
    assert changed.changes.phase2 == "full"
    assert changed.changes.partial_refused == "files failed in the stored version"
    assert changed.failure_count == 2


def test_failures_are_counted_exactly_and_listed_up_to_the_cap(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = MAX_LISTED + 5
    files = {f"m{i:02}.py": f"def f{i}():\n    pass\n" for i in range(count)}
    root = _write(tmp_path / "many", {**files, "ok.js": "function ok() {}\n"})
    extractor_for = read.extractor_for

    def extractor_raising(source: bytes):
        raise ValueError("the grammar choked")

    # Phase 1 runs in this process (workers=1), so its extractor is this one.
    monkeypatch.setattr(read, "extractor_for", lambda language: extractor_raising if language == "python" else extractor_for(language))
    summary = _ingest(root, unique_project, store, engine, workers=1)
    assert summary.failure_count == count
    assert len(summary.failures) == MAX_LISTED
    assert {(f.stage, f.reason) for f in summary.failures} == {("extract", "ValueError: the grammar choked")}
    assert summary.skipped == {"extraction_failed": count}
    assert store.get_node(unique_project, "function:ok.js:ok") is not None


def test_parse_errors_are_counted_per_language(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    root = _write(
        tmp_path / "errs",
        {
            "a.py": "def ok():\n    pass\n",
            "b.py": "def broken(:\n",
            "c.ts": "export function f(: number {\n",
            "d.ts": "export function g(): number { return 1; }\n",
        },
    )
    summary = _ingest(root, unique_project, store, engine)
    assert summary.syntax_errors_by_language == {"python": 1, "typescript": 1}
    assert summary.files_with_syntax_errors == 2
    assert store.get_node(unique_project, "function:d.ts:g") is not None


def test_the_cli_json_summary_carries_failures_and_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
    monkeypatch.delenv("RHUMBLINE_DATABASE_URL", raising=False)
    monkeypatch.delenv("RHUMBLINE_GRAPH_PATH", raising=False)
    resources.reset()  # connections an earlier test opened belong to another home
    root = _write(tmp_path / "tree", {"sub/.gitignore": "!\n", "sub/a.py": "x = 1\n"})
    assert cli.main(["ingest", str(root), "--project", "acme/tree", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["failure_count"], summary["failures"]) == (0, [])
    assert summary["warning_count"] == 1
    assert summary["warnings"] == ["sub/.gitignore:1: `!` is not a pattern; ignored, as git does"]


# Forms the grammars fail on (tree-sitter-typescript 0.23.2, tree-sitter-kotlin 1.1.0), parsed as
# same-length forms they know (typescript/extract.py, kotlin/extract.py); and C++ in a `.h`, which
# the C grammar fails on, parsed as C++ (languages/ `language_in`) beside a C header that is not.
GRAMMAR_GAPS = {
    "src/variance.ts": (
        "export interface Producer<out T> {\n"
        "    make(): T;\n"
        "}\n"
        "export interface Channel<in A, out B = () => void, C = string> {\n"
        "    send(a: A): B;\n"
        "}\n"
        "export class Cell<\n"
        "    in out T,\n"
        "    out extends object = {},\n"
        "> {\n"
        "    swap(value: T): T { return value; }\n"
        "}\n"
        "export type Reader<out T> = (text: string) => T;\n"
        "export function parse(text: string): Cell<number, {}> { return new Cell(); }\n"
    ),
    "include/shop/widget.h": (
        "#pragma once\n"
        "#include <string>\n"
        "\n"
        "namespace shop {\n"
        "\n"
        "class Widget {\n"
        "public:\n"
        "    explicit Widget(std::string name) : name_(std::move(name)) {}\n"
        "    const std::string& name() const { return name_; }\n"
        "private:\n"
        "    std::string name_;\n"
        "};\n"
        "\n"
        "template <typename T>\n"
        "T twice(T x) { return x + x; }\n"
        "\n"
        "}  // namespace shop\n"
    ),
    "include/shop/money.h": (
        "/* Amounts in cents. From C++: `std::string text = shop_format(12);` */\n"
        "#if defined(__cplusplus) && (__cplusplus >= 201103L)\n"
        "#define SHOP_NOEXCEPT noexcept\n"
        "#else\n"
        "#define SHOP_NOEXCEPT\n"
        "#endif\n"
        "struct price { int cents; };\n"
        "static inline int shop_cents(struct price p) { return p.cents; }\n"
    ),
    "types/index.d.ts": (
        "/** Formats a date. */\n"
        'export declare function format(date: import("./core").DateArg<Date>, pattern: string): string;\n'
        "export declare class Locale {\n"
        "    code(): import('./core').ns.Code<string>;\n"
        "}\n"
        'export type * from "./core";\n'
    ),
    "types/core.d.ts": "export type DateArg<T> = T | number;\nexport declare function parse(text: string): Date;\n",
    "src/Bag.kt": (
        "class Bag {\n"
        "    var set = mutableSetOf<Int>()\n"
        "    fun add(x: Int) {\n"
        "        val y = x + 1\n"
        "        set += y\n"
        "    }\n"
        "    fun clear() {\n"
        "        val empty = mutableSetOf<Int>()\n"
        "        set = empty\n"
        "    }\n"
        "}\n"
    ),
}


def test_forms_the_grammars_fail_on_are_parsed(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    summary = _ingest(_write(tmp_path / "gaps", GRAMMAR_GAPS), unique_project, store, engine)
    assert (summary.syntax_errors_by_language, summary.failure_count) == ({}, 0)
    format_node = store.get_node(unique_project, "function:types/index.d.ts:format")
    assert format_node is not None and 'import("./core").DateArg<Date>' in format_node.signature
    assert format_node.docstring == "Formats a date."
    for node_id in ("method:types/index.d.ts:Locale.code", "function:types/core.d.ts:parse",
                    "method:src/Bag.kt:Bag.add", "method:src/Bag.kt:Bag.clear"):  # fmt: skip
        assert store.get_node(unique_project, node_id) is not None, node_id
    views, _ = store.edges_of(unique_project, "file:types/index.d.ts", "out", limit=50)
    assert ("IMPORTS", "file:types/core.d.ts") in {(view.relation, view.other_id) for view in views}
    # variance annotations: every declaration of the file, its text as written
    defined, _ = store.nodes_in_file(unique_project, "src/variance.ts", limit=50)
    assert [(n.kind, n.id.rpartition(":")[2]) for n in defined] == [
        ("Interface", "Producer"), ("Method", "Producer.make"), ("Interface", "Channel"), ("Method", "Channel.send"),
        ("Class", "Cell"), ("Method", "Cell.swap"), ("Function", "parse"),
    ]  # fmt: skip
    assert "in out T," in (store.get_node(unique_project, "class:src/variance.ts:Cell").signature or "")
    # a `.h` of C++ is C++, one of C (which shows and serves C++ callers) is C
    headers = ("include/shop/widget.h", "include/shop/money.h")
    languages = [getattr(store.get_node(unique_project, f"file:{path}"), "language", None) for path in headers]
    assert languages == ["cpp", "c"]
    defined, _ = store.nodes_in_file(unique_project, "include/shop/widget.h", limit=50)
    assert {(n.kind, n.qualified_name) for n in defined} >= {
        ("Class", "shop::Widget"), ("Method", "shop::Widget::name"), ("Function", "shop::twice"),
    }  # fmt: skip
    assert {n.language for n in defined} == {"cpp"}  # its nodes have the file's language
    assert store.get_node(unique_project, "function:include/shop/money.h:shop_cents") is not None


def test_edges_a_failed_file_left_without_an_end_are_dropped(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _write(tmp_path / "app", {"a.py": "import b\n\n\ndef f():\n    b.g()\n", "b.py": "def g():\n    pass\n"})
    import_nodes = statement_nodes.import_nodes

    def edges_then_raise(source, *args):
        import_nodes(source, *args)  # its RESOLVES_TO / CONTAINS edges are in, its Import nodes never will be
        if source.path == "a.py":
            raise RuntimeError("after the edges")
        return import_nodes(source, *args)

    monkeypatch.setattr(statement_nodes, "import_nodes", edges_then_raise)
    summary = _ingest(root, unique_project, store, engine)
    assert [(f.file, f.reason) for f in summary.failures] == [("a.py", "RuntimeError: after the edges")]
    counts = store.counts(unique_project)
    assert (counts.nodes, counts.edges) == (summary.node_count, summary.edge_count)
    views, _ = store.edges_of(unique_project, "file:a.py", "out", limit=50)
    assert views and all(store.get_node(unique_project, view.other_id) is not None for view in views)
    assert _calls(store, unique_project, "function:a.py:f") == {"function:b.py:g"}  # added before it failed


def test_a_changed_file_that_fails_is_resolved_with_every_file(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _write(tmp_path / "app", {"a.py": "def f():\n    return 1\n", "b.py": "def g():\n    pass\n"})
    assert _ingest(root, unique_project, store, engine).failure_count == 0
    (root / "a.py").write_text("def f():\n    return 2\n")  # the same interface: a partial candidate
    add_calls = calls.add_calls

    def breaks_on_a(path, *args):
        if path == "a.py":
            raise RuntimeError("a resolver bug")
        return add_calls(path, *args)

    monkeypatch.setattr(calls, "add_calls", breaks_on_a)
    summary = _ingest(root, unique_project, store, engine)
    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == "resolving a.py failed"
    assert [(f.file, f.stage) for f in summary.failures] == [("a.py", "resolve python")]

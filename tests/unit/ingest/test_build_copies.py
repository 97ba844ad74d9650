"""A script or stylesheet whose source map names files of the tree is a build copy of them, skipped
as generated; when the map cannot be read or names nothing here, the file is the only copy and kept."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from rhumbline.ingest.discover.buildcopy import MAX_MAP_BYTES, TAIL_BYTES
from rhumbline.ingest.discover.read import read_source
from rhumbline.ingest.facts import SkippedFile, SourceFile

BUNDLE = "function bind(fn, thisArg) {\n  return function wrap() { return fn.apply(thisArg, arguments); };\n}\n"
MAP = {"version": 3, "sources": ["../lib/helpers/bind.js"], "names": [], "mappings": "AAAA"}


def _tree(root: Path, files: dict[str, str | bytes]) -> str:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return str(root)


def _inline(found: object) -> str:
    return "data:application/json;charset=utf-8;base64," + base64.b64encode(json.dumps(found).encode()).decode()


def _kept(outcome: SourceFile | SkippedFile) -> bool:
    """Kept and parsed: the bundle's own definitions are there."""
    return isinstance(outcome, SourceFile) and "bind" in {d.name for d in outcome.code.definitions}


def test_a_bundle_whose_map_names_files_of_the_tree_is_a_build_copy(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "lib/helpers/bind.js": BUNDLE,
        "dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n",
        "dist/axios.js.map": json.dumps(MAP),
    })  # fmt: skip
    assert read_source(root, "dist/axios.js") == SkippedFile(
        "dist/axios.js", "generated", "a build copy of lib/helpers/bind.js, which dist/axios.js.map names"
    )
    assert _kept(read_source(root, "lib/helpers/bind.js"))


def test_a_bundle_whose_sources_are_not_in_the_tree_is_kept(tmp_path: Path) -> None:
    """A package that ships only its bundle: the bundle is the only copy of the code."""
    root = _tree(tmp_path, {
        "dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n",
        "dist/axios.js.map": json.dumps({**MAP, "sources": ["../lib/helpers/bind.js", "../node_modules/x/i.js"]}),
        "node_modules/x/i.js": "module.exports = 1;\n",  # never ingested: not a copy of the tree's code
    })  # fmt: skip
    assert _kept(read_source(root, "dist/axios.js"))


@pytest.mark.parametrize(
    "comment", ["//# sourceMappingURL={url}", "//@ sourceMappingURL={url}", "/*# sourceMappingURL={url} */"]
)
def test_an_inline_map_is_read_from_its_data_url(tmp_path: Path, comment: str) -> None:
    root = _tree(tmp_path, {
        "lib/helpers/bind.js": BUNDLE,
        "dist/bundle.cjs": BUNDLE + comment.format(url=_inline({**MAP, "sources": ["lib/helpers/bind.js"], "sourceRoot": ".."})),
    })  # fmt: skip
    assert read_source(root, "dist/bundle.cjs") == SkippedFile(
        "dist/bundle.cjs", "generated", "a build copy of lib/helpers/bind.js, which an inline source map names"
    )


def test_a_bundlers_own_source_urls_and_a_stylesheets_map_are_read(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "pkg/src/theme.scss": "$c: red;\n.a { color: $c; }\n",
        "pkg/src/index.js": BUNDLE,
        "pkg/out/theme.css": ".a { color: red; }\n/*# sourceMappingURL=theme.css.map */\n",
        "pkg/out/theme.css.map": json.dumps({**MAP, "sources": ["../src/theme.scss"]}),
        "pkg/out/main.js": BUNDLE + "//# sourceMappingURL=main.js.map",
        "pkg/out/main.js.map": json.dumps({**MAP, "sources": ["webpack://pkg/webpack/bootstrap", "webpack://pkg/./src/index.js"]}),
    })  # fmt: skip
    assert read_source(root, "pkg/out/theme.css") == SkippedFile(
        "pkg/out/theme.css", "generated", "a build copy of pkg/src/theme.scss, which pkg/out/theme.css.map names"
    )
    assert read_source(root, "pkg/out/main.js") == SkippedFile(
        "pkg/out/main.js", "generated", "a build copy of pkg/src/index.js, which pkg/out/main.js.map names"
    )


@pytest.mark.parametrize(
    "files",
    [
        {"dist/axios.js": BUNDLE},  # no comment
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n"},  # the map is missing
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n", "dist/axios.js.map": '{"sources": ["../lib/'},
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n", "dist/axios.js.map": b"\xff\xfe{}"},
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n", "dist/axios.js.map": '["a list"]'},
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n", "dist/axios.js.map": '{"sources": "../lib/helpers/bind.js"}'},
        # nested past the JSON parser's recursion limit
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n", "dist/axios.js.map": "[" * 100_000},
        # larger than the cap: not parsed, although it names the source
        {
            "dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n",
            "dist/axios.js.map": json.dumps({**MAP, "sourcesContent": ["x" * MAX_MAP_BYTES]}),
        },
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=data:application/json;base64,not*base64"},
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=data:application/json;base64," + base64.b64encode(b"{nope").decode()},
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=../../outside.js.map\n"},  # outside the tree
        {"dist/axios.js": BUNDLE + "//# sourceMappingURL=https://cdn.example.com/axios.js.map\n"},
        # the comment must be the file's last line, at its start
        {
            "dist/axios.js": 'const hint = "//# sourceMappingURL=axios.js.map";\n' + BUNDLE,
            "dist/axios.js.map": json.dumps(MAP),
        },
        {
            "dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\nbind(f, this);\n",
            "dist/axios.js.map": json.dumps(MAP),
        },
        {
            "dist/axios.js": BUNDLE + 'const hint = "//# sourceMappingURL=axios.js.map";\n',
            "dist/axios.js.map": json.dumps(MAP),
        },
        # a source naming the bundle itself, or its map, is not another copy
        {
            "dist/axios.js": BUNDLE + "//# sourceMappingURL=axios.js.map\n",
            "dist/axios.js.map": json.dumps({**MAP, "sources": ["axios.js", "axios.js.map", "/abs/lib/helpers/bind.js"]}),
        },
    ],
    ids=[
        "no-comment", "map-missing", "map-truncated", "map-not-utf8", "map-a-list", "sources-a-string",
        "map-nested-deep", "map-too-large", "inline-not-base64", "inline-not-json", "map-outside",
        "map-on-a-host", "literal-at-the-top", "comment-not-last", "literal-on-the-last-line", "sources-itself",
    ],
)  # fmt: skip
def test_a_file_is_kept_unless_a_readable_map_names_another_file_of_the_tree(
    tmp_path: Path, files: dict[str, str | bytes]
) -> None:
    root = _tree(tmp_path / "repo", {"lib/helpers/bind.js": BUNDLE, **files})
    _tree(tmp_path, {"outside.js.map": json.dumps({**MAP, "sources": ["repo/lib/helpers/bind.js"]})})
    assert _kept(read_source(root, "dist/axios.js"))


def test_the_comment_is_looked_for_in_the_tail_only(tmp_path: Path) -> None:
    """A comment on a line longer than the tail is read only when it holds an inline map (an
    external map's URL is short)."""
    long_line = "var a=" + "1+" * TAIL_BYTES + "1;"
    root = _tree(tmp_path, {
        "lib/helpers/bind.js": BUNDLE,
        "dist/a.js": BUNDLE + "//# sourceMappingURL=a.js.map?" + "v" * TAIL_BYTES,
        "dist/a.js.map": json.dumps(MAP),
        "dist/c.js": BUNDLE + "//# sourceMappingURL=c.js.map?v=1",  # the same, within the tail
        "dist/c.js.map": json.dumps(MAP),
        "dist/b.js": BUNDLE + "//# sourceMappingURL=" + _inline({**MAP, "sourcesContent": [long_line]}),
    })  # fmt: skip
    assert _kept(read_source(root, "dist/a.js"))
    assert read_source(root, "dist/c.js").reason == "generated"
    assert read_source(root, "dist/b.js") == SkippedFile(
        "dist/b.js", "generated", "a build copy of lib/helpers/bind.js, which an inline source map names"
    )

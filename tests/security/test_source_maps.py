"""The reader follows a bundle's source map comment (ingest/discover/buildcopy.py): whatever a tree
names there, nothing outside the tree is read or counted, nothing blocks, and the file is then kept."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from rhumbline.ingest.discover.read import read_source
from rhumbline.ingest.facts import SkippedFile, SourceFile

BUNDLE = "function bind(fn) { return fn; }\n"
MAP = json.dumps({"version": 3, "sources": ["../lib/bind.js"], "mappings": ""})


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    (root / "dist").mkdir()
    (root / "lib" / "bind.js").write_text(BUNDLE)
    return root


def _read(root: Path, path: str) -> SourceFile | SkippedFile:
    return read_source(str(root), path)


def test_a_map_that_is_a_fifo_does_not_block_the_reader(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "dist" / "a.js").write_text(BUNDLE + "//# sourceMappingURL=a.js.map\n")
    os.mkfifo(root / "dist" / "a.js.map")  # opened for reading without a writer: blocks unless non-blocking
    outcome: list[SourceFile | SkippedFile] = []
    reader = threading.Thread(target=lambda: outcome.append(_read(root, "dist/a.js")), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "the reader blocked on a fifo named as a source map"
    assert isinstance(outcome[0], SourceFile)


def test_a_map_or_source_reached_through_a_symlink_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.js.map").write_text(MAP)  # would make dist/a.js a copy of lib/bind.js
    (outside / "bind.js").write_text(BUNDLE)
    (root / "dist" / "a.js").write_text(BUNDLE + "//# sourceMappingURL=a.js.map\n")
    os.symlink(outside / "a.js.map", root / "dist" / "a.js.map")
    (root / "dist" / "b.js").write_text(BUNDLE + "//# sourceMappingURL=../away/a.js.map\n")
    os.symlink(outside, root / "away")  # a directory on the way out
    (root / "dist" / "c.js").write_text(BUNDLE + "//# sourceMappingURL=c.js.map\n")
    (root / "dist" / "c.js.map").write_text(json.dumps({"sources": ["../src/bind.js"]}))
    (root / "src").mkdir()
    os.symlink(outside / "bind.js", root / "src" / "bind.js")  # not in the ingested tree
    for path in ("dist/a.js", "dist/b.js", "dist/c.js"):
        assert isinstance(_read(root, path), SourceFile), path
    # The same map inside the tree is followed: the cases above differ only by leaving it.
    (root / "dist" / "a.js.map").unlink()
    (root / "dist" / "a.js.map").write_text(MAP)
    assert _read(root, "dist/a.js") == SkippedFile(
        "dist/a.js", "generated", "a build copy of lib/bind.js, which dist/a.js.map names"
    )

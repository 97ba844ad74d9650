"""Trees for the ingest tests: a copy of the pyproj fixture (plus what git cannot commit), and
small trees written inline."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "pyproj"

TreeWriter = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def pyproj(tmp_path: Path) -> Path:
    """The fixture tree, copied, with the files its .gitignore ignores added back."""
    root = tmp_path / "pyproj"
    shutil.copytree(FIXTURE, root)
    (root / "generated").mkdir()
    (root / "generated" / "cache.py").write_text("def cached():\n    return 1\n")
    (root / "debug.log").write_text("ignored by *.log\n")
    (root / "keep.log").write_text("re-included by !keep.log\n")
    return root


@pytest.fixture
def write_tree(tmp_path: Path) -> TreeWriter:
    """Write {relative path: text or bytes} under a fresh directory and return it."""
    counter = iter(range(1_000))

    def write(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / f"tree{next(counter)}"
        root.mkdir()
        for relative, content in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
        return root

    return write

"""The floor an ingest is measured against: tree-sitter parsing the same files, in one process.

The files are those the ingest reads (its own walk and reader, skip rules and size cap included) whose language has a
tree-sitter grammar; each is read and parsed, nothing is extracted or kept. Grammars are loaded
before the clock starts: the floor is the parsing alone.
"""

from __future__ import annotations

import time
from importlib import import_module
from pathlib import Path
from typing import Any

# language (rhumbline.ingest.languages.language_of) → (grammar module, its language function)
GRAMMARS = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
}


def parse_floor(root: Path) -> dict[str, Any]:
    """Files, bytes, wall and CPU seconds of parsing `root`'s code files with tree-sitter."""
    from tree_sitter import Language, Parser

    from rhumbline.ingest.discover.read import read_bytes
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.languages import language_of

    root = root.resolve()
    chosen = [(path, language_of(path)) for path in discover(root).paths]
    chosen = [(path, language) for path, language in chosen if language in GRAMMARS]
    parsers: dict[str, Parser] = {}
    for language in {language for _, language in chosen}:
        module, function = GRAMMARS[language]
        parsers[language] = Parser(Language(getattr(import_module(module), function)()))
    size = files = 0
    started, cpu = time.perf_counter(), time.process_time()
    for path, language in chosen:
        data = read_bytes(str(root), path)  # the ingest's reader: files it skips are skipped
        if isinstance(data, bytes):
            files += 1
            size += len(data)
            parsers[language].parse(data)
    return {
        "files": files,
        "bytes": size,
        "s": round(time.perf_counter() - started, 3),
        "cpu": round(time.process_time() - cpu, 3),
    }

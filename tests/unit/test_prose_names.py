"""Prose that is tested: every repository file the docs, the README, pyproject.toml and the package's
docstrings and comments name exists, and every pytest marker pyproject.toml declares is used.

A name is a run of path segments ending in a file suffix of ours (`stores/graph/model.py`,
`docs/query.md`, `template.yaml`), or a bare file name (`parser.py`). A path whose first segment is
no directory of this repository (`django/db/models/query.py`) illustrates a user's code and is left
alone; one that is, must resolve. A path is resolved from the repository's root, the package
(`layers/shared/rhumbline`), the layer (`layers/shared`) and the naming file's own folders, or as the
tail of a repository path (`neo4j/keys.py` inside a sentence about `stores/graph/`). A bare name
must be some file's name. `{a,b}` alternatives are each checked. The few illustrative names that
look like ours are listed below.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"
PACKAGE = LAYER / "rhumbline"

SUFFIXES = r"py|md|toml|ya?ml|json|txt|sh|cfg|ini|sql|mako"
# Segments of letters, digits, `_.-` and `{a,b}` alternatives; not part of a longer path or URL.
PATH = re.compile(rf"(?<![\w./{{}},:-])((?:[\w.{{}},-]+/)+[\w.{{}},-]*\.(?:{SUFFIXES}))(?![\w/])")
BARE = re.compile(rf"(?<![\w./{{}},:<-])([\w-]+\.(?:{SUFFIXES}))(?![\w/>])")

# Names that illustrate (a user's files, a convention's shape), not files of this repository.
ILLUSTRATIVE = {
    "docs/guide.md", "docs/glossary.md", "shop/models.py", "src/app/models.py",  # the knowledge layer's examples
    "src/pkg/mod.py",  # a module under a source root
    "guide.md", "glossary.md", "terminology.md", "concepts.md", "NNNN-title.md",
    "b.py", "mod.py", "pkg.py", "f.json", "_.py",  # a module, a file named in an id's example
    "package.json", "claude_desktop_config.json",  # a user's npm package, an MCP client's settings
    "alembic.ini",  # named to say there is none
    "setup.cfg", "src/pkg/m.py", "tests/admin_views/models.py",  # a Python project's files, as the importer reads them
    "shards.json",  # an object a hosted ingest run writes to its bucket
}


def repository_files() -> list[str]:
    """The files git tracks or would track: never what a checkout downloaded or built (corpora,
    virtualenvs), which differ from one machine to the next."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=True, timeout=60,
    ).stdout.decode()
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]


FILES = repository_files()
FILE_NAMES = {Path(file).name for file in FILES}
TAILS = {"/".join(Path(file).parts[start:]) for file in FILES for start in range(1, len(Path(file).parts))}
# The fixtures' own trees (`src/`, `app/` ...) are what user code looks like: their folders do not
# make an illustrative path ours.
DIRECTORY_NAMES = {part for file in FILES if not file.startswith("tests/fixtures/") for part in Path(file).parts[:-1]}


def alternatives(name: str) -> list[str]:
    """`stores/graph/{sqlite,neo4j}/bulk.py` → the two paths it names."""
    found = re.search(r"\{([^{}]*)\}", name)
    if found is None:
        return [name]
    return [
        expanded
        for choice in found.group(1).split(",")
        for expanded in alternatives(name[: found.start()] + choice + name[found.end() :])
    ]


def resolves(path: str, named_in: Path) -> bool:
    folders = [ROOT, PACKAGE, LAYER, *(folder for folder in named_in.parents if folder.is_relative_to(ROOT))]
    if any((folder / path).exists() for folder in folders):
        return True
    return path in TAILS


def missing(text: str, named_in: Path) -> Iterator[str]:
    """The names in `text` that name no file of this repository."""
    for match in PATH.finditer(text):
        for path in alternatives(match.group(1)):
            if path in ILLUSTRATIVE or path.split("/")[0] not in DIRECTORY_NAMES | {"rhumbline", "layers"}:
                continue
            if not resolves(path, named_in):
                yield path
    for match in BARE.finditer(text):
        for name in alternatives(match.group(1)):
            if name not in ILLUSTRATIVE and name not in FILE_NAMES:
                yield name


def prose_of_module(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each comment and docstring of a Python module."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                yield node.body[0].lineno, docstring


def prose_of_document(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each backticked span of a Markdown document."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for span in re.findall(r"`([^`]+)`", line):
            yield number, span


def prose_of_comments(path: Path) -> Iterator[tuple[int, str]]:
    """(line, text) of each `#` comment of a TOML file."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if "#" in line:
            yield number, line[line.index("#") :]


def named_files() -> list[tuple[Path, Iterator[tuple[int, str]]]]:
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [
        *((path, prose_of_document(path)) for path in documents),
        (ROOT / "pyproject.toml", prose_of_comments(ROOT / "pyproject.toml")),
        *((path, prose_of_module(path)) for path in sorted(PACKAGE.rglob("*.py"))),
    ]


def test_every_file_the_prose_names_exists() -> None:
    stale = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path, prose in named_files()
        for line, text in prose
        for name in missing(text, path)
    ]
    assert stale == [], "names of files that do not exist:\n" + "\n".join(stale)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see `stores/graph/model.py`", []),
        ("(stores/graph/{sqlite,neo4j}/bulk.py)", []),
        ("in rhumbline/ingest/incremental.py", ["rhumbline/ingest/incremental.py"]),
        ("stores/graph/{sqlite,nowhere}/bulk.py", ["stores/graph/nowhere/bulk.py"]),
        ("parser.py builds it", ["parser.py"]),
        ("django/db/models/query.py of the user", []),
        ("https://example.com/docs/setup.md", []),
        ("`tools/<name>.py`", []),
    ],
)
def test_the_extraction_finds_stale_names_and_leaves_examples(text: str, expected: list[str]) -> None:
    assert list(missing(text, PACKAGE / "stores" / "graph" / "model.py")) == expected


def test_every_declared_marker_is_used_by_a_test() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    names = {marker.split(":")[0].strip() for marker in declared}
    used = {
        name
        for path in (ROOT / "tests").rglob("*.py")
        for name in re.findall(r"\bmark\.(\w+)", path.read_text(encoding="utf-8"))
    }
    assert names and names <= used, f"declared but used by no test: {sorted(names - used)}"

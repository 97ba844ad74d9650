"""The languages: which language a file is in, and for the parsed ones how their files become graph.

Every ingested text file gets a File node with its language (or None), so the tree is complete; only
files whose language has a `Parsing` are parsed (phase 1, its extractor) and resolved (phase 2, its
resolver). `LANGUAGES` is the one table of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import import_module
from typing import Any, NamedTuple

from rhumbline.ingest.facts import CodeFacts

Extractor = Callable[[bytes], CodeFacts]

_PACKAGE = "rhumbline.ingest.languages"
# Phase 2 outside the polyglot families: build.py calls these two itself (Python first, documents
# last, once every code node exists).
PYTHON_GRAPH = f"{_PACKAGE}.python.graph:build_python_graph"
DOCUMENT_GRAPH = f"{_PACKAGE}.knowledge.graph:build_knowledge_graph"
# The polyglot families (polyglot/resolve.py `Family`): languages sharing one resolve their names
# together (a TypeScript file importing a JavaScript one, Kotlin calling Java).
_JAVASCRIPT = f"{_PACKAGE}.javascript.resolve:JavaScriptFamily"
_JVM = f"{_PACKAGE}.java.resolve:JvmFamily"
_C = f"{_PACKAGE}.c.resolve:CFamily"


class Parsing(NamedTuple):
    """How a language's files become graph: all three or none, so a parsed language always has
    a resolver."""

    extractor: str  # "module:callable", bytes → CodeFacts (DocFacts for documents); imported on first use
    resolver: str  # "module:name": a polyglot Family, or PYTHON_GRAPH / DOCUMENT_GRAPH
    # The distribution that parses it, pinned in pyproject.toml and layers/shared/requirements.txt;
    # None when our own code reads it (Markdown).
    grammar: str | None


class Language(NamedTuple):
    name: str
    suffixes: tuple[str, ...]  # lower case, with the dot
    parsing: Parsing | None = None  # None: a File node with its language, no definitions


def _parsed(module: str, extractor: str, resolver: str, grammar: str | None) -> Parsing:
    return Parsing(f"{_PACKAGE}.{module}:{extractor}", resolver, grammar)


# One row per language. Adding one: its module (extract.py, and resolve.py for a new family), its
# row here, its grammar pinned; tests/unit/ingest/languages/test_language_table.py holds the rest
# to it (a fixture under tests/fixtures/ingest/ whose calls resolve).
LANGUAGES: tuple[Language, ...] = (
    # Stubs (.pyi) describe a module's interface: parsed like Python (see python/modules.py for how
    # a stub next to its .py shares the module name).
    Language("python", (".py", ".pyi", ".pyw"),
             _parsed("python.extract", "extract_python", PYTHON_GRAPH, "tree-sitter-python")),
    Language("javascript", (".js", ".mjs", ".cjs", ".jsx"),
             _parsed("javascript.extract", "extract_javascript", _JAVASCRIPT, "tree-sitter-javascript")),
    Language("typescript", (".ts", ".mts", ".cts"),
             _parsed("typescript.extract", "extract_typescript", _JAVASCRIPT, "tree-sitter-typescript")),
    # Its own grammar: TSX parses JSX where TypeScript parses `<T>x` casts.
    Language("tsx", (".tsx",), _parsed("typescript.extract", "extract_tsx", _JAVASCRIPT, "tree-sitter-typescript")),
    Language("go", (".go",), _parsed("go.extract", "extract_go", f"{_PACKAGE}.go.resolve:GoFamily", "tree-sitter-go")),
    Language("java", (".java",), _parsed("java.extract", "extract_java", _JVM, "tree-sitter-java")),
    Language("kotlin", (".kt", ".kts"), _parsed("kotlin.extract", "extract_kotlin", _JVM, "tree-sitter-kotlin")),
    Language("rust", (".rs",),
             _parsed("rust.extract", "extract_rust", f"{_PACKAGE}.rust.resolve:RustFamily", "tree-sitter-rust")),
    # A .h whose content reads like C++ is C++ (language_in).
    Language("c", (".c", ".h"), _parsed("c.extract", "extract_c", _C, "tree-sitter-c")),
    Language("cpp", (".cc", ".cpp", ".hpp", ".cxx", ".hh", ".hxx"),
             _parsed("cpp.extract", "extract_cpp", _C, "tree-sitter-cpp")),
    Language("csharp", (".cs",),
             _parsed("csharp.extract", "extract_csharp", f"{_PACKAGE}.csharp.resolve:CSharpFamily",
                     "tree-sitter-c-sharp")),
    Language("ruby", (".rb",),
             _parsed("ruby.extract", "extract_ruby", f"{_PACKAGE}.ruby.resolve:RubyFamily", "tree-sitter-ruby")),
    Language("php", (".php",),
             _parsed("php.extract", "extract_php", f"{_PACKAGE}.php.resolve:PhpFamily", "tree-sitter-php")),
    # The knowledge layer: documents → DocFacts (languages/knowledge/), not CodeFacts.
    Language("markdown", (".md",), _parsed("knowledge.markdown", "extract_markdown", DOCUMENT_GRAPH, None)),
    Language("restructuredtext", (".rst",),
             _parsed("knowledge.restructuredtext", "extract_restructuredtext", DOCUMENT_GRAPH, "docutils")),
    Language("swift", (".swift",)),
    Language("shell", (".sh",)),
    Language("sql", (".sql",)),
    Language("html", (".html",)),
    Language("css", (".css",)),
    Language("text", (".txt",)),
    Language("json", (".json",)),
    Language("yaml", (".yaml", ".yml")),
    Language("toml", (".toml",)),
    Language("ini", (".ini", ".cfg")),
)  # fmt: skip

_BY_SUFFIX: dict[str, str] = {suffix: row.name for row in LANGUAGES for suffix in row.suffixes}
_PARSING: dict[str, Parsing] = {row.name: row.parsing for row in LANGUAGES if row.parsing is not None}
_loaded: dict[str, Extractor] = {}


def families() -> dict[str, frozenset[str]]:
    """Polyglot family resolver ("module:Class") → the languages it resolves together, in table order."""
    found: dict[str, set[str]] = {}
    for name, parsing in _PARSING.items():
        if parsing.resolver not in (PYTHON_GRAPH, DOCUMENT_GRAPH):
            found.setdefault(parsing.resolver, set()).add(name)
    return {resolver: frozenset(names) for resolver, names in found.items()}


def parsing_of(language: str) -> Parsing | None:
    return _PARSING.get(language)


# Sphinx projects (Django among them) keep their reStructuredText in .txt files under docs/.
_DOC_DIRECTORIES = ("docs/", "doc/")


def language_of(path: str) -> str | None:
    # PurePosixPath(path).suffix without building a path object (called for every file).
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    if not 0 < dot < len(name) - 1:
        return None
    found = _BY_SUFFIX.get(name[dot:].lower())
    if found == "text" and (path.startswith(_DOC_DIRECTORIES) or "/docs/" in path or "/doc/" in path):
        return "restructuredtext"
    return found


# A `.h` header is C, C++ or Objective-C. Decided from its own content as GitHub linguist decides
# (its heuristics for `.h`: the Objective-C pattern first, then its C++ one, else C), but with
# word ends after `try` and `constexpr` (a C line starting `try_lock(` is no C++), `std::` only
# on a line that is no comment's (C headers show C++ callers in their docs: xxhash.h), and
# without `__cplusplus >` and `__has_cpp_attribute`, which C headers test to serve C++ callers
# (zstd.h, lz4.h). We parse no Objective-C: its headers stay C.
_OBJECTIVE_C = re.compile(
    rb"^\s*(?:@(?:interface|class|protocol|property|end|synchronised|selector|implementation)\b"
    rb"|#import\s+.+\.h[\">])",
    re.MULTILINE,
)
_CPP = re.compile(
    rb"^\s*#\s*include <(?:cstdint|string|vector|map|list|array|bitset|queue|stack|forward_list"
    rb"|unordered_map|unordered_set|(?:i|o|io)stream)>"
    rb"|^\s*template\s*<|^[ \t]*(?:try|constexpr)\b|^[ \t]*catch\s*\("
    rb"|^[ \t]*(?:class|(?:using[ \t]+)?namespace)\s+\w+|^[ \t]*(?:private|public|protected):\r?$",
    re.MULTILINE,
)
_STD = re.compile(rb"\bstd::\w")


def language_in(path: str, data: bytes) -> str | None:
    """The language of a file read: language_of its path, and for a `.h` header its content's."""
    language = language_of(path)
    if language == "c" and path[-2:].lower() == ".h" and _reads_as_cpp(data) and not _OBJECTIVE_C.search(data):
        return "cpp"
    return language


def _reads_as_cpp(data: bytes) -> bool:
    if _CPP.search(data):
        return True
    # `std::` found fast, then its line's start read (a search for it line by line is slower).
    for found in _STD.finditer(data):
        line = data[data.rfind(b"\n", 0, found.start()) + 1 : found.start()].lstrip()
        if not line.startswith((b"/", b"*")):
            return True
    return False


def has_extractor(language: str | None) -> bool:
    return language in _PARSING


def extractor_for(language: str) -> Extractor:
    extractor = _loaded.get(language)
    if extractor is None:
        extractor = load(_PARSING[language].extractor)
        _loaded[language] = extractor
    return extractor


def load(target: str) -> Any:
    """The object a table entry names ("module:name"), its module imported now."""
    module_name, name = target.split(":")
    return getattr(import_module(module_name), name)

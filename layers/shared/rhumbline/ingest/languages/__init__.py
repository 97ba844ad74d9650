"""Which language a file is in, and which languages have an extractor.

Every ingested text file gets a File node with its language (or None), so the tree is complete; only
files whose language has an extractor are parsed for definitions. Adding a language means adding an
extension here and an extractor module (see `extractor_for`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from rhumbline.ingest.facts import CodeFacts

Extractor = Callable[[bytes], CodeFacts]

_BY_SUFFIX: dict[str, str] = {
    ".py": "python",
    # Stubs describe a module's interface: parsed like Python (see python/modules.py for how a stub
    # next to its .py shares the module name).
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    # Its own grammar: TSX parses JSX where TypeScript parses `<T>x` casts.
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".sh": "shell",
    ".sql": "sql",
    ".html": "html",
    ".css": "css",
    ".md": "markdown",
    ".rst": "restructuredtext",
    ".txt": "text",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
}

# language → "module:function" of its extractor; imported on first use so a worker only loads the
# grammars it needs.
_EXTRACTORS: dict[str, str] = {
    "python": "rhumbline.ingest.languages.python.extract:extract_python",
    # The knowledge layer: Markdown → DocFacts (rhumbline/ingest/knowledge/), not CodeFacts.
    "markdown": "rhumbline.ingest.languages.knowledge.markdown:extract_markdown",
    "restructuredtext": "rhumbline.ingest.languages.knowledge.restructuredtext:extract_restructuredtext",
    # The other tree-sitter languages: see rhumbline/ingest/polyglot/.
    "javascript": "rhumbline.ingest.languages.javascript.extract:extract_javascript",
    "typescript": "rhumbline.ingest.languages.typescript.extract:extract_typescript",
    "tsx": "rhumbline.ingest.languages.typescript.extract:extract_tsx",
    "go": "rhumbline.ingest.languages.go.extract:extract_go",
    "java": "rhumbline.ingest.languages.java.extract:extract_java",
    "kotlin": "rhumbline.ingest.languages.kotlin.extract:extract_kotlin",
    "rust": "rhumbline.ingest.languages.rust.extract:extract_rust",
    "c": "rhumbline.ingest.languages.cpp.extract:extract_c_file",
    "cpp": "rhumbline.ingest.languages.cpp.extract:extract_cpp",
    "csharp": "rhumbline.ingest.languages.csharp.extract:extract_csharp",
    "ruby": "rhumbline.ingest.languages.ruby.extract:extract_ruby",
    "php": "rhumbline.ingest.languages.php.extract:extract_php",
}

_loaded: dict[str, Extractor] = {}


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


def has_extractor(language: str | None) -> bool:
    return language in _EXTRACTORS


def extractor_for(language: str) -> Extractor:
    extractor = _loaded.get(language)
    if extractor is None:
        module_name, function_name = _EXTRACTORS[language].split(":")
        extractor = getattr(import_module(module_name), function_name)
        _loaded[language] = extractor
    return extractor

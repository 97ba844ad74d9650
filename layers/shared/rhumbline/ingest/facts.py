"""Phase-1 results: what one file says about itself, before anything is resolved.

Everything here is a NamedTuple of strings, ints and tuples: cheap to build, cheap to pickle back
from a worker process, and comparable in tests. Each record depends on one file's bytes only, so
it can be cached by content hash and reused once ingestion becomes incremental.
"""

from __future__ import annotations

from typing import NamedTuple


class DecoratorFact(NamedTuple):
    """One decorator, annotation or attribute applied to a definition (`@cache(size=2)`)."""

    expression: str  # the dotted name it is looked up by: `cache`, `app.route`, `Cached`
    line: int
    end_line: int
    text: str  # as written (`@cache(size=2)`, `[HttpGet("x")]`), whitespace collapsed, truncated


class Definition(NamedTuple):
    kind: str  # Class, Function or Method
    name: str
    qualname: str  # within the file, e.g. "Outer.method.inner"
    parent: str  # qualname of the enclosing definition, "" at module level
    start_line: int  # 1-based; includes decorators
    end_line: int
    signature: str
    docstring: str | None
    content_hash: str  # sha256 of the definition's source text (decorators included)
    bases: tuple[str, ...]  # classes only: dotted base expressions, subscripts stripped
    # in source order; `@cache(size=2)` is looked up by its callee, `cache`
    decorators: tuple[DecoratorFact, ...]
    parameters: tuple[str, ...]  # functions and methods: names that are local, shadowing outer ones
    # What its own body says (ingest/bodies.py): distinct words, space-separated, bounded.
    body: str = ""
    # It only stores a callback it is given (python/registrations.py): a hook's registration.
    registers: bool = False


class Variable(NamedTuple):
    name: str
    start_line: int
    end_line: int
    snippet: str  # the assignment, whitespace collapsed and truncated
    content_hash: str
    alias_of: str | None  # the dotted name when the value is a plain name (`get = get_object`)


class ImportFact(NamedTuple):
    """One bound name of an import statement (`import a, b` gives two)."""

    scope: str  # qualname of the enclosing definition, "" at module level
    line: int
    statement: str  # the statement's text, whitespace collapsed and truncated
    module: str  # dotted module, without leading dots ("" for `from . import x`)
    level: int  # leading dots of a relative import; 0 when absolute
    name: str | None  # None for `import module`; "*" for a star import
    alias: str | None


class CallSite(NamedTuple):
    scope: str  # qualname of the enclosing definition, "" for module-level code
    callee: str  # dotted name ("f", "mod.f", "self.m") or "super().m"
    line: int
    # Python calls that may be matched by method name (not `self.m`, not a str or dict method):
    # what is passed, `<positional count>[*][,<keyword>...][,**]` ("2", "1,timeout", "0*,**");
    # "" when not read.
    arguments: str = ""


class TypeHint(NamedTuple):
    """What one statement says about the value of a name (Python; Go: the type a package-level
    variable is declared or assigned, `how` "declared"): read, not yet resolved.

    `expression` is written in a small chain syntax: dotted names where `()` marks a call's
    result and `[]` an item (`Client()`, `self.pool[].get()`, `super().m`); an annotation's is
    its union members joined by `|`, `None` and quotes dropped (`Optional["Client"]` → `Client`).
    """

    scope: str  # qualname of the scope the statement runs in ("" for module level)
    name: str  # `x`; `self.x` for an attribute set in a method; `->` for a return annotation
    how: str  # ASSIGNED `=`, ENTERED `as` (with/except: the value made an instance), ANNOTATED `:`
    expression: str
    line: int


class CodeFacts(NamedTuple):
    """Definitions, imports and calls of one parsed source file."""

    docstring: str | None
    definitions: tuple[Definition, ...]
    variables: tuple[Variable, ...]
    imports: tuple[ImportFact, ...]
    calls: tuple[CallSite, ...]
    dynamic_calls: int  # callees that are not plain names (`f()()`, `x[0]()`): never resolvable
    exports: tuple[str, ...] | None  # an explicit export list (`__all__`), when it is a literal
    syntax_errors: bool
    # The file's declared package or namespace (Java/Kotlin `package`, Go package clause, C#/PHP
    # namespace); None for languages without one. Other languages' conventions for the fields
    # above are documented in rhumbline/ingest/languages/polyglot/__init__.py.
    namespace: str | None = None
    # Python: what assignments and annotations say of names; TypeScript: the typed locals of
    # module-level code (scope "", ANNOTATED), which no definition holds as its locals.
    hints: tuple[TypeHint, ...] = ()


class SourceFile(NamedTuple):
    path: str  # posix, relative to the ingest root
    language: str | None
    content_hash: str  # sha256 of the bytes
    line_count: int
    size: int
    code: CodeFacts | None  # None for languages without an extractor


class SkippedFile(NamedTuple):
    path: str
    reason: str
    detail: str = ""  # EXTRACTION_FAILED: the error the extractor raised (failures.reason_of)

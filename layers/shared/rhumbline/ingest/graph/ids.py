"""Node ids: `<kind>:<path>[:<qualified name within the file>]`, stable across rebuilds.

An id depends only on the node's kind, its file's path and its name inside the file, never on line
numbers or ingest order, so annotations and diffs can re-attach to the same code after a rebuild.
"""

from __future__ import annotations

REPOSITORY_ID = "repository:"


def directory_id(path: str) -> str:
    return f"directory:{path}"


def file_id(path: str) -> str:
    return f"file:{path}"


def module_id(dotted_name: str) -> str:
    return f"module:{dotted_name}"


def definition_id(kind: str, path: str, qualname: str) -> str:
    """Class, Function and Method nodes: `method:django/db/models/query.py:QuerySet.filter`."""
    return f"{kind.lower()}:{path}:{qualname}"


def variable_id(path: str, name: str) -> str:
    return f"variable:{path}:{name}"


def import_id(path: str, key: str) -> str:
    """`import:django/db/models/__init__.py:QuerySet`; see statements.py for the key."""
    return f"import:{path}:{key}"


def decorator_id(path: str, key: str) -> str:
    """`decorator:django/views/generic/base.py:View.as_view@classonlymethod`."""
    return f"decorator:{path}:{key}"

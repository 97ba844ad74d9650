"""What other files' resolution can observe of one Python file: its interface.

An incremental ingest (ingest/partial.py) re-resolves only the files whose bytes changed, and takes every
other file's edges from the previous version. That is exact only when nothing those other files'
resolution read changed. Their lookups read a file's bindings (definitions by kind, name,
qualname and scope; module-level variables and their aliases; imports, star imports and
`__all__`), its classes' bases and members, and the method names the by-name fallback matches;
the type hints receiver inference reads across files (module-level values, class attributes and
`self.x` assignments, return annotations: receivers.py), without their lines;
the knowledge layer's mentions read qualified names. All of that is in the interface; bodies,
calls, docstrings, signatures, line numbers and content hashes are not (a link to a line of a
changed file is checked separately, ingest/partial.py). Deliberately generous (every scope's imports,
parameters, decorators): a false "changed" only costs a full phase 2, a false "same" would lose
edges.
"""

from __future__ import annotations

from typing import Any

from rhumbline.ingest.facts import CodeFacts
from rhumbline.ingest.languages.python.hints import RETURNS


def interface(code: CodeFacts) -> tuple[Any, ...]:
    """Equal for two versions of a file exactly when no other file can resolve differently."""
    return (
        tuple(
            (d.kind, d.name, d.qualname, d.parent, d.bases, _expressions(d.decorators), d.parameters)
            for d in code.definitions
        ),
        tuple((v.name, v.alias_of) for v in code.variables),
        tuple((i.scope, i.module, i.level, i.name, i.alias) for i in code.imports),
        code.exports,
        code.namespace,
        _shared_hints(code),
    )


def _shared_hints(code: CodeFacts) -> tuple[tuple[str, str, str, str], ...]:
    """The hints another file's receivers can read; a function's own locals are not."""
    classes = {d.qualname for d in code.definitions if d.kind == "Class"}
    return tuple(
        (h.scope, h.name, h.how, h.expression)
        for h in code.hints
        if not h.scope or h.scope in classes or h.name == RETURNS or h.name.startswith("self.")
    )


def _expressions(decorators: tuple[Any, ...]) -> tuple[str, ...]:
    """The names decorators are looked up by (their first field), not where they are."""
    return tuple(decorator[0] for decorator in decorators)

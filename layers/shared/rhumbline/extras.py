"""The extra that provides a module which is not installed, read from the installed package's own
metadata (pyproject.toml's optional-dependencies): the CLI and the tool handler name it, so a
missing optional module is an instruction, never a traceback or an internal error."""

from __future__ import annotations

import re

_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def missing_extra(error: BaseException) -> str | None:
    """`pip install 'rhumbline[EXTRA]'` for a ModuleNotFoundError of an optional dependency, or None."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    from importlib import metadata  # only on this rare path: the tool functions' cold start skips it

    module = _normalized(error.name.split(".")[0])
    try:
        requirements = metadata.requires("rhumbline") or []
    except metadata.PackageNotFoundError:
        return None
    extras = []
    for requirement in requirements:
        extra, name = _EXTRA_MARKER.search(requirement), _NAME.match(requirement)
        if extra and name and _normalized(name.group(1)) == module:
            extras.append(extra.group(1))
    # The test extra repeats what the suite needs of the others: name the one a user installs.
    chosen = next((extra for extra in extras if extra != "test"), extras[0] if extras else None)
    if chosen is None:
        return None
    return f"the module '{error.name}' is not installed: it comes with the '{chosen}' extra (pip install 'rhumbline[{chosen}]')"

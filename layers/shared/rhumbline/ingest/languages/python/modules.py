"""Python module names of the files of a tree, the way the interpreter would import them.

A file's module name is its path from its source root: `django/db/models/query.py` is
`django.db.models.query` and `django/db/__init__.py` is `django.db`. The source root is, in order:
- the deepest directory the packaging declares (python/packaging.py: setuptools `package-dir`,
  `packages.find where`) or a `src/` directory that is not a package itself (the src layout): below
  it every directory is a package, regular or namespace (PEP 420);
- else the parent of the outermost package (directory with `__init__.py`) above the file: a
  directory without `__init__.py` inside a package is a namespace package that keeps the prefix
  (`pkg/sansio/app.py` is `pkg.sansio.app`), and a directory outside every package is a source root
  (Django's `tests/`: `tests/admin_views/models.py` is `admin_views.models`);
- else the file's own directory (`scripts/run.py` is `run`).
When the ingest root is itself a package (ingesting `django/` alone), its own name starts every
module name, so qualified names match the real imports.

Two files can claim one name (`setup.py` in two source roots, `mod.py` next to `mod.pyi`). The
claim goes to a `.py` over a stub, then the shallower path, then the first in path order; the
others keep the name for their qualified names but get no Module node and receive no imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

_INIT_STEMS = ("__init__",)
_SRC = "src"
_INIT_FILES = ("__init__.py", "__init__.pyi")


class ModuleIndex:
    def __init__(
        self, root_name: str, python_paths: Iterable[str], package_dirs: Mapping[str, str] | None = None
    ) -> None:
        """`package_dirs`: directory → the package its files belong to ("": a source root), as the
        packaging declares them (python/packaging.py)."""
        paths = sorted(python_paths)
        self._packages = {_parent(path) for path in paths if path.rsplit("/", 1)[-1] in _INIT_FILES}
        self._root_name = root_name
        src_layouts = {
            directory
            for path in paths
            for directory in _ancestors(path)
            if directory.rpartition("/")[2] == _SRC and directory not in self._packages
        }
        self._declared: dict[str, str] = {**dict.fromkeys(src_layouts, ""), **(package_dirs or {})}
        self._package_files = {path: PurePosixPath(path).stem in _INIT_STEMS for path in paths}
        self.name_of: dict[str, str] = {path: self._module_name(path) for path in paths}
        claimants: dict[str, list[str]] = {}
        for path, name in self.name_of.items():
            claimants.setdefault(name, []).append(path)
        self.path_of: dict[str, str] = {
            name: min(candidates, key=_claim_priority) for name, candidates in claimants.items()
        }
        # Every package prefix of a repository module (`a`, `a.b` for `a.b.c`), even those without
        # a file of their own (namespace packages): `import a` then `a.b.c.f()` stays in the repo.
        self._prefixes = {
            name.rsplit(".", depth)[0]
            for name in self.path_of
            for depth in range(name.count(".") + 1)
        }

    def in_repository(self, module: str) -> bool:
        """Whether `module` is a repository module or a package prefix of one."""
        return module in self._prefixes

    def owns_module(self, path: str) -> bool:
        return self.path_of.get(self.name_of[path]) == path

    def is_package(self, path: str) -> bool:
        # Asked for every relative import (sdist: 13k); a path object per call was most of it.
        known = self._package_files.get(path)
        return known if known is not None else PurePosixPath(path).stem in _INIT_STEMS

    def absolute(self, path: str, module: str, level: int) -> str | None:
        """The absolute module named by `from <dots><module> import ...` in file `path`."""
        if level == 0:
            return module
        parts = self.name_of[path].split(".")
        if not self.is_package(path):
            parts = parts[:-1]
        if level > len(parts):
            return None  # beyond the top-level package: an ImportError at run time
        base = parts[: len(parts) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def _module_name(self, path: str) -> str:
        parts = path.split("/")
        directories = parts[:-1]
        stem = PurePosixPath(parts[-1]).stem
        package = self._declared_package(directories)
        if package is None:
            outermost = None
            for depth in range(len(directories), -1, -1):
                if "/".join(directories[:depth]) in self._packages:
                    outermost = depth
            if outermost is None:
                package = []
            elif outermost == 0:  # the ingest root is a package
                package = [self._root_name, *directories] if self._root_name else directories
            else:
                package = directories[outermost - 1 :]
        names = package if stem in _INIT_STEMS else [*package, stem]
        return ".".join(names) or stem

    def _declared_package(self, directories: list[str]) -> list[str] | None:
        """The package path of a file in `directories` below its deepest declared source
        directory, or None when none is above it."""
        if not self._declared:
            return None
        for depth in range(len(directories), -1, -1):
            prefix = self._declared.get("/".join(directories[:depth]))
            if prefix is not None:
                return [*(prefix.split(".") if prefix else ()), *directories[depth:]]
        return None


def _ancestors(path: str) -> Iterable[str]:
    """The directories above `path`, deepest first (the root "" excluded)."""
    directory = _parent(path)
    while directory:
        yield directory
        directory = _parent(directory)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _claim_priority(path: str) -> tuple[bool, int, str]:
    return (path.endswith(".pyi"), path.count("/"), path)

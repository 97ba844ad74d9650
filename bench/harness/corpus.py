"""The benchmark corpora under bench/.corpus, downloaded on first use by each registry's own client:
PyPI sdists (pip), Go modules (go mod download, from the module proxy) and npm packages (npm pack).

bench/.corpus may be a link to a shared copy (the trees are read, never written: scenarios that
edit a tree copy it first)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / ".corpus"
# name -> (PyPI package, version, the sdist's directory)
SDISTS = {
    "django": ("django", "5.1", "Django-5.1"), "requests": ("requests", "2.32.3", "requests-2.32.3"),
}  # fmt: skip
REGISTRIES = ("pypi", "go", "npm")


def sdist(name: str) -> Path:
    """The extracted sdist of a known corpus (a name of SDISTS), fetched on first use."""
    return fetch(*SDISTS[name])


def fetch(package: str, version: str, directory: str) -> Path:
    """The extracted sdist of `package==version` under CORPUS/`directory`, downloaded on first use."""
    root = CORPUS / directory
    if root.exists():
        return root
    archive = root.with_name(root.name + ".tar.gz")
    if not archive.exists():
        CORPUS.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"{package}=={version}", "-d", str(CORPUS)],
            check=True, timeout=600,
        )  # fmt: skip
    with tarfile.open(archive) as opened:
        opened.extractall(CORPUS, filter="data")
    return root


def package(registry: str, name: str, version: str) -> Path:
    """The source tree of `name` at `version` from `registry` (one of REGISTRIES), fetched on first
    use: a PyPI sdist, a Go module or an npm package, each extracted under CORPUS."""
    if registry == "pypi":
        return fetch(name, version, f"{name}-{version}")
    if registry == "go":
        return go_module(name, version)
    if registry == "npm":
        return npm_package(name, version)
    raise SystemExit(f"unknown registry {registry!r}: one of {', '.join(REGISTRIES)}")


def go_module(path: str, version: str) -> Path:
    """The Go module `path@version` (from the module proxy) copied to CORPUS/<last element>-<version>;
    the module cache it is downloaded into stays under CORPUS/.gomod."""
    root = CORPUS / f"{_go_name(path)}-{version}"
    if root.exists():
        return root
    if (fetched := _call_graph_copy("go", path, version)).exists():
        return fetched
    env = {**os.environ, "GOMODCACHE": str(CORPUS / ".gomod"), "GOFLAGS": "-modcacherw", "GOTOOLCHAIN": "local"}
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{path}@{version}"],
        env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"go mod download {path}@{version} failed: {done.stdout}{done.stderr}")
    shutil.copytree(json.loads(done.stdout)["Dir"], root)
    return root


def _go_name(path: str) -> str:
    """A module's directory name: its last path element, or the one before a major version suffix
    (github.com/go-chi/chi/v5 -> chi)."""
    parts = path.split("/")
    return parts[-2] if len(parts) > 1 and parts[-1][:1] == "v" and parts[-1][1:].isdigit() else parts[-1]


def _call_graph_copy(language: str, name: str, version: str) -> Path:
    """Where the call-graph sets (harness/callgraph_sets.py) keep the same registry release: a
    module or package they already fetched is read from there rather than downloaded again."""
    return CORPUS / language / slug(name, version)


def slug(name: str, version: str) -> str:
    """A registry release's file-name-safe directory name (github.com/labstack/echo/v4 at v4.12.0 ->
    github.com_labstack_echo_v4-v4.12.0)."""
    return f"{name.replace('/', '_').replace(':', '_').lstrip('@')}-{version}"


def npm_package(name: str, version: str) -> Path:
    """The npm package `name@version` (its published files, `npm pack`) under CORPUS/<name>-<version>."""
    root = CORPUS / f"{name.replace('/', '-').lstrip('@')}-{version}"
    if root.exists():
        return root
    if (fetched := _call_graph_copy("typescript", name, version)).exists():
        return fetched
    CORPUS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CORPUS) as scratch:
        done = subprocess.run(
            ["npm", "pack", "--json", f"{name}@{version}", "--pack-destination", scratch],
            cwd=scratch, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"npm pack {name}@{version} failed: {done.stderr}")
        with tarfile.open(Path(scratch) / json.loads(done.stdout)[0]["filename"]) as opened:
            opened.extractall(scratch, filter="data")
        (Path(scratch) / "package").rename(root)
    return root


def django() -> Path:
    """Django 5.1's `django/` package: the tree the latency and ingest budgets are stated on."""
    return sdist("django") / "django"


def release(spec: str) -> tuple[str, str, str] | None:
    """A registry release named REGISTRY:NAME@VERSION (go:k8s.io/kubernetes@v1.34.0,
    npm:@scope/name@1.0.0) as (registry, name, version); None for any other spec."""
    registry, colon, rest = spec.partition(":")
    name, at, version = rest.rpartition("@")
    if not colon or registry not in REGISTRIES or not at or not name or not version:
        return None
    return registry, name, version


def tree(spec: str) -> Path:
    """A corpus by name (`django` = its `django/` package, `django-sdist`, `requests` = its whole
    sdist), a registry release (REGISTRY:NAME@VERSION: `release`, fetched on first use), or a
    directory."""
    if (released := release(spec)) is not None:
        return package(*released)
    if spec == "django":
        return django()
    if spec == "django-sdist":
        return sdist("django")
    if spec == "requests":
        return sdist("requests")
    path = Path(spec).expanduser().resolve()
    if not path.is_dir():
        raise SystemExit(f"{spec!r} is neither a known corpus (django, django-sdist, requests) nor a directory")
    return path


def copy_tree(source: Path, destination: Path) -> Path:
    shutil.copytree(source, destination, symlinks=True)
    return destination

"""The benchmark corpora: sdists under bench/.corpus, downloaded with pip on first use.

bench/.corpus may be a link to a shared copy (the sdists are read, never written: scenarios that
edit a tree copy it first)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / ".corpus"
# name -> (PyPI package, version, the sdist's directory)
SDISTS = {
    "django": ("django", "5.1", "Django-5.1"), "requests": ("requests", "2.32.3", "requests-2.32.3"),
    # The repositories of bench/questions.json (calls.py --questions).
    "werkzeug": ("werkzeug", "3.0.4", "werkzeug-3.0.4"), "click": ("click", "8.1.7", "click-8.1.7"),
    "pytest": ("pytest", "8.3.3", "pytest-8.3.3"),
}  # fmt: skip


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


def django() -> Path:
    """Django 5.1's `django/` package: the tree the latency and ingest budgets are stated on."""
    return sdist("django") / "django"


def tree(spec: str) -> Path:
    """A corpus by name (`django` = its `django/` package, `django-sdist`, `requests` = its whole
    sdist), or a directory."""
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

"""The call-graph truth sets of bench/callgraph_sets.json, and their corpora.

Each language has a dev set (what tuning may look at) and a held-out set (declared before any
measurement, never tuned on). A project is a pinned registry release, fetched on first use into
bench/.corpus by the language's own client: a PyPI sdist (pip), a Go module (`go mod download`
from the module proxy), a Maven Central `-sources.jar` (`mvn dependency:get`), an npm package
(`npm pack`) that ships its TypeScript sources; the zoo (bench/zoo.py) also fetches crates, the
`.crate` archive from crates.io's download host.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from harness import corpus

SETS_FILE = Path(__file__).resolve().parents[1] / "callgraph_sets.json"
LANGUAGES = ("python", "go", "java", "typescript")
SET_NAMES = ("dev", "held-out")
FETCH_TIMEOUT_S = 600


@dataclass(frozen=True)
class Project:
    language: str
    set_name: str
    name: str
    version: str

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def slug(self) -> str:
        """A file-name-safe directory name under the corpus."""
        return corpus.slug(self.name, self.version)


def projects(language: str, set_name: str = "all") -> list[Project]:
    declared = json.loads(SETS_FILE.read_text())[language]
    names = SET_NAMES if set_name == "all" else (set_name,)
    return [Project(language, s, p["name"], p["version"]) for s in names for p in declared[s]]


def fetch(project: Project) -> Path:
    """The project's source tree under the corpus, fetched on first use."""
    if project.language == "python":
        return corpus.fetch(project.name, project.version, f"{project.name}-{project.version}")
    root = corpus.CORPUS / project.language / project.slug
    if root.exists():
        return root
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    fetchers = {"go": _go_module, "java": _sources_jar, "typescript": _npm_package, "rust": _crate}
    fetchers[project.language](project, partial)
    partial.rename(root)
    return root


def _run(command: list[str], cwd: Path | None = None) -> str:
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True,
                          timeout=FETCH_TIMEOUT_S).stdout  # fmt: skip


def _go_module(project: Project, destination: Path) -> None:
    found = json.loads(_run(["go", "mod", "download", "-json", f"{project.name}@{project.version}"]))
    # The module cache is read-only: a writable copy (the truth's `go list` may tidy go.sum).
    shutil.copytree(found["Dir"], destination, symlinks=True)
    for path in [destination, *destination.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


def _sources_jar(project: Project, destination: Path) -> None:
    group, artifact = project.name.split(":")
    _run(["mvn", "-q", "dependency:get", f"-Dartifact={group}:{artifact}:{project.version}:jar:sources", "-Dtransitive=false"])
    jar = (Path.home() / ".m2" / "repository" / group.replace(".", "/") / artifact / project.version
           / f"{artifact}-{project.version}-sources.jar")  # fmt: skip
    with zipfile.ZipFile(jar) as opened:
        for member in opened.infolist():
            target = (destination / member.filename).resolve()
            if not target.is_relative_to(destination.resolve()):
                raise SystemExit(f"{jar}: {member.filename!r} leaves the archive's directory")
        opened.extractall(destination)


def _npm_package(project: Project, destination: Path) -> None:
    archives = corpus.CORPUS / "typescript" / ".archives"
    archives.mkdir(parents=True, exist_ok=True)
    name = _run(["npm", "pack", "--silent", f"{project.name}@{project.version}", "--pack-destination", str(archives)])
    with tarfile.open(archives / name.strip().splitlines()[-1]) as opened:
        opened.extractall(destination, filter="data")
    # npm archives hold one directory, `package/`: the tree is its content.
    for path in (destination / "package").iterdir():
        path.rename(destination / path.name)
    (destination / "package").rmdir()


CRATES_DOWNLOAD = "https://static.crates.io/crates/{name}/{name}-{version}.crate"


def _crate(project: Project, destination: Path) -> None:
    """A crate's published archive (what cargo downloads): a .tar.gz holding `<name>-<version>/`."""
    archives = corpus.CORPUS / "rust" / ".archives"
    archives.mkdir(parents=True, exist_ok=True)
    archive = archives / f"{project.slug}.crate"
    if not archive.exists():
        url = CRATES_DOWNLOAD.format(name=project.name, version=project.version)
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as response:
            archive.write_bytes(response.read())
    with tarfile.open(archive) as opened:
        opened.extractall(destination, filter="data")
    top = destination / f"{project.name}-{project.version}"
    for path in top.iterdir():
        path.rename(destination / path.name)
    top.rmdir()

"""The corpus zoo (bench/zoo.py): the projects declared in bench/zoo.json, how one is fetched and
ingested, and the report: per project ok or failed, files lost to an exception, syntax errors by
language, nodes and seconds; then the totals that decide the exit status."""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness import callgraph_sets

ZOO_FILE = Path(__file__).resolve().parents[1] / "zoo.json"
# A registry's projects are fetched by callgraph_sets.fetch under the key of the language whose
# client it uses (a PyPI sdist by pip, a Maven sources jar by mvn, ...).
FETCHED_AS = {"pypi": "python", "go": "go", "maven": "java", "npm": "typescript", "crates": "rust"}


@dataclass(frozen=True)
class Entry:
    registry: str
    language: str
    name: str
    version: str

    @property
    def key(self) -> str:
        return f"{self.registry}:{self.name}@{self.version}"


@dataclass
class Result:
    key: str
    language: str
    status: str  # ok, failed (the ingest raised), fetch-failed (the registry gave no tree)
    error: str = ""
    files: int = 0
    nodes: int = 0
    seconds: float = 0.0
    files_lost: int = 0
    failures: list[dict] = field(default_factory=list)
    syntax_errors: dict[str, int] = field(default_factory=dict)


def entries(path: Path = ZOO_FILE) -> list[Entry]:
    declared = json.loads(path.read_text())["projects"]
    found = [Entry(p["registry"], p["language"], p["name"], p["version"]) for p in declared]
    unknown = sorted({e.registry for e in found} - set(FETCHED_AS))
    if unknown:
        raise SystemExit(f"{path}: unknown registries {unknown}: one of {', '.join(FETCHED_AS)}")
    return found


def select(found: list[Entry], only: list[str], languages: list[str], limit: int | None) -> list[Entry]:
    """The entries named by `only` (a name or a key), of `languages`, the first `limit` of them."""
    unknown = [name for name in only if not any(name in (e.name, e.key) for e in found)]
    if unknown:
        raise SystemExit(f"--only: no declared project {', '.join(unknown)} in {ZOO_FILE.name}")
    chosen = [
        e for e in found
        if (not only or e.name in only or e.key in only) and (not languages or e.language in languages)
    ]  # fmt: skip
    return chosen[:limit] if limit is not None else chosen


def fetch(entry: Entry) -> Path:
    return callgraph_sets.fetch(callgraph_sets.Project(FETCHED_AS[entry.registry], "zoo", entry.name, entry.version))


def ingest(entry: Entry, root: Path) -> Result:
    """`root` ingested in this process into a fresh SQLite home; an exception is the result's error."""
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="rhumbline-zoo-") as scratch:
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        store = SqliteGraphStore(Path(scratch) / "graph.sqlite3", timeout=120.0)
        store.ensure_schema()
        started = time.perf_counter()
        try:
            summary = ingest_local(root, f"zoo/{entry.language}", store=store, engine=engine, workers=1, history=False)
        except Exception as error:  # the finding itself: reported per project, counted in the totals
            return Result(entry.key, entry.language, "failed", f"{type(error).__name__}: {error}",
                          seconds=round(time.perf_counter() - started, 2))  # fmt: skip
        finally:
            store.close()
            engine.dispose()
    return Result(
        entry.key, entry.language, "ok", files=summary.files, nodes=summary.node_count,
        seconds=round(time.perf_counter() - started, 2), files_lost=summary.failure_count,
        failures=[f.model_dump() for f in summary.failures], syntax_errors=dict(summary.syntax_errors_by_language),
    )  # fmt: skip


def totals(results: list[Result]) -> dict:
    syntax: Counter[str] = Counter()
    for r in results:
        syntax.update(r.syntax_errors)
    return {
        "projects": len(results),
        "failed": sum(r.status == "failed" for r in results),
        "fetch_failed": sum(r.status == "fetch-failed" for r in results),
        "files_lost": sum(r.files_lost for r in results),
        "files": sum(r.files for r in results),
        "nodes": sum(r.nodes for r in results),
        "syntax_errors": dict(sorted(syntax.items())),
        "languages": len({r.language for r in results}),
    }


def exit_code(results: list[Result]) -> int:
    """Non-zero when an ingest failed, a file was lost to an exception, or a project could not be
    fetched (the declared list must stay ingestible as it is)."""
    found = totals(results)
    return 1 if found["failed"] or found["files_lost"] or found["fetch_failed"] else 0


def render(results: list[Result]) -> str:
    lines = [
        f"{'status':<12} {'language':<10} {'project':<58} {'files':>6} {'nodes':>8} {'s':>7} {'lost':>4}  syntax errors"
    ]
    for r in results:
        syntax = " ".join(f"{k}={v}" for k, v in sorted(r.syntax_errors.items()))
        lines.append(
            f"{r.status:<12} {r.language:<10} {r.key:<58} {r.files:>6} {r.nodes:>8} {r.seconds:>7.1f} {r.files_lost:>4}  {syntax}"
        )
        if r.error:
            lines.append(f"{'':<12} error: {r.error}")
        lines.extend(f"{'':<12} lost {f['file']} ({f['stage']}): {f['reason']}" for f in r.failures)
    found = totals(results)
    lines.append(
        f"{found['projects']} projects in {found['languages']} languages: {found['failed']} failed ingests, "
        f"{found['fetch_failed']} not fetched, {found['files_lost']} files lost to exceptions; "
        f"{found['files']} files, {found['nodes']} nodes; syntax errors {found['syntax_errors']}"
    )
    return "\n".join(lines)


def report(results: list[Result]) -> dict:
    return {"totals": totals(results), "projects": [asdict(r) for r in results]}

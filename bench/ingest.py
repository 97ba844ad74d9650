"""Ingest benchmark on the Django 5.1 sdist: (a) the `django/` package, (b) the whole sdist.

    .venv/bin/python bench/ingest.py [--workers N] [--only django|sdist]

Downloads the sdist into bench/.corpus on first use (`pip download`), then ingests each target in
a fresh subprocess with fresh SQLite stores, so every figure (and peak RSS) belongs to one ingest.
Targets: django/ ≤ 4 s, full sdist ≤ 10 s, peak RSS ≤ 1 GB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / ".corpus"
VERSION = "5.1"
ARCHIVE = CORPUS / f"Django-{VERSION}.tar.gz"
SDIST = CORPUS / f"Django-{VERSION}"
TARGETS = {"django": SDIST / "django", "sdist": SDIST}


def ensure_corpus() -> None:
    if not ARCHIVE.exists():
        CORPUS.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"),
                *(f"django=={VERSION}", "-d", str(CORPUS)),
            ],
            check=True,
            timeout=600,
        )
    if not SDIST.exists():
        with tarfile.open(ARCHIVE) as archive:
            archive.extractall(CORPUS, filter="data")


def run_one(target: str, workers: int | None) -> dict:
    """Ingest one target in this process and return its figures."""
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.graph.sqlite_store import SqliteGraphStore
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="rhumbline-bench-") as scratch:
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        store = SqliteGraphStore(Path(scratch) / "graph.sqlite3", timeout=120.0)
        store.ensure_schema()
        started = time.perf_counter()
        summary = ingest_local(
            TARGETS[target], f"bench/{target}", store=store, engine=engine, workers=workers
        )
        seconds = time.perf_counter() - started
        counts = store.counts(f"bench/{target}")
        store.close()
        engine.dispose()
    assert (counts.nodes, counts.edges) == (summary.node_count, summary.edge_count)
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "target": target,
        "files": summary.files,
        "python_files": summary.files_by_language.get("python", 0),
        "python_loc": summary.lines_by_language.get("python", 0),
        "nodes": summary.node_count,
        "edges": summary.edge_count,
        "unresolved_calls": summary.unresolved_calls,
        "seconds": round(seconds, 2),
        "phases": summary.phase_seconds,
        "files_per_s": round(summary.files / seconds),
        # CPU seconds of this process and its parser workers: comparable on a loaded machine.
        "cpu_s": round(own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, 2),
        "peak_rss_mb": own.ru_maxrss // 1024,
        "peak_worker_rss_mb": children.ru_maxrss // 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, help="parser processes (default: min(4, CPUs))")
    parser.add_argument("--only", choices=sorted(TARGETS), help="run one target")
    parser.add_argument("--child", choices=sorted(TARGETS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.workers)))
        return
    ensure_corpus()
    print(
        f"{'target':<8}{'files':>7}{'py':>6}{'py LOC':>9}{'nodes':>8}{'edges':>9}{'s':>7}"
        f"{'cpu s':>7}{'files/s':>9}{'RSS MB':>8}{'worker':>8}  phases (s)"
    )
    for target in [args.only] if args.only else list(TARGETS):
        command = [sys.executable, __file__, "--child", target]
        if args.workers is not None:
            command += ["--workers", str(args.workers)]
        figures = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        print(
            f"{target:<8}{figures['files']:>7}{figures['python_files']:>6}{figures['python_loc']:>9}"
            f"{figures['nodes']:>8}{figures['edges']:>9}{figures['seconds']:>7}{figures['cpu_s']:>7}"
            f"{figures['files_per_s']:>9}"
            f"{figures['peak_rss_mb']:>8}{figures['peak_worker_rss_mb']:>8}  {figures['phases']}"
        )


if __name__ == "__main__":
    main()

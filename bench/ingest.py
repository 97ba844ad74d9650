"""Ingest benchmark on the Django 5.1 sdist: (a) the `django/` package, (b) the whole sdist.

    .venv/bin/python bench/ingest.py [--workers N] [--only django|sdist]

Downloads the sdist into bench/.corpus on first use (`pip download`), then ingests each target in
a fresh subprocess with fresh SQLite stores, so every figure (and peak RSS) belongs to one ingest.
Targets: django/ ≤ 4 s, full sdist ≤ 10 s, peak RSS ≤ 1 GB.

    .venv/bin/python bench/ingest.py --only django --compare cgc [--compare "tool {path}"]

Side by side: another code-graph tool on the same target (bench/compare.py: a known name such as
`cgc` (CodeGraphContext) or `cgr` (code-graph-rag), `auto` for every known tool on PATH, or a
command template with `{path}`), its seconds, CPU and peak RSS in the same table. A tool that is not
installed is reported and skipped; nothing is installed or downloaded, and without --compare no
other tool runs.

    .venv/bin/python bench/ingest.py --only django --neo4j bolt://127.0.0.1:7687

The same full ingest into Neo4j (a fresh project, deleted afterwards; target: django/ ≤ 20 s).
Columns: `cpu s` counts this process and its children (the parser workers),
`own` this process alone: on a loaded machine compare CPU, not seconds.

    .venv/bin/python bench/ingest.py --incremental [--neo4j bolt://127.0.0.1:7687]

Incremental and versioned ingest of a copy of `django/`, per graph backend (SQLite; Neo4j when
--neo4j or RHUMBLINE_TEST_NEO4J_URI names a server, password from RHUMBLINE_TEST_NEO4J_PASSWORD):
a full ingest, a no-change re-ingest (target: about 1 s), an interface change (a function added
to utils/text.py: the whole phase 2 runs), a one-file change (a function body edited in
db/models/query.py, shifting every later definition: the partial path; target ≤ 0.5 s), a `clear`
rebuild of the same tree that must equal the incremental result exactly (diff of the two versions
empty: no edge lost), and diff_versions between the first and the last changed version (target
≤ 1 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import compare  # bench/compare.py: this script's directory is on sys.path

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


def run_one(target: str, workers: int | None, neo4j_uri: str | None = None) -> dict:
    """Ingest one target in this process (into Neo4j when `neo4j_uri`) and return its figures."""
    import uuid

    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    project = f"bench/{target}" + (f"-{uuid.uuid4().hex[:8]}" if neo4j_uri else "")
    with tempfile.TemporaryDirectory(prefix="rhumbline-bench-") as scratch:
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        store = _graph_store(Path(scratch), neo4j_uri)
        store.ensure_schema()
        try:
            started = time.perf_counter()
            summary = ingest_local(TARGETS[target], project, store=store, engine=engine, workers=workers)
            seconds = time.perf_counter() - started
            counts = store.counts(project)
        finally:
            if neo4j_uri:
                store.delete_project(project)
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
        # CPU seconds of this process and its children (the parser workers):
        # comparable on a loaded machine; `own_cpu_s` is this process's alone.
        "cpu_s": round(own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, 2),
        "own_cpu_s": round(own.ru_utime + own.ru_stime, 2),
        "peak_rss_mb": own.ru_maxrss // 1024,
        "peak_worker_rss_mb": children.ru_maxrss // 1024,
    }


def _graph_store(scratch: Path, neo4j_uri: str | None):
    import os

    if neo4j_uri:
        from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

        password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
        return Neo4jGraphStore(neo4j_uri, "neo4j", password, timeout=300.0)
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    return SqliteGraphStore(scratch / "graph.sqlite3", timeout=120.0)


INCREMENTAL_FILE = "db/models/query.py"
INCREMENTAL_EDIT = ("        clone = self._chain()\n", "        clone = self._chain()\n        clone = clone\n")
# Before it, an interface edit (a new module-level function): the partial path refuses it and the
# whole phase 2 runs.
INTERFACE_FILE = "utils/text.py"
INTERFACE_EDIT = "\n\ndef rhumbline_bench_added():\n    return None\n"


def run_incremental(backend: str, neo4j_uri: str | None, workers: int | None) -> dict:
    """The incremental scenario on one backend, in this process; its figures."""
    import os
    import shutil
    import uuid

    from rhumbline.ingest.snapshots.diff import diff_versions
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="rhumbline-bench-") as scratch:
        tree = Path(scratch) / "django"
        shutil.copytree(TARGETS["django"], tree)
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        project = f"bench/inc{uuid.uuid4().hex[:8]}"
        if backend == "neo4j":
            from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

            password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
            store = Neo4jGraphStore(neo4j_uri, "neo4j", password, timeout=300.0)
        else:
            from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

            store = SqliteGraphStore(Path(scratch) / "graph.sqlite3", timeout=120.0)
        store.ensure_schema()
        figures: dict = {"backend": backend}

        def timed(label: str, **options) -> None:
            started, cpu = time.perf_counter(), time.process_time()
            summary = ingest_local(tree, project, store=store, engine=engine, workers=workers, **options)
            figures[label] = round(time.perf_counter() - started, 3)
            # This process's CPU seconds: what the step costs on an idle machine (parser workers
            # of a full ingest excepted), whatever else the machine runs.
            figures[f"{label}_cpu"] = round(time.process_time() - cpu, 3)
            figures[f"{label}_phases"] = summary.phase_seconds
            figures[f"{label}_changes"] = {
                k: v for k, v in summary.changes.model_dump().items()
                if k in ("mode", "phase2", "files_parsed", "files_reused", "nodes_added",
                         "nodes_changed", "nodes_removed", "edges_added", "edges_changed",
                         "edges_removed")
            }  # fmt: skip
            figures["nodes"], figures["edges"] = summary.node_count, summary.edge_count

        try:
            timed("full")
            timed("no_change")
            with (tree / INTERFACE_FILE).open("a") as handle:
                handle.write(INTERFACE_EDIT)
            timed("interface")
            path = tree / INCREMENTAL_FILE
            text = path.read_text()
            assert INCREMENTAL_EDIT[0] in text
            path.write_text(text.replace(*INCREMENTAL_EDIT, 1))
            timed("one_file")
            timed("rebuild", clear=True)
            started, cpu = time.perf_counter(), time.process_time()
            diff = diff_versions(engine, project, 1, 4)  # both changes
            figures["diff_s"] = round(time.perf_counter() - started, 3)
            figures["diff_cpu"] = round(time.process_time() - cpu, 3)
            figures["diff_counts"] = dataclasses.asdict(diff.counts)
            same = diff_versions(engine, project, 4, 5).counts  # incremental vs rebuild
            figures["incremental_equals_rebuild"] = not any(
                getattr(same, name) for name in ("nodes_added", "nodes_removed", "nodes_changed",
                                                  "edges_added", "edges_removed", "edges_changed")
            )  # fmt: skip
        finally:
            if backend == "neo4j":
                store.delete_project(project)
            store.close()
            engine.dispose()
    return figures


def incremental_main(neo4j_uri: str | None, workers: int | None) -> None:
    backends = ["sqlite"] + (["neo4j"] if neo4j_uri else [])
    print(
        f"{'backend':<8}{'nodes':>8}{'edges':>8}{'full s':>8}{'same s':>8}{'iface s':>8}"
        f"{'1 file s':>9}{'diff s':>8}  exact"
    )
    for backend in backends:
        command = [sys.executable, __file__, "--incremental-child", backend]
        if neo4j_uri:
            command += ["--neo4j", neo4j_uri]
        if workers is not None:
            command += ["--workers", str(workers)]
        figures = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        print(
            f"{backend:<8}{figures['nodes']:>8}{figures['edges']:>8}{figures['full']:>8}"
            f"{figures['no_change']:>8}{figures['interface']:>8}{figures['one_file']:>9}"
            f"{figures['diff_s']:>8}  {figures['incremental_equals_rebuild']}"
        )
        print(
            f"{'  cpu s':<24}{figures['full_cpu']:>8}{figures['no_change_cpu']:>8}"
            f"{figures['interface_cpu']:>8}{figures['one_file_cpu']:>9}{figures['diff_cpu']:>8}"
        )
        for label in ("full", "no_change", "interface", "one_file"):
            print(f"    {label:<10} phases {figures[label + '_phases']}")
            print(f"    {'':<10} changes {figures[label + '_changes']}")
        print(f"    diff v1→v4 {figures['diff_counts']}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, help="parser processes (default: min(4, CPUs))")
    parser.add_argument("--only", choices=sorted(TARGETS), help="run one target")
    parser.add_argument("--child", choices=sorted(TARGETS), help=argparse.SUPPRESS)
    parser.add_argument("--incremental", action="store_true", help="the incremental scenario")
    parser.add_argument(
        "--neo4j", help="bolt URI: full ingests into Neo4j instead of SQLite (password from"
        " RHUMBLINE_TEST_NEO4J_PASSWORD); with --incremental, also the scenario on Neo4j",
    )  # fmt: skip
    parser.add_argument("--incremental-child", choices=["sqlite", "neo4j"], help=argparse.SUPPRESS)
    parser.add_argument(
        "--compare", action="append", default=[], metavar="TOOL",
        help="also run another tool on each target: a known name (cgc, cgr), auto, or a command with {path}",
    )  # fmt: skip
    parser.add_argument("--compare-timeout", type=float, default=compare.DEFAULT_TIMEOUT_S,
                        help="seconds before a compared tool is stopped (default 600)")  # fmt: skip
    args = parser.parse_args()
    try:
        tools = [tool for spec in args.compare for tool in compare.commands(spec)]
    except ValueError as error:
        parser.error(str(error))
    if args.child:
        print(json.dumps(run_one(args.child, args.workers, args.neo4j)))
        return
    if args.incremental_child:
        print(json.dumps(run_incremental(args.incremental_child, args.neo4j, args.workers)))
        return
    ensure_corpus()
    if args.incremental:
        import os

        incremental_main(args.neo4j or os.environ.get("RHUMBLINE_TEST_NEO4J_URI"), args.workers)
        return
    print(("Neo4j " + args.neo4j) if args.neo4j else "SQLite")
    print(
        f"{'target':<8}{'files':>7}{'py':>6}{'py LOC':>9}{'nodes':>8}{'edges':>9}{'s':>7}"
        f"{'cpu s':>7}{'own':>6}{'files/s':>9}{'RSS MB':>8}{'worker':>8}  phases (s)"
    )
    for target in [args.only] if args.only else list(TARGETS):
        command = [sys.executable, __file__, "--child", target]
        if args.workers is not None:
            command += ["--workers", str(args.workers)]
        if args.neo4j:
            command += ["--neo4j", args.neo4j]
        figures = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        print(
            f"{target:<8}{figures['files']:>7}{figures['python_files']:>6}{figures['python_loc']:>9}"
            f"{figures['nodes']:>8}{figures['edges']:>9}{figures['seconds']:>7}{figures['cpu_s']:>7}"
            f"{figures['own_cpu_s']:>6}{figures['files_per_s']:>9}"
            f"{figures['peak_rss_mb']:>8}{figures['peak_worker_rss_mb']:>8}  {figures['phases']}"
        )
        for name, template in tools:
            print_comparison(compare.run(name, template, TARGETS[target], args.compare_timeout), figures)
    if "auto" in args.compare and not compare.commands("auto"):
        print("--compare auto: none of the known tools (" + ", ".join(compare.KNOWN_TOOLS) + ") is on PATH")


def print_comparison(found: "compare.Comparison", ours: dict) -> None:
    """One row under our target's, same columns; `-` where the tool reports nothing comparable."""
    label = f"  {found.name}"
    if found.status != "ok":
        print(f"{label:<8}{found.status} — `{found.command}`")
        return
    files_per_s = round(ours["files"] / found.seconds) if found.seconds else "-"
    print(
        f"{label:<8}{'-':>7}{'-':>6}{'-':>9}{'-':>8}{'-':>9}{found.seconds:>7}{found.cpu_s:>7}{'-':>6}"
        f"{files_per_s:>9}{found.peak_rss_mb:>8}{'-':>8}  `{found.command}`"
    )


if __name__ == "__main__":
    main()

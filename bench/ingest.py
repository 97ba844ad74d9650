"""Ingest timing and memory: full ingests of Django 5.1 (`django/`, the whole sdist), the incremental
scenario, and two checkouts interleaved.

    .venv/bin/python bench/ingest.py [--workers N] [--only django|sdist] [--neo4j bolt://127.0.0.1:7687 [--neo4j-writers N] [--neo4j-tx-rows N]]

Each target is ingested in a fresh subprocess with fresh stores (SQLite, or Neo4j with --neo4j: a
fresh project, deleted afterwards), so every figure and peak RSS belongs to one ingest. Targets:
django/ ≤ 4 s (Neo4j ≤ 20 s), the whole sdist ≤ 10 s, peak RSS ≤ 1 GB. `cpu s` counts this
process and its children (the parser workers), `own` this process alone: on a loaded machine
compare CPU, not seconds.

    .venv/bin/python bench/ingest.py --only django --compare cgc [--compare "tool {path}"]

Side by side: another code-graph tool on the same target (bench/harness/rivals.py: `cgc`
(CodeGraphContext), `cgr` (code-graph-rag), `auto` for every known tool on PATH, or a command
template with `{path}`). A tool that is not installed is reported and skipped.

    .venv/bin/python bench/ingest.py --incremental [--neo4j URI]

Incremental and versioned ingest of a copy of `django/`, per graph backend: a full ingest, a
no-change re-ingest (target: about 1 s), an interface change (a function added to utils/text.py:
the whole phase 2 runs), a one-file change (a function body edited in db/models/query.py: the
partial path; target ≤ 0.5 s), a `clear` rebuild that must equal the incremental result exactly,
and diff_versions between the first and the last changed version (target ≤ 1 s).

    .venv/bin/python bench/ingest.py --against REF [--rounds 5] [--target django]

Before/after at the same moment: this checkout and REF (a git ref, checked out into a temporary
worktree, or a checkout's directory), each through its own `rhumbline ingest` CLI on its own copy
of the target and a fresh home, alternated round by round (the order swapped every round): the
full ingest (the ingest's own duration_s, CPU of the process tree, peak RSS), a no-change
re-ingest and the one-file change above. Medians over the rounds, with `uptime` per round.
Not part of the test suite.

    .venv/bin/python bench/ingest.py --scale DIR [--lines 30000000] [--sample 16] [--worker-cap-mb 1536]
                                     [--resolve-copies 1,2] [--workers 2] [--neo4j URI [--neo4j-tx-rows N]]
                                     [--write-cpu-ms 0.13] [--write-efficiency 0.89] [--neo4j-cores 8] [--neo4j-writers 8]

The shard plan at monorepo scale (bench/harness/scale.py): DIR gets a synthetic tree of copies of
the corpus (hard links, `copy-NN/`) reaching --lines; the plan step lists and shards it (timed);
--sample shards spread over the plan are parsed one at a time, each in a fresh process with its
address space capped at --worker-cap-mb (per shard: CPU, wall, peak RSS, answer bytes); the
finish step on the first --resolve-copies copies, each count in a fresh process: the whole local
ingest as the hosted finish function runs it (phase 1 reading one copy's answer back for every
copy, phase 2, the plan, the facts cache, the files' contents beside the snapshot, the snapshot,
the graph write, centrality) with fresh stores, the graph written to SQLite, or with --neo4j to a
fresh Neo4j project (deleted afterwards; --neo4j-writers and --neo4j-tx-rows passed to its staged
write); per count its peak RSS before the graph write and in all, CPU, nodes, edges and phase
seconds, fitted by copies and extrapolated to the whole tree. The hosted write is Neo4j's: the
whole peak measured with --neo4j is the one that counts. Then the hosted wall time for 100
concurrent workers from those figures (the S3 bandwidth, request latency and a worker's request
count stated; the finish step's CPU up to the write and centrality's seconds after it; the staged Neo4j write from the server's CPU
per record, measured with `--only django --neo4j URI --neo4j-writers N`, and the server's cores
and the writers stated: scale.Model), and the checks: no worker above 1.5 GB, the finish step's
whole peak within 10 GB, the modelled wall within 10 minutes.

    .venv/bin/python bench/ingest.py --scale-tree PATH [--shard-workers 2] [--worker-cap-mb 1536]

A real tree's shard plan on this machine (PATH: a directory, a corpus name, or a registry release
REGISTRY:NAME@VERSION fetched into bench/.corpus on first use, e.g. go:k8s.io/kubernetes@v1.34.0):
the product's local ingest (ingest_local, the shard plan chosen by size as the product chooses
it), its shards on the product's process pool with --shard-workers concurrent workers, each
worker's address space capped at --worker-cap-mb (scale.CappedPool); per shard its wall, CPU, peak
RSS and address space, and the failures (a shard that failed in its worker, or a file whose
extractor raised there), exit 1 on any; the ingest process's peak while the answers come in and
from the last answer to the graph write (resolution), the resolution's seconds, the whole
ingest's. Then the same tree through the single reader in a fresh process (its wall and peak
RSS), and whether both graphs have the same files, nodes and edges (by kind and relation too);
exit 1 when they differ.

    .venv/bin/python bench/ingest.py --floor [--rounds 3] [--target django] [--against REF]

The ingest against its floor, in the same run: the target through the MCP `ingest` tool of
`rhumbline mcp` (the gateway's MCP server over stdio; a full ingest: the first, then `clear`; the call's wall time and the server's CPU,
its parser workers included) and tree-sitter parsing the same files in one process
(bench/harness/parse_floor.py), alternated round by round; both, and the ingest as a multiple of
the parse (target: within 4x), with medians and `uptime`. With --against, REF's server too (its own
home), the two alternated round by round, each beside its own parse.

    .venv/bin/python bench/ingest.py --callgraph [PROJECT ...] [--language L] [--set S] [--callgraph-report errors.json]

Call-graph fidelity against each language's own resolver, on the sets declared in
bench/callgraph_sets.json (a dev set and a held-out set per language, both by default; --set dev
or held-out for one; PROJECT names pick projects of the sets): Python against jedi
(bench/harness/callgraph.py; also click, starlette and attrs by name), Go against go/types, Java
against JavaParser's symbol solver, TypeScript against the compiler API
(bench/harness/callgraph_truth.py; the Go, Maven and npm clients build or fetch them on first use).
Precision and recall of our CALLS evidence per site, interface/virtual dispatch apart, per
confidence label (the AMBIGUOUS pairs' share right) and per call kind. Corpora and truths are
cached in bench/.corpus. Python needs jedi (`pip install -e .[bench]`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import corpus, rivals
from harness.checkouts import checkout, legend, this_checkout
from harness.scale import Model
from harness.serve import RHUMBLINE, Checkout
from harness.stdio import stdio_server
from harness.stats import median, uptime

if TYPE_CHECKING:
    from rhumbline.ingest.discover.parallel import Parse
    from rhumbline.stores.source_blobs import BlobStore

TARGETS = {"django": "django", "sdist": "django-sdist"}


def run_one(
    target: str, workers: int | None, neo4j_uri: str | None = None, writers: int | None = None, tx_rows: int | None = None,
    *, tree: Path | None = None, parse: "Parse | None" = None, before_write: Callable[[], None] | None = None,
    exclude: Sequence[str] = (), history: bool = True, blobs: "BlobStore | None" = None, uploaded: Collection[str] = (),
) -> dict:
    """Ingest one target (or `tree`, named `target`) in this process (into Neo4j when `neo4j_uri`)
    and return its figures. `parse`: phase 1's parse (the product's choice by size by default);
    `before_write()`: called as the graph write starts; `exclude`, `history`, `blobs`,
    `uploaded`: ingest_local's."""
    import uuid

    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    project = f"bench/{target}" + (f"-{uuid.uuid4().hex[:8]}" if neo4j_uri else "")
    with tempfile.TemporaryDirectory(prefix="rhumbline-bench-") as scratch:
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        store = _graph_store(Path(scratch), neo4j_uri, writers, tx_rows)
        store.ensure_schema()
        retries = _RetryCount()
        logging.getLogger("neo4j").addHandler(retries)
        write = _WriteWindow(store) if neo4j_uri else None
        try:
            server_cpu = _server_cpu_s(store) if neo4j_uri else None
            started = time.perf_counter()
            if before_write is not None:
                _call_before_apply(store, before_write)
            summary = ingest_local(
                tree or corpus.tree(TARGETS[target]), project, store=store, engine=engine, workers=workers, parse=parse,
                exclude=exclude, history=history, blobs=blobs, uploaded=uploaded,
            )  # fmt: skip
            seconds = time.perf_counter() - started
            if server_cpu is not None:
                server_cpu = _server_cpu_s(store) - server_cpu
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
        "lines": sum(summary.lines_by_language.values()),
        "nodes": summary.node_count,
        "edges": summary.edge_count,
        "nodes_by_kind": summary.nodes_by_kind,
        "edges_by_relation": summary.edges_by_relation,
        "failure_count": summary.failure_count,
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
        "server_cpu_s": None if server_cpu is None else round(server_cpu, 2),
        "writers": getattr(store, "writers", None),
        "tx_rows": getattr(store, "tx_rows", None),
        "retries": retries.count,
        "write_s": None if write is None else round(write.seconds, 2),
        "write_server_cpu_s": None if write is None else round(write.server_cpu, 2),
        "write_client_cpu_s": None if write is None else round(write.client_cpu, 2),
        "write_server_idle_cpu_s": None if write is None else round(write.server_idle_cpu, 2),
    }


def _call_before_apply(store, call: Callable[[], None]) -> None:
    apply = store.apply

    def applied(project, batch) -> None:
        call()
        apply(project, batch)

    store.apply = applied


class _WriteWindow:
    """The graph writes alone (the store's `apply`): their wall time, and the server's CPU and this
    process's (the rows built and sent) meanwhile; and the server's CPU at the rate it runs just
    before and after each write, without it (other clients, the server's own upkeep)."""

    def __init__(self, store) -> None:
        self.seconds = self.server_cpu = self.client_cpu = self.server_idle_cpu = 0.0
        apply = store.apply

        def timed(project, batch) -> None:
            idle = _server_cpu_rate(store, IDLE_WINDOW_S)
            cpu, own, started = _server_cpu_s(store), time.process_time(), time.perf_counter()
            apply(project, batch)
            seconds = time.perf_counter() - started
            self.seconds += seconds
            self.client_cpu += time.process_time() - own
            self.server_cpu += _server_cpu_s(store) - cpu
            self.server_idle_cpu += seconds * (idle + _server_cpu_rate(store, IDLE_WINDOW_S)) / 2

        store.apply = timed


# Seconds the server's CPU is read around each write without it (an estimate of what is not ours).
IDLE_WINDOW_S = 3.0


def _server_cpu_rate(store, seconds: float) -> float:
    cpu = _server_cpu_s(store)
    time.sleep(seconds)
    return (_server_cpu_s(store) - cpu) / seconds


class _RetryCount(logging.Handler):
    """Counts the driver's retried transactions (a deadlock between two writers, say)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "will be retried" in record.getMessage()


# The Neo4j server's process CPU time (JMX, in nanoseconds): what a write costs the server,
# comparable across load where its wall time is not. The whole process: other clients count too.
SERVER_CPU = (
    "CALL dbms.queryJmx('java.lang:type=OperatingSystem') YIELD attributes"
    " RETURN attributes.ProcessCpuTime.value AS ns"
)


def _server_cpu_s(store) -> float:
    return store._read_raw(SERVER_CPU)[0]["ns"] / 1e9


def _graph_store(scratch: Path, neo4j_uri: str | None, writers: int | None = None, tx_rows: int | None = None):
    if neo4j_uri:
        from rhumbline.stores.graph.neo4j.store import TX_ROWS, WRITERS, Neo4jGraphStore

        password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
        return Neo4jGraphStore(
            neo4j_uri, "neo4j", password, timeout=300.0, writers=writers or WRITERS, tx_rows=tx_rows or TX_ROWS
        )
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
    import uuid

    from rhumbline.ingest.snapshots.diff import diff_versions
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    with tempfile.TemporaryDirectory(prefix="rhumbline-bench-") as scratch:
        tree = Path(scratch) / "django"
        shutil.copytree(corpus.django(), tree)
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
            figures["diff_counts"] = diff.counts.model_dump()
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


def measured_cli(variant: Checkout, home: Path, tree: Path, project: str) -> dict:
    """`rhumbline ingest --json` of one checkout in a child process: the ingest's own duration_s and
    mode, the process tree's CPU seconds and its largest process's peak RSS (wait4's rusage)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [str(RHUMBLINE), "ingest", str(tree), "--project", project, "--json"],
            env=variant.env(home), stdout=out, stderr=err,
        )  # fmt: skip
        _, status, usage = os.wait4(process.pid, 0)  # waited here, not by Popen: its rusage is ours
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise SystemExit(f"{variant.name}: rhumbline ingest failed:\n{err.read().decode()[-2000:]}")
        summary = json.loads(out.read())
    mode = (summary.get("changes") or {}).get("mode")
    return {"s": summary["duration_s"], "mode": mode, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss // 1024}


def ab_round(variant: Checkout, source: Path, scratch: Path) -> dict:
    """Full, no-change and one-file ingests of a fresh copy of `source` by one checkout."""
    tree = corpus.copy_tree(source, scratch / "tree" / source.name)
    home = scratch / "home"
    found = {"full": measured_cli(variant, home, tree, "bench/ab")}
    found["no_change"] = measured_cli(variant, home, tree, "bench/ab")
    path = tree / INCREMENTAL_FILE
    if path.exists():
        text = path.read_text()
        if INCREMENTAL_EDIT[0] not in text:
            raise SystemExit(f"the one-file edit does not apply to {path}")
        path.write_text(text.replace(*INCREMENTAL_EDIT, 1))
        found["one_file"] = measured_cli(variant, home, tree, "bench/ab")
    shutil.rmtree(scratch)
    return found


def against_main(ref: str, target: str, rounds: int, workers: int | None) -> None:
    if workers is not None:
        raise SystemExit("--against runs each checkout's CLI with its defaults: drop --workers")
    source = corpus.tree(target)
    with ExitStack() as stack:
        variants = [this_checkout(), stack.enter_context(checkout(ref))]
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rhumbline-ingest-ab-")))
        runs: dict[str, list[dict]] = {variant.name: [] for variant in variants}
        print(legend(variants))
        print(f"{source}: {rounds} rounds, the order swapped every round; s = the ingest's own duration_s")
        print(f"{'round':<6}{'checkout':<24}{'full s':>8}{'cpu s':>8}{'RSS MB':>8}{'same s':>8}{'1 file s':>9}  mode  load")
        for number in range(rounds):
            order = variants if number % 2 == 0 else variants[::-1]
            for variant in order:
                found = ab_round(variant, source, root / f"r{number}-{len(runs[variant.name])}-{id(variant)}")
                runs[variant.name].append(found)
                one = found.get("one_file", {})
                print(
                    f"{number + 1:<6}{variant.name[:23]:<24}{found['full']['s']:>8.2f}{found['full'].get('cpu', 0):>8.1f}"
                    f"{found['full'].get('rss_mb', 0):>8}{found['no_change']['s']:>8.2f}{one.get('s', float('nan')):>9.3f}"
                    f"  {one.get('mode')}  {os.getloadavg()[0]:.2f}"
                )
        print(f"\nmedians over {rounds} rounds")
        medians = {}
        for name, found in runs.items():
            medians[name] = {
                "full": median([f["full"]["s"] for f in found]),
                "cpu": median([f["full"].get("cpu", 0) for f in found]),
                "rss": median([f["full"].get("rss_mb", 0) for f in found]),
                "same": median([f["no_change"]["s"] for f in found]),
                "one": median([f["one_file"]["s"] for f in found]) if all("one_file" in f for f in found) else float("nan"),
            }
            m = medians[name]
            print(f"{name[:23]:<24}full {m['full']:.2f} s  cpu {m['cpu']:.1f} s  RSS {m['rss']:.0f} MB  "
                  f"no-change {m['same']:.2f} s  one file {m['one']:.3f} s")  # fmt: skip
        this, other = (medians[variant.name] for variant in variants)
        print(f"this vs {variants[1].name}: full {100 * (this['full'] / other['full'] - 1):+.1f} %, "
              f"cpu {100 * (this['cpu'] / other['cpu'] - 1):+.1f} %, one file {this['one'] - other['one']:+.3f} s")  # fmt: skip
        print(paired(*(runs[variant.name] for variant in variants)))
        print(uptime())


def paired(this: list[dict], other: list[dict]) -> str:
    """The full ingest's ratio within each round, where both checkouts ran back to back: a
    machine whose speed drifts between rounds moves both alike, so these spread less than the
    medians' ratio. Their median and range, wall and CPU."""
    figures = []
    for key, label in (("s", "full"), ("cpu", "cpu")):
        ratios = sorted(100 * (mine["full"][key] / theirs["full"][key] - 1) for mine, theirs in zip(this, other, strict=True))
        figures.append(f"{label} {median(ratios):+.1f} % ({ratios[0]:+.1f} to {ratios[-1]:+.1f})")
    return f"paired by round: {', '.join(figures)}"


def scale_main(
    directory: Path, lines: float, samples: int, cap_mb: int, resolve_copies: list[int], workers: int,
    model: Model, neo4j_uri: str | None = None, writers: int | None = None, tx_rows: int | None = None,
) -> None:  # fmt: skip
    from harness import scale

    mb = 1024 * 1024
    directory = directory.resolve()
    tree = directory / "tree"
    print(uptime())
    scale.build_tree(tree, 1)
    one = scale.counted(tree / "copy-00")
    copies = max(1, -(-int(lines) // one["lines"]))
    started = time.perf_counter()
    scale.build_tree(tree, copies)
    print(f"one copy of {', '.join(scale.SOURCES)}: {one['files']} files, {one['parsed_files']} parsed,"
          f" {one['lines']:,} lines, {one['bytes'] / mb:.0f} MB; {copies} copies (hard links, built in"
          f" {time.perf_counter() - started:.0f} s): {copies * one['lines']:,} lines")  # fmt: skip
    plan = scale.planned(tree)
    shards = plan["shards"]
    print(f"plan: {len(plan['paths'])} files, {plan['bytes'] / mb:.0f} MB, {len(shards)} shards, listed and"
          f" sharded in {plan['seconds']:.1f} s")  # fmt: skip
    chosen = scale.sample(samples, len(shards))
    print(f"\n{len(chosen)} shards, one at a time, each a fresh process capped at {cap_mb} MB of address space")
    print(f"{'shard':>6}{'files':>7}{'MB':>6}{'wall s':>8}{'parse s':>9}{'cpu s':>7}{'RSS MB':>8}{'own MB':>8}{'answer MB':>10}  load")
    measured = []
    for number in chosen:
        found = scale.measure_shard(__file__, tree, shards[number], cap_mb)
        if "failed" in found:
            print(f"{number:>6}{found['files']:>7}  FAILED (exit {found['failed']}) at {found['rss_mb']:.0f} MB RSS")
            continue
        measured.append(found)
        print(f"{number:>6}{found['files']:>7}{found['bytes'] / mb:>6.1f}{found['wall']:>8.2f}{found['seconds']:>9.2f}"
              f"{found['cpu']:>7.2f}{found['rss_mb']:>8.0f}{found['own_rss_mb']:>8.0f}{found['answer_bytes'] / mb:>10.2f}"
              f"  {os.getloadavg()[0]:.2f}")  # fmt: skip
    failed = len(chosen) - len(measured)
    if not measured:
        raise SystemExit("every measured shard failed")
    walls = sorted(shard["wall"] for shard in measured)
    print(f"per shard: wall median {median(walls):.2f} s, max {walls[-1]:.2f} s; CPU median"
          f" {median([s['cpu'] for s in measured]):.2f} s; peak RSS max {max(s['rss_mb'] for s in measured):.0f} MB"
          f" (after exec {max(s['own_rss_mb'] for s in measured):.0f} MB);"
          f" failed {failed}")  # fmt: skip

    facts = directory / "copy-00.answer"
    warm = scale.warm_facts(tree, facts, workers)
    one_facts = facts.stat().st_size
    print(f"\none copy parsed into one answer ({facts}) with {workers} workers in {warm:.0f} s: {one_facts / mb:.0f} MB"
          f" (the whole tree's answers: {copies * one_facts / mb:.0f} MB)")  # fmt: skip
    store = ["--neo4j", neo4j_uri] if neo4j_uri else []
    store += ["--neo4j-writers", str(writers)] if neo4j_uri and writers else []
    store += ["--neo4j-tx-rows", str(tx_rows)] if neo4j_uri and tx_rows else []
    if neo4j_uri:
        print(f"the finish step (the whole local ingest) on the first copies, written to Neo4j {neo4j_uri}")
    else:
        print("the finish step (the whole local ingest) on the first copies, written to SQLite: the hosted write is"
              " Neo4j's staged write, measured with --neo4j URI: that figure is the one that counts")  # fmt: skip
    print(f"{'copies':>7}{'files':>9}{'lines':>12}{'nodes':>10}{'edges':>11}{'s':>8}{'cpu s':>8}{'pre-write MB':>13}"
          f"{'RSS MB':>8}  phases (s)  load")  # fmt: skip
    resolved = []
    for count in resolve_copies:
        found = scale.measure_resolution(__file__, tree, count, facts, store)
        resolved.append(found)
        print(f"{count:>7}{found['files']:>9}{found['lines']:>12,}{found['nodes']:>10}{found['edges']:>11}"
              f"{found['seconds']:>8.1f}{found['cpu']:>8.1f}{found['rss_before_write_mb']:>13.0f}{found['rss_mb']:>8.0f}"
              f"  {found['phases']}  {os.getloadavg()[0]:.2f}")  # fmt: skip
    # Fitted by copies (the tree's fractions), extrapolated to the whole tree's; the finish step's
    # time before the write is its CPU (one thread: what an idle core gives, whatever this
    # machine's load), with centrality's seconds after the write; the write is modelled from the
    # server's CPU, or is the client's own CPU for it where that is longer.
    names = ("rss_before_write_mb", "rss_mb", "cpu_before_write", "centrality_s", "cpu", "nodes", "edges",
             "write_client_cpu_s")  # fmt: skip
    fits = scale.fitted(resolved, names, copies)
    for name, (intercept, slope, value) in fits.items():
        print(f"  fit {name}: {intercept:,.1f} + {slope:,.1f} per copy → {value:,.0f} at {copies} copies")
    fitted = {name: value for name, (_, _, value) in fits.items()}
    print(f"  the finish step's peak RSS at {copies} copies: {fitted['rss_before_write_mb']:,.0f} MB before the graph"
          f" write, {fitted['rss_mb']:,.0f} MB in all ({resolved[0]['store']} wrote)")  # fmt: skip

    by_cpu = scale.modelled(
        len(shards), measured, plan["seconds"], plan["bytes"], fitted["cpu_before_write"] + fitted["centrality_s"],
        fitted["nodes"] + fitted["edges"], copies * one_facts, model, time_key="cpu",
        write_client_cpu_s=fitted["write_client_cpu_s"],
    )  # fmt: skip
    figures = scale.modelled(
        len(shards), measured, plan["seconds"], plan["bytes"], fitted["cpu_before_write"] + fitted["centrality_s"],
        fitted["nodes"] + fitted["edges"], copies * one_facts, model, write_client_cpu_s=fitted["write_client_cpu_s"],
    )  # fmt: skip
    records = fitted["nodes"] + fitted["edges"]
    server_s = model.write_seconds(records)
    print(f"\nthe write: {server_s:.0f} s of the server's CPU spread over its cores, {fitted['write_client_cpu_s']:.0f} s"
          f" of the client's own ({'the client' if fitted['write_client_cpu_s'] > server_s else 'the server'} bounds it)")
    print(f"\nmodel, {model.workers} concurrent workers ({model}); a shard's measured wall (its CPU in brackets):")
    for name in ("plan", "map", "finish_transfer", "resolution", "write"):
        print(f"  {name:<16}{figures[name]:>8.0f} s  ({by_cpu[name]:.0f} s)")
    print(f"  (a worker: {figures['worker']:.1f} s ({by_cpu['worker']:.1f} s), {figures['waves']:.0f} waves)")
    print(f"  {'total':<16}{figures['total']:>8.0f} s = {figures['total'] / 60:.1f} min  ({by_cpu['total'] / 60:.1f} min)")
    worst = max(s["rss_mb"] for s in measured)
    checks = {
        "no worker above 1.5 GB": worst <= 1536 and failed == 0,
        f"finish within 10 GB ({resolved[0]['store']} wrote)": scale.finish_within(fits),
        "modelled wall within 10 min": figures["total"] <= 600,
    }
    for name, ok in checks.items():
        print(f"  {'PASS' if ok else 'FAIL'}  {name}")
    rest = figures["total"] - figures["write"]
    if rest < 600:
        cores = model.cores_for(records, 600 - rest, fitted["write_client_cpu_s"])
        server = "no server is enough: the client's own CPU for it is longer" if cores is None else (
            f"a Neo4j server of {cores} cores (and as many writers) at {model.write_cpu_ms_per_record} ms of server"
            " CPU per record")  # fmt: skip
        print(f"  the rest takes {rest:.0f} s: 10 min needs the write at {records / (600 - rest):,.0f} nodes and"
              f" edges per second: {server}")  # fmt: skip
    gb_s = median([s["wall"] for s in measured]) * len(shards) * cap_mb / 1024
    print(f"cost inputs: {len(shards)} shard invocations, ~{gb_s:,.0f} worker GB-s at {cap_mb} MB (median wall),"
          f" {3 * len(shards):,} PUT-class requests (a shard's probe for a kept answer, its answer and the"
          f" answer's kept copy) and {2 * len(shards):,} GET-class (a worker's span of the tree, finish's GET"
          f" of its answer), besides the tree's parts")  # fmt: skip
    print(uptime())


def scale_resolve_child(
    root: Path, copies: int, facts: Path, neo4j_uri: str | None, writers: int | None, tx_rows: int | None
) -> None:
    """The hosted finish step on the first `copies` copies of the scale tree, in this process: the
    whole ingest_local with fresh stores (run_one), phase 1 reading each file's row and facts from
    one copy's answer (scale.answer_reader); prints its figures as JSON: the peak RSS before the
    graph write (VmHWM as the store's apply starts) and the whole peak (VmHWM at the end: this
    process's since its exec, where ru_maxrss may count its parent's pages too; plus its largest
    forked child's, if the finish function's memory let a language group fork), the CPU before
    the write and in all (its children's too), nodes, edges, phase seconds and the store that
    wrote. Its address space is capped (RESOLVE_CAP_BYTES) so a part too large for this machine
    fails alone. As in a hosted
    run, the workers stored the files' contents in the bucket (distributed/contents.py): the step
    records them, never reading or sending one (a bucket named, never called)."""
    from harness import scale

    from rhumbline.ingest import groups
    from rhumbline.ingest.sharded.answer import decode_answer
    from rhumbline.stores.source_blobs import S3Blobs

    resource.setrlimit(resource.RLIMIT_AS, (scale.RESOLVE_CAP_BYTES, scale.RESOLVE_CAP_BYTES))
    # The finish function's memory, as Lambda states it: the language groups fork beside this
    # process only as far as they would there (ingest/groups.py), and what forks is counted below.
    os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = str(scale.FINISH_MB)
    lanes: list[int] = []
    chosen = groups.forked_lanes

    def counted(*args: Any, **options: Any) -> int:
        lanes.append(chosen(*args, **options))
        return lanes[-1]

    groups.forked_lanes = counted
    at_write: dict[str, float] = {}

    def cpu() -> float:  # this process's and its reaped children's: the groups resolved beside it
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def rss_mb() -> float:
        """This process's peak, plus its largest child's if a group forked (an upper bound: a
        child's peak counts the pages it shares). Only then: a git subprocess started early has
        its parent's pages counted too."""
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if any(lanes) else 0.0
        return scale.status_mb("VmHWM") + children

    def before_write() -> None:
        at_write.update(rss_before_write_mb=rss_mb(), cpu_before_write=cpu())

    uploaded = {row[3] for row, _ in decode_answer(facts.read_bytes()) if row[0] == "file"}  # every copy's
    figures = run_one(
        "scale", None, neo4j_uri, writers, tx_rows, tree=root, parse=scale.answer_reader(facts),
        before_write=before_write, exclude=scale.other_copies(root, copies), history=False,
        blobs=S3Blobs("bench-contents-stored-by-the-workers"), uploaded=uploaded,
    )  # fmt: skip
    del uploaded
    print(json.dumps({
        "copies": copies, "files": figures["files"], "lines": figures["lines"], "nodes": figures["nodes"],
        "edges": figures["edges"], "seconds": figures["seconds"], "phases": figures["phases"], **at_write,
        "cpu": cpu(), "rss_mb": rss_mb(),
        "store": "neo4j" if neo4j_uri else "sqlite", "writers": figures["writers"], "tx_rows": figures["tx_rows"],
        "centrality_s": figures["phases"].get("centrality", 0.0), "write_client_cpu_s": figures["write_client_cpu_s"] or 0.0,
    }))  # fmt: skip


def scale_tree_child(mode: str, tree: Path, workers: int, cap_mb: int) -> None:
    """One ingest of `tree` in this process, its figures printed as JSON: `sharded`, the product's
    local choice by size (pipeline._by_size) with its shard plan on the capped pool
    (scale.CappedPool), or `single`, the single reader whatever the size."""
    from harness.scale import CappedPool, status_mb
    from rhumbline.ingest.discover.parallel import read_all_encoded
    from rhumbline.ingest.sharded.executors import ShardedReader, by_size

    if mode == "single":
        print(json.dumps(run_one(mode, workers, tree=tree, parse=read_all_encoded)))
        return
    pool = CappedPool(cap_mb)
    at_write: dict[str, float] = {}

    def before_write() -> None:
        at_write["finish_peak_mb"] = status_mb("VmHWM")

    figures = run_one(mode, workers, tree=tree, parse=by_size(ShardedReader(executor=pool)), before_write=before_write)
    if not pool.shards and not pool.failures:
        raise SystemExit(f"{tree} has too few bytes to parse for the shard plan: the product reads it in one process")
    print(json.dumps({
        **figures, **at_write, "shard_figures": pool.shards, "failures": pool.failures,
        "parse_peak_mb": pool.parse_peak_mb, "peak_rss_mb": max(pool.parse_peak_mb, status_mb("VmHWM")),
    }))  # fmt: skip


def _scale_tree_run(mode: str, tree: Path, workers: int, cap_mb: int) -> dict:
    command = [sys.executable, __file__, "--scale-tree-child", mode, str(tree), "--shard-workers", str(workers),
               "--worker-cap-mb", str(cap_mb)]  # fmt: skip
    return dict(json.loads(subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout))


def scale_tree_main(spec: str, workers: int, cap_mb: int) -> None:
    tree = corpus.tree(spec)
    mb = 1024 * 1024
    print(f"{tree}\n{uptime()}")
    sharded = _scale_tree_run("sharded", tree, workers, cap_mb)
    shards = sorted(sharded["shard_figures"], key=lambda shard: shard["shard"])
    print(f"\nsharded: {len(shards) + len(sharded['failures'])} shards on {workers} workers, each capped at {cap_mb} MB"
          f" of address space")  # fmt: skip
    print(f"{'shard':>6}{'files':>7}{'MB':>6}{'wall s':>8}{'cpu s':>7}{'RSS MB':>8}{'VM MB':>8}{'answer MB':>10}{'pid':>9}")
    for shard in shards:
        print(f"{shard['shard']:>6}{shard['files']:>7}{shard['bytes'] / mb:>6.1f}{shard['wall']:>8.2f}{shard['cpu']:>7.2f}"
              f"{shard['rss_mb']:>8.0f}{shard['vm_peak_mb']:>8.0f}{shard['answer_bytes'] / mb:>10.2f}{shard['pid']:>9}")  # fmt: skip
    for name, unit in (("wall", "s"), ("cpu", "s"), ("rss_mb", "MB"), ("vm_peak_mb", "MB")):
        values = [shard[name] for shard in shards]
        print(f"  {name:<11} median {median(values):>8.2f} {unit}, max {max(values):>8.2f} {unit}")
    largest = max(shards, key=lambda shard: shard["rss_mb"]) if shards else None
    if largest is not None:
        print(f"  against the {cap_mb} MB cap: the largest peak RSS {largest['rss_mb']:.0f} MB (shard {largest['shard']},"
              f" {largest['files']} files, {largest['bytes'] / mb:.1f} MB), the largest address space"
              f" {max(shard['vm_peak_mb'] for shard in shards):.0f} MB")  # fmt: skip
    print(f"  failures: {len(sharded['failures'])}")
    for failure in sharded["failures"]:
        print(f"    {failure['shard']}{', ' + failure['file'] if 'file' in failure else ''}: {failure['error']}")
    phases = sharded["phases"]
    print(f"  the ingest process: parse {phases['parse']} s (peak RSS {sharded['parse_peak_mb']:.0f} MB, the answers"
          f" decoded), resolution {phases['resolve']} s (peak RSS from the last answer to the graph write"
          f" {sharded['finish_peak_mb']:.0f} MB), whole ingest {sharded['seconds']} s, peak RSS"
          f" {sharded['peak_rss_mb']:.0f} MB, CPU with its workers {sharded['cpu_s']} s; phases {phases}")  # fmt: skip
    print(f"  {uptime()}")
    single = _scale_tree_run("single", tree, workers, cap_mb)
    print(f"\nsingle reader ({workers} parser processes): whole ingest {single['seconds']} s, peak RSS"
          f" {single['peak_rss_mb']} MB (its largest parser {single['peak_worker_rss_mb']} MB), CPU {single['cpu_s']} s;"
          f" phases {single['phases']}")  # fmt: skip
    print(f"  {uptime()}")
    print(f"\n{'':<10}{'files':>8}{'nodes':>10}{'edges':>10}{'failed files':>14}")
    for name, figures in (("sharded", sharded), ("single", single)):
        print(f"{name:<10}{figures['files']:>8}{figures['nodes']:>10}{figures['edges']:>10}{figures['failure_count']:>14}")
    keys = ("files", "nodes", "edges", "nodes_by_kind", "edges_by_relation")
    same = all(sharded[key] == single[key] for key in keys)
    print(f"{'SAME' if same else 'DIFFERENT'}: files, nodes and edges (and their counts by kind and relation)")
    if not same or sharded["failures"]:
        raise SystemExit(1)


def floor_child(target: str) -> None:
    from harness.parse_floor import parse_floor

    print(json.dumps(parse_floor(corpus.tree(target))))


def _tree_cpu_ms(pid: int) -> float:
    """CPU a process and its reaped children (the ingest's parser workers) have used, in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def floor_main(target: str, rounds: int, against: str | None) -> None:
    """The target through the MCP ingest tool (of this checkout, and of `against`), and its
    tree-sitter parse, alternated round by round."""
    tree = corpus.tree(target)
    project = "bench/floor"
    with ExitStack() as stack:
        variants = [this_checkout()] + ([stack.enter_context(checkout(against))] if against else [])
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rhumbline-floor-")))
        servers = []
        for variant in variants:
            # The tool's own timeout does not apply to a measurement on a shared machine.
            env = variant.env(scratch / variant.name, RHUMBLINE_INGEST_ROOTS=str(tree), RHUMBLINE_TOOL_TIMEOUT="600")
            servers.append((variant.name, stack.enter_context(stdio_server(env))))
        print(legend(variants))
        print(f"{tree}: the MCP `ingest` tool of `rhumbline mcp` (full: first, then clear) vs tree-sitter parsing")
        print(
            f"{'round':<6}{'checkout':<16}{'files':>6}{'parse s':>9}{'cpu s':>7}{'ingest s':>10}{'cpu s':>7}"
            f"{'x wall':>8}{'x cpu':>7}  load"
        )
        found: dict[str, list[tuple[dict, dict]]] = {name: [] for name, _ in servers}
        for number in range(rounds):
            order = servers if number % 2 == 0 else servers[::-1]
            for name, server in order:
                parse = json.loads(subprocess.run(
                    [sys.executable, __file__, "--floor-child", target], check=True, capture_output=True, text=True,
                ).stdout)  # fmt: skip
                arguments = {"path": str(tree), "project": project, "clear": number > 0}
                cpu = _tree_cpu_ms(server.pid)
                seconds, _ = server.call("ingest", arguments)
                ingest = {"s": seconds, "cpu": (_tree_cpu_ms(server.pid) - cpu) / 1000}
                found[name].append((parse, ingest))
                print(
                    f"{number + 1:<6}{name[:15]:<16}{parse['files']:>6}{parse['s']:>9.2f}{parse['cpu']:>7.2f}"
                    f"{ingest['s']:>10.2f}{ingest['cpu']:>7.2f}{ingest['s'] / parse['s']:>8.2f}"
                    f"{ingest['cpu'] / parse['cpu']:>7.2f}  {os.getloadavg()[0]:.2f}"
                )
    for name, rows in found.items():
        parse_s, parse_cpu = median([p["s"] for p, _ in rows]), median([p["cpu"] for p, _ in rows])
        ingest_s, ingest_cpu = median([i["s"] for _, i in rows]), median([i["cpu"] for _, i in rows])
        print(
            f"{name}: medians over {rounds}: parse {parse_s:.2f} s ({parse_cpu:.2f} CPU s), ingest {ingest_s:.2f} s"
            f" ({ingest_cpu:.2f} CPU s): the ingest is {ingest_s / parse_s:.2f}x the parse in wall time,"
            f" {ingest_cpu / parse_cpu:.2f}x in CPU"
        )
    print(uptime())


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
        " RHUMBLINE_TEST_NEO4J_PASSWORD); with --incremental, also the scenario on Neo4j; with --scale, the"
        " finish step's graph write",
    )  # fmt: skip
    parser.add_argument("--neo4j-writers", type=int, metavar="N",
                        help="with --neo4j: concurrent transactions of the staged write (default: the store's),"
                             " with --scale the measured finish step's")
    parser.add_argument("--neo4j-tx-rows", type=int, metavar="N",
                        help="with --neo4j: rows per transaction of the staged write (default: the store's; a"
                             " target with fewer than writers times as many records gives some writers nothing)")
    parser.add_argument("--incremental-child", choices=["sqlite", "neo4j"], help=argparse.SUPPRESS)
    parser.add_argument("--against", metavar="REF", help="this checkout and REF alternated (full, no-change, one-file)")
    parser.add_argument("--floor", action="store_true", help="the MCP ingest tool vs tree-sitter parsing the same files")
    parser.add_argument("--floor-child", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, help="--against (default 5), --floor (default 3): rounds")
    parser.add_argument("--target", default="django", help="--against, --floor: django, django-sdist, requests or a directory")
    parser.add_argument(
        "--compare", action="append", default=[], metavar="TOOL",
        help="also run another tool on each target: a known name (cgc, cgr), auto, or a command with {path}",
    )  # fmt: skip
    parser.add_argument("--compare-timeout", type=float, default=rivals.DEFAULT_TIMEOUT_S,
                        help="seconds before a compared tool is stopped (default 600)")  # fmt: skip
    parser.add_argument(
        "--callgraph", nargs="*", metavar="PROJECT",
        help="call-graph precision/recall against the language's resolver (default: the declared sets)",
    )  # fmt: skip
    parser.add_argument("--language", default="python", choices=["python", "go", "java", "typescript"],
                        help="with --callgraph: the language whose sets are scored (default python)")  # fmt: skip
    parser.add_argument("--set", dest="callgraph_set", default="all", choices=["dev", "held-out", "all"],
                        help="with --callgraph: which declared set (default: both)")  # fmt: skip
    parser.add_argument("--callgraph-report", type=Path, metavar="FILE",
                        help="with --callgraph: write every wrong and missed site to FILE (JSON)")  # fmt: skip
    parser.add_argument("--scale", type=Path, metavar="DIR", help="the shard plan on a synthetic monorepo built in DIR")
    parser.add_argument("--lines", type=float, default=30e6, help="--scale: the tree's lines (default 30M)")
    parser.add_argument("--sample", type=int, default=16, help="--scale: shards measured (default 16)")
    parser.add_argument("--worker-cap-mb", type=int, default=1536,
                        help="--scale, --scale-tree: each worker's address space cap in MB (default 1536)")
    parser.add_argument("--resolve-copies", default="1,2", help="--scale: copies resolved, for the fit (default 1,2)")
    defaults = Model()
    parser.add_argument("--write-cpu-ms", type=float, default=defaults.write_cpu_ms_per_record,
                        help="--scale: the Neo4j server's CPU ms per node or edge of the staged write, one writer"
                             " (measured: `--only django --neo4j URI --neo4j-writers 1`)")  # fmt: skip
    parser.add_argument("--write-efficiency", type=float, default=defaults.write_efficiency,
                        help="--scale: the server's CPU per record with one writer over that with two (measured)")
    parser.add_argument("--neo4j-cores", type=int, default=defaults.neo4j_cores,
                        help="--scale: the hosted Neo4j server's cores (stated)")
    parser.add_argument("--hosted-writers", type=int, default=defaults.neo4j_writers,
                        help="--scale: the hosted finish function's Neo4jWriters, in the model (stated; the"
                             " development server's writers, --neo4j-writers, say nothing of it)")
    parser.add_argument("--scale-tree", metavar="PATH",
                        help="a real tree's shard plan on the capped local pool, against one process (a directory,"
                             " a corpus name, or REGISTRY:NAME@VERSION, e.g. go:k8s.io/kubernetes@v1.34.0)")
    parser.add_argument("--shard-workers", type=int, default=2, help="--scale-tree: concurrent shard workers (default 2)")
    parser.add_argument("--scale-tree-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--scale-worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--scale-resolve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scale_worker is not None:
        from harness.scale import worker_child

        worker_child(args.scale_worker)
        return
    if args.scale_resolve is not None:
        root, copies, facts = args.scale_resolve
        scale_resolve_child(Path(root), int(copies), Path(facts), args.neo4j, args.neo4j_writers, args.neo4j_tx_rows)
        return
    if args.scale_tree_child is not None:
        mode, root = args.scale_tree_child
        scale_tree_child(mode, Path(root), args.shard_workers, args.worker_cap_mb)
        return
    if args.scale_tree is not None:
        if args.shard_workers < 2:
            parser.error("--shard-workers: at least 2 (the cap applies to pool workers, never to the ingest's process)")
        scale_tree_main(args.scale_tree, args.shard_workers, args.worker_cap_mb)
        return
    if args.scale is not None:
        model = replace(
            defaults, write_cpu_ms_per_record=args.write_cpu_ms, write_efficiency=args.write_efficiency,
            neo4j_cores=args.neo4j_cores, neo4j_writers=args.hosted_writers,
        )  # fmt: skip
        scale_main(args.scale, args.lines, args.sample, args.worker_cap_mb,
                   [int(part) for part in args.resolve_copies.split(",")], args.workers or 2, model,
                   args.neo4j, args.neo4j_writers, args.neo4j_tx_rows)  # fmt: skip
        return
    if args.callgraph is not None:
        from harness import callgraph, callgraph_sets

        declared = {p.name for p in callgraph_sets.projects(args.language, args.callgraph_set)}
        legacy = set(callgraph.PROJECTS) - declared if args.language == "python" else set()
        unknown = sorted(set(args.callgraph) - declared - legacy)
        if unknown:
            parser.error(f"--callgraph: unknown project(s) {unknown}; known: {sorted(declared | legacy)}")
        if args.callgraph and set(args.callgraph) <= legacy:
            callgraph.run(args.callgraph, args.callgraph_report)
        else:
            callgraph.run_sets(args.language, args.callgraph_set, args.callgraph, args.callgraph_report)
        print(uptime())
        return
    try:
        tools = [tool for spec in args.compare for tool in rivals.commands(spec)]
    except ValueError as error:
        parser.error(str(error))
    if args.child:
        print(json.dumps(run_one(args.child, args.workers, args.neo4j, args.neo4j_writers, args.neo4j_tx_rows)))
        return
    if args.incremental_child:
        print(json.dumps(run_incremental(args.incremental_child, args.neo4j, args.workers)))
        return
    if args.floor_child:
        floor_child(args.floor_child)
        return
    if args.floor:
        floor_main(args.target, args.rounds or 3, args.against)
        return
    if args.against and not args.floor:
        against_main(args.against, args.target, args.rounds or 5, args.workers)
        return
    if args.incremental:
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
        if args.neo4j_writers is not None:
            command += ["--neo4j-writers", str(args.neo4j_writers)]
        if args.neo4j_tx_rows is not None:
            command += ["--neo4j-tx-rows", str(args.neo4j_tx_rows)]
        figures = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        print(
            f"{target:<8}{figures['files']:>7}{figures['python_files']:>6}{figures['python_loc']:>9}"
            f"{figures['nodes']:>8}{figures['edges']:>9}{figures['seconds']:>7}{figures['cpu_s']:>7}"
            f"{figures['own_cpu_s']:>6}{figures['files_per_s']:>9}"
            f"{figures['peak_rss_mb']:>8}{figures['peak_worker_rss_mb']:>8}  {figures['phases']}"
        )
        if figures["server_cpu_s"] is not None:
            records, store_s = figures["nodes"] + figures["edges"], figures["phases"]["store"]
            write_s, write_cpu = figures["write_s"], figures["write_server_cpu_s"]
            print(
                f"{'':<8}store phase (with the write's idle reads): {records / store_s:,.0f} records/s; Neo4j server"
                f" CPU during the ingest"
                f" {figures['server_cpu_s']} s, {1000 * figures['server_cpu_s'] / records:.3f} ms per record"
                f" (its whole process: other clients count too)\n"
                f"{'':<8}the graph write ({figures['writers']} writers, {figures['tx_rows']:,} rows a transaction):"
                f" {write_s} s, {records / write_s:,.0f} records/s;"
                f" server CPU {write_cpu} s, {1000 * write_cpu / records:.3f} ms per record (this process"
                f" {figures['write_client_cpu_s']} s), {figures['retries']} transactions retried\n"
                f"{'':<8}the server's CPU at its rate just before and after the write, without it:"
                f" {figures['write_server_idle_cpu_s']} s; the write's net of that:"
                f" {1000 * (write_cpu - figures['write_server_idle_cpu_s']) / records:.3f} ms per record; {uptime()}"
            )
        for name, template in tools:
            print_comparison(rivals.run(name, template, corpus.tree(TARGETS[target]), args.compare_timeout), figures)
    if "auto" in args.compare and not rivals.commands("auto"):
        print("--compare auto: none of the known tools (" + ", ".join(rivals.KNOWN_TOOLS) + ") is on PATH")


def print_comparison(found: "rivals.Comparison", ours: dict) -> None:
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

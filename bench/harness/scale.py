"""The shard plan at monorepo scale: a synthetic tree of copies of the corpus, its parse workers
measured one shard at a time under a memory cap, the finish step's memory on growing parts of the
tree, and the hosted wall time those figures give for a fleet of concurrent workers.

The tree is `copy-NN/<corpus tree>` for as many copies as reach the target lines, each file a
hard link into bench/.corpus (the ingest reads them as the regular files they are). Every measured
worker parses its whole shard (a first ingest). Copies have the same bytes, so one copy is parsed
for the finish step: its rows and facts are saved as one answer, and the finish step's ingest
(the whole of ingest_local: resolution, the plan, the facts cache, the files' contents beside the
snapshot, the snapshot, the graph write and centrality) reads every copy's files from it as the
hosted finish function reads the shards' answers, decoding the facts once per path, as a tree of
distinct files would.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.corpus import CORPUS

if TYPE_CHECKING:
    from rhumbline.ingest.discover.parallel import Encoded, Parse
    from rhumbline.ingest.sharded.executors import Answer, Run, Task, Work

# The corpus trees copied: every language of the corpus, nothing that is only an archive.
# A finish step measured here stays within what a shared machine can give one process.
RESOLVE_CAP_BYTES = 12 * 1024**3
FINISH_MB = 10 * 1024  # the hosted finish function's memory
SOURCES = ("go", "java", "typescript", "rust", "Django-5.1", "pygments-2.18.0", "docutils-0.21.2")


@dataclass(frozen=True)
class Model:
    """What the hosted wall time is made of besides the figures measured in the run: stated
    assumptions, and the staged Neo4j write's costs measured apart (`ingest.py --only django
    --neo4j URI --neo4j-writers N`).

    The staged write takes `records × write_cpu_ms_per_record` of the Neo4j server's CPU, spread
    over the cores its concurrent transactions can use, min(neo4j_writers, neo4j_cores), each core
    giving `write_efficiency` of a lone writer's rate once two or more run (locks and shared index
    pages cost CPU that one writer does not spend). The client builds and sends every row in one
    interpreter, its writers sharing one lock: the write takes at least the client's own CPU for
    it (measured in the run), however many cores the server has."""

    workers: int = 100  # the Map's concurrency
    s3_mb_per_s: float = 50.0  # one function's S3 throughput (one stream)
    s3_request_ms: float = 20.0  # one S3 request's latency, besides its bytes at s3_mb_per_s
    # A worker's requests, whatever its shard's file count: one ranged GET of its span of the
    # tree, its answer's PUT and the answer's copy under its shard key (test_ingest_request_budget.py).
    worker_requests: int = 3
    # A worker also stores its files' contents where the deployment keeps them in a bucket
    # (distributed/contents.py): one PUT a file, this many in flight (source_blobs.UPLOAD_THREADS).
    contents_put_concurrency: int = 16
    finish_get_concurrency: int = 32  # parallel GETs when finish reads the answers (finish.py)
    # Measured: the Neo4j server's CPU per node or edge a staged write creates, one writer
    # (django/ into the test Neo4j 5.26: the median of repeated runs).
    write_cpu_ms_per_record: float = 0.13
    # Measured: one writer's CPU per record over the CPU per record with two writers (net of the
    # server's CPU without the write). Beyond two it is assumed to hold: no more was measured.
    write_efficiency: float = 0.89
    neo4j_cores: int = 8  # stated: the Neo4j server's cores, all of them the write's
    neo4j_writers: int = 8  # stated: RHUMBLINE_NEO4J_WRITERS (Neo4jWriters) of the finish function
    map_start_s: float = 5.0  # the Distributed Map's start and a cold worker's

    def write_seconds(self, records: float, client_cpu_s: float = 0.0) -> float:
        """The staged write of `records` nodes and edges, the client spending `client_cpu_s` of
        its own CPU on it: the server's share or the client's, whichever is longer."""
        parallel = min(self.neo4j_writers, self.neo4j_cores)
        efficiency = self.write_efficiency if parallel > 1 else 1.0
        return max(records * self.write_cpu_ms_per_record / 1000 / parallel / efficiency, client_cpu_s)

    def cores_for(self, records: float, seconds: float, client_cpu_s: float = 0.0) -> int | None:
        """The fewest server cores (and writers) that write `records` within `seconds`; None
        when the client's own CPU for the write (`client_cpu_s`) is longer: no server is enough."""
        if client_cpu_s > seconds:
            return None
        cpu = records * self.write_cpu_ms_per_record / 1000
        if cpu <= seconds:
            return 1
        return math.ceil(cpu / seconds / self.write_efficiency)


def build_tree(destination: Path, copies: int) -> Path:
    """`copies` copies of SOURCES under `destination` (hard links; an existing copy is kept)."""
    destination.mkdir(parents=True, exist_ok=True)
    for number in range(copies):
        copy = destination / f"copy-{number:02d}"
        if copy.exists():
            continue
        partial = destination / f".partial-{number:02d}"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        for name in SOURCES:
            source = (CORPUS / name).resolve()
            if not source.is_dir():
                raise SystemExit(f"{source} is missing: fetch the corpus first (bench/zoo.py, bench/callgraph)")
            subprocess.run(["cp", "-al", str(source), str(partial / name)], check=True)
        partial.rename(copy)
    return destination


def counted(root: Path) -> dict[str, int]:
    """Files, bytes and lines of the files an ingest would parse (a language with an extractor)."""
    from rhumbline.ingest.discover.read import line_count
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.languages import has_extractor, language_of

    totals = {"files": 0, "parsed_files": 0, "bytes": 0, "lines": 0}
    for path in discover(root).paths:
        totals["files"] += 1
        language = language_of(path)
        if language is None or not has_extractor(language):
            continue
        data = (root / path).read_bytes()
        totals["parsed_files"] += 1
        totals["bytes"] += len(data)
        totals["lines"] += line_count(data)
    return totals


def planned(root: Path) -> dict[str, Any]:
    """The plan step's listing, sharding and shard keys (every file hashed: the tree is no git
    work tree, as a fetched archive is not) of the whole tree, timed."""
    from rhumbline.ingest.discover.parallel import size_of
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.sharded.content_ids import content_ids
    from rhumbline.ingest.sharded.layout import plan_shards

    started = time.perf_counter()
    paths = discover(root).paths
    sizes = [size_of(str(root / path)) or 0 for path in paths]
    shards = plan_shards(paths, sizes)
    content_ids(root, paths)
    seconds = time.perf_counter() - started
    return {
        "paths": paths, "shards": [[paths[index] for index in shard] for shard in shards],
        "bytes": sum(sizes), "seconds": seconds,
    }  # fmt: skip


def sample(count: int, total: int) -> list[int]:
    """`count` shard numbers spread evenly over `total`."""
    if count >= total:
        return list(range(total))
    return sorted({round(index * (total - 1) / (count - 1)) for index in range(count)}) if count > 1 else [0]


def worker_child(cap_mb: int) -> None:
    """One shard's parse in this process (the task on stdin), its address space capped like a
    function's memory; prints the parse's wall time and the answer's size."""
    cap = cap_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from rhumbline.ingest.sharded.answer import decode_answer
    from rhumbline.ingest.sharded.worker import parse_shard

    task = json.loads(sys.stdin.read())
    started = time.perf_counter()
    answer = parse_shard(task)
    seconds = time.perf_counter() - started
    parsed = decode_answer(answer)
    print(json.dumps({
        "seconds": seconds, "files": len(parsed), "answer_bytes": len(answer),
        "facts_blobs": sum(1 for _, blob in parsed if blob is not None),
        "skipped": sum(1 for row, _ in parsed if row[0] == "skipped"), "own_rss_mb": _high_water_mb(),
    }))  # fmt: skip


def _high_water_mb() -> float:
    """This process's peak RSS since its exec (VmHWM): wait4's ru_maxrss also counts the parent's
    pages the child held between fork and exec, so it bounds the worker's peak from above."""
    return status_mb("VmHWM")


def status_mb(field: str, status: str | None = None) -> float:
    """A memory figure of /proc/self/status (VmHWM: peak RSS, VmPeak: peak address space, the
    figure RLIMIT_AS bounds) in MB; NaN where the kernel gives none."""
    text = Path("/proc/self/status").read_text() if status is None else status
    for line in text.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_high_water() -> None:
    """Start this process's peak RSS (VmHWM) again from its current RSS, so the next reading is
    the peak of what runs in between."""
    Path("/proc/self/clear_refs").write_text("5")


@dataclass
class CappedPool:
    """The product's local process pool (sharded/executors.py, local_pool) as ShardedReader's
    executor, each worker's address space capped like a function's memory (RLIMIT_AS) and each
    shard's figures taken in its worker: wall, CPU, peak RSS and address space, answer bytes.
    A shard that fails in its worker is recorded, then handed on as ever (the reader retries it
    in the ingest's process, uncapped), and so is a file whose extractor raised in it
    (extraction_failures: the shard answers without the file). The ingest process's own peak RSS is read and started
    again when the last answer is in: what it holds parsing apart from what resolution needs."""

    cap_mb: int
    shards: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    parse_peak_mb: float = 0.0  # the ingest process's peak RSS up to the last answer

    @contextmanager
    def __call__(self, workers: int) -> Iterator[Run]:
        from rhumbline.ingest.sharded.executors import local_pool
        from rhumbline.ingest.sharded.layout import described

        with local_pool(workers) as pooled:

            def run(work: Work, tasks: Sequence[Task]) -> Iterator[tuple[int, Answer | BaseException]]:
                capped = partial(capped_shard, self.cap_mb * 1024 * 1024, os.getpid(), work)
                for number, outcome in pooled(capped, tasks):
                    paths = tasks[number]["paths"]
                    if isinstance(outcome, BaseException):
                        named = described(number, len(paths), paths[0], paths[-1])
                        self.failures.append({"shard": named, "error": repr(outcome)})
                        yield number, outcome
                        continue
                    answer, figures = outcome
                    self.shards.append({"shard": number, **figures})
                    for path, error in figures["extraction_failures"]:
                        named = described(number, len(paths), paths[0], paths[-1])
                        self.failures.append({"shard": named, "file": path, "error": f"its extractor raised {error}"})
                    yield number, answer
                self.parse_peak_mb = status_mb("VmHWM")
                reset_high_water()

            yield run


def capped_shard(cap: int, parent: int, work: Work, task: Task) -> tuple[Answer, dict[str, Any]]:
    """`work(task)` in a pool worker under an address-space cap of `cap` bytes, with its figures."""
    from rhumbline.ingest.discover.parallel import size_of

    if os.getpid() == parent:  # no pool (one worker, or none can be made): never cap the ingest itself
        raise RuntimeError("a capped shard runs in a pool worker, not in the ingest's process")
    if resource.getrlimit(resource.RLIMIT_AS) != (cap, cap):
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    reset_high_water()
    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    answer = work(task)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    status = Path("/proc/self/status").read_text()
    root = task["root"]
    return answer, {
        "files": len(task["paths"]), "bytes": sum(size_of(os.path.join(root, p)) or 0 for p in task["paths"]),
        "wall": wall, "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
        "rss_mb": status_mb("VmHWM", status), "vm_peak_mb": status_mb("VmPeak", status),
        "answer_bytes": len(answer), "pid": os.getpid(), "extraction_failures": extraction_failures(answer),
    }  # fmt: skip


def extraction_failures(answer: Answer) -> list[tuple[str, str]]:
    """The files of a shard's answer whose extractor raised, with the error. The parse answers
    such a file as skipped (extraction failed) rather than failing the shard, so a worker that
    reaches its cap inside an extractor (a MemoryError, or a parser library that cannot be mapped)
    answers a file short: told here, to be compared with the uncapped ingest's failures."""
    from rhumbline.ingest.discover.skiprules import EXTRACTION_FAILED
    from rhumbline.ingest.sharded.answer import decode_answer

    return [(row[1], str(row[3])) for row, _ in decode_answer(answer) if row[0] == "skipped" and row[2] == EXTRACTION_FAILED]


def measure_shard(script: str, root: Path, paths: list[str], cap_mb: int) -> dict[str, Any]:
    """A shard parsed in a fresh process: its answer's figures, the process's CPU and peak RSS
    (wait4's rusage), and the process's wall time."""
    with tempfile.TemporaryFile() as out:
        task = {"root": str(root), "paths": paths}
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, script, "--scale-worker", str(cap_mb)], stdin=subprocess.PIPE, stdout=out,
        )  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(json.dumps(task).encode())
        process.stdin.close()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            return {"failed": process.returncode, "rss_mb": usage.ru_maxrss / 1024, "files": len(paths)}
        out.seek(0)
        found = json.loads(out.read())
    shard_bytes = sum((root / path).stat().st_size for path in paths)
    return {
        **found, "bytes": shard_bytes, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
    }  # fmt: skip


def other_copies(root: Path, copies: int) -> list[str]:
    """Exclude patterns leaving the first `copies` copies of the tree."""
    names = sorted(path.name for path in root.iterdir() if path.name.startswith("copy-"))
    return [f"/{name}/" for name in names[copies:]]


def answer_reader(facts: Path) -> Parse:
    """Phase 1's parse reading each file's row and facts from one copy's answer (warm_facts) for
    every copy, as the finish step reads the shards' answers."""
    from rhumbline.ingest.sharded.answer import decode_answer
    from rhumbline.ingest.sharded.executors import outcome_of

    one = {row[1]: (row, blob) for row, blob in decode_answer(facts.read_bytes())}

    def reader(root: Path, paths: Sequence[str], **_: Any) -> list[Encoded]:
        answered = [(path, one[path.partition("/")[2]]) for path in paths]  # copy-NN/<path in the copy>
        return [outcome_of([row[0], path, *row[2:]], blob, str(root)) for path, (row, blob) in answered]

    return reader


def warm_facts(root: Path, facts: Path, workers: int) -> float:
    """One copy parsed by the shard plan (every copy has the same bytes), its rows and facts
    written to `facts` as one answer: seconds taken."""
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.facts import SkippedFile
    from rhumbline.ingest.sharded.answer import encode_answer
    from rhumbline.ingest.sharded.executors import ShardedReader
    from rhumbline.ingest.sharded.worker import file_row, skipped_row

    copy = root / "copy-00"
    started = time.perf_counter()
    parsed = ShardedReader()(copy, discover(copy).paths, workers=workers)
    rows = [(skipped_row(o) if isinstance(o, SkippedFile) else file_row(o), blob) for o, blob in parsed]
    facts.write_bytes(encode_answer(rows))
    return time.perf_counter() - started


def measure_resolution(script: str, root: Path, copies: int, facts: Path, store: Sequence[str] = ()) -> dict[str, Any]:
    """The finish step on the first `copies` copies in a fresh process (`script --scale-resolve`,
    `store`: its graph store's options, SQLite without any): its figures."""
    done = subprocess.run(
        [sys.executable, script, "--scale-resolve", str(root), str(copies), str(facts), *store],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return dict(json.loads(done.stdout))


def fitted(resolved: Sequence[dict[str, Any]], names: Sequence[str], copies: int) -> dict[str, tuple[float, float, float]]:
    """Each named figure of the measured finish steps fitted by copies: (intercept, slope, its
    value at `copies`: the one measured there when a finish step ran on that many copies, else the
    line's)."""
    measured = {figures["copies"]: figures for figures in resolved}
    found = {}
    for name in names:
        intercept, slope = fit([(figures["copies"], figures[name]) for figures in resolved])
        value = measured[copies][name] if copies in measured else intercept + slope * copies
        found[name] = (intercept, slope, value)
    return found


def finish_within(fits: dict[str, tuple[float, float, float]]) -> bool:
    """Whether the finish step's whole peak RSS, fitted (`fitted`), fits the finish function."""
    return fits["rss_mb"][2] <= FINISH_MB


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares line (intercept, slope) through the points."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    if len(points) == 1:
        return 0.0, ys[0] / xs[0]
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, slope


def modelled(
    shards: int, per_shard: list[dict[str, Any]], plan_s: float, tree_bytes: int, resolve_s: float,
    records: float, answers_bytes: float, model: Model, time_key: str = "wall", write_client_cpu_s: float = 0.0,
) -> dict[str, float]:
    """The hosted wall time (seconds) of the state machine's steps, from the measured figures:
    the plan (listing and sharding measured here; the tree's one upload at the stated bandwidth),
    the Map (waves of `workers` shards, each the slowest measured shard's parse plus its span in,
    its files' contents out, one PUT a file, the largest answer out and its few requests), and
    finish (the tree and the answers in, one
    GET a shard with `finish_get_concurrency` in flight, `resolve_s`: the finish step's measured
    CPU up to the graph write and centrality's seconds after it, the staged write
    from the server's CPU per record and cores, or the client's measured CPU for it
    (`write_client_cpu_s`) if longer: Model). `time_key`: a shard's measured time, its
    process's wall ("wall") or CPU ("cpu": what an idle core gives)."""
    mb = 1024 * 1024

    def own(shard: dict[str, Any]) -> float:  # its parse, its span in and its contents out
        puts = -(-shard["files"] // model.contents_put_concurrency) * model.s3_request_ms / 1000
        return shard[time_key] + 2 * shard["bytes"] / mb / model.s3_mb_per_s + puts

    worker = (
        max(map(own, per_shard)) + max(shard["answer_bytes"] for shard in per_shard) / mb / model.s3_mb_per_s
        + model.worker_requests * model.s3_request_ms / 1000
    )  # fmt: skip
    waves = -(-shards // model.workers)
    plan = plan_s + tree_bytes / mb / model.s3_mb_per_s  # the tree, the shards' spans in it
    finish_in = (
        tree_bytes / mb / model.s3_mb_per_s + answers_bytes / mb / model.s3_mb_per_s
        + -(-shards // model.finish_get_concurrency) * model.s3_request_ms / 1000
    )  # fmt: skip
    write = model.write_seconds(records, write_client_cpu_s)
    steps = {
        "plan": plan, "map": model.map_start_s + waves * worker, "finish_transfer": finish_in,
        "resolution": resolve_s, "write": write,
    }  # fmt: skip
    return {**steps, "worker": worker, "waves": waves, "total": sum(steps.values())}

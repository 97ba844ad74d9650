"""The ingest as a plan of shards builds exactly the graph the single reader builds.

The tree is every language fixture (Python, Go, Rust, Java, TypeScript, C, PHP, Ruby, ...), cut
into shards of 1.5 kB so directories are kept whole and big ones cut; the shards run on a real
process pool and hand their facts back in one answer each. Compared: the built graph, what the
store holds after a full ingest on both backends, the version's snapshot and the facts cache; then
a `clear` rebuild through the plan leaves the same graph.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.ingest import groups
from rhumbline.ingest.build import build_graph
from rhumbline.ingest.discover.parallel import read_all_encoded
from rhumbline.ingest.facts import SkippedFile
from rhumbline.ingest.facts_codec import decode_facts
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.ingest.sharded.executors import ShardedReader, ShardFailed, by_size, in_process, local_pool
from rhumbline.ingest.sharded.layout import plan_shards
from rhumbline.ingest.sharded import executors
from rhumbline.ingest.snapshots import storage
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.graph_dump import dump
from tests.functional.ingest.test_ingest_identity import expected_graph, without_call_order

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
SHARD_BYTES = 1_500  # the fixtures' 80 files hold ~20 kB: a dozen shards and more, directories cut


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return shutil.copytree(FIXTURES, tmp_path / "polyglot")


def sharded(**options: object) -> ShardedReader:
    return ShardedReader(max_bytes=SHARD_BYTES, **options)  # type: ignore[arg-type]


def test_the_sharded_plan_builds_the_single_readers_graph(tree: Path, tmp_path: Path, unique_project: str) -> None:
    # A build copy of a fixture: its verdict needs the tree, which a shard's worker reads too.
    (tree / "ts_calls" / "out").mkdir()
    (tree / "ts_calls" / "out" / "top.js").write_text("function top() {}\n//# sourceMappingURL=top.js.map\n")
    (tree / "ts_calls" / "out" / "top.js.map").write_text(json.dumps({"version": 3, "sources": ["../src/top.ts"]}))
    single = build_graph(tree, unique_project, workers=1, history=False)
    copy = "a build copy of ts_calls/src/top.ts, which ts_calls/out/top.js.map names"
    assert SkippedFile("ts_calls/out/top.js", "generated", copy) in single.skipped
    assert {n.language for n in single.nodes} >= {"python", "go", "rust", "java", "typescript", "c", "php", "ruby"}
    plan = sharded()

    built = build_graph(tree, unique_project, workers=2, history=False, parse=plan)

    assert expected_graph(built) == expected_graph(single)
    assert built.sources == single.sources and built.skipped == single.skipped
    assert built.unresolved_calls == single.unresolved_calls


def test_a_sharded_ingest_stores_exactly_the_single_ingests_graph(
    tree: Path, tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    single = build_graph(tree, unique_project, workers=1, history=False)
    nodes, edges = expected_graph(single)
    plan = sharded()

    summary = ingest_local(tree, unique_project, store=store, engine=engine, workers=2, history=False, parse=plan)

    assert dump(store, unique_project) == (nodes, edges)
    assert summary.changes.files_parsed == sum(1 for s in single.sources if s.code is not None)
    assert storage.load(engine, unique_project, summary.version) == Snapshot.of(single.nodes, single.edges)
    parsed = {(s.content_hash, s.language): without_call_order(s.code) for s in single.sources if s.code is not None}
    cache = FactCache.load(engine, unique_project)
    assert {key: without_call_order(decode_facts(blob)) for key, blob in cache._blobs.items()} == parsed

    # `clear` drops the relational cache: every file is parsed again, by the shards.
    rebuilt = ingest_local(
        tree, unique_project, store=store, engine=engine, workers=2, history=False, parse=plan, clear=True
    )  # fmt: skip
    assert rebuilt.changes.mode == "full" and rebuilt.changes.files_parsed == summary.changes.files_parsed
    assert dump(store, unique_project) == (nodes, edges)
    assert storage.load(engine, unique_project, rebuilt.version) == Snapshot.of(single.nodes, single.edges)


def test_an_ingest_whose_language_groups_resolve_in_forked_processes_stores_the_single_ingests_graph(
    tree: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    single = build_graph(tree, unique_project, workers=1, history=False)
    resolved_apart: list[bytes] = []
    decoded = groups._decoded
    monkeypatch.setattr(groups, "_decoded", lambda blob: resolved_apart.append(blob) or decoded(blob))
    monkeypatch.setattr(groups, "FORKED_ABOVE_BYTES", 0)  # the fixtures are a small tree
    monkeypatch.setattr(groups, "memory_limit", lambda: 1 << 50)

    summary = ingest_local(tree, unique_project, store=store, engine=engine, workers=3, history=False, parse=sharded())

    assert len(resolved_apart) >= 2  # two children at once; how many more depends on how fast they finish
    assert dump(store, unique_project) == expected_graph(single)
    assert storage.load(engine, unique_project, summary.version) == Snapshot.of(single.nodes, single.edges)
    assert summary.unresolved_calls == single.unresolved_calls


def test_a_shards_task_is_plain_json_and_its_answer_bytes(tree: Path, tmp_path: Path, unique_project: str) -> None:
    """What another executor (a distributed map) would carry: each task as JSON, each answer as
    the one object it writes."""
    carried: list[str] = []

    def over_json(workers: int):
        from contextlib import contextmanager

        @contextmanager
        def executor():
            def run(work, tasks):
                for index, task in enumerate(tasks):
                    carried.append(json.dumps(task))
                    answer = work(json.loads(carried[-1]))
                    assert type(answer) is bytes
                    yield index, answer

            yield run

        return executor()

    built = build_graph(tree, unique_project, workers=1, history=False, parse=sharded(executor=over_json))

    assert len(carried) > 10
    assert expected_graph(built) == expected_graph(build_graph(tree, unique_project, workers=1, history=False))


def test_a_failed_shard_is_retried_here_and_then_named(
    tree: Path, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    single = build_graph(tree, unique_project, workers=1, history=False)

    def flaky(workers: int):  # the pool's answers with the first shard's replaced by an error
        from contextlib import contextmanager

        @contextmanager
        def executor():
            with local_pool(workers) as run:
                yield lambda work, tasks: (
                    (index, RuntimeError("worker lost") if index == 0 else answer) for index, answer in run(work, tasks)
                )

        return executor()

    built = build_graph(tree, unique_project, workers=2, history=False, parse=sharded(executor=flaky))
    assert expected_graph(built) == expected_graph(single)

    # A shard that fails in its worker and again here is named.
    def broken(task: dict[str, object]) -> bytes:
        raise OSError("disk gone")

    monkeypatch.setattr(executors, "parse_shard", broken)
    with pytest.raises(ShardFailed, match=r"shard \d+ \(\d+ files, .+ to .+\) failed twice: OSError\('disk gone'\)"):
        build_graph(tree, unique_project, workers=1, history=False, parse=sharded(executor=in_process))


def test_the_plan_is_chosen_by_size(tree: Path, unique_project: str) -> None:
    shards: list[int] = []

    def counted(workers: int):  # in_process, counting the shards it runs
        from contextlib import contextmanager

        @contextmanager
        def executor():
            with in_process(workers) as run:
                yield lambda work, tasks: (shards.append(index) or (index, answer) for index, answer in run(work, tasks))

        return executor()

    small = by_size(sharded(executor=counted), above=10**9)
    build_graph(tree, unique_project, workers=1, history=False, parse=small)
    assert shards == []  # the single reader
    large = by_size(sharded(executor=counted), above=1)
    assert expected_graph(build_graph(tree, unique_project, workers=1, history=False, parse=large)) == expected_graph(
        build_graph(tree, unique_project, workers=1, history=False, parse=read_all_encoded)
    )
    assert len(shards) > 10


def test_shards_keep_directories_whole_and_cut_big_ones() -> None:
    paths = ["a/1", "a/2", "b/1", "b/2", "b/3", "b/4", "c/1"]
    sizes = [10, 10, 30, 30, 30, 30, 5]

    shards = plan_shards(paths, sizes, max_bytes=60, max_files=10)

    assert sorted(i for shard in shards for i in shard) == list(range(len(paths)))
    assert all(sum(sizes[i] for i in shard) <= 60 for shard in shards)
    assert shards == [[0, 1], [2, 3], [4, 5], [6]]  # a/ whole; b/ (120 bytes) cut; c/ after it
    assert plan_shards(paths, sizes, max_bytes=10**6, max_files=3) == [[0, 1], [2, 3, 4], [5, 6]]
    with pytest.raises(ValueError, match="positive budget"):
        plan_shards(paths, sizes, max_bytes=0)

"""Phase 1 in a process pool gives exactly what it gives in this process."""

from __future__ import annotations

from pathlib import Path

import pytest

from rhumbline.ingest.discover import parallel
from rhumbline.ingest.facts_codec import decode_facts
from rhumbline.ingest.discover.parallel import IN_PROCESS_BELOW, read_all, read_all_encoded


def _tree(root: Path, count: int) -> list[str]:
    paths = []
    for i in range(count):
        path = f"pkg{i % 7}/mod{i}.py"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"def f{i}():\n    return g{i}()\n")
        paths.append(path)
    (root / "blob.bin").write_bytes(b"\x00\x01")
    return sorted([*paths, "blob.bin"])


def test_pool_and_in_process_results_are_identical_and_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    paths = _tree(tmp_path, IN_PROCESS_BELOW + 50)
    local = read_all(tmp_path, paths, workers=1)

    def not_here(*_args: object) -> None:
        raise AssertionError("a large input must be parsed in the pool")

    monkeypatch.setattr(parallel, "_read_here", not_here)
    calls: list[tuple[int, int]] = []
    pooled = read_all(tmp_path, paths, workers=2, progress=lambda done, total: calls.append((done, total)))
    assert pooled == local
    assert [outcome.path for outcome in pooled] == paths
    assert calls[-1] == (len(paths), len(paths))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


@pytest.mark.parametrize("count", [3, IN_PROCESS_BELOW + 50])
def test_encoded_outcomes_carry_the_facts_the_cache_stores(tmp_path: Path, count: int):
    paths = _tree(tmp_path, count)
    encoded = read_all_encoded(tmp_path, paths, workers=2)
    assert [outcome for outcome, _ in encoded] == read_all(tmp_path, paths, workers=1)
    for outcome, blob in encoded:
        if outcome.path == "blob.bin":  # skipped: nothing parsed, nothing to cache
            assert blob is None
        else:
            assert decode_facts(blob) == outcome.code


def test_small_inputs_report_progress_per_file(tmp_path: Path):
    paths = _tree(tmp_path, 3)
    calls: list[tuple[int, int]] = []
    read_all(tmp_path, paths, workers=4, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_without_process_support_the_files_are_parsed_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    paths = _tree(tmp_path, IN_PROCESS_BELOW)

    def no_semaphores(**_kwargs: object) -> None:
        raise OSError(38, "Function not implemented")  # what AWS Lambda answers

    monkeypatch.setattr(parallel, "ProcessPoolExecutor", no_semaphores)
    outcomes = read_all(tmp_path, paths, workers=2)
    assert [outcome.path for outcome in outcomes] == paths


def test_chunks_hold_every_path_once_the_costliest_parses_first(tmp_path: Path):
    paths = _tree(tmp_path, IN_PROCESS_BELOW)
    (tmp_path / "pkg0/big.py").write_text("def big():\n    pass\n" * 500)
    (tmp_path / "notes.txt").write_text("words\n" * 2000)  # bigger, but only read: cheaper
    paths = sorted([*paths, "pkg0/big.py", "notes.txt"])
    chunks = parallel.plan_chunks(str(tmp_path), paths, None, workers=2)
    assert sorted(index for chunk in chunks for index in chunk) == list(range(len(paths)))
    assert paths[chunks[0][0]] == "pkg0/big.py"
    assert len(chunks) > 2 and all(len(chunk) <= parallel._MAX_CHUNK for chunk in chunks)
    # Given sizes replace the stat: the same plan.
    sizes = [(tmp_path / path).stat().st_size for path in paths]
    assert parallel.plan_chunks(str(tmp_path), paths, sizes, workers=2) == chunks


def test_an_empty_fact_cache_reads_like_the_pool(tmp_path: Path):
    from rhumbline.ingest.snapshots.facts_cache import FactCache

    paths = _tree(tmp_path, IN_PROCESS_BELOW + 50)
    (tmp_path / "README.txt").write_text("not parsed\n")
    paths = sorted([*paths, "README.txt", "missing.py"])  # missing: removed after the walk
    cache = FactCache.empty("p")
    outcomes = cache.read_all(tmp_path, paths, workers=2)
    assert outcomes == read_all(tmp_path, paths, workers=1)
    assert cache.stats.parsed == IN_PROCESS_BELOW + 50 and cache.stats.reused == 0
    assert cache.stamps["missing.py"] is None and cache.stamps["README.txt"] is not None

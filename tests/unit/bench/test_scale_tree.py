"""bench/harness: the helpers of `ingest.py --scale-tree` that read no tree: a release's spec and
a figure of /proc/self/status."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[3] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`

from harness import corpus, scale  # noqa: E402


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("go:k8s.io/kubernetes@v1.34.0", ("go", "k8s.io/kubernetes", "v1.34.0")),
        ("npm:@types/node@20.1.0", ("npm", "@types/node", "20.1.0")),
        ("pypi:requests@2.32.3", ("pypi", "requests", "2.32.3")),
    ],
)
def test_a_release_spec_names_registry_name_and_version(spec: str, expected: tuple[str, str, str]) -> None:
    assert corpus.release(spec) == expected


@pytest.mark.parametrize(
    "spec", ["django", "/tmp/tree", "go:k8s.io/kubernetes", "cargo:serde@1.0.0", "go:@v1.0.0", "go:name@"]
)
def test_anything_else_is_no_release(spec: str) -> None:
    assert corpus.release(spec) is None


STATUS = "Name:\tpython\nVmPeak:\t 1572864 kB\nVmSize:\t  800000 kB\nVmHWM:\t  409600 kB\n"


def test_a_status_figure_is_read_in_mb() -> None:
    assert scale.status_mb("VmPeak", STATUS) == 1536.0
    assert scale.status_mb("VmHWM", STATUS) == 400.0


def test_a_figure_the_kernel_does_not_give_is_nan() -> None:
    assert math.isnan(scale.status_mb("VmSwap", STATUS))


def test_this_process_peak_rss_is_read_and_started_again() -> None:
    scale.reset_high_water()  # the suite's process may already have peaked far above what this holds
    before = scale.status_mb("VmHWM")
    held = bytearray(64 * 1024 * 1024)  # touched: resident
    for index in range(0, len(held), 4096):
        held[index] = 1
    assert scale.status_mb("VmHWM") >= before + 60
    del held
    scale.reset_high_water()
    assert scale.status_mb("VmHWM") < scale.status_mb("VmRSS") + 16


def _tree(root: Path, files: int = 4, functions: int = 1) -> list[str]:
    for number in range(files):
        body = "".join(f"def f{number}_{index}(x):\n    return [x] * {index}\n" for index in range(functions))
        (root / f"m{number}.py").write_text(body)
    return sorted(path.name for path in root.iterdir())


def test_capped_workers_parse_every_shard_and_measure_it(tmp_path: Path) -> None:
    from rhumbline.ingest.discover.parallel import read_all_encoded
    from rhumbline.ingest.sharded.executors import ShardedReader

    paths = _tree(tmp_path)
    pool = scale.CappedPool(cap_mb=4096)
    parsed = ShardedReader(executor=pool, max_files=1)(tmp_path, paths, workers=2)
    assert [outcome for outcome, _ in parsed] == [outcome for outcome, _ in read_all_encoded(tmp_path, paths, workers=1)]
    assert pool.failures == []
    assert sorted(shard["shard"] for shard in pool.shards) == [0, 1, 2, 3]
    assert all(shard["files"] == 1 and 0 < shard["rss_mb"] <= shard["vm_peak_mb"] <= 4096 for shard in pool.shards)
    assert pool.parse_peak_mb > 0


def _allocating(task: dict) -> bytes:
    """A shard's work that holds `mb` megabytes (module level: the pool pickles it by name)."""
    from rhumbline.ingest.sharded.answer import encode_answer

    held = bytearray(task["mb"] * 1024 * 1024)
    return encode_answer([]) if held is not None else b""


def test_a_worker_over_its_cap_is_a_failure_named(tmp_path: Path) -> None:
    # A forked worker starts with this process's address space, which the whole suite may have grown,
    # so the cap is set just above it: the first task's small allocation fits under it, the second's cannot.
    cap_mb = int(scale.status_mb("VmSize")) + 512
    pool = scale.CappedPool(cap_mb=cap_mb)
    tasks = [{"root": str(tmp_path), "paths": ["a.py"], "mb": 8}, {"root": str(tmp_path), "paths": ["b.py"], "mb": 4096}]
    with pool(2) as run:
        outcomes = dict(run(_allocating, tasks))
    assert isinstance(outcomes[0], bytes)
    assert isinstance(outcomes[1], MemoryError)
    assert pool.failures == [{"shard": "shard 1 (1 files, b.py to b.py)", "error": "MemoryError()"}]
    assert [shard["shard"] for shard in pool.shards] == [0]
    assert pool.shards[0]["vm_peak_mb"] <= cap_mb


def test_the_files_whose_extractor_raised_are_told_from_other_skips() -> None:
    from rhumbline.ingest.discover.skiprules import BINARY, EXTRACTION_FAILED
    from rhumbline.ingest.sharded.answer import encode_answer

    answer = encode_answer([
        (["skipped", "a.go", EXTRACTION_FAILED, "MemoryError: "], None),
        (["skipped", "b.go", EXTRACTION_FAILED, "RecursionError: too deep"], None),
        (["skipped", "c.bin", BINARY, None], None),
        (["file", "d.go", "go", "0" * 64, 1, 2], b"facts"),
    ])  # fmt: skip
    assert scale.extraction_failures(answer) == [("a.go", "MemoryError: "), ("b.go", "RecursionError: too deep")]

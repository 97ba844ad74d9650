"""bench/harness/scale.py's wall-time model: a worker's own time counts its files' contents out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[3] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`

from harness import scale  # noqa: E402

MB = 1024 * 1024


def test_a_worker_stores_its_files_contents_one_put_a_file_many_in_flight() -> None:
    model = scale.Model(s3_mb_per_s=50.0, s3_request_ms=20.0, contents_put_concurrency=16, map_start_s=0.0)
    shard = {"wall": 2.0, "cpu": 2.0, "bytes": 5 * MB, "files": 33, "answer_bytes": 10 * MB}
    figures = scale.modelled(1, [shard], 0.0, 0, 0.0, 0.0, 0.0, model)
    # Parse, the span in and the contents out (5 MB each way), three batches of PUTs, the answer
    # out, and the worker's three requests.
    assert figures["worker"] == pytest.approx(2.0 + 0.1 + 0.1 + 3 * 0.02 + 0.2 + 3 * 0.02)
    # The slowest worker is the one whose own time, contents included, is the longest.
    many = {**shard, "wall": 1.9, "files": 1_600}
    assert scale.modelled(2, [shard, many], 0.0, 0, 0.0, 0.0, 0.0, model)["worker"] == pytest.approx(
        1.9 + 0.2 + 100 * 0.02 + 0.2 + 0.06
    )

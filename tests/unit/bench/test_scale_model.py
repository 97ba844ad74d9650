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
    # Its parse, its span in and its contents out at the stated bandwidth, its PUTs in batches of
    # the stated concurrency, its answer out, and the worker's own requests.
    assert figures["worker"] == pytest.approx(2.0 + 0.1 + 0.1 + 3 * 0.02 + 0.2 + 3 * 0.02)
    # The slowest worker is the one whose own time, contents included, is the longest.
    many = {**shard, "wall": 1.9, "files": 1_600}
    assert scale.modelled(2, [shard, many], 0.0, 0, 0.0, 0.0, 0.0, model)["worker"] == pytest.approx(
        1.9 + 0.2 + 100 * 0.02 + 0.2 + 0.06
    )


def test_the_write_takes_the_servers_share_or_the_clients_own_cpu_whichever_is_longer() -> None:
    model = scale.Model(write_cpu_ms_per_record=0.1, write_efficiency=1.0, neo4j_cores=8, neo4j_writers=8)
    records = 8_000_000  # the server's share: records × CPU a record ÷ cores
    assert model.write_seconds(records) == pytest.approx(100.0)
    assert model.write_seconds(records, client_cpu_s=60.0) == pytest.approx(100.0)
    assert model.write_seconds(records, client_cpu_s=250.0) == 250.0  # one interpreter builds every row
    assert model.cores_for(records, 200.0, client_cpu_s=150.0) == 4
    assert model.cores_for(records, 200.0, client_cpu_s=250.0) is None  # no server is enough

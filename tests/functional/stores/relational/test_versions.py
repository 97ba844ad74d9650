from __future__ import annotations

import threading
import time

import pytest

from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope


def _run(engine, slug: str, status: str = "completed", nodes: int = 0) -> int:
    with session_scope(engine) as session:
        version = versions.start(session, slug, commit_sha="a" * 40)
        version_id = version.id
    with session_scope(engine) as session:
        versions.finish(session, version_id, status=status, node_count=nodes, edge_count=nodes * 2)
    return version_id


def test_versions_are_numbered_per_project(engine, unique_project: str) -> None:
    other = unique_project + "-other"
    with session_scope(engine) as session:
        numbers = [versions.start(session, unique_project).version for _ in range(3)]
        other_numbers = [versions.start(session, other).version for _ in range(2)]
    assert numbers == [1, 2, 3]
    assert other_numbers == [1, 2]


def test_concurrent_starts_get_distinct_numbers(engine, unique_project: str) -> None:
    """A second ingest starting while the first's version is uncommitted gets the next number.

    On PostgreSQL the second insert waits on the unique (project_id, version) index, fails once
    the first commits, and the retry in its savepoint picks version 2.
    """
    with session_scope(engine) as session:
        versions.start(session, unique_project)  # the project exists: only the numbers race
    numbers: dict[str, int] = {}
    errors: list[BaseException] = []

    def second_ingest() -> None:
        try:
            with session_scope(engine) as session:
                numbers["second"] = versions.start(session, unique_project).version
        except BaseException as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)

    with session_scope(engine) as session:
        numbers["first"] = versions.start(session, unique_project).version
        thread = threading.Thread(target=second_ingest)
        thread.start()
        time.sleep(0.3)  # let the second transaction reach its INSERT
    thread.join(timeout=15)

    assert errors == []
    assert numbers == {"first": 2, "second": 3}


def test_start_creates_a_running_version(engine, unique_project: str) -> None:
    with session_scope(engine) as session:
        version = versions.start(session, unique_project, commit_sha="abc123")
    assert (version.version, version.status, version.commit_sha) == (1, "running", "abc123")
    assert (version.node_count, version.edge_count, version.finished_at) == (0, 0, None)
    assert version.started_at.tzinfo is not None


def test_finish_records_counts_and_stats(engine, unique_project: str) -> None:
    with session_scope(engine) as session:
        version_id = versions.start(session, unique_project).id
    with session_scope(engine) as session:
        versions.finish(
            session, version_id, status="completed", node_count=120, edge_count=340, stats={"files": 7, "lang": ["py"]}
        )
    with session_scope(engine) as session:
        stored = versions.latest(session, unique_project)
    assert (stored.status, stored.node_count, stored.edge_count) == ("completed", 120, 340)
    assert stored.stats == {"files": 7, "lang": ["py"]}
    assert stored.finished_at >= stored.started_at


def test_finish_refuses_bad_transitions(engine, unique_project: str) -> None:
    version_id = _run(engine, unique_project)
    with session_scope(engine) as session:
        with pytest.raises(ValueError, match="graph version 1 is already completed"):
            versions.finish(session, version_id, status="failed", node_count=0, edge_count=0)
        with pytest.raises(ValueError, match="status must be one of completed, failed, not 'running'"):
            versions.finish(session, version_id, status="running", node_count=0, edge_count=0)
        with pytest.raises(LookupError, match="no graph version with id 987654321"):
            versions.finish(session, 987654321, status="failed", node_count=0, edge_count=0)


def test_latest_by_status(engine, unique_project: str) -> None:
    _run(engine, unique_project, "completed", nodes=10)  # 1
    _run(engine, unique_project, "completed", nodes=20)  # 2
    _run(engine, unique_project, "failed")  # 3
    with session_scope(engine) as session:
        versions.start(session, unique_project)  # 4, running
    with session_scope(engine) as session:
        assert versions.latest(session, unique_project).version == 4
        assert versions.latest(session, unique_project, status="completed").version == 2
        assert versions.latest(session, unique_project, status="failed").version == 3
        assert versions.latest(session, unique_project, status="running").version == 4
        assert versions.latest(session, "nobody/nothing") is None


def test_list_for_is_newest_first_and_limited(engine, unique_project: str) -> None:
    for _ in range(5):
        _run(engine, unique_project)
    with session_scope(engine) as session:
        assert [v.version for v in versions.list_for(session, unique_project)] == [5, 4, 3, 2, 1]
        assert [v.version for v in versions.list_for(session, unique_project, limit=2)] == [5, 4]
        assert versions.list_for(session, "nobody/nothing") == []


def test_prune_keeps_the_newest_and_the_served_version(engine, unique_project: str) -> None:
    _run(engine, unique_project, "completed")  # 1
    _run(engine, unique_project, "completed")  # 2: the latest completed, served to readers
    for _ in range(4):
        _run(engine, unique_project, "failed")  # 3..6
    with session_scope(engine) as session:
        assert versions.prune(session, unique_project, keep=3) == 2  # versions 1 and 3
    with session_scope(engine) as session:
        assert [v.version for v in versions.list_for(session, unique_project)] == [6, 5, 4, 2]
        assert versions.prune(session, unique_project, keep=3) == 0
        assert versions.prune(session, "nobody/nothing") == 0
        with pytest.raises(ValueError, match="keep must be at least 1, not 0"):
            versions.prune(session, unique_project, keep=0)


def test_a_version_abandoned_long_ago_is_failed_when_the_next_ingest_starts(engine, unique_project: str) -> None:
    from datetime import timedelta

    from rhumbline.stores.relational.schema.base import utcnow
    from rhumbline.stores.relational.schema.core import GraphVersion

    with session_scope(engine) as session:
        abandoned = versions.start(session, unique_project)
        abandoned.started_at = utcnow() - timedelta(minutes=31)
        abandoned_id = abandoned.id
    with session_scope(engine) as session:
        recent = versions.start(session, unique_project)
        recent_id = recent.id
    with session_scope(engine) as session:
        # The recent one may still be working: only the abandoned one is failed.
        versions.start(session, unique_project)
    with session_scope(engine) as session:
        old = session.get(GraphVersion, abandoned_id)
        assert old.status == "failed"
        assert old.error == "interrupted: still running 30 minutes after it started"
        assert old.finished_at is not None
        assert session.get(GraphVersion, recent_id).status == "running"

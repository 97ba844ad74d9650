from __future__ import annotations

import threading

import pytest

from rhumbline.stores.relational import versions
from rhumbline.stores.relational.schema.core import GraphVersion
from rhumbline.stores.relational.session import session_scope
from tests.functional.stores.relational.races import reached


def _run(engine, slug: str, status: str = "completed", nodes: int = 0) -> int:
    with session_scope(engine) as session:
        version = versions.start(session, slug, commit_sha="a" * 40)
        version_id = version.id
    with session_scope(engine) as session:
        versions.finish(session, version_id, status=status, node_count=nodes, edge_count=nodes * 2)
    return version_id


def test_versions_are_numbered_per_project(engine, unique_project: str) -> None:
    other = unique_project + "-other"
    numbers = [_number(engine, unique_project) for _ in range(3)]
    other_numbers = [_number(engine, other) for _ in range(2)]
    assert numbers == [1, 2, 3]
    assert other_numbers == [1, 2]


def _number(engine, slug: str) -> int:
    version_id = _run(engine, slug)
    with session_scope(engine) as session:
        return session.get(GraphVersion, version_id).version


def test_a_second_ingest_is_refused_while_the_first_holds_the_lease(engine, unique_project: str) -> None:
    """Two ingests start at once: one runs, the other is told which version runs and who runs it.

    On PostgreSQL the second insert waits on the one-running-version index until the first
    commits, then fails; on SQLite the second transaction waits for the first's write lock."""
    _run(engine, unique_project)  # the project exists: only the starts race
    outcome: dict[str, object] = {}

    def second_ingest() -> None:
        try:
            with session_scope(engine) as session:
                outcome["second"] = versions.start(session, unique_project, holder="bob").version
        except BaseException as error:  # noqa: BLE001 - checked below
            outcome["second"] = error

    with reached(engine, "INSERT") as second_waits, session_scope(engine) as session:
        outcome["first"] = versions.start(session, unique_project, holder="alice (request r1)").version
        thread = threading.Thread(target=second_ingest)
        thread.start()
        assert second_waits.wait(15), "the second transaction never reached its INSERT (its BEGIN on SQLite)"
    thread.join(timeout=15)

    refused = outcome["second"]
    assert outcome["first"] == 2 and isinstance(refused, versions.IngestInProgress), outcome
    assert (refused.version, refused.holder) == (2, "alice (request r1)")
    assert str(refused).startswith(f"{unique_project} is being ingested as version 2 by alice (request r1), its lease runs until ")


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


def test_a_version_whose_lease_expired_is_failed_when_the_next_ingest_starts(engine, unique_project: str) -> None:
    from datetime import timedelta

    from rhumbline.stores.relational.schema.base import utcnow

    with session_scope(engine) as session:
        killed = versions.start(session, unique_project, holder="a killed ingest", lease_seconds=60)
        killed.lease_expires_at = utcnow() - timedelta(seconds=1)
        killed_id = killed.id
    with session_scope(engine) as session:
        recent = versions.start(session, unique_project, holder="a live ingest", lease_seconds=60)
        recent_id = recent.id
    with session_scope(engine) as session:
        old = session.get(GraphVersion, killed_id)
        assert (old.status, old.finished_at is not None) == ("failed", True)
        assert old.error.startswith("abandoned: its ingest (a killed ingest) stopped renewing the project's lease at ")
    # The live one renews its lease: it keeps the project.
    with session_scope(engine) as session:
        assert versions.renew(session, recent_id, lease_seconds=60)
    with pytest.raises(versions.IngestInProgress, match="by a live ingest"):
        with session_scope(engine) as session:
            versions.start(session, unique_project)
    with session_scope(engine) as session:
        assert session.get(GraphVersion, recent_id).status == "running"


def test_a_version_from_before_leases_is_failed_once_long_abandoned(engine, unique_project: str) -> None:
    from datetime import timedelta

    from rhumbline.stores.relational.schema.base import utcnow

    with session_scope(engine) as session:
        legacy = versions.start(session, unique_project)
        legacy.started_at = utcnow() - timedelta(minutes=31)
        legacy.lease_expires_at = None
        legacy_id = legacy.id
    with session_scope(engine) as session:
        versions.start(session, unique_project)
    with session_scope(engine) as session:
        old = session.get(GraphVersion, legacy_id)
        assert (old.status, old.error) == ("failed", "interrupted: still running 30 minutes after it started")


def test_a_failed_version_cannot_renew(engine, unique_project: str) -> None:
    version_id = _run(engine, unique_project, "failed")
    with session_scope(engine) as session:
        assert not versions.renew(session, version_id)

"""ingested_files and graph_snapshots (migration 0003) on SQLite and PostgreSQL: the facts cache,
snapshots with their versions, and what deleting a version or a project takes with it; a
snapshot's bytes in parts (graph_snapshot_parts, migration 0013)."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import Engine, func, select

from rhumbline.ingest.snapshots import storage
from rhumbline.ingest.facts import CodeFacts, SourceFile
from rhumbline.ingest.facts_codec import decode_facts
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.format import FORMAT, Partitioned, partitions
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.model import Edge, Node
from rhumbline.stores.relational import projects, versions
from rhumbline.stores.relational.schema.ingest import GraphSnapshot, GraphSnapshotPart, IngestedFile
from rhumbline.stores.relational.session import session_scope

CODE = CodeFacts("Doc.", (), (), (), (), 0, None, False)


def slug() -> str:
    return f"test/i{uuid.uuid4().hex[:12]}"


def source(path: str, content_hash: str) -> SourceFile:
    return SourceFile(path, "python", content_hash, 1, 10, CODE)


def test_the_facts_cache_round_trips_and_keeps_only_current_files(engine: Engine) -> None:
    project = slug()
    cache = FactCache.load(engine, project)
    assert len(cache) == 0
    assert cache.save(engine, [source("a.py", "1" * 64), source("b.py", "2" * 64)]) == 2

    loaded = FactCache.load(engine, project)
    assert len(loaded) == 2
    assert decode_facts(loaded._blobs[("1" * 64, "python")]) == CODE
    assert loaded.save(engine, [source("a.py", "1" * 64)]) == 1  # b.py is gone
    assert loaded.save(engine, [source("a.py", "1" * 64)]) == 0  # nothing to write
    with session_scope(engine) as session:
        paths = session.scalars(
            select(IngestedFile.path).join(projects.Project, projects.Project.id == IngestedFile.project_id)
            .where(projects.Project.slug == project)
        ).all()  # fmt: skip
        assert paths == ["a.py"]
        projects.delete(session, project)
    with session_scope(engine) as session:
        assert session.scalar(select(func.count()).select_from(IngestedFile).where(
            IngestedFile.path == "a.py", IngestedFile.content_hash == "1" * 64,
            IngestedFile.project_id.not_in(select(projects.Project.id)),
        )) == 0  # fmt: skip


def test_snapshots_live_and_die_with_their_versions(engine: Engine) -> None:
    project = slug()
    node = Node("function:a.py:f", "Function", "f", "a.f", "a.py", 1, 2, "python", "def f()", "D", "h")
    edge = Edge(node.id, "module:os", "IMPORTS", "INFERRED", 0.8, "why")
    snapshot = Snapshot.of([node], [edge])
    blob = Partitioned.of(partitions([node], [edge])).encode()
    ids = []
    for _ in range(3):
        with session_scope(engine) as session:
            version = versions.start(session, project)
            ids.append((version.id, version.version))
        storage.save(engine, ids[-1][0], blob, inputs="k" * 32, counts=(1, 1))
        with session_scope(engine) as session:
            versions.finish(session, ids[-1][0], status="completed", node_count=1, edge_count=1, stats={"x": 1})

    stored = storage.load_stored(engine, project, 2)
    assert (stored.inputs, stored.node_count, stored.edge_count, stored.stats) == ("k" * 32, 1, 1, {"x": 1})
    assert Snapshot(*Partitioned.decode(stored.blob).records()) == snapshot
    assert storage.versions_with_snapshots(engine, project) == [3, 2, 1]
    with session_scope(engine) as session:
        assert versions.prune(session, project, keep=2) == 1
    assert storage.versions_with_snapshots(engine, project) == [3, 2]
    assert storage.load_blob(engine, project, 1) is None
    storage.discard(engine, ids[2][0])
    assert storage.versions_with_snapshots(engine, project) == [2]
    with session_scope(engine) as session:
        projects.delete(session, project)
    with session_scope(engine) as session:
        assert session.scalar(
            select(func.count()).select_from(GraphSnapshot).where(GraphSnapshot.version_id.in_([i for i, _ in ids]))
        ) == 0


def new_version(engine: Engine, project: str) -> int:
    with session_scope(engine) as session:
        return versions.start(session, project).id


def part_sizes(engine: Engine, version_id: int) -> list[int]:
    with session_scope(engine) as session:
        return [len(data) for data in session.scalars(
            select(GraphSnapshotPart.data).where(GraphSnapshotPart.version_id == version_id)
            .order_by(GraphSnapshotPart.seq)
        )]  # fmt: skip


def test_a_snapshot_is_stored_in_parts_and_replaced_whole(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PART_BYTES", 1024)
    project = slug()
    version_id = new_version(engine, project)
    blob = os.urandom(5 * 1024 + 17)

    assert storage.save(engine, version_id, blob, inputs="k" * 32, counts=(3, 4)) == len(blob)

    assert part_sizes(engine, version_id) == [1024] * 5 + [17]
    with session_scope(engine) as session:
        assert session.scalar(select(GraphSnapshot.blob).where(GraphSnapshot.version_id == version_id)) == b""
    assert storage.load_blob(engine, project, 1) == blob
    stored = storage.load_stored(engine, project, 1)
    assert stored is not None
    assert (stored.blob, stored.inputs, stored.node_count, stored.edge_count) == (blob, "k" * 32, 3, 4)

    again = os.urandom(2 * 1024)
    storage.save(engine, version_id, again, inputs=None, counts=(1, 1))
    assert part_sizes(engine, version_id) == [1024, 1024]
    assert storage.load_blob(engine, project, 1) == again


def test_discarding_or_deleting_a_version_removes_its_parts(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PART_BYTES", 1024)
    project = slug()
    ids = []
    for _ in range(3):
        ids.append(new_version(engine, project))
        storage.save(engine, ids[-1], os.urandom(3 * 1024), inputs=None, counts=(0, 0))
        with session_scope(engine) as session:
            versions.finish(session, ids[-1], status="completed", node_count=0, edge_count=0, stats=None)
    discarded, pruned, kept = ids

    storage.discard(engine, discarded)
    assert part_sizes(engine, discarded) == []
    assert storage.load_blob(engine, project, 1) is None
    with session_scope(engine) as session:
        assert versions.prune(session, project, keep=1) == 2
    assert part_sizes(engine, pruned) == []
    assert part_sizes(engine, kept) == [1024] * 3
    with session_scope(engine) as session:
        projects.delete(session, project)
    assert part_sizes(engine, kept) == []


def test_a_snapshot_stored_before_the_parts_still_loads(engine: Engine) -> None:
    project = slug()
    version_id = new_version(engine, project)
    blob = os.urandom(3000)
    with session_scope(engine) as session:
        session.add(GraphSnapshot(version_id=version_id, format=FORMAT, node_count=2, edge_count=1, inputs=None, blob=blob))

    assert part_sizes(engine, version_id) == []
    assert storage.load_blob(engine, project, 1) == blob
    stored = storage.load_stored(engine, project, 1)
    assert stored is not None and stored.blob == blob

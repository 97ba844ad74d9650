"""Source for agents on both shapes: an ingest keeps its files' contents (content-addressed,
shared between versions, pruned with them), `read_file` reads them back capped with exact sizes,
`include_source` gives a definition's body. What is never stored, and who may read:
tests/security/test_stored_sources.py."""

from __future__ import annotations

import hashlib
import inspect
import shutil
import uuid
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from rhumbline.config import settings
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.schema.sources import SourceBlob
from rhumbline.tools.source_text import MAX_BYTES, MAX_LINES
from tests.functional.tools.code_context.conftest import failed, ok

SECRET = "AWS_SECRET_ACCESS_KEY=never-stored-" + uuid.uuid4().hex


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The installed `requests` package as a project, with a secret, an ignored file, a binary
    file and a long file beside it."""
    import requests

    root = tmp_path / "reqs"
    shutil.copytree(Path(requests.__file__).parent, root / "requests", ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gitignore").write_text("ignored.py\n")
    (root / "ignored.py").write_text(f"TOKEN = '{SECRET}'\n")
    (root / ".env").write_text(SECRET + "\n")
    (root / "deploy").mkdir()
    (root / "deploy" / "server.pem").write_text(f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n")
    (root / "logo.bin").write_bytes(b"\x89PNG\0\0" + SECRET.encode())
    (root / "long.py").write_text("".join(f"x{n} = {n}\n" for n in range(1, 3001)))
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(tmp_path))
    settings.cache_clear()
    return root


def _ingest(world, tree: Path, slug: str) -> dict:
    return ok(world.call("ingest", {"path": str(tree), "project": slug}, projects=(slug,), scopes=("admin",)))


def _project_id(engine: Engine, slug: str) -> int:
    with engine.connect() as connection:
        return connection.scalar(select(Project.id).where(Project.slug == slug))


def _blob_rows(engine: Engine, project_id: int) -> list[tuple[str, bytes | None]]:
    """The project's stored contents (other tests' projects share the PostgreSQL database)."""
    with engine.connect() as connection:
        found = select(SourceBlob.digest, SourceBlob.content).where(SourceBlob.project_id == project_id)
        return [(digest, content) for digest, content in connection.execute(found)]


def test_an_agent_reads_the_body_of_merge_setting_after_an_ingest(world, tree: Path) -> None:
    from requests import sessions

    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    summary = _ingest(world, tree, slug)
    assert summary["changes"]["source_files_withheld"] == 2  # .env, deploy/server.pem
    body = inspect.getsource(sessions.merge_setting)
    found = ok(world.call("function", {"name": "requests.sessions.merge_setting", "include_source": True}, projects=(slug,)))
    source = found["source"]
    assert source["text"] == body and source["path"] == "requests/sessions.py" and not source["truncated"]
    first = inspect.getsourcelines(sessions.merge_setting)[1]
    assert (source["start_line"], source["end_line"]) == (first, first + body.count("\n") - 1)
    stored = (tree / "requests" / "sessions.py").read_bytes()
    assert (source["size"], source["sha256"]) == (len(stored), hashlib.sha256(stored).hexdigest())
    assert source["total_lines"] == stored.count(b"\n")
    # Markdown carries it too, fenced.
    markdown = ok(world.call("function", {"name": "merge_setting", "include_source": True, "format": "markdown"},
                             projects=(slug,)))["markdown"]  # fmt: skip
    assert f"```\n{body.rstrip()}\n```" in markdown
    # The whole file, and a class's body.
    whole = ok(world.call("read_file", {"path": "requests/sessions.py"}, projects=(slug,)))
    assert whole["text"] == stored.decode() and whole["version"] == summary["version"] and whole["project"] == slug
    session = ok(world.call("class", {"name": "requests.sessions.Session", "include_source": True}, projects=(slug,)))
    assert session["source"]["text"] == inspect.getsource(sessions.Session)
    # Without the flag nothing is read.
    assert ok(world.call("function", {"name": "merge_setting"}, projects=(slug,)))["source"] is None


def test_reads_are_capped_with_exact_sizes_and_arguments_are_checked(world, tree: Path) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    _ingest(world, tree, slug)
    head = ok(world.call("read_file", {"path": "./long.py"}, projects=(slug,)))
    assert (head["start_line"], head["end_line"], head["total_lines"], head["truncated"]) == (1, MAX_LINES, 3000, True)
    assert head["next_start_line"] == MAX_LINES + 1 and head["size"] == (tree / "long.py").stat().st_size
    assert head["text"].count("\n") == MAX_LINES and head["text"].endswith(f"x{MAX_LINES} = {MAX_LINES}\n")
    tail = ok(world.call("read_file", {"path": "long.py", "start_line": 2999, "end_line": 5000}, projects=(slug,)))
    assert (tail["text"], tail["end_line"], tail["truncated"]) == ("x2999 = 2999\nx3000 = 3000\n", 3000, False)
    past = failed(world.call("read_file", {"path": "long.py", "start_line": 3001}, projects=(slug,)), "invalid_arguments")
    assert past["message"] == "`start_line` 3001 is past the end of 'long.py' (3000 lines)"
    backwards = {"path": "long.py", "start_line": 5, "end_line": 4}
    assert "before `start_line`" in failed(world.call("read_file", backwards, projects=(slug,)), "invalid_arguments")["message"]
    absolute = failed(world.call("read_file", {"path": "/etc/passwd"}, projects=(slug,)), "invalid_arguments")
    assert "relative to the project root" in absolute["message"]
    missing = failed(world.call("read_file", {"path": "long.py", "version": 99}, projects=(slug,)), "not_found")
    assert missing["message"] == f"project '{slug}' has no completed graph version 99"
    assert MAX_BYTES == 256 * 1024


def test_versions_share_unchanged_files_and_retention_deletes_unnamed_contents(
    world, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    first = _ingest(world, tree, slug)
    project_id = _project_id(world.engine, slug)
    blobs_after_first = len(_blob_rows(world.engine, project_id))
    assert first["changes"]["source_files"] == blobs_after_first  # every file distinct here
    (tree / "long.py").write_text("changed = True\n")
    help_text = (tree / "requests" / "help.py").read_text()
    (tree / "requests" / "help.py").unlink()
    second = _ingest(world, tree, slug)
    # One new content; every other file names the blob version 1 stored; one file fewer.
    assert len(_blob_rows(world.engine, project_id)) == blobs_after_first + 1
    assert second["changes"]["source_bytes_added"] == len("changed = True\n")
    assert second["changes"]["source_files"] == first["changes"]["source_files"] - 1
    removed = failed(world.call("read_file", {"path": "requests/help.py"}, projects=(slug,)), "not_found")
    assert removed["details"] == {"project": slug, "version": second["version"], "path": "requests/help.py",
                                  "reason": "not_stored"}  # fmt: skip
    kept = ok(world.call("read_file", {"path": "requests/help.py", "version": first["version"]}, projects=(slug,)))
    assert kept["text"] == help_text
    old = ok(world.call("read_file", {"path": "long.py", "version": first["version"]}, projects=(slug,)))
    new = ok(world.call("read_file", {"path": "long.py"}, projects=(slug,)))
    assert (old["total_lines"], new["text"], new["version"]) == (3000, "changed = True\n", second["version"])
    # Retention 1: version 1 is pruned at the next ingest, and the content only it named goes.
    monkeypatch.setenv("RHUMBLINE_GRAPH_RETENTION", "1")
    settings.cache_clear()
    (tree / "long.py").write_text("changed = 2\n")
    third = _ingest(world, tree, slug)
    assert third["changes"]["pruned_versions"] == 2
    digests = {d for d, _ in _blob_rows(world.engine, project_id)}
    assert hashlib.sha256(b"".join(f"x{n} = {n}\n".encode() for n in range(1, 3001))).hexdigest() not in digests
    assert len(digests) == third["changes"]["source_files"]  # exactly the files of the one version left
    gone = failed(world.call("read_file", {"path": "long.py", "version": first["version"]}, projects=(slug,)), "not_found")
    assert "no completed graph version" in gone["message"]
    # Deleting the project deletes every content.
    ok(world.call("delete_project", {"project": slug, "confirm": slug, "reviews": "drop"}, projects=(slug,),
                  scopes=("admin",)))  # fmt: skip
    with world.engine.connect() as connection:
        assert connection.scalar(select(func.count()).where(SourceBlob.project_id == project_id)) == 0


def test_a_version_without_stored_contents_and_a_project_without_versions_are_named(world, tree: Path) -> None:
    from sqlalchemy import delete

    from rhumbline.stores.relational.schema.core import GraphVersion
    from rhumbline.stores.relational.schema.sources import VersionFile

    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    summary = _ingest(world, tree, slug)
    # As a version ingested before contents were kept: no manifest.
    project_id = _project_id(world.engine, slug)
    with world.engine.begin() as connection:
        version_id = connection.scalar(
            select(GraphVersion.id).where(GraphVersion.project_id == project_id, GraphVersion.version == summary["version"])
        )
        connection.execute(delete(VersionFile).where(VersionFile.version_id == version_id))
    error = failed(world.call("read_file", {"path": "requests/sessions.py"}, projects=(slug,)), "not_found")
    assert error["details"]["reason"] == "no_sources" and "ingest the project again" in error["message"]
    # include_source says the same beside the rest of the answer.
    found = ok(world.call("function", {"name": "merge_setting", "include_source": True}, projects=(slug,)))
    assert found["node"]["qualified_name"] == "requests.sessions.merge_setting"
    assert "ingest the project again" in found["source"]["reason"]
    # The seeded project's graph was written without an ingest: it has no version at all.
    never = failed(world.call("read_file", {"path": "shop/cart.py"}), "not_found")
    assert never["details"]["reason"] == "not_ingested" and "run `ingest` first" in never["message"], never


def test_a_latin_1_source_reads_back_in_its_encoding(world, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Java file in ISO-8859-1 is ingested (not skipped as undecodable) and read back as text,
    its lines those of its nodes."""
    root = tmp_path / "legacy"
    root.mkdir()
    text = "/** Le panier de la Société. */\npublic class Cart {\n    void add() {}\n}\n"
    (root / "Cart.java").write_bytes(text.encode("latin-1"))
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(tmp_path))
    settings.cache_clear()
    slug = f"legacy/cart{uuid.uuid4().hex[:8]}"
    _ingest(world, root, slug)
    assert ok(world.call("read_file", {"path": "Cart.java"}, projects=(slug,)))["text"] == text
    found = ok(world.call("class", {"name": "Cart", "include_source": True}, projects=(slug,)))
    assert found["node"]["docstring"] == "Le panier de la Société."
    assert found["source"]["text"] == text.split("\n", 1)[1]  # the class's lines, 2-4

"""Stored source (`read_file`, `include_source`) on both shapes: files named like secrets, ignored
and binary files are in no row of the store, only the token's projects are read (the same refusal
as every tool), and no path reaches outside the version's manifest."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

import pytest

from rhumbline.ingest.discover.skiprules import holds_secrets
from tests.functional.tools.code_context.conftest import failed
from tests.functional.tools.code_context.test_read_file import SECRET, _blob_rows, _ingest, _project_id, tree  # noqa: F401


def test_secrets_ignored_and_binary_files_are_never_stored(world, tree: Path) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    _ingest(world, tree, slug)
    for path, why, reason in [
        (".env", "secret pattern", "secret_pattern"), ("deploy/server.pem", "secret pattern", "secret_pattern"),
        ("ignored.py", "no such text file", "not_stored"), ("logo.bin", "no such text file", "not_stored"),
    ]:  # fmt: skip
        error = failed(world.call("read_file", {"path": path}, projects=(slug,)), "not_found")
        assert why in error["message"] and error["details"]["reason"] == reason, error
    # Not merely refused: the bytes are nowhere in the store.
    rows = _blob_rows(world.engine, _project_id(world.engine, slug))
    assert rows and not [digest for digest, content in rows if content is not None and SECRET.encode() in content]
    assert hashlib.sha256((tree / ".env").read_bytes()).hexdigest() not in {digest for digest, _ in rows}
    for path in ("../../../etc/passwd", "requests/../../.env", "..\\.env"):
        escaped = world.call("read_file", {"path": path}, projects=(slug,))
        assert not escaped["ok"] and escaped["error"]["code"] == "not_found", escaped


def test_another_projects_files_are_refused_like_every_tool(world, tree: Path) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    _ingest(world, tree, slug)
    refusals = {
        tool: failed(world.call(tool, arguments, projects=(world.project,)), "forbidden")["message"]
        for tool, arguments in [
            ("read_file", {"path": "requests/sessions.py", "project": slug}),
            ("function", {"name": "merge_setting", "include_source": True, "project": slug}),
            ("search", {"query": "merge_setting", "project": slug}),
        ]
    }
    assert len(set(refusals.values())) == 1, refusals  # the same refusal as every tool's
    # A token without `read` is refused before anything is looked up.
    assert failed(world.call("read_file", {"path": "x.py", "project": slug}, projects=(slug,), scopes=("write",)), "forbidden")


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        (".env", True), ("app/.env.production", True), ("conf/prod.env", True), ("id_rsa", True),
        ("home/.ssh/id_ed25519.pub", True), ("tls/server.key", True), ("certs/ca.pem", True),
        (".aws/credentials", True), ("deploy/credentials.json", True), ("infra/terraform.tfstate", True),
        (".git-credentials", True), ("keys/release.p12", True),
        ("requests/sessions.py", False), ("docs/environment.rst", False), ("src/keys.py", False),
        ("envs.py", False), ("README.md", False), ("tests/test_credentials_flow.py", False),
    ],
)  # fmt: skip
def test_the_secret_patterns(path: str, secret: bool) -> None:
    assert holds_secrets(path) is secret

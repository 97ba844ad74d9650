"""ingest's contract on both shapes: a local path becomes a graph version the code-context tools
read; `clear` rebuilds; hosted mode refuses paths; `source` is validated; `write` is required,
and `admin` for a path (host paths are tests/security/test_host_paths.py)."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from rhumbline.config import settings
from tests.functional.tools.code_context.conftest import failed, ok

PYPROJ = Path(__file__).parents[3] / "fixtures" / "ingest" / "pyproj"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, root)
    # The server ingests paths under the directories it was started for: here, the test's own.
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(tmp_path))
    settings.cache_clear()
    return root


def test_a_local_path_is_ingested_and_readable_by_the_code_context_tools(world, tree: Path) -> None:
    slug = f"acme/py{uuid.uuid4().hex[:8]}"
    writer = {"projects": (slug,), "scopes": ("admin",)}
    first = ok(world.call("ingest", {"path": str(tree), "project": slug}, **writer))
    assert (first["project"], first["version"]) == (slug, 1)
    assert first["nodes_by_kind"]["Class"] == 3  # Model, Product, Order
    assert first["skipped"] == {"binary": 1}
    assert first["node_count"] == sum(first["nodes_by_kind"].values())
    # What the real ingester wrote, read back through the tools.
    context = ok(world.call("context", {"file": "shop/models.py"}, projects=(slug,)))
    assert [d["qualified_name"] for d in context["definitions"]["items"]][:3] == [
        "shop.models.Product", "shop.models.Product.save", "shop.models.Product.render",
    ]  # fmt: skip
    save = ok(world.call("function", {"name": "Product.save"}, projects=(slug,)))
    assert [c["qualified_name"] for c in save["callees"]["items"]] == ["shop.base.Model.save", "shop.base.Model.validate"]
    model = ok(world.call("class", {"name": "Model"}, projects=(slug,)))
    assert [s["qualified_name"] for s in model["subclasses"]["items"]] == ["shop.models.Order", "shop.models.Product"]
    readme = ok(world.call("explain", {"name": "document:README.md"}, projects=(slug,)))
    assert (readme["node"]["kind"], readme["layer"]) == ("Document", "knowledge")
    again = ok(world.call("ingest", {"path": str(tree), "project": slug, "clear": True}, **writer))
    assert (again["version"], again["node_count"]) == (2, first["node_count"])


def test_arguments_are_checked(world, tree: Path) -> None:
    slug = f"acme/py{uuid.uuid4().hex[:8]}"
    writer = {"projects": (slug,), "scopes": ("admin",)}
    missing = failed(world.call("ingest", {"path": str(tree / "nope"), "project": slug}, **writer), "invalid_arguments")
    assert missing["message"] == f"'{tree / 'nope'}' is not a directory on the server"
    assert "`path` is required" in failed(world.call("ingest", {"project": slug}, **writer), "invalid_arguments")["message"]
    # Fetching a source is tests/functional/ingest/test_hosted_sources.py; `async` is hosted-only.
    source = failed(world.call("ingest", {"source": "github:acme/shop@main", "project": slug, "async": True}, **writer), "invalid_arguments")
    assert "`async` is for hosted deployments" in source["message"]
    bad_source = failed(world.call("ingest", {"source": "http://x", "project": slug}, **writer), "invalid_arguments")
    assert "source: String should match pattern" in bad_source["message"]
    both = failed(world.call("ingest", {"path": str(tree), "source": "s3://b/k"}, **writer), "invalid_arguments")
    assert "source" in both["message"]
    reader = failed(world.call("ingest", {"path": str(tree), "project": slug}, projects=(slug,)), "forbidden")
    assert reader["message"] == "this token lacks the 'write' scope"
    plain_writer = failed(world.call("ingest", {"path": str(tree), "project": slug}, projects=(slug,), scopes=("write",)), "forbidden")
    assert "needs the 'admin' scope" in plain_writer["message"]


def test_hosted_mode_refuses_local_paths(world, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHUMBLINE_MODE", "hosted")
    settings.cache_clear()
    try:
        slug = f"acme/py{uuid.uuid4().hex[:8]}"
        error = failed(
            world.call("ingest", {"path": str(tree), "project": slug}, projects=(slug,), scopes=("write",)), "unsupported"
        )
        assert error["message"] == f"this deployment is hosted: it does not read paths on its own servers ('{tree}')"
        assert error["details"]["accepts"] == "source: github:owner/repo@ref or s3://bucket/key"
    finally:
        monkeypatch.setenv("RHUMBLINE_MODE", "local")
        settings.cache_clear()


def test_a_path_without_project_goes_to_its_git_remotes_project(world, tree: Path) -> None:
    """As `rhumbline ingest` does: a checkout's code lands in the project its reviews are recorded in."""
    slug = f"acme/py{uuid.uuid4().hex[:8]}"
    for arguments in (["init", "-q"], ["remote", "add", "origin", f"git@github.com:{slug}.git"]):
        subprocess.run(["git", "-C", str(tree), *arguments], check=True, capture_output=True, timeout=30)
    ingested = ok(world.call("ingest", {"path": str(tree)}, projects=(slug,), scopes=("admin",)))
    assert ingested["project"] == slug

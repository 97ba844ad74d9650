"""Issue 15, item 2: `ingest path=` reads only what the server was started for, and only for `admin`.

Before, a `write` token could ingest any directory the server's user could read (`/etc`,
`/proc/self`, another tenant's checkout), and constants in its source and Markdown became
searchable. Now the path must resolve (symlinks followed, `..` collapsed) under a configured
root (RHUMBLINE_INGEST_ROOTS; default the directory `rhumbline up`/`serve` was started for), the
kernel's pseudo-filesystems are refused even under a root, and the caller needs `admin`.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from rhumbline.config import load_settings, settings

ADMIN = {"scopes": ("admin",)}


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The directory the server was started for (with a project in it), and a neighbour's checkout."""
    root, neighbour = tmp_path / "served", tmp_path / "neighbour"
    (root / "app").mkdir(parents=True)
    (root / "app" / "main.py").write_text("def main():\n    return 1\n")
    neighbour.mkdir()
    (neighbour / "secret.py").write_text("API_KEY = 'neighbour-secret'\n")
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(root))
    settings.cache_clear()
    return {"root": root, "neighbour": neighbour}


def _ingest(world, path: str, **caller) -> dict:
    slug = f"acme/host{uuid.uuid4().hex[:8]}"
    return world.call("ingest", {"path": path, "project": slug}, **{"projects": (slug,), **ADMIN, **caller})


def _refused(outcome: dict, code: str = "forbidden") -> str:
    assert not outcome["ok"], outcome
    assert outcome["error"]["code"] == code, outcome["error"]
    return outcome["error"]["message"]


@pytest.mark.parametrize("path", ["/etc", "/etc/ssl", "/", "/tmp", "~", "/usr/lib/python3"])
def test_a_host_directory_outside_the_roots_is_refused(world, served, path: str) -> None:
    message = _refused(_ingest(world, path))
    assert "is outside the directories this server ingests from" in message and str(served["root"]) in message


@pytest.mark.parametrize("path", ["/proc/self", "/proc/1/root", "/sys/kernel", "/dev", "/dev/shm"])
def test_the_kernel_pseudo_filesystems_are_refused(world, served, path: str) -> None:
    message = _refused(_ingest(world, path))
    assert "which is never ingested" in message


def test_the_pseudo_filesystems_are_refused_even_under_a_root(world, served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", "/")
    settings.cache_clear()
    assert "/proc which is never ingested" in _refused(_ingest(world, "/proc/self")).replace(",", "")


def test_another_checkout_and_traversals_out_of_the_root_are_refused(world, served) -> None:
    root, neighbour = served["root"], served["neighbour"]
    for path in (str(neighbour), f"{root}/../neighbour", f"{root}/app/../../neighbour"):
        assert "is outside the directories" in _refused(_ingest(world, path)), path


def test_a_symlink_out_of_the_root_is_refused_and_named(world, served) -> None:
    root, neighbour = served["root"], served["neighbour"]
    (root / "link").symlink_to(neighbour)
    (root / "proc").symlink_to("/proc/self")
    message = _refused(_ingest(world, str(root / "link")))
    assert f"(a symlink to {neighbour})" in message and "is outside the directories" in message
    assert "which is never ingested" in _refused(_ingest(world, str(root / "proc")))


def test_a_refusal_does_not_tell_what_exists_outside_the_roots(world, served) -> None:
    existing = _refused(_ingest(world, str(served["neighbour"])))
    missing = _refused(_ingest(world, str(served["neighbour"] / "no-such-dir")))
    assert existing.replace(str(served["neighbour"]), "X") == missing.replace(str(served["neighbour"] / "no-such-dir"), "X")


def test_a_write_token_may_not_ingest_a_path_even_under_the_root(world, served) -> None:
    message = _refused(_ingest(world, str(served["root"]), scopes=("read", "write")))
    assert message == "ingesting a `path` on the server needs the 'admin' scope (`write` may ingest a `source`)"


def test_the_allowed_path_is_ingested(world, served) -> None:
    """The refusals above are not a broken tool: under the root, an admin ingests."""
    done = _ingest(world, str(served["root"] / "app"))
    assert done["ok"], done
    assert done["result"]["files"] == 1 and done["result"]["nodes_by_kind"]["Function"] == 1
    inside_link = served["root"] / "alias"
    inside_link.symlink_to(served["root"] / "app")  # a symlink that stays inside is fine
    assert _ingest(world, str(inside_link))["ok"]
    assert _refused(_ingest(world, str(served["root"] / "nope")), "invalid_arguments").endswith("is not a directory on the server")


def test_the_default_root_is_the_directory_the_server_started_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RHUMBLINE_INGEST_ROOTS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert load_settings().ingest_roots == (Path(os.path.realpath(tmp_path)),)
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", f"{tmp_path}/a{os.pathsep}{tmp_path}/b")
    assert load_settings().ingest_roots == (tmp_path.resolve() / "a", tmp_path.resolve() / "b")

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rhumbline.cli import build_parser, main
from rhumbline.cli.common import CliError, checked_project, project_for
from rhumbline.ingest.project_slug import default_project_slug, remote_project_slug
from rhumbline.cli.server import endpoint_url


@pytest.mark.parametrize(
    ("directory", "slug"),
    [("my-repo", "local/my-repo"), ("My Repo (copy)", "local/My-Repo--copy-"), (".hidden", "local/hidden"),
     ("___", "local/project"), ("x" * 150, "local/" + "x" * 100), ("café", "local/caf-")],
)
def test_default_project_slugs_are_valid(directory: str, slug: str) -> None:
    assert default_project_slug(Path("/somewhere") / directory) == slug
    assert checked_project(slug) == slug


def test_bad_project_slugs_are_refused() -> None:
    with pytest.raises(CliError, match="invalid project slug 'no-owner'"):
        checked_project("no-owner")


def test_endpoint_urls_use_a_reachable_host() -> None:
    assert endpoint_url("0.0.0.0", 9000) == "http://127.0.0.1:9000/mcp"
    assert endpoint_url("127.0.0.1", 8080) == "http://127.0.0.1:8080/mcp"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["token", "create", "--principal", "x"])
    assert exit_info.value.code == 2
    assert main([]) == 2


def test_up_refuses_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["up", str(tmp_path / "nope")]) == 1
    assert f"rhumbline: error: {tmp_path / 'nope'} is not a directory" in capsys.readouterr().err


def git(directory: Path, *arguments: str) -> None:
    subprocess.run(["git", "-C", str(directory), *arguments], check=True, capture_output=True, timeout=30)


@pytest.mark.parametrize(
    ("url", "slug"),
    [("git@github.com:acme/shop.git", "acme/shop"), ("https://github.com/acme/shop", "acme/shop"),
     ("https://github.com/acme/shop.git/", "acme/shop"), ("ssh://git@gitlab.example.com:2222/team/api.git", "team/api"),
     ("https://user:secret@git.example.com/acme/shop.git", "acme/shop"), ("github.com:acme/shop", "acme/shop"),
     ("https://gitlab.com/group/subgroup/repo.git", None), ("/srv/git/shop.git", None), ("file:///srv/git/shop.git", None),
     ("../shop", None), ("https://github.com/acme/-bad", None), ("", None)],
)  # fmt: skip
def test_remote_urls_name_owner_repo_or_nothing(url: str, slug: str | None) -> None:
    assert remote_project_slug(url) == slug


def test_the_default_project_is_the_git_remotes_owner_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repository = tmp_path / "checkout"
    (repository / "src").mkdir(parents=True)
    git(repository, "init", "-q")
    assert default_project_slug(repository) == "local/checkout"  # no remote yet
    git(repository, "remote", "add", "origin", "git@github.com:acme/shop.git")
    assert default_project_slug(repository) == "acme/shop"
    # A subdirectory is not the repository: under its slug it would replace the repository's graph.
    assert default_project_slug(repository / "src") == "local/src"
    assert project_for(repository, None) == "acme/shop"
    assert "Project: acme/shop (from the git remote 'origin'" in capsys.readouterr().err
    assert project_for(repository, "acme/other") == "acme/other"
    git(repository, "remote", "set-url", "origin", "/srv/git/shop.git")
    assert project_for(repository, None) == "local/checkout"
    assert "from the directory's name: no git remote 'origin' names owner/repo" in capsys.readouterr().err


def test_ingest_without_project_uses_the_remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import settings

    repository = tmp_path / "checkout"
    repository.mkdir()
    (repository / "shop.py").write_text("def total(items):\n    return sum(items)\n")
    git(repository, "init", "-q")
    git(repository, "remote", "add", "origin", "https://github.com/acme/shop.git")
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    for name in ("RHUMBLINE_DATABASE_URL", "RHUMBLINE_GRAPH_PATH", "RHUMBLINE_MODE", "RHUMBLINE_GRAPH_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    settings.cache_clear()
    try:
        assert main(["ingest", str(repository)]) == 0
        assert main(["project", "delete", "acme/shop", "--reviews", "drop", "--yes"]) == 0
    finally:
        settings.cache_clear()


def test_a_relative_home_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import load_settings

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RHUMBLINE_HOME", "data")
    monkeypatch.delenv("RHUMBLINE_GRAPH_PATH", raising=False)
    loaded = load_settings()
    assert (loaded.home, loaded.graph_path) == (tmp_path / "data", tmp_path / "data" / "graph.sqlite3")
    monkeypatch.setenv("RHUMBLINE_HOME", "~/elsewhere")
    assert load_settings().home == Path.home() / "elsewhere"


def test_mcp_says_its_data_directory_on_stderr(tmp_path: Path) -> None:
    """stdout is the protocol stream: the notice goes to stderr, and a new (empty) store is called so."""
    source = Path(__file__).resolve().parents[3] / "layers" / "shared"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "PYTHONPATH"))}
    env.update(RHUMBLINE_HOME="data", PYTHONPATH=str(source))
    command = [sys.executable, "-c", "import sys; from rhumbline.cli import main; sys.exit(main())", "mcp"]
    seen = []
    for _ in range(2):
        done = subprocess.run(command, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)  # fmt: skip
        assert done.returncode == 0 and done.stdout == "", (done.stdout, done.stderr)
        seen.append(done.stderr.splitlines()[0])
    assert seen[0] == (
        f"Data directory: {tmp_path / 'data'} (RHUMBLINE_HOME) - new and empty: point RHUMBLINE_HOME at the directory "
        "you ingested with to serve that store"
    )
    assert seen[1] == f"Data directory: {tmp_path / 'data'} (RHUMBLINE_HOME)"

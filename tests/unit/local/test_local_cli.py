from __future__ import annotations

from pathlib import Path

import pytest
from rhumbline.cli import build_parser, main
from rhumbline.cli.common import CliError, checked_project, default_project_slug
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

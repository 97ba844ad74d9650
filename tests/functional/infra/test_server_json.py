"""server.json, the MCP registry's description of the package, says what the package does: its
name, version and command are pyproject.toml's and the CLI's, and the README carries the
`mcp-name:` line the registry checks PyPI ownership with."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from rhumbline.cli import build_parser

ROOT = Path(__file__).resolve().parents[3]
SERVER = json.loads((ROOT / "server.json").read_text())
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_registry_entry_follows_the_schemas_rules() -> None:
    assert re.fullmatch(r"https://static\.modelcontextprotocol\.io/schemas/\d{4}-\d{2}-\d{2}/server\.schema\.json", SERVER["$schema"])
    # The schema's own limits: a reverse-DNS name with one slash, a description of at most 100.
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", SERVER["name"]) and 3 <= len(SERVER["name"]) <= 200
    assert 1 <= len(SERVER["description"]) <= 100
    assert SERVER["repository"]["source"] == "github"


def test_the_package_is_this_projects_pypi_package() -> None:
    (package,) = SERVER["packages"]
    assert (package["registryType"], package["identifier"]) == ("pypi", PROJECT["name"])
    assert package["version"] == SERVER["version"] == PROJECT["version"]
    assert package["transport"] == {"type": "stdio"}
    # `uvx rhumbline mcp`: the package's script, then the arguments, a command the CLI has.
    assert "rhumbline" in PROJECT["scripts"]
    arguments = [argument["value"] for argument in package["packageArguments"]]
    assert arguments == ["mcp"]
    assert build_parser().parse_args(arguments).run.__name__ == "cmd_mcp"


def test_its_environment_variables_are_read_by_the_server() -> None:
    config = (ROOT / "layers" / "shared" / "rhumbline" / "config.py").read_text()
    (package,) = SERVER["packages"]
    for variable in package["environmentVariables"]:
        assert f'"{variable["name"]}"' in config, variable["name"]


def test_the_readme_names_the_server_for_pypi_ownership() -> None:
    # PyPI shows the README as the package's description; the registry looks for this line there.
    assert PROJECT["readme"] == "README.md"
    assert f"mcp-name: {SERVER['name']}" in (ROOT / "README.md").read_text()

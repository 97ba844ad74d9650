"""The package as a wheel: built from the source tree alone, installed into a new virtualenv, it
gives a working `rhumbline mcp` (a real stdio exchange) and carries what the CLI loads at run time
(the migrations, the SAM template and the functions' handlers). That is what `pipx install` and
`uvx --from` do with it.

No download: the wheel is built without build isolation, and the new virtualenv finds the
dependencies through a path file naming this environment's packages, less rhumbline itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What a build reads: pyproject.toml, setup.py and MANIFEST.in name nothing else.
SOURCES = ["pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "template.yaml", "functions", "layers/shared/rhumbline"]


def run(*command: str | Path, **options: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=300, **options)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtualenv with the wheel installed: its bin directory."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", base / "dist", source)
    (wheel,) = (base / "dist").glob("rhumbline-*.whl")
    run(sys.executable, "-m", "venv", base / "venv")
    dependencies = base / "dependencies"
    dependencies.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(("rhumbline", "__editable__", "pip")) and not entry.name.endswith(".pth"):
            (dependencies / entry.name).symlink_to(entry)
    (site,) = (base / "venv" / "lib").glob("python3*/site-packages")
    (site / "dependencies.pth").write_text(f"{dependencies}\n")
    run(base / "venv" / "bin" / "python", "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", wheel)
    return base / "venv" / "bin"


def clean_environment(home: str) -> dict[str, str]:
    """No PYTHONPATH (the checkout must not be what runs), no RHUMBLINE_ settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "PYTHON", "AWS_"))}
    env.update(RHUMBLINE_HOME=home, PYTHONUNBUFFERED="1")
    return env


def test_the_installed_package_is_the_wheels(installed: Path, tmp_path: Path) -> None:
    where = run(installed / "python", "-c", "import rhumbline; print(rhumbline.__file__)", env=clean_environment("h"), cwd=tmp_path)
    assert where.stdout.strip().startswith(str(installed.parent / "lib")), where.stdout
    # What the CLI loads besides Python modules.
    package = Path(where.stdout.strip()).parent
    assert list((package / "stores" / "relational" / "migrations").rglob("*.py"))
    assert (package / "stack" / "template.yaml").is_file()
    assert {path.parent.name for path in (package / "stack" / "functions").glob("*/app.py")} >= {"gateway", "tool"}


def test_rhumbline_mcp_from_the_wheel_answers_over_stdio(installed: Path, tmp_path: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "wheel", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}},
    ]  # fmt: skip
    process = subprocess.Popen([str(installed / "rhumbline"), "mcp"], env=clean_environment("data"), cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    answers = {}
    try:
        assert process.stdin is not None and process.stdout is not None
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" in message:
                answer = json.loads(process.stdout.readline())
                answers[answer["id"]] = answer
        # End of input: the server exits, and says nothing more on stdout.
        rest, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert (rest, process.returncode) == ("", 0)
    assert answers[1]["result"]["serverInfo"]["name"] == "rhumbline"
    tools = {tool["name"] for tool in answers[2]["result"]["tools"]}
    assert {"search", "list_projects", "ingest", "query"} <= tools
    assert answers[3]["result"]["isError"] is False, answers[3]
    assert stderr.startswith(f"Data directory: {tmp_path / 'data'} (RHUMBLINE_HOME)"), stderr


def test_the_wheel_runs_a_function_of_its_own_template(installed: Path, tmp_path: Path) -> None:
    """`serve`, `up` and `invoke` load the template the wheel carries when no checkout is around."""
    event = ROOT / "events" / "tools" / "list_projects.json"
    done = run(installed / "rhumbline", "invoke", "list_projects", "--event", event, env=clean_environment("data"), cwd=tmp_path)
    outcome = json.loads(done.stdout[done.stdout.index("{\n") :])
    assert outcome["ok"] is True, outcome

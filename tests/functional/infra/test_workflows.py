"""What the GitHub Actions workflows call exists: every script (with the options passed to it),
every make target, every `rhumbline` subcommand and every install extra. actionlint checks the
workflows' own syntax and expressions (scripts/lint-workflows.sh, run by scripts/test); this
checks what only the repository can tell, offline.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from rhumbline.cli import build_parser

ROOT = Path(__file__).resolve().parents[3]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def run_steps() -> list[tuple[str, str, str]]:
    """(workflow, step name, shell text) of every `run:` step, continuation lines joined."""
    found = []
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text())
        for job_id, job in workflow["jobs"].items():
            for index, step in enumerate(job.get("steps", [])):
                if "run" in step:
                    text = step["run"].replace("\\\n", " ")
                    found.append((path.name, f"{job_id}/{step.get('name', index)}", text))
    return found


def commands(text: str) -> list[list[str]]:
    """Each simple command of a step's shell text as words (expressions and substitutions kept whole)."""
    words_of = []
    for line in text.splitlines():
        for part in re.split(r"&&|\|\||;|\|(?!\|)|\$\(|\)", line):
            part = part.strip()
            if not part or part.startswith("#"):
                continue
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                words = part.split()
            if words:
                words_of.append(words)
    return words_of


STEPS = run_steps()


def test_there_are_workflows_to_check() -> None:
    assert {path.name for path in WORKFLOWS} >= {"ci.yml", "deploy-branch.yml"}
    assert len(STEPS) > 10


def script_in(words: list[str]) -> tuple[Path, list[str]] | None:
    """The repository script a command runs, and the words after it."""
    for index, word in enumerate(words):
        if re.fullmatch(r"(\./)?(scripts|\.ci)/[\w./-]+", word):
            return ROOT / word.removeprefix("./"), words[index + 1 :]
    return None


@pytest.mark.parametrize(("workflow", "step", "text"), STEPS, ids=[f"{w}:{s}" for w, s, _ in STEPS])
def test_every_script_and_option_a_step_uses_exists(workflow: str, step: str, text: str) -> None:
    for words in commands(text):
        found = script_in(words)
        if found is None:
            continue
        script, rest = found
        assert script.is_file(), f"{workflow} {step}: {script.relative_to(ROOT)} does not exist"
        invoked_directly = words[0] == str(script.relative_to(ROOT)) or words[0].endswith(script.name)
        if invoked_directly:
            assert script.stat().st_mode & 0o111, f"{script.relative_to(ROOT)} is run directly but is not executable"
        options = {word.split("=", 1)[0] for word in rest if re.fullmatch(r"--[a-z][a-z-]*(=.*)?", word)}
        if options and script.suffix in (".sh", ".py"):
            runner = ["bash"] if script.suffix == ".sh" else [str(ROOT / ".venv" / "bin" / "python")]
            usage = subprocess.run([*runner, str(script), "--help"], capture_output=True, text=True, timeout=60)
            for option in options:
                documented = re.search(rf"{option}(?![\w-])", usage.stdout + usage.stderr)
                assert documented, f"{workflow} {step}: {script.name} has no option {option}"


def test_every_make_target_a_step_uses_exists() -> None:
    for workflow, step, text in STEPS:
        for words in commands(text):
            if words[0] != "make":
                continue
            directory = ROOT / words[words.index("-C") + 1] if "-C" in words else ROOT
            targets = [w for w in words[1:] if not w.startswith("-") and "=" not in w and ROOT / w != directory]
            makefile = (directory / "Makefile").read_text()
            for target in targets:
                assert re.search(rf"^{re.escape(target)}:", makefile, re.MULTILINE), f"{workflow} {step}: no make target {target}"


def test_every_rhumbline_command_a_step_uses_exists() -> None:
    parser = build_parser()
    used = 0
    for workflow, step, text in STEPS:
        for words in commands(text):
            if not words[0].endswith("bin/rhumbline"):
                continue
            used += 1
            # Only the command words: option values ($STACK, "$PROJECT") are not known offline.
            arguments = [w if not w.startswith("$") and '"' not in w else "X" for w in words[1:]]
            try:
                parser.parse_args(arguments)
            except SystemExit as error:
                pytest.fail(f"{workflow} {step}: `rhumbline {' '.join(words[1:])}` does not parse ({error})")
    assert used >= 3  # token create, publish, token revoke


def test_every_install_extra_a_step_uses_exists() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for workflow, step, text in STEPS:
        for words in commands(text):
            if words[0] == "bootstrap":
                assert words[1] in extras, f"{workflow} {step}: no extra {words[1]!r} in pyproject.toml"


def test_actions_are_pinned_to_a_version() -> None:
    for path in WORKFLOWS:
        workflow: dict[str, Any] = yaml.safe_load(path.read_text())
        for job in workflow["jobs"].values():
            for step in job.get("steps", []):
                if "uses" in step:
                    assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+\.\d+\.\d+", step["uses"]), f"{path.name}: {step['uses']}"


def test_a_branch_is_deployed_only_after_ci_passed_on_the_same_commit() -> None:
    ci = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    deploy = yaml.safe_load((ROOT / ".github" / "workflows" / "deploy-branch.yml").read_text())
    # PyYAML reads the key `on` as True.
    ci_on, deploy_on = ci[True], deploy[True]
    # Every pushed branch is tested, so every branch can be deployed.
    assert ci_on["push"]["branches"] == ["**"]
    # Nothing deploys on a push itself: the deploy follows ci's run.
    assert "push" not in deploy_on
    assert deploy_on["workflow_run"] == {"workflows": [ci["name"]], "types": ["completed"]}
    job = deploy["jobs"]["deploy"]
    condition = " ".join(job["if"].split())
    for required in ("github.event.workflow_run.conclusion == 'success'", "github.event.workflow_run.event == 'push'",
                     "github.event.workflow_run.head_repository.full_name == github.repository"):  # fmt: skip
        assert required in condition
    # The commit ci tested is the one checked out, for the branch ci ran on.
    assert job["steps"][0]["with"]["ref"] == "${{ github.event.workflow_run.head_sha }}"
    assert job["env"]["BRANCH"] == "${{ github.event.workflow_run.head_branch }}"
    assert not any("GITHUB_REF_NAME" in step.get("run", "") for step in job["steps"])


def test_under_workflow_run_the_script_needs_the_branch_named() -> None:
    """A workflow_run's GITHUB_REF_NAME is the default branch: deploying it would deploy the wrong stack."""
    script = str(ROOT / "scripts" / "deploy-branch.sh")
    env = {"PATH": "/usr/bin:/bin", "GITHUB_EVENT_NAME": "workflow_run", "GITHUB_REF_NAME": "main"}
    unnamed = subprocess.run(["bash", script, "--name-only"], env=env, capture_output=True, text=True, timeout=30)
    assert unnamed.returncode == 2 and "pass the branch" in unnamed.stderr
    named = subprocess.run(["bash", script, "--name-only", "feat/x"], env=env, capture_output=True, text=True, timeout=30)
    assert (named.returncode, named.stdout) == (0, "rhumbline-br-feat-x\n")

"""The tool handler's defense in depth checks the project argument a spec names (`repo` for the review tools)."""

from __future__ import annotations

import sys
import time
import types

import pytest
from pydantic import BaseModel

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime.handler import handle
from rhumbline.runtime.spec import ToolSpec, module_name
from rhumbline.tools.common import StrictInput


class RepoInput(StrictInput):
    repo: str


class RepoOutput(BaseModel):
    repo: str


def _run(arguments: RepoInput, context) -> RepoOutput:  # type: ignore[no-untyped-def]
    # Deliberately no scope check of its own: only the handler stands in the way.
    return RepoOutput(repo=arguments.repo)


@pytest.fixture(autouse=True)
def careless_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType(module_name("careless"))
    module.SPEC = ToolSpec(  # type: ignore[attr-defined]
        name="careless", title="c", description="c", input_model=RepoInput, output_model=RepoOutput, run=_run,
        project_argument="repo",
    )
    monkeypatch.setitem(sys.modules, module.__name__, module)


def call(repo: str) -> dict:
    return handle(
        "careless",
        {
            "contract": INVOCATION_CONTRACT,
            "tool": "careless",
            "arguments": {"repo": repo},
            "caller": {"principal": "a", "token_id": "t", "projects": ["acme/app"], "scopes": ["read"]},
            "request_id": "r",
            "deadline_ms": int((time.time() + 30) * 1000),
        },
    )


def test_a_repo_outside_the_token_never_reaches_the_tool() -> None:
    assert call("acme/app")["result"] == {"repo": "acme/app"}
    assert call("rival/app")["error"] == {"code": "forbidden", "message": "this token has no access to project 'rival/app'", "details": {}}

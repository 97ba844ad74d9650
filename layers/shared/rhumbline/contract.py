"""The tool invocation contract: the one JSON payload every tool function receives and returns.

The gateway builds a `ToolInvocation` for each MCP `tools/call`, and sends it to the tool's own
Lambda (or, locally, to the same handler in-process or through a local Invoke API). The tool
function answers with a `ToolOutcome`. Both are versioned: a function refuses a contract it does
not know instead of guessing.
"""

from __future__ import annotations

import time
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

INVOCATION_CONTRACT: Final = "rhumbline.tool-invocation/1"
OUTCOME_CONTRACT: Final = "rhumbline.tool-outcome/1"

Scope = Literal["read", "write", "admin", "cypher"]
# Every scope, in the order above: the one list the token store, OIDC and the metadata derive from.
SCOPES: Final[tuple[Scope, ...]] = get_args(Scope)
ALL_PROJECTS = "*"


class Caller(BaseModel):
    """Who is calling, as established by the gateway from a bearer token."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    principal: str
    token_id: str
    projects: tuple[str, ...] = Field(description='Project slugs the token may use, or ("*",) for all.')
    scopes: tuple[Scope, ...]

    def can_see(self, project: str) -> bool:
        return ALL_PROJECTS in self.projects or project in self.projects

    def has_scope(self, scope: Scope) -> bool:
        # admin implies every other scope: it is the deployment owner's token.
        return scope in self.scopes or "admin" in self.scopes


class ToolInvocation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    contract: Literal["rhumbline.tool-invocation/1"] = INVOCATION_CONTRACT
    tool: str
    arguments: dict[str, Any]
    caller: Caller
    request_id: str
    deadline_ms: int = Field(description="Unix epoch milliseconds after which the result is useless.")

    def remaining_seconds(self) -> float:
        return self.deadline_ms / 1000.0 - time.time()


class ToolErrorBody(BaseModel):
    code: str
    message: str
    details: dict[str, Any] = Field(default_factory=dict)


class ToolOutcome(BaseModel):
    contract: Literal["rhumbline.tool-outcome/1"] = OUTCOME_CONTRACT
    ok: bool
    result: dict[str, Any] | None = None
    error: ToolErrorBody | None = None
    request_id: str
    duration_ms: float

    @classmethod
    def success(cls, request_id: str, result: dict[str, Any], duration_ms: float) -> "ToolOutcome":
        return cls(ok=True, result=result, request_id=request_id, duration_ms=duration_ms)

    @classmethod
    def failure(cls, request_id: str, error: dict[str, Any], duration_ms: float) -> "ToolOutcome":
        return cls(ok=False, error=ToolErrorBody(**error), request_id=request_id, duration_ms=duration_ms)


def success_payload(request_id: str, result: dict[str, Any], duration_ms: float) -> dict[str, Any]:
    """`ToolOutcome.success(...).model_dump(mode="json")` for a result that is already JSON data.

    The tool's result is its output model's JSON dump: building the outcome model around it only to
    dump it again walked the whole result twice more (milliseconds for a large file's context).
    """
    return {
        "contract": OUTCOME_CONTRACT,
        "ok": True,
        "result": result,
        "error": None,
        "request_id": request_id,
        "duration_ms": duration_ms,
    }

"""Errors a tool can return to its caller.

Every error that reaches an agent carries a stable `code` and a specific, human-readable message.
A tool raises one of these; the tool handler turns it into the invocation contract's error object,
and the gateway turns that into an MCP `isError: true` result.
"""

from __future__ import annotations

from typing import Any


class ToolFailure(Exception):
    """Base class: an expected failure with a message safe to show the caller."""

    code = "tool_error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            error["details"] = self.details
        return error


class InvalidArguments(ToolFailure):
    code = "invalid_arguments"


class Forbidden(ToolFailure):
    """The caller lacks a scope or a project. The message never reveals whether a project exists."""

    code = "forbidden"


class NotFound(ToolFailure):
    code = "not_found"


class Ambiguous(ToolFailure):
    code = "ambiguous"


class Unavailable(ToolFailure):
    """A backend is unreachable or timed out."""

    code = "unavailable"


class DeadlineExceeded(ToolFailure):
    code = "deadline_exceeded"


class Unsupported(ToolFailure):
    """The operation is not available in this deployment or on this backend."""

    code = "unsupported"


class Conflict(ToolFailure):
    """Another operation got there first (a concurrent ingest of the project); `details` says which."""

    code = "conflict"


class StorageFull(ToolFailure):
    """A store could not write: its disk (or quota, or file size limit) is full."""

    code = "storage_full"


class QueryTooLarge(ToolFailure):
    """A query would build more than its memory budget allows (a value, a list, an answer);
    `details` names the limit."""

    code = "query_too_large"

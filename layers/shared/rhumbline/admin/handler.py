"""The admin function: `{"command": "token.create", "arguments": {...}}` in, and out either
`{"ok": true, "result": {...}}` or `{"ok": false, "error": {"code", "message"}}`.

Only IAM principals allowed `lambda:InvokeFunction` on it can reach it (template.yaml gives it no
route), so it trusts its caller as an administrator. It logs the command's name, never its
arguments or result: a created token's secret travels only in the response.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from rhumbline.admin.commands import AdminError, execute
from rhumbline.observability import lambda_entry

logger = logging.getLogger("rhumbline.admin")


def handle(event: Any, _context: Any) -> dict[str, Any]:
    from rhumbline.runtime import resources

    if not isinstance(event, Mapping):
        return failure("invalid_request", "the event must be a JSON object {command, arguments}")
    name = event.get("command")
    try:
        result = execute(name, event.get("arguments"), resources.relational_engine())
    except AdminError as error:
        logger.info("admin command %s refused: %s", name, error.code)
        return failure(error.code, error.message)
    logger.info("admin command %s done", name)
    return {"ok": True, "result": result}


def failure(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"code": code, "message": message}}


handler = lambda_entry(handle, function="admin")

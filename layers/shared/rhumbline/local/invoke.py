"""`rhumbline invoke TOOL --event FILE`: one function's handler on one event, like `sam local invoke`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rhumbline.local.functions import FunctionRunner
from rhumbline.local.template import Template


def read_event(source: str) -> Any:
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    return json.loads(text)


def invoke(template: Template, target: str, event: Any) -> tuple[Any, bool]:
    """(what Lambda would return, whether the function failed). `target` is a tool or a logical id."""
    function = template.functions.get(target) or template.function_for_tool(target)
    invocation = FunctionRunner(template).invoke(function.logical_id, event)
    if invocation.error is not None:
        return invocation.error, True
    return invocation.result, False

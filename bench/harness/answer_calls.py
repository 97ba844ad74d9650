"""Child process of bench/calls.py --compare-answers: runs a list of steps through the checkout's
real tool handlers (the checkout on PYTHONPATH, RHUMBLINE_HOME set by the caller) and writes every
answer, in order, as JSON. Works on any revision with rhumbline.contract and
rhumbline.runtime.handler.handle; it imports nothing else of the checkout.

A step is {"label", "tool", "arguments"} or {"label", "write_file": [relative path, text]}.
Argument values may refer to earlier answers: "@LABEL:a.0.b" is that answer's result at that
path (e.g. a search hit's id, or a page's next_cursor); "$TREE" is the corpus copy.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def resolve(value: Any, answers: dict[str, Any], tree: str) -> Any:
    if isinstance(value, dict):
        return {key: resolve(item, answers, tree) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, answers, tree) for item in value]
    if value == "$TREE":
        return tree
    if isinstance(value, str) and value.startswith("@"):
        label, _, path = value[1:].partition(":")
        found = answers[label].get("result") or {}
        for part in path.split("."):
            if isinstance(found, list):
                found = found[int(part)] if int(part) < len(found) else None
            else:
                found = found.get(part) if isinstance(found, dict) else None
            if found is None:
                return None
        return found
    return value


def main() -> None:
    request = json.loads(sys.stdin.read())
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [request["project"]],
              "scopes": ["read", "write", "admin", "cypher"]}  # fmt: skip
    tree = request["tree"]
    answers: dict[str, Any] = {}
    written = []
    for step in request["steps"]:
        if "write_file" in step:
            relative, text = step["write_file"]
            (Path(tree) / relative).write_text(text)
            continue
        arguments = resolve(step["arguments"], answers, tree)
        event = {
            "contract": INVOCATION_CONTRACT, "tool": step["tool"], "arguments": arguments, "caller": caller,
            "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
        }  # fmt: skip
        outcome = handle(step["tool"], event)
        answer = {"ok": outcome["ok"], "result": outcome.get("result"), "error": outcome.get("error")}
        answers[step["label"]] = answer
        written.append({"label": step["label"], "tool": step["tool"], "arguments": arguments, **answer})
    Path(request["out"]).write_text(json.dumps(written, indent=1, sort_keys=True, default=str))
    if request.get("delete_after"):
        # A shared graph server (Neo4j): the next revision's run uses the same project slug.
        from rhumbline.runtime import resources

        resources.graph_store().delete_project(request["project"])
        resources.reset()


if __name__ == "__main__":
    main()

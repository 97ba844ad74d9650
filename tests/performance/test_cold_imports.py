"""What a tool function loads at cold start: its init imports functions/tool/app.py (as Lambda does)
and must not pull in what only a call, or only another function, needs. Every library left out of
init is time a cold start does not spend (the MCP SDK and the database drivers are the largest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rhumbline.runtime.spec import all_specs

ROOT = Path(__file__).resolve().parents[2]
# Loaded lazily, by the call that needs them, or only by the gateway.
NOT_AT_INIT = {
    "mcp", "mangum", "starlette", "uvicorn", "anyio", "httpx",  # the gateway's MCP and HTTP stack
    "jwt", "cryptography", "aws_xray_sdk",  # the gateway's OIDC and tracer
    "neo4j", "sqlalchemy", "pg8000", "alembic",  # stores: opened by the first call
    "tree_sitter", "pathspec", "itsdangerous", "yaml",  # ingest, cursors, the local template
}  # fmt: skip
PROBE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["app"] = module
spec.loader.exec_module(module)
assert callable(module.handler)
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""
# The deployed functions' environment, minus real ARNs: nothing may connect at import.
LAMBDA_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
    "POWERTOOLS_SERVICE_NAME": "rhumbline", "POWERTOOLS_TRACE_DISABLED": "1", "RHUMBLINE_MODE": "hosted",
    "RHUMBLINE_GRAPH_BACKEND": "neo4j", "RHUMBLINE_DISPATCH": "lambda",
    "RHUMBLINE_DATABASE_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbCdEf",
    "RHUMBLINE_NEO4J_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:neo4j-AbCdEf",
    "RHUMBLINE_TOOL_FUNCTION_PREFIX": "stack-tool-",
}  # fmt: skip


def loaded_at_init(entry: str, function_name: str) -> set[str]:
    # PYTHONPATH kept: it may put this checkout's code before the installed one.
    path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    env = {**LAMBDA_ENV, **path, "PATH": "/usr/bin:/bin", "AWS_LAMBDA_FUNCTION_NAME": function_name}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT / "functions" / entry / "app.py")],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("tool", sorted(spec.name for spec in all_specs()))
def test_a_tool_function_loads_no_driver_sdk_or_parser_at_init(tool: str) -> None:
    assert loaded_at_init("tool", f"stack-tool-{tool}") & NOT_AT_INIT == set()


# The gateway's init is the MCP SDK plus the catalog; the relational store (SQLAlchemy) is loaded
# by the first request its meter admits, or before the SnapStart snapshot (gateway/lambda_entry.py).
GATEWAY_NOT_AT_INIT = {"sqlalchemy", "pg8000", "alembic", "neo4j", "tree_sitter", "pathspec", "yaml"}


def test_the_gateway_loads_no_database_driver_or_parser_at_init() -> None:
    assert loaded_at_init("gateway", "stack-GatewayFunction-abc") & GATEWAY_NOT_AT_INIT == set()

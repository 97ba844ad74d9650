from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy.exc import IntegrityError

from rhumbline.stores.relational import audit
from rhumbline.stores.relational.schema.core import AuditEntry
from rhumbline.stores.relational.session import session_scope


def _record(session, principal: str, **overrides) -> None:
    values = {
        "request_id": "req-1",
        "principal": principal,
        "token_id": "tk_abcdefghij",
        "tool": "search",
        "project": "acme/shop",
        "arguments_summary": '{"query":"cart"}',
        "outcome": "ok",
        "error_code": None,
        "latency_ms": 12.5,
        "result_bytes": 2048,
    } | overrides
    audit.record(session, **values)


def test_record_and_read_back(engine) -> None:
    principal = f"audit-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        _record(session, principal)
        _record(session, principal, request_id="req-2", outcome="denied", error_code="forbidden", project=None)
        _record(session, principal + "-other", request_id="req-3")
    with session_scope(engine) as session:
        entries = audit.recent(session, principal=principal)
    assert [(e.request_id, e.outcome, e.error_code, e.project) for e in entries] == [
        ("req-2", "denied", "forbidden", None),
        ("req-1", "ok", None, "acme/shop"),
    ]
    first = entries[1]
    assert (first.tool, first.token_id, first.latency_ms, first.result_bytes) == ("search", "tk_abcdefghij", 12.5, 2048)
    assert first.arguments_summary == '{"query":"cart"}'
    assert first.at.tzinfo is not None and entries[0].at >= first.at


def test_recent_limit_is_capped(engine) -> None:
    principal = f"audit-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        for number in range(5):
            _record(session, principal, request_id=f"req-{number}")
    with session_scope(engine) as session:
        assert [e.request_id for e in audit.recent(session, principal=principal, limit=2)] == ["req-4", "req-3"]
        assert len(audit.recent(session, principal=principal, limit=10**9)) == 5
        assert len(audit.recent(session, principal=principal, limit=0)) == 1


def test_record_clips_long_values_and_checks_the_outcome(engine) -> None:
    principal = f"audit-{uuid.uuid4().hex[:8]}"
    with session_scope(engine) as session:
        _record(session, principal, tool="t" * 300, request_id="r" * 300)
        with pytest.raises(ValueError, match="outcome must be one of ok, denied, error, invalid, not 'maybe'"):
            _record(session, principal, outcome="maybe")
    with session_scope(engine) as session:
        (entry,) = audit.recent(session, principal=principal)
    assert (entry.tool, entry.request_id) == ("t" * 100, "r" * 100)


def test_summary_is_compact_json() -> None:
    assert audit.summarize_arguments({"query": "cart total", "limit": 10, "deep": True, "x": None}) == (
        '{"query":"cart total","limit":10,"deep":true,"x":null}'
    )
    assert audit.summarize_arguments({}) == "{}"
    assert audit.summarize_arguments({"name": "café"}) == '{"name":"café"}'


def test_summary_redacts_credentials_at_any_depth() -> None:
    summary = audit.summarize_arguments(
        {
            "api_token": "rhl_x",
            "Password": "hunter2",
            "options": {"client_secret": "s3cr3t", "Authorization": "Bearer y", "keep": "visible"},
            "items": [{"refresh_token": "z"}],
        }
    )
    assert json.loads(summary) == {
        "api_token": "[redacted]",
        "Password": "[redacted]",
        "options": {"client_secret": "[redacted]", "Authorization": "[redacted]", "keep": "visible"},
        "items": [{"refresh_token": "[redacted]"}],
    }
    for secret in ("rhl_x", "hunter2", "s3cr3t", "Bearer y"):
        assert secret not in summary


def test_summary_truncates_long_strings_and_lists() -> None:
    summary = audit.summarize_arguments({"code": "x" * 200, "ids": list(range(25))})
    assert json.loads(summary) == {"code": "x" * 80 + "…(+120 chars)", "ids": list(range(20)) + ["…(+5 items)"]}


def test_summary_is_capped_at_500_characters() -> None:
    summary = audit.summarize_arguments({f"key{number}": "v" * 70 for number in range(20)})
    assert len(summary) == 500
    assert summary.endswith("…")
    assert summary.startswith('{"key0":"' + "v" * 70 + '","key1"')


def test_summary_bounds_depth_and_stringifies_other_values() -> None:
    nested = {"a": {"b": {"c": {"d": {"e": 1, "f": 2}}}}}
    assert audit.summarize_arguments(nested) == '{"a":{"b":{"c":{"d":"{…2 keys}"}}}}'
    assert audit.summarize_arguments({"when": b"raw"}) == '{"when":"b\'raw\'"}'


def test_the_database_refuses_an_unknown_outcome(engine) -> None:
    # The CHECK constraint, reported as IntegrityError on both databases (pg8000 would say
    # ProgrammingError without the engine's error mapping).
    with pytest.raises(IntegrityError):
        with session_scope(engine) as session:
            session.add(
                AuditEntry(
                    request_id="r", principal="p", token_id="t", tool="x", arguments_summary="{}",
                    outcome="maybe", latency_ms=1.0, result_bytes=0,
                )
            )

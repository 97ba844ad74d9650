from __future__ import annotations

import json
import logging

from rhumbline import observability
from rhumbline import heap


def test_tool_call_metric_is_one_emf_blob_with_tool_and_outcome(monkeypatch, capsys):
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "RhumblineTest")
    observability.record_tool_call("search", "ok", 4.25)
    blob = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert blob["tool"] == "search" and blob["outcome"] == "ok"
    assert blob["ToolCalls"] == [1.0] and blob["ToolLatency"] == [4.25]
    directive = blob["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == "RhumblineTest"
    assert set(directive["Dimensions"][0]) >= {"outcome", "tool"}
    assert [metric["Name"] for metric in directive["Metrics"]] == ["ToolCalls", "ToolLatency"]


def test_a_dispatch_failure_is_one_series_for_every_tool(monkeypatch, capsys):
    # The alarm in template.yaml watches exactly this: DispatchFailures without dimensions.
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Rhumbline/rhumbline-dev")
    observability.record_dispatch_failure()
    blob = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    directive = blob["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == "Rhumbline/rhumbline-dev"
    assert directive["Dimensions"] == [[]]
    assert [metric["Name"] for metric in directive["Metrics"]] == ["DispatchFailures"]
    assert blob["DispatchFailures"] == [1.0]


def test_metrics_disabled_prints_nothing(monkeypatch, capsys):
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    observability.record_tool_call("search", "ok", 1.0)
    observability.record_dispatch_failure()
    assert capsys.readouterr().out == ""


def test_entry_wrapper_passes_through_and_tolerates_no_context():
    calls = []

    def handler(event, context):
        calls.append((event, context))
        logging.getLogger("rhumbline.test").info("inside")
        return {"echo": event}

    wrapped = observability.lambda_entry(handler, function="unit")
    assert wrapped({"a": 1}, None) == {"echo": {"a": 1}}
    assert calls == [({"a": 1}, None)]


def test_no_tracer_outside_lambda(monkeypatch):
    monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)
    assert observability._tracing_possible() is False
    monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
    assert observability._tracing_possible() is True
    monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
    assert observability._tracing_possible() is False


def test_a_lambda_functions_init_ends_with_its_heap_frozen(monkeypatch):
    import gc

    def handler(event, context):
        return event

    try:
        monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)
        heap.unfreeze()
        # Outside first: the structured logger is set up once, and in Lambda it stops propagating.
        observability.lambda_entry(handler, function="outside")
        assert gc.get_freeze_count() == 0, "outside Lambda (tests, CLI) nothing is frozen"
        monkeypatch.setenv("LAMBDA_TASK_ROOT", "/var/task")
        wrapped = observability.lambda_entry(handler, function="inside")
        assert gc.get_freeze_count() > 0
        assert wrapped({"a": 1}, None) == {"a": 1}
    finally:
        heap.unfreeze()

"""The platform guards of a pay-per-call deployment: API throttling, reserved concurrency, alarms,
the monthly ceiling, token defaults and audit retention, each a
parameter with a default, evaluated in the stack shapes a team deploys."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.functional.infra.test_template_stacks import (  # noqa: F401 - `template` is a fixture
    BRANCH,
    OWN,
    deployed,
    parameter_values,
    resolved,
    template,
)

ROOT = Path(__file__).resolve().parents[3]
INGEST_STEPS = {"IngestPlanFunction", "IngestShardFunction", "IngestFinishFunction", "IngestFailedFunction"}
NOT_TOOLS = {"GatewayFunction", "GitHubWebhookFunction", "AdminFunction", "MigrateFunction", *INGEST_STEPS}
ALARMS = {
    "ApiServerErrorsAlarm": ("AWS/ApiGateway", "5xx", {"ApiId": {"Ref": "HttpApi"}}),
    "GatewayErrorsAlarm": ("AWS/Lambda", "Errors", {"FunctionName": {"Ref": "GatewayFunction"}}),
    "GatewayThrottlesAlarm": ("AWS/Lambda", "Throttles", {"FunctionName": {"Ref": "GatewayFunction"}}),
    "ToolFunctionFailuresAlarm": ({"Fn::Sub": "Rhumbline/${AWS::StackName}"}, "DispatchFailures", {}),
}


def functions(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in resources.items() if r["Type"] == "AWS::Serverless::Function"}


def reserved(template: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
    """Each function's ReservedConcurrentExecutions as deployed (Globals under the function's own),
    absent when unreserved."""
    resources, _, holds = deployed(template, given)
    globals_ = resolved(template["Globals"]["Function"], holds)
    out = {}
    for name in functions(resources):
        own = template["Resources"][name]["Properties"]
        if "ReservedConcurrentExecutions" in own:
            value = resolved({"v": own["ReservedConcurrentExecutions"]}, holds).get("v")
        else:
            value = globals_.get("ReservedConcurrentExecutions")
        out[name] = value
    return out


def test_api_routes_are_throttled_by_parameters(template: dict[str, Any]) -> None:
    stage = template["Resources"]["HttpApi"]["Properties"]["DefaultRouteSettings"]
    assert stage == {
        "ThrottlingRateLimit": {"Ref": "ApiThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurstLimit"},
    }
    values = parameter_values(template, OWN)
    assert (values["ApiThrottlingRateLimit"], values["ApiThrottlingBurstLimit"]) == (100, 200)


def test_concurrency_is_reserved_for_the_gateway_and_each_tool_unless_zero(template: dict[str, Any]) -> None:
    own = reserved(template, OWN)
    assert own["GatewayFunction"] == {"Ref": "GatewayReservedConcurrency"}
    tools = set(own) - NOT_TOOLS
    assert len(tools) >= 20 and all(own[name] == {"Ref": "ToolReservedConcurrency"} for name in tools)
    # The hosted ingest's parse workers: what all ingests together may run at once.
    assert own["IngestShardFunction"] == {"Ref": "IngestWorkerReservedConcurrency"}
    assert all(own[name] is None for name in NOT_TOOLS - {"GatewayFunction", "IngestShardFunction"})
    values = parameter_values(template, OWN)
    assert (values["GatewayReservedConcurrency"], values["ToolReservedConcurrency"]) == (50, 10)
    assert values["IngestWorkerReservedConcurrency"] == 100

    # 0 means unreserved: no property at all (a reservation of 0 would stop the function).
    zero = {"GatewayReservedConcurrency": "0", "ToolReservedConcurrency": "0", "IngestWorkerReservedConcurrency": "0"}
    unreserved = reserved(template, {**OWN, **zero})
    assert set(unreserved.values()) == {None}


def test_branch_previews_reserve_no_concurrency() -> None:
    script = (ROOT / "scripts" / "deploy-branch.sh").read_text()
    assert re.search(r'stage" == branch \]\]; then\n(?:\s*#.*\n)*\s*parameters\+=\("GatewayReservedConcurrency=0" "ToolReservedConcurrency=0" "IngestWorkerReservedConcurrency=0"\)', script)


@pytest.mark.parametrize("given", [OWN, BRANCH], ids=["own-backends", "shared-backends"])
def test_alarms_on_5xx_throttles_and_errors(template: dict[str, Any], given: dict[str, str]) -> None:
    resources, _, _ = deployed(template, given)
    alarms = {name: r["Properties"] for name, r in resources.items() if r["Type"] == "AWS::CloudWatch::Alarm"}
    assert set(alarms) == set(ALARMS) | {"IngestFailedExecutionsAlarm"}  # that one: test_template_ingest.py
    for name, (namespace, metric, dimensions) in ALARMS.items():
        alarm = alarms[name]
        assert (alarm["Namespace"], alarm["MetricName"]) == (namespace, metric), name
        assert {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])} == dimensions, name
        assert alarm["Threshold"] == {"Ref": "AlarmErrorThreshold"}
        assert alarm["TreatMissingData"] == "notBreaching"
        # No topic by default: the alarms change state and notify nobody.
        assert "AlarmActions" not in alarm and "OKActions" not in alarm
    # The tool functions' failures are counted by the gateway in the stack's own namespace.
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == {"Fn::Sub": "Rhumbline/${AWS::StackName}"}

    topic = "arn:aws:sns:eu-west-1:123456789012:rhumbline-alarms"
    resources, _, _ = deployed(template, {**given, "AlarmTopicArn": topic})
    for name in ALARMS:
        alarm = resources[name]["Properties"]
        assert alarm["AlarmActions"] == alarm["OKActions"] == [{"Ref": "AlarmTopicArn"}]


def test_the_monthly_ceiling_and_token_defaults_reach_the_functions_that_apply_them(template: dict[str, Any]) -> None:
    resources, _, _ = deployed(template, OWN)
    gateway = resources["GatewayFunction"]["Properties"]["Environment"]["Variables"]
    assert gateway["RHUMBLINE_MONTHLY_CALL_CEILING"] == {"Ref": "MonthlyCallCeiling"}
    admin = resources["AdminFunction"]["Properties"]["Environment"]["Variables"]
    assert admin == {
        "RHUMBLINE_DEFAULT_RATE_PER_MINUTE": {"Ref": "DefaultTokenRateLimit"},
        "RHUMBLINE_DEFAULT_RATE_BURST": {"Ref": "DefaultTokenBurst"},
        "RHUMBLINE_DEFAULT_MONTHLY_QUOTA": {"Ref": "DefaultTokenMonthlyQuota"},
    }
    values = parameter_values(template, OWN)
    # None unless the deployment sets one: 0 is "none" to config.py.
    assert [values[name] for name in ("MonthlyCallCeiling", "DefaultTokenRateLimit", "DefaultTokenBurst", "DefaultTokenMonthlyQuota")] == [0, 0, 0, 0]


def test_zero_means_none_to_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import load_settings

    monkeypatch.setenv("RHUMBLINE_MONTHLY_CALL_CEILING", "0")
    monkeypatch.setenv("RHUMBLINE_DEFAULT_RATE_PER_MINUTE", "120")
    loaded = load_settings()
    assert (loaded.monthly_call_ceiling, loaded.default_rate_per_minute, loaded.default_monthly_quota) == (None, 120, None)
    monkeypatch.setenv("RHUMBLINE_DEFAULT_MONTHLY_QUOTA", "-5")
    with pytest.raises(ValueError, match="RHUMBLINE_DEFAULT_MONTHLY_QUOTA must be a positive integer"):
        load_settings()


"""SnapStart in the template: the gateway and the tool functions run published versions behind one
alias, restored from a snapshot of their init; the gateway invokes the tools through that alias.

SnapStart needs python3.12+, serves published versions only (an alias, never $LATEST) and refuses
ephemeral storage above 512 MB and provisioned concurrency. What must not survive a snapshot is
rhumbline/runtime/snapshot.py's (tests/unit/runtime/test_snapshot.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.functional.infra.test_template import (
    ROOT,
    TOOL_ARN,
    effective,
    environment,
    function_for_code,
    functions,
    gateway_id,
    invoke_targets,
    template,  # noqa: F401 - the fixture
    tool_functions,
)

SNAPSTART_OFF = {"ApplyOn": "None"}
SNAPSTART_ON = {"ApplyOn": {"Ref": "SnapStart"}}
MAX_SNAPSTART_EPHEMERAL_MB = 512


@pytest.fixture(scope="module")
def resources(template: dict[str, Any]) -> dict[str, Any]:  # noqa: F811 - the imported fixture
    return template["Resources"]


def alias(template: dict[str, Any]) -> str:
    value = template["Globals"]["Function"]["AutoPublishAlias"]
    assert isinstance(value, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", value), value
    return value


def test_the_runtime_is_python_3_13(template: dict[str, Any]) -> None:
    assert template["Globals"]["Function"]["Runtime"] == "python3.13"
    assert template["Resources"]["SharedLayer"]["Properties"]["CompatibleRuntimes"] == ["python3.13"]


def test_snapstart_is_a_parameter_on_by_default(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["SnapStart"]
    assert (parameter["Default"], parameter["AllowedValues"]) == ("PublishedVersions", ["PublishedVersions", "None"])
    assert template["Globals"]["Function"]["SnapStart"] == SNAPSTART_ON


def test_the_gateway_and_every_tool_but_ingest_run_snapstart_behind_the_alias(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    served = {"gateway": gateway_id(resources), **tool_functions(resources)}
    for name, logical_id in served.items():
        properties = functions(resources)[logical_id]
        assert effective(template, properties, "AutoPublishAlias") == alias(template), name
        assert "ProvisionedConcurrencyConfig" not in properties, name
        expected = SNAPSTART_OFF if name == "ingest" else SNAPSTART_ON
        assert effective(template, properties, "SnapStart") == expected, name


def test_snapstart_is_off_wherever_it_is_refused_or_never_serves(template: dict[str, Any], resources: dict[str, Any]) -> None:
    for logical_id, properties in functions(resources).items():
        storage = (properties.get("EphemeralStorage") or {}).get("Size", 512)
        if storage > MAX_SNAPSTART_EPHEMERAL_MB:
            assert effective(template, properties, "SnapStart") == SNAPSTART_OFF, f"{logical_id}: {storage} MB /tmp"
    # Invoked by name ($LATEST), or now and then: a snapshot would be paid for and rarely or never used.
    for code in ("functions/admin", "functions/migrate", "functions/github_webhook"):
        properties = functions(resources)[function_for_code(resources, code)]
        assert effective(template, properties, "SnapStart") == SNAPSTART_OFF, code


def test_the_gateway_invokes_the_tools_alias_and_may_invoke_nothing_else(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    gateway = functions(resources)[gateway_id(resources)]
    assert environment(template, gateway)["RHUMBLINE_TOOL_FUNCTION_ALIAS"] == alias(template)
    # `function:<stack>-tool-*:live` matches each tool function's alias, not the function ($LATEST).
    assert invoke_targets(gateway) == [{"Fn::Sub": f"{TOOL_ARN}*:{alias(template)}"}]


def test_branch_previews_keep_no_snapshots(template: dict[str, Any]) -> None:  # noqa: F811 - the fixture
    """A snapshot is charged per GB and hour whether called or not: previews deploy without."""
    script = (ROOT / "scripts" / "deploy-branch.sh").read_text()
    branch_block = script[script.index('if [[ "$stage" == branch ]]; then') :].split("\nfi\n", 1)[0]
    assert '"SnapStart=None"' in branch_block
    assert "None" in template["Parameters"]["SnapStart"]["AllowedValues"]


def test_asynchronous_ingests_are_not_retried_on_the_alias_nor_by_name(resources: dict[str, Any]) -> None:
    """SAM puts a function's EventInvokeConfig on its alias; `async: true` and the webhook invoke
    ingest by name ($LATEST): a failed 15-minute ingest must not run twice more either way."""
    ingest = tool_functions(resources)["ingest"]
    assert functions(resources)[ingest]["EventInvokeConfig"]["MaximumRetryAttempts"] == 0
    [latest] = [
        r["Properties"] for r in resources.values()
        if r["Type"] == "AWS::Lambda::EventInvokeConfig" and r["Properties"]["FunctionName"] == {"Ref": ingest}
    ]  # fmt: skip
    assert (latest["Qualifier"], latest["MaximumRetryAttempts"]) == ("$LATEST", 0)

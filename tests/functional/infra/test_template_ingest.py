"""The hosted ingest of large repositories in the template: the state machine's definition
(statemachines/ingest.asl.yaml) against its substitutions and the step functions, the Map's retry
and the failure path, each function's and the state machine's IAM (only their bucket prefixes and
actions), the parameters, the bucket's lifecycle rules and the alarm on failed executions."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from rhumbline.ingest.distributed.plan import RUN_LEASE_SECONDS
from tests.functional.infra.test_template_stacks import OWN, deployed, parameter_values, template  # noqa: F401

ROOT = Path(__file__).resolve().parents[3]
STEPS = {  # substitution → (function, the module its entry point imports)
    "PlanFunctionArn": ("IngestPlanFunction", "plan"),
    "ShardFunctionArn": ("IngestShardFunction", "shard"),
    "FinishFunctionArn": ("IngestFinishFunction", "finish"),
    "FailedFunctionArn": ("IngestFailedFunction", "failed"),
}
BUCKET = "${IngestBucket.Arn}"


@pytest.fixture(scope="module")
def machine(template: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    return template["Resources"]["IngestStateMachine"]["Properties"]


@pytest.fixture(scope="module")
def definition(machine: dict[str, Any]) -> dict[str, Any]:
    return yaml.safe_load((ROOT / machine["DefinitionUri"]).read_text())


def substituted(machine: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """The definition as Step Functions runs it, with `values` for the substitutions."""
    text = (ROOT / machine["DefinitionUri"]).read_text()
    names = set(re.findall(r"\$\{(\w+)\}", text))
    assert names == set(machine["DefinitionSubstitutions"]), "every placeholder substituted, nothing more"
    for name in names:
        text = text.replace("${" + name + "}", values.get(name, f"sub-{name}"))
    return yaml.safe_load(text)


def statements(properties: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for policy in properties.get("Policies") or [] if isinstance(policy, dict) for s in policy.get("Statement", [])]


def test_the_definition_runs_plan_then_the_map_or_the_single_reader_then_finish(
    machine: dict[str, Any], definition: dict[str, Any]
) -> None:
    assert machine["Type"] == "STANDARD" and machine["Name"] == {"Fn::Sub": "${AWS::StackName}-ingest"}
    # Its executions never outlive the lease the plan step takes for them.
    assert definition["TimeoutSeconds"] == RUN_LEASE_SECONDS
    states = definition["States"]
    assert definition["StartAt"] == "Plan" and states["Plan"]["Next"] == "Sharded"
    assert states["Plan"]["Parameters"]["Payload"]["run.$"] == "$$.Execution.Name"
    choice = states["Sharded"]
    assert choice["Choices"] == [{"Variable": "$.sharded", "BooleanEquals": True, "Next": "ParseShards"}]
    assert choice["Default"] == "Finish" and states["ParseShards"]["Next"] == "Finish" and states["Finish"]["End"]
    for name, (function, module) in STEPS.items():
        assert machine["DefinitionSubstitutions"][name] == {"Fn::GetAtt": [function, "Arn"]}
        code = template_function(machine, function)["CodeUri"]
        entry = (ROOT / code / "app.py").read_text()
        assert f"from rhumbline.ingest.distributed.{module} import handler" in entry, code


def template_function(machine: dict[str, Any], logical_id: str) -> dict[str, Any]:
    from rhumbline.local.template import CloudFormationLoader

    text = (ROOT / "template.yaml").read_text()
    return yaml.load(text, Loader=CloudFormationLoader)["Resources"][logical_id]["Properties"]  # noqa: S506


def test_the_map_is_distributed_bounded_by_the_parameter_and_retries_a_shard_once(
    machine: dict[str, Any], template: dict[str, Any]  # noqa: F811
) -> None:
    assert machine["DefinitionSubstitutions"]["MapConcurrency"] == {"Ref": "IngestMapConcurrency"}
    assert machine["DefinitionSubstitutions"]["IngestBucket"] == {"Ref": "IngestBucket"}
    states = substituted(machine, {"MapConcurrency": "40"})["States"]
    shards = states["ParseShards"]
    assert shards["MaxConcurrency"] == 40 and shards["ToleratedFailurePercentage"] == 0
    assert shards["ItemProcessor"]["ProcessorConfig"]["Mode"] == "DISTRIBUTED"
    reader = shards["ItemReader"]
    assert reader["Resource"] == "arn:aws:states:::s3:getObject" and reader["ReaderConfig"]["InputType"] == "JSON"
    assert reader["Parameters"]["Key.$"] == "States.Format('runs/{}/shards.json', $.run)"
    # The workers store the files' contents where the plan names (distributed/contents.py).
    assert shards["ItemSelector"] == {"run.$": "$.run", "shard.$": "$$.Map.Item.Value", "contents.$": "$.contents"}
    assert shards["ResultPath"] is None  # the answers are in S3; finish gets the plan's output
    [worker] = shards["ItemProcessor"]["States"].values()
    assert worker["Parameters"]["FunctionName"] == "sub-ShardFunctionArn"
    assert worker["Retry"] == [{"ErrorEquals": ["States.ALL"], "MaxAttempts": 1, "IntervalSeconds": 5, "BackoffRate": 2}]
    parameters = parameter_values(template, OWN)
    assert (parameters["IngestMapConcurrency"], template["Parameters"]["IngestMapConcurrency"]["MinValue"]) == (100, 1)


def test_a_failed_shard_or_finish_fails_the_version_then_the_execution(definition: dict[str, Any]) -> None:
    states = definition["States"]
    for name in ("ParseShards", "Finish"):
        assert states[name]["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.failure", "Next": "MarkFailed"}]
    assert "Catch" not in states["Plan"]  # no version yet: nothing to mark
    assert states["MarkFailed"]["Next"] == "Failed" and states["MarkFailed"]["ResultPath"] == "$.failed"
    assert states["Failed"] == {"Type": "Fail", "Error": "IngestFailed", "CausePath": "$.failed.error"}


def test_every_step_gives_its_function_the_time_it_may_take(machine: dict[str, Any], definition: dict[str, Any]) -> None:
    tasks = {**definition["States"], **definition["States"]["ParseShards"]["ItemProcessor"]["States"]}
    for state in tasks.values():
        if state["Type"] != "Task":
            continue
        name = state["Parameters"]["FunctionName"][2:-1]
        function = template_function(machine, STEPS[name][0])
        assert state["TimeoutSeconds"] >= function.get("Timeout", 29), name


def test_the_state_machine_may_do_only_what_its_steps_need(machine: dict[str, Any]) -> None:
    invoked = [p["LambdaInvokePolicy"]["FunctionName"] for p in machine["Policies"] if "LambdaInvokePolicy" in p]
    assert invoked == [{"Ref": function} for function, _ in STEPS.values()]
    granted = {(json.dumps(s["Action"]), json.dumps(s["Resource"])) for s in statements(machine)}
    prefix = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}"
    assert granted == {
        ('"s3:GetObject"', json.dumps({"Fn::Sub": f"{BUCKET}/runs/*"})),
        ('"states:StartExecution"', json.dumps({"Fn::Sub": f"{prefix}:stateMachine:${{AWS::StackName}}-ingest"})),
        ('["states:DescribeExecution", "states:StopExecution"]',
         json.dumps({"Fn::Sub": f"{prefix}:execution:${{AWS::StackName}}-ingest/*"})),
    }  # fmt: skip


EXPECTED_S3 = {
    "IngestPlanFunction": {
        ("s3:PutObject", f"{BUCKET}/runs/*"), ("s3:GetObject", f"{BUCKET}/facts/*/shards/*"),
        ("s3:PutObject", f"{BUCKET}/facts/*/shards/*"), ("s3:ListBucket", "facts/*/shards/*"),
    },
    "IngestShardFunction": {
        ("s3:GetObject", f"{BUCKET}/runs/*/tree.tar"), ("s3:GetObject", f"{BUCKET}/runs/*/answers/*"),
        ("s3:PutObject", f"{BUCKET}/runs/*/answers/*"), ("s3:PutObject", f"{BUCKET}/facts/*/shards/*"),
        ("s3:PutObject", "${FileContentsBucket.Arn}/sources/*"),
    },
    "IngestFinishFunction": {
        ("s3:GetObject", f"{BUCKET}/runs/*"),
        ("s3:PutObject", "${FileContentsBucket.Arn}/sources/*"), ("s3:DeleteObject", "${FileContentsBucket.Arn}/sources/*"),
    },
    "IngestFailedFunction": {("s3:GetObject", f"{BUCKET}/runs/*"), ("s3:ListBucket", "runs/*")},
}  # fmt: skip
EXPECTED_SECRETS = {
    "IngestPlanFunction": ["DatabaseSecret"],
    "IngestShardFunction": [],
    "IngestFinishFunction": ["DatabaseSecret", "Neo4jSecretArn"],
    "IngestFailedFunction": ["DatabaseSecret"],
}


def test_each_step_function_gets_only_its_prefixes_and_secrets(template: dict[str, Any]) -> None:  # noqa: F811
    resources, _, _ = deployed(template, OWN)  # no source bucket, no GitHub token: the defaults
    for logical_id, expected in EXPECTED_S3.items():
        properties = resources[logical_id]["Properties"]
        granted = set()
        for statement in statements(properties):
            assert statement["Effect"] == "Allow", logical_id
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            for action in actions:
                if action == "s3:ListBucket":  # the bucket itself, narrowed to a prefix
                    assert statement["Resource"] == {"Fn::GetAtt": ["IngestBucket", "Arn"]}, logical_id
                    granted.add((action, statement["Condition"]["StringLike"]["s3:prefix"]))
                else:
                    resources_ = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
                    granted.update((action, resource["Fn::Sub"]) for resource in resources_)
        assert granted == expected, logical_id
        secrets = [p["AWSSecretsManagerGetSecretValuePolicy"]["SecretArn"]["Ref"]
                   for p in properties["Policies"] if "AWSSecretsManagerGetSecretValuePolicy" in p]  # fmt: skip
        assert secrets == EXPECTED_SECRETS[logical_id], logical_id
        assert properties["Environment"]["Variables"]["RHUMBLINE_INGEST_BUCKET"] == {"Ref": "IngestBucket"}
        if logical_id != "IngestFailedFunction":  # the plan names it, the workers and finish write it
            assert properties["Environment"]["Variables"]["RHUMBLINE_CONTENTS_BUCKET"] == {"Ref": "FileContentsBucket"}


def test_the_ingest_tool_may_start_only_the_state_machine(template: dict[str, Any]) -> None:  # noqa: F811
    ingest = template["Resources"]["IngestFunction"]["Properties"]
    assert ingest["Environment"]["Variables"]["RHUMBLINE_INGEST_STATE_MACHINE_ARN"] == {"Ref": "IngestStateMachine"}
    started = [s for s in statements(ingest) if "states" in json.dumps(s["Action"])]
    assert started == [{"Effect": "Allow", "Action": "states:StartExecution", "Resource": {"Ref": "IngestStateMachine"}}]
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Serverless::Function" and logical_id != "IngestFunction":
            assert "states:" not in json.dumps(resource["Properties"].get("Policies")), logical_id


def test_the_bucket_is_private_and_expires_runs_and_unused_facts(template: dict[str, Any]) -> None:  # noqa: F811
    resources, _, _ = deployed(template, OWN)
    properties = resources["IngestBucket"]["Properties"]
    assert all(properties["PublicAccessBlockConfiguration"].values())
    assert properties["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    rules = {rule["Id"]: rule for rule in properties["LifecycleConfiguration"]["Rules"]}
    assert (rules["expire-runs"]["Prefix"], rules["expire-runs"]["ExpirationInDays"]) == ("runs/", 1)
    facts = rules["expire-unused-facts"]
    assert (facts["Prefix"], facts["ExpirationInDays"]) == ("facts/", {"Ref": "IngestFactsRetentionDays"})
    assert rules["abort-incomplete-uploads"]["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    assert all(rule["Status"] == "Enabled" for rule in rules.values())
    [tls] = resources["IngestBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert (tls["Effect"], tls["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})
    parameters = parameter_values(template, OWN)
    assert (parameters["IngestFactsRetentionDays"], parameters["IngestWorkerReservedConcurrency"]) == (30, 100)


def test_a_failed_execution_sets_off_an_alarm(template: dict[str, Any]) -> None:  # noqa: F811
    resources, _, _ = deployed(template, OWN)
    alarm = resources["IngestFailedExecutionsAlarm"]["Properties"]
    assert (alarm["Namespace"], alarm["MetricName"], alarm["Statistic"]) == ("AWS/States", "ExecutionsFailed", "Sum")
    assert alarm["Dimensions"] == [{"Name": "StateMachineArn", "Value": {"Ref": "IngestStateMachine"}}]
    assert (alarm["Threshold"], alarm["ComparisonOperator"]) == (1, "GreaterThanOrEqualToThreshold")
    topic = "arn:aws:sns:eu-west-1:123456789012:rhumbline-alarms"
    resources, _, _ = deployed(template, {**OWN, "AlarmTopicArn": topic})
    alarm = resources["IngestFailedExecutionsAlarm"]["Properties"]
    assert alarm["AlarmActions"] == alarm["OKActions"] == [{"Ref": "AlarmTopicArn"}]


def test_the_plan_fetches_what_its_functions_tmp_holds(template: dict[str, Any]) -> None:  # noqa: F811
    from rhumbline.ingest.discover import sources
    from rhumbline.ingest.distributed.plan import FETCH_LIMITS, TMP_BYTES

    resources = template["Resources"]
    for name in ("IngestPlanFunction", "IngestFinishFunction"):
        assert resources[name]["Properties"]["EphemeralStorage"]["Size"] * 1024**2 == TMP_BYTES, name
    # The plan: the archive beside its tree, then the tree beside its tar; the finish: tar and tree.
    assert FETCH_LIMITS.download_bytes + FETCH_LIMITS.unpacked_bytes <= TMP_BYTES
    assert 2 * FETCH_LIMITS.unpacked_bytes <= TMP_BYTES
    # More than the one-function ingest may fetch, which keeps its own limits.
    assert sources.limits() == sources.FetchLimits(sources.MAX_DOWNLOAD_BYTES, sources.MAX_UNPACKED_BYTES, sources.MAX_FILES)
    assert FETCH_LIMITS.files > sources.MAX_FILES and FETCH_LIMITS.unpacked_bytes > sources.MAX_UNPACKED_BYTES


def test_each_step_is_given_exactly_what_its_handler_reads(definition: dict[str, Any]) -> None:
    from rhumbline.ingest.distributed.failed import FailedRequest
    from rhumbline.ingest.distributed.plan import PlanRequest
    from rhumbline.ingest.distributed.shard import ShardRequest

    states = definition["States"]
    plan_payload = {key.removesuffix(".$") for key in states["Plan"]["Parameters"]["Payload"]}
    assert plan_payload == set(PlanRequest.model_fields)
    assert {key.removesuffix(".$") for key in states["ParseShards"]["ItemSelector"]} == set(ShardRequest.model_fields)
    # finish and failed get the plan's output (with the Catch's `failure`): the functional test
    # (test_ingest_hosted_run.py) validates that output as FinishRequest, which forbids extras.
    assert states["Finish"]["Parameters"]["Payload.$"] == states["MarkFailed"]["Parameters"]["Payload.$"] == "$"
    assert {"run", "version_id", "sharded", "failure"} <= set(FailedRequest.model_fields)
    assert states["Sharded"]["Choices"][0]["Variable"] == "$.sharded"


def test_the_staged_writes_concurrency_is_a_parameter_bounded_as_the_setting_is(template: dict[str, Any]) -> None:  # noqa: F811
    from rhumbline.config import NEO4J_MAX_WRITERS, Settings

    parameter = template["Parameters"]["Neo4jWriters"]
    assert (parameter["Default"], parameter["MinValue"], parameter["MaxValue"]) == (Settings().neo4j_writers, 1, NEO4J_MAX_WRITERS)
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["RHUMBLINE_NEO4J_WRITERS"] == {"Ref": "Neo4jWriters"}

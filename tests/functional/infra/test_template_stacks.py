"""The template in its two shapes: a stack with its own Aurora cluster and Neo4j database (a
long-lived stage), and a cheap per-branch stack that shares another stack's cluster and a Neo4j
database (docs/deploy.md). The conditions are evaluated for each set of parameters, and every
reference left must name a resource that exists in that shape.

Also: the admin function (IAM only), teardown leaving nothing behind, and the runtime's Python
named the same way everywhere the build and the template need it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from rhumbline.local.template import CloudFormationLoader

ROOT = Path(__file__).resolve().parents[3]
ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:rhumbline/{}-AbCdEf"
OWN = {"Stage": "dev"}
BRANCH = {
    "Stage": "branch",
    "SharedDatabaseSecretArn": ARN.format("dev-db"),
    "SharedDatabaseSecurityGroupId": "sg-0123456789abcdef0",
    "Neo4jNamespace": "rhumbline-br-feature-x",
}
DATABASE_RESOURCES = {"DatabaseCluster", "DatabaseInstance", "DatabaseSubnetGroup", "DatabaseSecurityGroup", "DatabaseSecretAttachment"}
PSEUDO = {"AWS::NoValue", "AWS::StackName", "AWS::StackId", "AWS::Region", "AWS::AccountId", "AWS::Partition", "AWS::URLSuffix"}


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=CloudFormationLoader)  # noqa: S506


def parameter_values(template: dict[str, Any], given: dict[str, str]) -> dict[str, Any]:
    values = {name: spec.get("Default") for name, spec in template["Parameters"].items()}
    values.update(given)
    for name, spec in template["Parameters"].items():
        pattern = spec.get("AllowedPattern")
        if pattern and isinstance(values[name], str):
            assert re.match(pattern, values[name]), f"{name}={values[name]!r} does not match {pattern}"
    return values


def conditions(template: dict[str, Any], parameters: dict[str, Any]) -> dict[str, bool]:
    def value(node: Any) -> Any:
        if isinstance(node, dict) and "Ref" in node:
            return {"AWS::StackName": "rhumbline-br-feature-x"}.get(node["Ref"], parameters.get(node["Ref"]))
        return node

    def truth(node: Any) -> bool:
        (function, argument), = node.items()
        if function == "Fn::Equals":
            return str(value(argument[0])) == str(value(argument[1]))
        if function == "Fn::Not":
            return not truth(argument[0])
        if function == "Fn::Or":
            return any(truth(a) for a in argument)
        if function == "Fn::And":
            return all(truth(a) for a in argument)
        if function == "Condition":
            return truth(template["Conditions"][argument])
        raise AssertionError(f"condition function {function} not understood")

    return {name: truth(node) for name, node in template["Conditions"].items()}


def resolved(node: Any, holds: dict[str, bool]) -> Any:
    """`node` with every Fn::If replaced by its chosen branch (AWS::NoValue dropped)."""
    if isinstance(node, dict):
        if set(node) == {"Fn::If"}:
            name, then, otherwise = node["Fn::If"]
            return resolved(then if holds[name] else otherwise, holds)
        out = {key: resolved(child, holds) for key, child in node.items()}
        return {key: child for key, child in out.items() if child != {"Ref": "AWS::NoValue"}}
    if isinstance(node, list):
        return [resolved(child, holds) for child in node if resolved(child, holds) != {"Ref": "AWS::NoValue"}]
    return node


def deployed(template: dict[str, Any], given: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, bool]]:
    """(resources, outputs, conditions) of a stack deployed with these parameters."""
    holds = conditions(template, parameter_values(template, given))
    resources = {
        logical_id: resolved(resource, holds)
        for logical_id, resource in template["Resources"].items()
        if holds.get(resource.get("Condition", ""), True)
    }
    outputs = {name: resolved(output, holds) for name, output in template["Outputs"].items()}
    return resources, outputs, holds


def references(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        for key, child in node.items():
            if key == "Ref" and isinstance(child, str):
                found.add(child)
            elif key == "Fn::GetAtt":
                found.add(child[0] if isinstance(child, list) else child.split(".")[0])
            elif key == "Fn::Sub":
                text = child if isinstance(child, str) else child[0]
                local = set(child[1]) if isinstance(child, list) else set()
                found |= {name.split(".")[0] for name in re.findall(r"\$\{([^}!]+)\}", text)} - local
                found |= references(child[1] if isinstance(child, list) else {})
            else:
                found |= references(child)
    elif isinstance(node, list):
        for child in node:
            found |= references(child)
    return found


@pytest.mark.parametrize("given", [OWN, BRANCH], ids=["own-backends", "shared-backends"])
def test_every_reference_names_something_that_exists(template: dict[str, Any], given: dict[str, str]) -> None:
    resources, outputs, _ = deployed(template, given)
    known = set(resources) | set(template["Parameters"]) | PSEUDO
    for logical_id, resource in resources.items():
        depends = resource.get("DependsOn", [])
        missing = (references(resource) | set([depends] if isinstance(depends, str) else depends)) - known
        assert not missing, f"{logical_id} refers to {missing}, which this stack does not have"
    for name, output in outputs.items():
        assert not references(output) - known, name
    # The globals every function gets, resolved the same way.
    assert not references(resolved(template["Globals"], deployed(template, given)[2])) - known


def test_a_stack_with_its_own_backends(template: dict[str, Any]) -> None:
    resources, outputs, holds = deployed(template, OWN)
    assert DATABASE_RESOURCES <= set(resources)
    assert not {"BranchDatabase", "GraphNamespace"} & set(resources)
    assert not holds["JoinsSharedSecurityGroup"] and not holds["HasNeo4jNamespace"]
    secret = resources["DatabaseSecret"]["Properties"]["GenerateSecretString"]["SecretStringTemplate"]
    assert secret == '{"username": "rhumbline", "dbname": "rhumbline"}'
    migrations = resources["Migrations"]["Properties"]
    assert migrations["DatabaseReady"] == {"Ref": "DatabaseSecretAttachment"}
    assert migrations["DatabaseInstance"] == {"Ref": "DatabaseInstance"}
    assert outputs["DatabaseEndpoint"]["Value"] == {"Fn::GetAtt": ["DatabaseCluster", "Endpoint.Address"]}
    migrate = resources["MigrateFunction"]["Properties"]["Policies"]
    assert migrate == [{"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "DatabaseSecret"}}}]


def test_a_branch_stack_shares_the_cluster_and_the_graph_database(template: dict[str, Any]) -> None:
    resources, outputs, _ = deployed(template, BRANCH)
    # No cluster of its own: nothing that takes 15 minutes to create or bills an ACU at rest.
    assert not DATABASE_RESOURCES & set(resources)
    assert not any(r["Type"].startswith("AWS::RDS::") for r in resources.values())

    branch = resources["BranchDatabase"]
    assert branch["Type"] == "Custom::BranchDatabase"
    assert branch["Properties"]["ServiceToken"] == {"Fn::GetAtt": ["MigrateFunction", "Arn"]}
    assert branch["Properties"]["AdminSecretArn"] == {"Ref": "SharedDatabaseSecretArn"}
    assert branch["Properties"]["DatabaseSecretArn"] == {"Ref": "DatabaseSecret"}
    assert branch["Properties"]["ServiceTimeout"] > resources["MigrateFunction"]["Properties"]["Timeout"]
    # The role and database are named after the stack id (rhb_ + 32 hex digits, branch_storage.py).
    template_text, variables = resources["DatabaseSecret"]["Properties"]["GenerateSecretString"]["SecretStringTemplate"]["Fn::Sub"]
    assert template_text == '{"username": "rhb_${Id}", "dbname": "rhb_${Id}"}'
    stack_uuid = "0c2f9a70-8a8e-11ef-b864-0242ac120002"
    assert evaluate(variables["Id"], f"arn:aws:cloudformation:eu-west-1:123456789012:stack/rhumbline-br-x/{stack_uuid}") == (
        stack_uuid.replace("-", "")
    )
    migrations = resources["Migrations"]["Properties"]
    assert migrations["DatabaseReady"] == {"Ref": "BranchDatabase"}
    assert migrations["DatabaseEndpoint"] == {"Fn::GetAtt": ["BranchDatabase", "Endpoint"]}
    assert "DatabaseInstance" not in migrations
    assert outputs["DatabaseEndpoint"]["Value"] == {"Fn::GetAtt": ["BranchDatabase", "Endpoint"]}

    # The migration function alone reads the shared master secret and writes the stack's own secret.
    policies = resources["MigrateFunction"]["Properties"]["Policies"]
    assert {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "SharedDatabaseSecretArn"}}} in policies
    assert {"Statement": [{"Effect": "Allow", "Action": "secretsmanager:PutSecretValue", "Resource": {"Ref": "DatabaseSecret"}}]} in policies
    for logical_id, resource in resources.items():
        if resource["Type"] == "AWS::Serverless::Function" and logical_id != "MigrateFunction":
            assert "SharedDatabaseSecretArn" not in references(resource), logical_id

    # Every function reaches the shared cluster through the security group it admits.
    groups = resolved(template["Globals"]["Function"]["VpcConfig"]["SecurityGroupIds"], deployed(template, BRANCH)[2])
    assert groups == [{"Ref": "LambdaSecurityGroup"}, {"Ref": "SharedDatabaseSecurityGroupId"}]

    # The graph: every function writes under the namespace; the stack's deletion deletes it.
    assert template["Globals"]["Function"]["Environment"]["Variables"]["RHUMBLINE_NEO4J_NAMESPACE"] == {"Ref": "Neo4jNamespace"}
    namespace = resources["GraphNamespace"]
    assert namespace["Type"] == "Custom::GraphNamespace"
    assert namespace["Properties"]["Namespace"] == {"Ref": "Neo4jNamespace"}
    assert {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "Neo4jSecretArn"}}} in policies


def evaluate(node: Any, stack_id: str) -> Any:
    """The few intrinsic functions the secret's name is built with."""
    if isinstance(node, dict):
        (function, argument), = node.items()
        if function == "Ref":
            assert argument == "AWS::StackId"
            return stack_id
        if function == "Fn::Split":
            return evaluate(argument[1], stack_id).split(argument[0])
        if function == "Fn::Select":
            return evaluate(argument[1], stack_id)[int(argument[0])]
        if function == "Fn::Join":
            return argument[0].join(evaluate(argument[1], stack_id))
        raise AssertionError(function)
    return node


def test_deleting_a_stack_leaves_nothing_behind(template: dict[str, Any]) -> None:
    """Logs included: the functions write to a log group of the stack's, not to groups Lambda
    would create on first use (and nobody would delete)."""
    assert template["Globals"]["Function"]["LoggingConfig"] == {"LogGroup": {"Ref": "FunctionLogs"}}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Logs::LogGroup":
            assert (resource["DeletionPolicy"], resource["UpdateReplacePolicy"]) == ("Delete", "Delete"), logical_id
    resources, _, _ = deployed(template, BRANCH)
    cluster_policy = template["Resources"]["DatabaseCluster"]["DeletionPolicy"]
    assert cluster_policy == {"Fn::If": ["IsProd", "Snapshot", "Delete"]}
    retained = [fid for fid, r in resources.items() if r.get("DeletionPolicy") in ("Retain", "RetainExceptOnCreate", "Snapshot")]
    assert retained == []


def test_the_admin_function_is_reached_with_iam_only(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    admin = resources["AdminFunction"]["Properties"]
    assert admin["CodeUri"] == "functions/admin"
    # No API route reaches it; EventBridge does, daily, with one fixed command: audit retention.
    [(name, event)] = admin["Events"].items()
    assert (name, event["Type"], event["Properties"]["Schedule"]) == ("AuditRetention", "Schedule", "rate(1 day)")
    assert event["Properties"]["Input"] == {
        "Fn::Sub": '{"command": "audit.prune", "arguments": {"older_than_days": ${AuditRetentionDays}}}'
    }
    assert template["Parameters"]["AuditRetentionDays"]["Default"] == 90
    assert admin["Policies"] == [{"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "DatabaseSecret"}}}]
    # No function may invoke it (only the gateway invokes, and only tools).
    for logical_id, resource in resources.items():
        if logical_id != "AdminFunction":
            assert "AdminFunction" not in references(resource.get("Properties", {}).get("Policies", [])), logical_id
    assert not any(r["Type"] == "AWS::Lambda::Permission" for r in resources.values())
    assert template["Outputs"]["AdminFunctionName"]["Value"] == {"Ref": "AdminFunction"}
    entry = (ROOT / "functions" / "admin" / "app.py").read_text()
    assert "from rhumbline.admin.handler import handler" in entry


def test_the_runtime_python_is_named_once_for_the_build(template: dict[str, Any]) -> None:
    makefile = (ROOT / "layers" / "shared" / "Makefile").read_text()
    [version] = re.findall(r"^LAMBDA_PYTHON := (3\.\d+)$", makefile, re.MULTILINE)
    runtime = f"python{version}"
    assert template["Globals"]["Function"]["Runtime"] == runtime
    assert template["Resources"]["SharedLayer"]["Properties"]["CompatibleRuntimes"] == [runtime]
    assert "--python-version $(LAMBDA_PYTHON)" in makefile and "PYTHON ?= python$(LAMBDA_PYTHON)" in makefile
    for function in template["Resources"].values():
        assert "Runtime" not in function.get("Properties", {}), "one runtime for every function, in Globals"

"""The `query` function's optional read-only Neo4j user: only that function gets the secret, and
only when one is given."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from rhumbline.local.template import CloudFormationLoader

TEMPLATE = Path(__file__).resolve().parents[3] / "template.yaml"


def test_only_the_query_function_may_read_the_read_only_secret() -> None:
    template = yaml.load(TEMPLATE.read_text(), Loader=CloudFormationLoader)  # noqa: S506 - SafeLoader subclass
    parameter = template["Parameters"]["Neo4jReadOnlySecretArn"]
    assert parameter["Default"] == ""
    assert template["Conditions"]["HasNeo4jReadOnlySecret"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "Neo4jReadOnlySecretArn"}, ""]}]
    }
    query = template["Resources"]["QueryFunction"]["Properties"]
    assert (query["CodeUri"], query["FunctionName"]) == ("functions/tool", {"Fn::Sub": "${AWS::StackName}-tool-query"})
    assert query["Environment"]["Variables"]["RHUMBLINE_NEO4J_READONLY_SECRET_ARN"] == {"Ref": "Neo4jReadOnlySecretArn"}
    conditional = [p for p in query["Policies"] if isinstance(p, dict) and "Fn::If" in p]
    assert conditional == [{"Fn::If": [
        "HasNeo4jReadOnlySecret",
        {"AWSSecretsManagerGetSecretValuePolicy": {"SecretArn": {"Ref": "Neo4jReadOnlySecretArn"}}},
        {"Ref": "AWS::NoValue"},
    ]}]  # fmt: skip
    for logical_id, resource in template["Resources"].items():
        if logical_id != "QueryFunction":
            assert "Neo4jReadOnlySecretArn" not in json.dumps(resource), logical_id

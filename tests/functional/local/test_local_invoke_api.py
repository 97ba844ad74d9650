"""The local Lambda Invoke API, reached by a real boto3 client (as the gateway's dispatcher does)."""

from __future__ import annotations

import json
import time

import anyio
import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from rhumbline.local.lambda_api import InvokeCredentials
from rhumbline.local.server import LocalApi


def client_for(endpoint: str, access_key: str, secret: str) -> object:
    return boto3.client(
        "lambda",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=access_key,
        aws_secret_access_key=secret,
        config=Config(retries={"total_max_attempts": 1}, read_timeout=10),
    )


@pytest.fixture
def lambda_client(served: str, invoke_credentials: InvokeCredentials) -> object:
    return client_for(served, invoke_credentials.access_key_id, invoke_credentials.secret_access_key)


def test_request_response_runs_the_handler(lambda_client: object) -> None:
    response = lambda_client.invoke(FunctionName="SlowFunction", Payload=json.dumps({"sleep": 0}).encode())
    assert response["StatusCode"] == 200
    assert "FunctionError" not in response
    assert response["ExecutedVersion"] == "$LATEST"
    assert json.loads(response["Payload"].read()) == {"slept": 0, "remaining_ms": True}


def test_function_arns_are_accepted(lambda_client: object) -> None:
    arn = "arn:aws:lambda:us-east-1:000000000000:function:SlowFunction"
    assert lambda_client.invoke(FunctionName=arn, Payload=b"{}")["StatusCode"] == 200


def test_a_raising_handler_is_an_unhandled_function_error(lambda_client: object) -> None:
    response = lambda_client.invoke(FunctionName="BrokenFunction", Payload=b"{}")
    assert response["FunctionError"] == "Unhandled"
    error = json.loads(response["Payload"].read())
    assert (error["errorType"], error["errorMessage"]) == ("ValueError", "broken on purpose")


def test_a_handler_past_its_timeout_is_a_timeout_function_error(lambda_client: object) -> None:
    response = lambda_client.invoke(FunctionName="SlowFunction", Payload=json.dumps({"sleep": 1}).encode())
    assert response["FunctionError"] == "Unhandled"
    assert json.loads(response["Payload"].read())["errorType"] == "Sandbox.Timedout"


def test_event_invocations_are_accepted_and_run_in_the_background(lambda_client: object, stand_in: LocalApi) -> None:
    started = time.monotonic()
    response = lambda_client.invoke(FunctionName="EchoFunction", InvocationType="Event", Payload=json.dumps({
        "requestContext": {}, "isBase64Encoded": False, "routeKey": "async"}).encode())
    assert response["StatusCode"] == 202
    assert time.monotonic() - started < 1
    received = stand_in.runner.handler("EchoFunction").__globals__["RECEIVED"]
    deadline = time.monotonic() + 5
    while not received:
        assert time.monotonic() < deadline, "the Event invocation never ran"
        time.sleep(0.02)
    assert received[-1]["routeKey"] == "async"


def test_unknown_functions_and_bad_payloads_are_client_errors(lambda_client: object) -> None:
    with pytest.raises(ClientError) as missing:
        lambda_client.invoke(FunctionName="NoSuchFunction", Payload=b"{}")
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert "NoSuchFunction" in missing.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as bad:
        lambda_client.invoke(FunctionName="SlowFunction", Payload=b"{not json")
    assert bad.value.response["Error"]["Code"] == "InvalidRequestContentException"


def test_only_the_tool_functions_are_invokable(lambda_client: object) -> None:
    # A function the template has but that is not a tool (migrate, the webhook functions) is not served.
    with pytest.raises(ClientError) as refused:
        lambda_client.invoke(FunctionName="NoToolFunction", Payload=b"{}")
    assert refused.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_client_signing_with_another_secret_is_refused(served: str, invoke_credentials: InvokeCredentials) -> None:
    for access_key, secret in [("rhumbline-local", "guessed"), ("local", "local"), ("other", invoke_credentials.secret_access_key)]:
        with pytest.raises(ClientError) as refused:
            client_for(served, access_key, secret).invoke(FunctionName="SlowFunction", Payload=b"{}")
        assert refused.value.response["Error"]["Code"] == "InvalidSignatureException"
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_the_invoke_api_is_not_served_without_it(stand_in_template: object) -> None:
    from rhumbline.local.apigw import HttpRequest
    from rhumbline.local.functions import FunctionRunner

    api = LocalApi(stand_in_template, FunctionRunner(stand_in_template))
    request = HttpRequest("POST", "/2015-03-31/functions/SlowFunction/invocations", body=b"{}")
    assert anyio.run(api.respond, request).status == 404

"""The SAM template's wiring, checked against the code: cfn-lint validates shapes, not intent.

For every tool (a module in rhumbline/tools with a SPEC): exactly one function, named
`<stack>-tool-<tool>` (the name the gateway derives, its one invoke policy allows, and the one tool
entry point `functions/tool` reads its tool from). Plus the HTTP
API (routes, no authorizer), the shared layer and VPC on every function, the invoke rights (the
gateway's and nobody else's), the database's network exposure, samconfig.toml, the sample events
and the branch stack names (short enough for every tool function's name).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from rhumbline.contract import ToolInvocation
from rhumbline.local.template import CloudFormationLoader
from rhumbline.runtime.spec import all_specs, load_spec

TOOL_NAMES = [spec.name for spec in all_specs()]

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "template.yaml"
TOOLS = sorted(TOOL_NAMES)
RELATIONAL_ONLY_TOOLS = ("get_recent_reviews", "get_pr_verdict", "get_repo_health", "get_usage")


# ------------------------------------------------------------------ template loading


# The same loader the local stand-in reads the template with.
CfnLoader = CloudFormationLoader


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return yaml.load(TEMPLATE.read_text(), Loader=CfnLoader)  # noqa: S506 - SafeLoader subclass


@pytest.fixture(scope="module")
def resources(template: dict[str, Any]) -> dict[str, Any]:
    return template["Resources"]


def functions(resources: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        logical_id: resource.get("Properties") or {}
        for logical_id, resource in resources.items()
        if resource["Type"] == "AWS::Serverless::Function"
    }


def effective(template: dict[str, Any], properties: dict[str, Any], key: str) -> Any:
    """A function property as deployed: its own value, else the Globals one."""
    if key in properties:
        return properties[key]
    return ((template.get("Globals") or {}).get("Function") or {}).get(key)


def environment(template: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
    # SAM merges Globals and function environment variables (the function's win).
    global_env = (((template.get("Globals") or {}).get("Function") or {}).get("Environment") or {}).get("Variables")
    own = (properties.get("Environment") or {}).get("Variables") or {}
    return {**(global_env or {}), **own}


def ref(value: Any) -> str | None:
    """The logical id behind `!Ref X` / `!GetAtt X.Arn`, else None."""
    if isinstance(value, dict) and "Ref" in value:
        return value["Ref"]
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return value["Fn::GetAtt"][0]
    return None


def code_dir(uri: str) -> str:
    return uri.rstrip("/")


def function_for_code(resources: dict[str, Any], uri: str) -> str:
    matches = [fid for fid, props in functions(resources).items() if code_dir(str(props.get("CodeUri"))) == uri]
    assert len(matches) == 1, f"expected exactly one function with CodeUri {uri}, found {matches}"
    return matches[0]


def invoke_targets(properties: dict[str, Any]) -> list[Any]:
    """Everything a function's policies let it invoke (SAM templates and inline statements)."""
    targets: list[Any] = []
    for policy in properties.get("Policies") or []:
        if isinstance(policy, str):
            # A managed policy by name or ARN: none that grants invoke rights is acceptable here.
            if re.search(r"lambda", policy, re.IGNORECASE) and "VPCAccess" not in policy:
                targets.append(policy)
            continue
        if not isinstance(policy, dict):
            continue
        for name, body in policy.items():
            if name in ("LambdaInvokePolicy",):
                targets.append(body.get("FunctionName"))
            elif name == "Statement" or (isinstance(body, dict) and "Statement" in body):
                statements = body if name == "Statement" else body["Statement"]
                for statement in statements if isinstance(statements, list) else [statements]:
                    actions = statement.get("Action", [])
                    actions = actions if isinstance(actions, list) else [actions]
                    if any(re.fullmatch(r"(lambda:(\*|Invoke.*)|\*)", str(action)) for action in actions):
                        resource = statement.get("Resource")
                        targets.extend(resource if isinstance(resource, list) else [resource])
    return targets


# ------------------------------------------------------------------ per tool

TOOL_PREFIX = "${AWS::StackName}-tool-"
MAX_FUNCTION_NAME = 64  # Lambda's limit


def tool_functions(resources: dict[str, Any]) -> dict[str, str]:
    """Tool -> logical id of its function (named `<stack>-tool-<tool>`)."""
    found: dict[str, str] = {}
    for logical_id, properties in functions(resources).items():
        name = (properties.get("FunctionName") or {}).get("Fn::Sub", "")
        if name.startswith(TOOL_PREFIX):
            tool = name[len(TOOL_PREFIX) :]
            assert tool not in found, f"{tool} is served by {found[tool]} and {logical_id}"
            found[tool] = logical_id
    return found


def test_every_tool_has_exactly_one_function(resources: dict[str, Any]) -> None:
    assert sorted(tool_functions(resources)) == TOOLS


@pytest.mark.parametrize("tool", TOOLS)
def test_a_tool_function_is_the_tool_entry_point_named_for_the_gateway(
    template: dict[str, Any], resources: dict[str, Any], tool: str
) -> None:
    assert load_spec(tool).name == tool  # imports the module: fails if it is missing or broken
    properties = functions(resources)[tool_functions(resources)[tool]]
    assert code_dir(properties["CodeUri"]) == "functions/tool"
    assert effective(template, properties, "Handler") == "app.handler"
    assert effective(template, properties, "Runtime") == "python3.13"


def test_the_tool_entry_point_serves_the_tool_its_environment_names() -> None:
    tree = ast.parse((ROOT / "functions" / "tool" / "app.py").read_text())
    [assignment] = [node for node in tree.body if isinstance(node, ast.Assign)]
    assert [getattr(t, "id", None) for t in assignment.targets] == ["handler"]
    call = assignment.value
    assert isinstance(call, ast.Call) and getattr(call.func, "id", None) == "tool_handler"
    assert not call.args and not call.keywords, "the tool comes from the function's name, not the file"


def gateway_id(resources: dict[str, Any]) -> str:
    return function_for_code(resources, "functions/gateway")


def test_the_gateway_dispatches_by_the_tool_functions_prefix(template: dict[str, Any], resources: dict[str, Any]) -> None:
    gateway_env = environment(template, functions(resources)[gateway_id(resources)])
    assert gateway_env["RHUMBLINE_DISPATCH"] == "lambda"
    assert gateway_env["RHUMBLINE_TOOL_FUNCTION_PREFIX"] == {"Fn::Sub": TOOL_PREFIX}


TOOL_ARN = "arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:" + TOOL_PREFIX


def test_gateway_may_invoke_exactly_the_tool_functions(resources: dict[str, Any]) -> None:
    # Their alias only: the published versions SnapStart serves (test_snapstart.py).
    assert invoke_targets(functions(resources)[gateway_id(resources)]) == [{"Fn::Sub": TOOL_ARN + "*:live"}]
    # Only tool functions carry that prefix: every other function has a generated name
    # (<stack>-<LogicalId>-<suffix>), and no logical id could read as `tool-`.
    tools = set(tool_functions(resources).values())
    for logical_id, properties in functions(resources).items():
        if logical_id not in tools:
            assert "FunctionName" not in properties and not logical_id.lower().startswith("tool"), logical_id


def test_every_tool_function_name_fits_the_longest_stack_name() -> None:
    script = (ROOT / "scripts" / "deploy-branch.sh").read_text()
    longest_stack = int(re.search(r"^MAX_STACK_NAME=(\d+)$", script, re.MULTILINE).group(1))
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    stacks = [config[env]["global"]["parameters"]["stack_name"] for env in ("default", "dev", "prod")]
    longest_stack = max(longest_stack, *map(len, stacks))
    longest_tool = max(map(len, TOOLS))
    assert longest_stack + len("-tool-") + longest_tool <= MAX_FUNCTION_NAME


def test_only_the_gateway_may_invoke_functions(resources: dict[str, Any]) -> None:
    gateway = gateway_id(resources)
    # The exceptions: a push to the default branch makes the webhook start an ingest, and a
    # pull_request event makes it read the PR's files in an asynchronous invocation of itself.
    webhook = function_for_code(resources, "functions/github_webhook")
    ingest = tool_functions(resources)["ingest"]
    for logical_id, properties in functions(resources).items():
        if logical_id == webhook:
            targets = invoke_targets(properties)
            assert ref(targets[0]) == ingest and len(targets) == 2, "the webhook may invoke ingest and itself only"
            assert json.dumps(targets[1]).endswith(':function:${AWS::StackName}-GitHubWebhookFunction-*"}'), targets
        elif logical_id == ingest:
            # `async: true`: the ingest function re-invokes itself, and nothing else.
            assert invoke_targets(properties) == [{"Fn::Sub": TOOL_ARN + "ingest"}]
        elif logical_id != gateway:
            assert invoke_targets(properties) == [], f"{logical_id} must not be able to invoke Lambda functions"
    # And no hand-written IAM resource grants it either.
    for logical_id, resource in resources.items():
        if resource["Type"] in ("AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            assert "lambda:Invoke" not in json.dumps(resource), f"{logical_id} grants lambda:Invoke"


def test_every_function_directory_is_deployed(resources: dict[str, Any]) -> None:
    on_disk = {f"functions/{path.parent.name}" for path in (ROOT / "functions").glob("*/app.py")}
    in_template = {code_dir(str(props.get("CodeUri"))) for props in functions(resources).values()}
    assert on_disk == in_template


# ------------------------------------------------------------------ HTTP API


def test_mcp_routes_go_to_the_gateway_and_no_authorizer_runs_before_it(resources: dict[str, Any]) -> None:
    apis = [r for r in resources.values() if r["Type"] == "AWS::Serverless::HttpApi"]
    assert len(apis) == 1
    api_id = next(fid for fid, r in resources.items() if r["Type"] == "AWS::Serverless::HttpApi")
    # The gateway authenticates each request itself (gateway/authentication.py): an authorizer
    # would be a second Lambda invocation on every request, unauthenticated ones included.
    assert "Auth" not in apis[0]["Properties"]
    routes = {}
    for logical_id, properties in functions(resources).items():
        for event in (properties.get("Events") or {}).values():
            if event["Type"] in ("HttpApi", "Api"):
                settings = event["Properties"]
                assert "Auth" not in settings, (logical_id, settings)
                routes[(settings["Method"].upper(), settings["Path"])] = (logical_id, ref(settings.get("ApiId")))
    gateway = gateway_id(resources)
    # Exactly these routes: anything else would be a door no one guards. The GitHub webhook's
    # function verifies the HMAC signature of every delivery (tests/functional/webhooks); the
    # gateway answers the protected-resource metadata (public, RFC 9728) before any identity check,
    # and authenticates every other request to /mcp.
    assert routes == {
        ("POST", "/mcp"): (gateway, api_id),
        ("GET", "/mcp"): (gateway, api_id),
        ("GET", "/.well-known/oauth-protected-resource/mcp"): (gateway, api_id),
        ("GET", "/.well-known/oauth-protected-resource"): (gateway, api_id),
        ("POST", "/webhooks/github"): (function_for_code(resources, "functions/github_webhook"), api_id),
    }
    api = resources[api_id]["Properties"]
    assert api["StageName"] == "$default", "a named stage puts its name in rawPath (Mangum then answers 404)"
    # What bounds a flood of unauthenticated requests, each a gateway invocation: the stage's throttling
    # (its values: tests/functional/infra/test_template_guards.py).
    assert set(api["DefaultRouteSettings"]) == {"ThrottlingRateLimit", "ThrottlingBurstLimit"}
    assert not any(r["Type"] == "AWS::Lambda::Permission" for r in resources.values())


def test_timeouts_fit_api_gateway(template: dict[str, Any], resources: dict[str, Any]) -> None:
    ingest = tool_functions(resources)["ingest"]
    migrate = function_for_code(resources, "functions/migrate")
    for logical_id, properties in functions(resources).items():
        timeout = effective(template, properties, "Timeout")
        if logical_id == ingest:
            assert timeout == 900 and effective(template, properties, "MemorySize") == 2048
        elif logical_id == migrate:
            custom = next(r for r in resources.values() if r["Type"] == "Custom::Migrations")
            assert timeout < custom["Properties"]["ServiceTimeout"] <= 3600
        elif str(properties.get("CodeUri")).startswith("functions/ingest_"):
            # The hosted ingest's steps: started by the state machine, never behind the API
            # (their timeouts against the state machine's: test_template_ingest.py).
            assert timeout <= 900, logical_id
        else:
            assert timeout <= 29, f"{logical_id}: API Gateway gives up after 30 s"


# ------------------------------------------------------------------ every function


def test_every_function_has_the_layer_and_the_vpc(template: dict[str, Any], resources: dict[str, Any]) -> None:
    layer = next(fid for fid, r in resources.items() if r["Type"] == "AWS::Serverless::LayerVersion")
    for logical_id, properties in functions(resources).items():
        assert {"Ref": layer} in effective(template, properties, "Layers"), logical_id
        vpc = effective(template, properties, "VpcConfig")
        assert vpc["SecurityGroupIds"] == [
            {"Ref": "LambdaSecurityGroup"},
            {"Fn::If": ["JoinsSharedSecurityGroup", {"Ref": "SharedDatabaseSecurityGroupId"}, {"Ref": "AWS::NoValue"}]},
        ], logical_id
        assert vpc["SubnetIds"] == {"Ref": "SubnetIds"}, logical_id
        assert effective(template, properties, "Tracing") == "Active", logical_id
        env = environment(template, properties)
        assert env["RHUMBLINE_MODE"] == "hosted"
        assert env["RHUMBLINE_GRAPH_BACKEND"] == "neo4j"
        assert env["RHUMBLINE_DATABASE_SECRET_ARN"] == {"Ref": "DatabaseSecret"}
        assert env["RHUMBLINE_NEO4J_SECRET_ARN"] == {"Ref": "Neo4jSecretArn"}
        # Every function may reach Aurora: TLS, verified against the bundle the layer ships.
        assert (env["RHUMBLINE_DB_SSL"], env["RHUMBLINE_DB_CA_BUNDLE"]) == ({"Ref": "DbSsl"}, {"Ref": "DbCaBundlePath"})
    parameters = template["Parameters"]
    assert (parameters["DbSsl"]["Default"], parameters["DbCaBundlePath"]["Default"]) == (
        "verify-full", "/opt/rhumbline-certs/rds-global-bundle.pem"
    )


def secrets_readable_by(properties: dict[str, Any]) -> set[str]:
    return {
        ref(policy["AWSSecretsManagerGetSecretValuePolicy"]["SecretArn"])
        for policy in properties.get("Policies") or []
        if isinstance(policy, dict) and "AWSSecretsManagerGetSecretValuePolicy" in policy
    }


def test_secret_access_is_least_privilege(resources: dict[str, Any]) -> None:
    tools = tool_functions(resources)
    expected = {
        function_for_code(resources, uri): {"DatabaseSecret"}
        for uri in ("functions/gateway", "functions/migrate")
    }
    expected.update({tools[tool]: {"DatabaseSecret", "Neo4jSecretArn"} for tool in TOOLS})
    # Tools that never touch the graph do not get its credentials.
    expected.update({tools[tool]: {"DatabaseSecret"} for tool in RELATIONAL_ONLY_TOOLS})
    expected[function_for_code(resources, "functions/github_webhook")] = {"DatabaseSecret", "Neo4jSecretArn", "GitHubWebhookSecret"}
    for logical_id, secrets in expected.items():
        assert secrets_readable_by(functions(resources)[logical_id]) == secrets, logical_id


def test_layer_is_built_by_the_makefile_with_the_pyproject_dependencies(resources: dict[str, Any]) -> None:
    layer = next(r for r in resources.values() if r["Type"] == "AWS::Serverless::LayerVersion")
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    content = ROOT / layer["Properties"]["ContentUri"]
    makefile = (content / "Makefile").read_text()
    assert re.search(r"^build-SharedLayer:", makefile, re.MULTILINE)
    assert "unchecked-hash" in makefile and "manylinux2014_x86_64" in makefile

    def name(requirement: str) -> str:
        return re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = {name(dep) for dep in pyproject["project"]["dependencies"]} - {"boto3"}
    pins = {}
    for line in (content / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            assert "==" in line, f"unpinned layer requirement {line!r}"
            pins[name(line)] = line.split("==", 1)[1]
    assert wanted <= set(pins), f"missing from the layer: {wanted - set(pins)}"
    assert not {"boto3", "botocore"} & set(pins), "the Lambda runtime provides boto3/botocore"
    assert int(pins["python-dateutil"].split(".")[0]) < 3


def test_database_is_private_to_the_functions(resources: dict[str, Any]) -> None:
    ingress = resources["DatabaseSecurityGroup"]["Properties"]["SecurityGroupIngress"]
    assert ingress == [
        {
            "IpProtocol": "tcp",
            "FromPort": 5432,
            "ToPort": 5432,
            "SourceSecurityGroupId": {"Ref": "LambdaSecurityGroup"},
            "Description": ingress[0].get("Description"),
        }
    ]
    cluster = resources["DatabaseCluster"]["Properties"]
    assert cluster["StorageEncrypted"] is True
    assert cluster["VpcSecurityGroupIds"] == [{"Ref": "DatabaseSecurityGroup"}]
    assert resources["DatabaseInstance"]["Properties"]["PubliclyAccessible"] is False
    attachment = resources["DatabaseSecretAttachment"]["Properties"]
    assert (ref(attachment["SecretId"]), ref(attachment["TargetId"])) == ("DatabaseSecret", "DatabaseCluster")
    generated = resources["DatabaseSecret"]["Properties"]["GenerateSecretString"]
    own_cluster = generated["SecretStringTemplate"]["Fn::If"][2]
    assert json.loads(own_cluster) == {"username": "rhumbline", "dbname": "rhumbline"}


def test_migrations_run_on_every_layer_change(resources: dict[str, Any]) -> None:
    custom = [r for r in resources.values() if r["Type"] == "Custom::Migrations"]
    assert len(custom) == 1
    properties = custom[0]["Properties"]
    assert ref(properties["ServiceToken"]) == function_for_code(resources, "functions/migrate")
    layer = next(fid for fid, r in resources.items() if r["Type"] == "AWS::Serverless::LayerVersion")
    assert {"Ref": layer} in properties.values(), "without a per-deploy property, Update never fires"
    # Ordered after the instance and the attachment (own cluster) or the branch database (shared).
    assert properties["DatabaseInstance"] == {"Fn::If": ["SharesDatabase", {"Ref": "AWS::NoValue"}, {"Ref": "DatabaseInstance"}]}
    assert properties["DatabaseReady"] == {
        "Fn::If": ["SharesDatabase", {"Ref": "BranchDatabase"}, {"Ref": "DatabaseSecretAttachment"}]
    }


def test_outputs(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]
    assert outputs["McpEndpoint"]["Value"] == {
        "Fn::Sub": "https://${HttpApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/mcp"
    }
    assert outputs["DatabaseSecretArn"]["Value"] == {"Ref": "DatabaseSecret"}


# ------------------------------------------------------------------ around the template


def test_samconfig_has_default_dev_and_prod() -> None:
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())
    assert config["version"] == 0.1
    assert config["default"]["global"]["parameters"]["stack_name"] == "rhumbline-dev"
    assert config["dev"]["global"]["parameters"]["stack_name"] == "rhumbline-dev"
    assert config["prod"]["global"]["parameters"]["stack_name"] == "rhumbline-prod"
    for env in ("default", "dev", "prod"):
        deploy = config[env]["deploy"]["parameters"]
        assert deploy["capabilities"] == "CAPABILITY_IAM"
        assert deploy["resolve_s3"] is True
    assert config["prod"]["deploy"]["parameters"]["confirm_changeset"] is True
    assert config["dev"]["deploy"]["parameters"]["confirm_changeset"] is False


def test_prod_condition_follows_the_prod_stack_name(template: dict[str, Any]) -> None:
    # Deletion protection must not hinge on remembering Stage=prod.
    assert {"Fn::Equals": [{"Ref": "AWS::StackName"}, "rhumbline-prod"]} in template["Conditions"]["IsProd"]["Fn::Or"]
    assert template["Resources"]["DatabaseCluster"]["Properties"]["DeletionProtection"] == {
        "Fn::If": ["IsProd", True, False]
    }


# Sample events are optional (a new tool needs none); each one there must be a valid invocation.
@pytest.mark.parametrize("path", sorted((ROOT / "events" / "tools").glob("*.json")), ids=lambda path: path.stem)
def test_sample_tool_event_is_a_valid_invocation(path: Path) -> None:
    tool = path.stem
    assert tool in TOOLS, f"{path.name} names no tool"
    invocation = ToolInvocation.model_validate(json.loads(path.read_text()))
    assert invocation.tool == tool
    assert invocation.remaining_seconds() > 365 * 24 * 3600
    load_spec(tool).input_model.model_validate(invocation.arguments)


def test_sample_gateway_events_carry_a_bearer_token_and_no_authorizer_context() -> None:
    for path in sorted((ROOT / "events" / "gateway").glob("*.json")):
        event = json.loads(path.read_text())
        assert event["version"] == "2.0" and event["rawPath"] == "/mcp", path.name
        # The gateway authenticates the header itself: no authorizer context reaches it.
        assert "authorizer" not in event["requestContext"], path.name
        assert event["headers"]["authorization"].startswith("Bearer rhl_"), path.name
        if "body" in event:
            body = json.loads(event["body"])
            if body["method"] == "tools/call":
                assert body["params"]["name"] in TOOL_NAMES


@pytest.mark.parametrize(
    ("branch", "expected"),
    [
        ("main", "rhumbline-br-main"),
        ("feature/Add-Search", "rhumbline-br-feature-add-search"),
        ("__odd__//name..x-", "rhumbline-br-odd-name-x"),
        ("dependabot/pip/mcp-2.4.0", "rhumbline-br-dependabot-pip-mcp-2-4-0"),
    ],
)
def test_branch_stack_names(branch: str, expected: str) -> None:
    assert branch_stack(branch) == expected


def branch_stack(branch: str) -> str:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "deploy-branch.sh"), "--name-only", branch],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return done.stdout.strip()


def test_long_branch_names_are_cut_and_stay_distinct() -> None:
    first, second = branch_stack("x" * 200 + "-one"), branch_stack("x" * 200 + "-two")
    for name in (first, second):
        assert len(name) <= 37 and re.fullmatch(r"[A-Za-z][-A-Za-z0-9]*", name), name
    assert first != second


# ------------------------------------------------------------------ the files' contents bucket

CONTENTS_ACCESS = {
    "ingest": {"s3:PutObject", "s3:DeleteObject"},  # new contents; those no version names
    "delete_project": {"s3:DeleteObject", "s3:ListBucket"},  # the project's prefix, rows or not
    "read_file": {"s3:GetObject"},
    "function": {"s3:GetObject"},  # include_source
    "class": {"s3:GetObject"},
}


def contents_actions(properties: dict[str, Any]) -> set[str]:
    """The S3 actions a function's policies grant on the contents bucket (anything else naming it
    fails: a managed S3 policy would grant more than these)."""
    actions: set[str] = set()
    for policy in properties.get("Policies") or []:
        text = json.dumps(policy)
        if "FileContentsBucket" not in text:
            continue
        assert set(policy) == {"Statement"}, f"only inline statements may name the bucket: {policy}"
        for statement in policy["Statement"]:
            if statement["Action"] == "s3:ListBucket":  # the bucket itself, narrowed to the contents' prefix
                assert statement["Resource"] == {"Fn::GetAtt": ["FileContentsBucket", "Arn"]}, statement
                assert statement["Condition"] == {"StringLike": {"s3:prefix": "sources/*"}}, statement
            else:
                assert statement["Resource"] == {"Fn::Sub": "${FileContentsBucket.Arn}/sources/*"}, statement
            granted = statement["Action"]
            actions.update(granted if isinstance(granted, list) else [granted])
    return actions


def test_the_contents_bucket_is_private_and_each_function_gets_only_what_it_does(
    template: dict[str, Any], resources: dict[str, Any]
) -> None:
    bucket = resources["FileContentsBucket"]
    assert bucket["Type"] == "AWS::S3::Bucket" and bucket["DeletionPolicy"] == {"Fn::If": ["IsProd", "Retain", "Delete"]}
    properties = bucket["Properties"]
    assert all(properties["PublicAccessBlockConfiguration"].values())
    assert properties["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]["ServerSideEncryptionByDefault"]
    [tls] = resources["FileContentsBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert (tls["Effect"], tls["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})
    tools = tool_functions(resources)
    granted = {}
    for logical_id, function in functions(resources).items():
        actions = contents_actions(function)
        told = environment(template, function).get("RHUMBLINE_CONTENTS_BUCKET") == {"Ref": "FileContentsBucket"}
        if function.get("CodeUri") == "functions/ingest_plan":
            # It names the bucket to the parse workers (distributed/contents.py) and touches nothing in it.
            assert told and not actions, logical_id
            continue
        # A function reading or writing contents must be told the bucket, and only those are.
        assert told == bool(actions), logical_id
        if actions:
            granted[logical_id] = actions
    # The hosted ingest's finish step stores the version's contents as the ingest tool does; its
    # parse workers store their shards' new contents, and delete none.
    finish = function_for_code(resources, "functions/ingest_finish")
    shard = function_for_code(resources, "functions/ingest_shard")
    assert granted == {tools[tool]: actions for tool, actions in CONTENTS_ACCESS.items()} | {
        finish: CONTENTS_ACCESS["ingest"], shard: {"s3:PutObject"}
    }

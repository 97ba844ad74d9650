"""Reading routes, functions and the tool mapping out of a SAM template."""

from __future__ import annotations

from pathlib import Path

import pytest

from rhumbline.local.template import TemplateError, find_template, load_template
from rhumbline.runtime.spec import all_specs

TOOL_NAMES = [spec.name for spec in all_specs()]

REPOSITORY = Path(__file__).resolve().parents[3]

FIXTURE = """
Transform: AWS::Serverless-2016-10-31
Globals:
  Function:
    Handler: app.handler
    Timeout: 29
    Environment:
      Variables:
        RHUMBLINE_MODE: hosted
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: $default
  Migrate:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/migrate
      Timeout: 10
  Gateway:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/gateway
      MemorySize: 1024
      Environment:
        Variables:
          RHUMBLINE_TOOL_FUNCTION_PREFIX: !Sub "${AWS::StackName}-tool-"
      Events:
        Post:
          Type: HttpApi
          Properties: {ApiId: !Ref Api, Method: post, Path: /mcp}
        Health:
          Type: HttpApi
          Properties: {ApiId: !Ref Api, Method: GET, Path: "/items/{id}", Auth: {Authorizer: NONE}}
  SearchFunction:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: !Sub "${AWS::StackName}-tool-search"
      CodeUri: functions/search
      Handler: pkg.module.entry
  IngestFunction:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: !Sub ["${Stack}-tool-ingest", {Stack: !Ref "AWS::StackName"}]
      CodeUri: functions/ingest
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Join ["-", [!Ref "AWS::StackName", data]]
"""


@pytest.fixture
def fixture_template(tmp_path: Path) -> Path:
    path = tmp_path / "template.yaml"
    path.write_text(FIXTURE)
    return path


def test_functions_merge_globals_and_resolve_handler_files(fixture_template: Path) -> None:
    template = load_template(fixture_template)
    assert set(template.functions) == {"Migrate", "Gateway", "SearchFunction", "IngestFunction"}
    gateway = template.function("Gateway")
    assert gateway.handler_file == fixture_template.parent / "functions" / "gateway" / "app.py"
    assert (gateway.handler_attribute, gateway.timeout, gateway.memory_mb) == ("handler", 29.0, 1024)
    assert template.function("Migrate").timeout == 10.0
    search = template.function("SearchFunction")
    assert search.handler_file == fixture_template.parent / "functions" / "search" / "pkg" / "module.py"
    assert search.handler_attribute == "entry"


def test_routes_carry_their_function_and_path_parameters(fixture_template: Path) -> None:
    template = load_template(fixture_template)
    route, parameters = template.route_for("POST", "/mcp")
    assert (route.route_key, route.function, parameters) == ("POST /mcp", "Gateway", {})
    route, parameters = template.route_for("GET", "/items/42")
    assert (route.function, parameters) == ("Gateway", {"id": "42"})
    assert template.route_for("GET", "/mcp") is None
    assert template.route_for("GET", "/items/42/more") is None


def test_tool_functions_are_named_by_their_tool_and_the_local_stack(fixture_template: Path) -> None:
    template = load_template(fixture_template)
    assert template.tool_functions == {"search": "SearchFunction", "ingest": "IngestFunction"}
    assert template.function_for_tool("search").logical_id == "SearchFunction"
    assert template.tool_function_prefix == "rhumbline-local-tool-"
    assert [template.function_for_tool(t).name for t in ("search", "ingest")] == [
        "rhumbline-local-tool-search", "rhumbline-local-tool-ingest"
    ]
    assert template.function("Gateway").name == "Gateway"  # no FunctionName: its logical id
    with pytest.raises(TemplateError, match="no function serves tool 'nope'"):
        template.function_for_tool("nope")


def test_unreadable_templates_are_explained(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match="cannot read"):
        load_template(tmp_path / "missing.yaml")
    (tmp_path / "empty.yaml").write_text("Description: nothing\n")
    with pytest.raises(TemplateError, match="has no Resources section"):
        load_template(tmp_path / "empty.yaml")
    with pytest.raises(TemplateError, match="does not exist"):
        find_template(tmp_path / "nope.yaml")


def test_the_repository_template_wires_every_tool_and_route() -> None:
    template = load_template(find_template())
    assert template.path == REPOSITORY / "template.yaml"
    assert set(template.tool_functions) == set(TOOL_NAMES)
    for tool in TOOL_NAMES:
        function = template.function_for_tool(tool)
        assert function.handler_file.is_file()
        assert function.name == f"{template.tool_function_prefix}{tool}"
    post, _ = template.route_for("POST", "/mcp")
    get, _ = template.route_for("GET", "/mcp")
    assert post.function == get.function == "GatewayFunction"
    metadata, _ = template.route_for("GET", "/.well-known/oauth-protected-resource/mcp")
    assert metadata.function == "GatewayFunction"
    assert template.function("GatewayFunction").handler_file.is_file()

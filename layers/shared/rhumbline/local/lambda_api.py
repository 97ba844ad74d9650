"""The local Lambda Invoke API: `POST /2015-03-31/functions/{name}/invocations`, for the gateway only.

`rhumbline serve --dispatch invoke-api` serves it so that the gateway's unchanged boto3 dispatcher
reaches the tool functions as it does in AWS. The event names the caller, so whoever can call this
API can act as anyone: it authenticates every request the way Lambda does, by checking its SigV4
signature against a secret made for this process and handed to the gateway's boto3 client only.
It also refuses what no SDK sends and a browser does (an `Origin`, a non-loopback `Host`, a
non-JSON body), and it invokes tool functions only: never migrate or webhooks.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hmac
import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from rhumbline.local.apigw import HttpRequest, HttpResponse, join_headers, json_response
from rhumbline.local.functions import FunctionRunner, Invocation, function_arn

INVOKE_PATH = re.compile(r"/2015-03-31/functions/(?P<name>[^/]+)/invocations")
AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<access_key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/,\s]+)/(?P<service>[^/,\s]+)/aws4_request,\s*"
    r"SignedHeaders=(?P<signed_headers>[a-z0-9;-]+),\s*Signature=(?P<signature>[0-9a-f]{64})"
)
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
# Lambda itself allows 15 minutes of clock skew; here client and server share one clock.
MAX_SKEW = dt.timedelta(minutes=5)
ACCESS_KEY_ID = "rhumbline-local"


@dataclass(frozen=True)
class InvokeCredentials:
    """The key pair the gateway's boto3 client signs with: made anew for every `rhumbline serve`."""

    access_key_id: str = ACCESS_KEY_ID
    secret_access_key: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)


def client_error(status: int, error_type: str, message: str) -> HttpResponse:
    return json_response(status, {"Type": "User", "message": message}, [("x-amzn-errortype", error_type)])


def is_loopback(host_header: str) -> bool:
    try:
        hostname = urlsplit(f"//{host_header}").hostname
    except ValueError:
        return False
    return hostname in LOOPBACK_HOSTS


def signature_is_valid(request: HttpRequest, credentials: InvokeCredentials, *, now: dt.datetime | None = None) -> bool:
    """Whether the request carries a current SigV4 signature made with `credentials` (botocore's signer)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    headers = join_headers(request.headers)
    found = AUTHORIZATION.fullmatch(headers.get("authorization", ""))
    if found is None or not hmac.compare_digest(found["access_key"], credentials.access_key_id):
        return False
    signed = found["signed_headers"].split(";")
    if "host" not in signed or "x-amz-date" not in signed or any(name not in headers for name in signed):
        return False
    try:
        stamp = dt.datetime.strptime(headers["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return False
    if abs((now or dt.datetime.now(dt.timezone.utc)) - stamp) > MAX_SKEW:
        return False
    query = f"?{request.query_string}" if request.query_string else ""
    signed_request = AWSRequest(
        method=request.method,
        url=f"http://{headers['host']}{request.raw_path or request.path}{query}",
        data=request.body,
        headers={name: headers[name] for name in signed},
    )
    signed_request.context["timestamp"] = headers["x-amz-date"]
    signer = SigV4Auth(Credentials(credentials.access_key_id, credentials.secret_access_key), found["service"], found["region"])
    canonical = signer.canonical_request(signed_request)
    expected = signer.signature(signer.string_to_sign(signed_request, canonical), signed_request)
    return hmac.compare_digest(expected, found["signature"])


class LambdaInvokeApi:
    """Invokes the named tool function for a caller that proves it holds `credentials`."""

    def __init__(self, runner: FunctionRunner, *, functions: Mapping[str, str], credentials: InvokeCredentials) -> None:
        self.runner = runner
        self.functions = dict(functions)  # function name -> logical id: the tool functions only
        self.credentials = credentials
        self._background: set[asyncio.Task[Invocation]] = set()

    def refusal(self, request: HttpRequest) -> HttpResponse | None:
        """Why this request may not invoke anything, as Lambda would answer it; None if it may."""
        headers = join_headers(request.headers)
        if "origin" in headers:
            return client_error(403, "AccessDeniedException", "the local Invoke API does not accept requests from web pages")
        if not is_loopback(headers.get("host", "")):
            return client_error(403, "AccessDeniedException", "the local Invoke API answers loopback host names only")
        content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type not in ("", "application/json"):
            return client_error(415, "UnsupportedMediaTypeException", f"the payload must be JSON, not {content_type}")
        if not signature_is_valid(request, self.credentials):
            message = "the request signature does not match this server's credentials (only its own gateway may invoke)"
            return client_error(403, "InvalidSignatureException", message)
        return None

    async def respond(self, name: str, request: HttpRequest) -> HttpResponse:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        # FunctionName may be a name, an ARN or a partial ARN, optionally with a qualifier.
        function_name = name.rsplit("function:", 1)[-1].split(":", 1)[0]
        logical_id = self.functions.get(function_name)
        if logical_id is None:
            return client_error(404, "ResourceNotFoundException", f"Function not found: {function_arn(function_name)}")
        try:
            event = json.loads(request.body) if request.body.strip() else {}
        except ValueError:
            return client_error(400, "InvalidRequestContentException", "Could not parse request body into json")
        invocation_type = join_headers(request.headers).get("x-amz-invocation-type", "RequestResponse")
        if invocation_type == "DryRun":
            return HttpResponse(204, [], b"")
        if invocation_type == "Event":
            task = asyncio.create_task(self.runner.invoke_async(logical_id, event))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
            return HttpResponse(202, [], b"")
        invocation = await self.runner.invoke_async(logical_id, event)
        headers = [("x-amz-executed-version", "$LATEST"), ("x-amzn-requestid", invocation.request_id)]
        if invocation.error is not None:
            return json_response(200, invocation.error, [*headers, ("x-amz-function-error", "Unhandled")])
        try:
            return json_response(200, invocation.result, headers)
        except (TypeError, ValueError) as error:
            marshal = {"errorMessage": f"Unable to marshal response: {error}", "errorType": "Runtime.MarshalError"}
            return json_response(200, marshal, [*headers, ("x-amz-function-error", "Unhandled")])

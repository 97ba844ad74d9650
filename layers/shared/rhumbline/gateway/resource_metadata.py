"""OAuth 2.0 Protected Resource Metadata (RFC 9728) of the MCP endpoint, and the 401 challenge.

An OAuth-only client (a remote connector) that gets a 401 reads `resource_metadata` from the
`WWW-Authenticate` challenge, fetches this document, and finds there the authorization server to
get a token from (the configured OIDC issuer) and the scopes to ask for. Both are served without
authentication: the document says nothing a client could not learn from the challenge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rhumbline.contract import SCOPES

if TYPE_CHECKING:
    from rhumbline.config import Settings

WELL_KNOWN = "/.well-known/oauth-protected-resource"
REALM = "rhumbline"


def metadata_paths(mcp_path: str) -> tuple[str, str]:
    """The document's two addresses: RFC 9728's for the resource `<origin><mcp_path>` (the well-known
    prefix inserted before the path), and the origin's own, which some clients try first."""
    return f"{WELL_KNOWN}{mcp_path}", WELL_KNOWN


def origin_of(scope: Mapping[str, Any]) -> str:
    """scheme://host the client reached: API Gateway and proxies say the scheme in X-Forwarded-Proto."""
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers") or ()}
    scheme = headers.get("x-forwarded-proto", "").split(",")[0].strip() or scope.get("scheme", "http")
    host = headers.get("host", "").strip()
    if not host:
        server = scope.get("server") or ("localhost", None)
        host = f"{server[0]}:{server[1]}" if server[1] else str(server[0])
    return f"{scheme}://{host}"


def resource_url(settings: "Settings", scope: Mapping[str, Any], mcp_path: str) -> str:
    return settings.resource_url or f"{origin_of(scope)}{mcp_path}"


def metadata_url(settings: "Settings", scope: Mapping[str, Any], mcp_path: str) -> str:
    resource = resource_url(settings, scope, mcp_path)
    origin, _, path = resource.partition("://")[2].partition("/")
    return f"{resource.partition('://')[0]}://{origin}{WELL_KNOWN}/{path}".rstrip("/")


def metadata_document(settings: "Settings", scope: Mapping[str, Any], mcp_path: str) -> dict[str, Any]:
    prefix = settings.oidc_scope_prefix
    document: dict[str, Any] = {
        "resource": resource_url(settings, scope, mcp_path),
        "resource_name": "Rhumbline",
        "bearer_methods_supported": ["header"],
        "scopes_supported": [f"{prefix}{name}" for name in SCOPES],
    }
    if settings.oidc_issuer:
        document["authorization_servers"] = [settings.oidc_issuer]
    return document


def bearer_challenge(reason: str, description: str, metadata: str) -> str:
    # RFC 6750 §3.1: a request that sent no credentials gets no error code, only the challenge.
    challenge = f'Bearer realm="{REALM}", resource_metadata="{metadata}"'
    if reason == "missing":
        return challenge
    return f'{challenge}, error="invalid_token", error_description="{description}"'

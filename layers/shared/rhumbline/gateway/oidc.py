"""OAuth access tokens from the configured OIDC issuer (a Cognito user pool, say), as a `Caller`.

PyJWT checks the signature against the issuer's JWKS: its `PyJWKClient` keeps the key set for
`JWKS_LIFESPAN_SECONDS` and fetches it again when a token names a `kid` it does not hold (key
rotation), at most once per `cooldown` so a stream of forged `kid`s cannot hammer the issuer.
PyJWT is the mcp SDK's own JWT library, so it adds no dependency to the layer.

The signature is checked with the algorithm of the issuer's key (its JWK's `alg`, else its `kty`
and curve), never the one the token's header names: a header naming another is refused, as is any
token PyJWT cannot parse. Every refusal is an `OidcRefusal`, which the gateway answers with a 401.

Claims map to the caller and must have their JSON types: the principal claim (default `sub`, a
string), our scopes from `scope` (a space-separated string, RFC 9068's form) or `scp` (a list),
each optionally behind a prefix (a Cognito resource server's identifier), the projects claim (a
list of `owner/repo` slugs or `*` alone; the configured default when absent), and the default
toolsets from `rhumbline_toolsets` (a list). A list is never made by splitting a string, so an item
like `"acme/one,*"` stays one (invalid) project.
"""

from __future__ import annotations

import hashlib
import json
import logging
import urllib.request
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jwt

from rhumbline.contract import SCOPES, Caller
from rhumbline.stores.relational.tokens import SUBJECT_PREFIX, validate_projects, validate_toolsets

if TYPE_CHECKING:
    from rhumbline.config import Settings

logger = logging.getLogger("rhumbline.gateway")

# The algorithms an issuer's key may be for (asymmetric only: a shared secret in a JWKS is refused).
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
FETCH_TIMEOUT_SECONDS = 3.0
JWKS_LIFESPAN_SECONDS = 3600.0
REFRESH_COOLDOWN_SECONDS = 30.0
CLOCK_LEEWAY_SECONDS = 30
TOOLSETS_CLAIM = "rhumbline_toolsets"
MAX_CLAIM_ITEMS = 200


class IssuerUnreachable(RuntimeError):
    """The issuer's discovery document or keys could not be read: an outage, not a bad token."""


class OidcRefusal(Exception):
    """The token is not one this deployment accepts; `reason` is a key of the gateway's descriptions."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True)
class OidcConfig:
    issuer: str
    jwks_uri: str = ""
    audiences: tuple[str, ...] = ()
    scope_prefix: str = ""
    principal_claim: str = "sub"
    projects_claim: str = "rhumbline_projects"
    default_projects: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: "Settings") -> "OidcConfig | None":
        if not settings.oidc_issuer:
            return None
        return cls(
            issuer=settings.oidc_issuer,
            jwks_uri=settings.oidc_jwks_uri,
            audiences=settings.oidc_audiences,
            scope_prefix=settings.oidc_scope_prefix,
            principal_claim=settings.oidc_principal_claim,
            projects_claim=settings.oidc_projects_claim,
            default_projects=settings.oidc_default_projects,
        )


@dataclass(frozen=True)
class OidcCaller:
    caller: Caller
    toolsets: tuple[str, ...] = field(default=())


def discovered_jwks_uri(issuer: str) -> str:
    """The `jwks_uri` of the issuer's OpenID discovery document."""
    url = f"{issuer}/.well-known/openid-configuration"
    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_SECONDS) as response:  # noqa: S310 - https issuer URL from config
            document = json.loads(response.read(1_000_000))
    except (OSError, ValueError) as error:
        raise IssuerUnreachable(f"cannot read the OIDC discovery document {url}: {error}") from None
    jwks_uri = document.get("jwks_uri") if isinstance(document, dict) else None
    if not isinstance(jwks_uri, str) or not jwks_uri:
        raise IssuerUnreachable(f"the OIDC discovery document {url} names no jwks_uri")
    return jwks_uri


def invalid(detail: str) -> OidcRefusal:
    return OidcRefusal("invalid_claims", detail)


def string_list(claims: dict[str, Any], name: str) -> tuple[str, ...] | None:
    """A claim that must be a JSON list of strings; None when absent (a JSON null is no list)."""
    if name not in claims:
        return None
    value = claims[name]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise invalid(f"the {name} claim must be a list of strings")
    if len(value) > MAX_CLAIM_ITEMS:
        raise invalid(f"the {name} claim lists more than {MAX_CLAIM_ITEMS} items")
    return tuple(value)


def string(claims: dict[str, Any], name: str) -> str | None:
    """A claim that must be a JSON string; None when absent (a JSON null is no string)."""
    if name not in claims:
        return None
    value = claims[name]
    if not isinstance(value, str):
        raise invalid(f"the {name} claim must be a string")
    return value


def audiences(claims: dict[str, Any]) -> tuple[str, ...]:
    """`aud` is a string or a list of strings (RFC 7519 §4.1.3)."""
    if isinstance(claims.get("aud"), str):
        return (claims["aud"],)
    return string_list(claims, "aud") or ()


def check_times(claims: dict[str, Any]) -> None:
    # PyJWT reads a numeric string as a time; RFC 7519 says NumericDate, a JSON number.
    for name in ("exp", "iat", "nbf"):
        value = claims.get(name)
        if name in claims and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise invalid(f"the {name} claim must be a number of seconds")


class OidcVerifier:
    def __init__(self, config: OidcConfig, *, cooldown: float = REFRESH_COOLDOWN_SECONDS) -> None:
        self.config = config
        self.cooldown = cooldown
        self._keys: jwt.PyJWKClient | None = None

    @property
    def keys(self) -> jwt.PyJWKClient:
        # Made at first use, so a cold start without JWT traffic never reaches the issuer.
        if self._keys is None:
            uri = self.config.jwks_uri or discovered_jwks_uri(self.config.issuer)
            self._keys = jwt.PyJWKClient(
                uri, lifespan=JWKS_LIFESPAN_SECONDS, timeout=FETCH_TIMEOUT_SECONDS, cooldown_duration=self.cooldown
            )
        return self._keys

    def verify(self, token: str) -> OidcCaller:
        """The caller the token names; raises OidcRefusal (a bad token) or IssuerUnreachable (an
        outage: the token is neither accepted nor called bad)."""
        try:
            kid = jwt.get_unverified_header(token).get("kid")
        except jwt.PyJWTError:
            raise OidcRefusal("malformed_token", "not a JWT") from None
        if not isinstance(kid, str):
            raise OidcRefusal("unknown", "the token names no key id")
        try:
            key = self.keys.get_signing_key(kid)
        except jwt.PyJWKClientConnectionError as error:
            raise IssuerUnreachable(f"cannot fetch the issuer's keys: {error}") from None
        except jwt.PyJWTError:
            raise OidcRefusal("unknown", "no key of the issuer matches the token's kid") from None
        if key.algorithm_name not in ALGORITHMS:
            raise OidcRefusal("unknown", f"the issuer's key {kid!r} is for {key.algorithm_name}, which is not accepted")
        try:
            # The PyJWK itself, with its own algorithm as the only one allowed: PyJWT then refuses a
            # header naming any other before it looks at the signature.
            claims = jwt.decode(
                token,
                key,
                algorithms=[key.algorithm_name],
                issuer=self.config.issuer,
                leeway=CLOCK_LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "sub"], "verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise OidcRefusal("expired", "the token has expired") from None
        except jwt.PyJWTError as error:
            raise OidcRefusal("unknown", str(error)) from None
        check_times(claims)
        self.check_audience(claims)
        if string(claims, "token_use") not in (None, "access"):
            raise OidcRefusal("unknown", "an ID token is not an access token")
        return self.to_caller(claims)

    def check_audience(self, claims: dict[str, Any]) -> None:
        presented = {*audiences(claims), string(claims, "client_id")}
        if self.config.audiences and presented.isdisjoint(self.config.audiences):
            raise OidcRefusal("unknown", "the token is for another audience")

    def to_caller(self, claims: dict[str, Any]) -> OidcCaller:
        prefix = self.config.scope_prefix
        # `scope` is split on spaces only (RFC 9068 §2.2.3): `read,write` names no scope of ours.
        granted = (*(string(claims, "scope") or "").split(" "), *(string_list(claims, "scp") or ()))
        scopes = sorted(scope for scope in SCOPES if f"{prefix}{scope}" in granted)
        if not scopes:
            raise OidcRefusal("unknown", "the token grants none of the scopes read, write, admin, cypher")
        listed = string_list(claims, self.config.projects_claim)
        try:
            projects = validate_projects(list(listed)) if listed is not None else list(self.config.default_projects)
            toolsets = validate_toolsets(list(string_list(claims, TOOLSETS_CLAIM) or ()))
        except ValueError as error:
            raise invalid(str(error)) from None
        principal = string(claims, self.config.principal_claim) or claims["sub"]
        # A stable id per user of the issuer (audit rows, usage, its limits' row), within the audit
        # column's 16 characters; a JWT's own jti would change with every refresh.
        digest = hashlib.sha256(f"{self.config.issuer}\n{claims['sub']}".encode()).hexdigest()
        caller = Caller(
            principal=principal[:200],
            token_id=f"{SUBJECT_PREFIX}{digest[:11]}",
            projects=tuple(projects),
            scopes=tuple(scopes),
        )
        return OidcCaller(caller=caller, toolsets=tuple(toolsets))

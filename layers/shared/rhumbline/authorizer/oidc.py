"""OAuth access tokens from the configured OIDC issuer (a Cognito user pool, say), as a `Caller`.

PyJWT checks the signature against the issuer's JWKS: its `PyJWKClient` keeps the key set for
`JWKS_LIFESPAN_SECONDS` and fetches it again when a token names a `kid` it does not hold (key
rotation), at most once per `cooldown` so a stream of forged `kid`s cannot hammer the issuer.
PyJWT is the mcp SDK's own JWT library, so it adds no dependency to the layer.

Claims map to the caller: the principal claim (default `sub`), our scopes from `scope` (a
space-separated string, OAuth's form) or `scp` (a list), each optionally behind a prefix (a Cognito
resource server's identifier), the projects claim (a list or a comma/space-separated string; the
configured default when absent), and the default toolsets from `rhumbline_toolsets`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jwt

from rhumbline.contract import Caller

if TYPE_CHECKING:
    from rhumbline.config import Settings

logger = logging.getLogger("rhumbline.authorizer")

OUR_SCOPES = ("read", "write", "admin", "cypher")
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]
FETCH_TIMEOUT_SECONDS = 3.0
JWKS_LIFESPAN_SECONDS = 3600.0
REFRESH_COOLDOWN_SECONDS = 30.0
CLOCK_LEEWAY_SECONDS = 30
TOOLSETS_CLAIM = "rhumbline_toolsets"
MAX_CLAIM_ITEMS = 200


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
        raise RuntimeError(f"cannot read the OIDC discovery document {url}: {error}") from None
    jwks_uri = document.get("jwks_uri") if isinstance(document, dict) else None
    if not isinstance(jwks_uri, str) or not jwks_uri:
        raise RuntimeError(f"the OIDC discovery document {url} names no jwks_uri")
    return jwks_uri


def claim_list(value: Any) -> list[str]:
    if isinstance(value, str):
        items: Iterable[Any] = value.replace(",", " ").split()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return []
    return [str(item).strip() for item in list(items)[:MAX_CLAIM_ITEMS] if str(item).strip()]


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
        """The caller the token names; raises OidcRefusal (a bad token) or RuntimeError (the issuer is
        unreachable: the authorizer then fails, rather than calling a good token bad)."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise OidcRefusal("malformed", "not a JWT") from None
        if header.get("alg") not in ALGORITHMS:
            raise OidcRefusal("unknown", f"algorithm {header.get('alg')!r} is not accepted")
        try:
            key = self.keys.get_signing_key(str(header.get("kid", "")))
        except jwt.PyJWKClientConnectionError as error:
            raise RuntimeError(f"cannot fetch the issuer's keys: {error}") from None
        except jwt.PyJWKClientError:
            raise OidcRefusal("unknown", "no key of the issuer matches the token's kid") from None
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=[str(header["alg"])],
                issuer=self.config.issuer,
                leeway=CLOCK_LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "sub"], "verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise OidcRefusal("expired", "the token has expired") from None
        except jwt.PyJWTError as error:
            raise OidcRefusal("unknown", str(error)) from None
        self.check_audience(claims)
        if claims.get("token_use", "access") != "access":
            raise OidcRefusal("unknown", "an ID token is not an access token")
        return self.to_caller(claims)

    def check_audience(self, claims: dict[str, Any]) -> None:
        if not self.config.audiences:
            return
        presented = set(claim_list(claims.get("aud"))) | set(claim_list(claims.get("client_id")))
        if presented.isdisjoint(self.config.audiences):
            raise OidcRefusal("unknown", "the token is for another audience")

    def to_caller(self, claims: dict[str, Any]) -> OidcCaller:
        prefix = self.config.scope_prefix
        granted = claim_list(claims.get("scope")) + claim_list(claims.get("scp"))
        scopes = sorted({name[len(prefix):] for name in granted if name.startswith(prefix)} & set(OUR_SCOPES))
        if not scopes:
            raise OidcRefusal("unknown", "the token grants none of the scopes read, write, admin, cypher")
        if self.config.projects_claim in claims:
            projects = claim_list(claims[self.config.projects_claim])
        else:
            projects = list(self.config.default_projects)
        principal = str(claims.get(self.config.principal_claim) or claims["sub"])[:200]
        # A stable id per user of the issuer (audit rows, cursors), within the audit column's 16
        # characters; a JWT's own jti would change with every refresh.
        digest = hashlib.sha256(f"{self.config.issuer}\n{claims['sub']}".encode()).hexdigest()
        caller = Caller(
            principal=principal,
            token_id=f"oidc_{digest[:11]}",
            projects=tuple(projects),
            scopes=tuple(scopes),  # type: ignore[arg-type]
        )
        return OidcCaller(caller=caller, toolsets=tuple(claim_list(claims.get(TOOLSETS_CLAIM))))

"""API tokens: bearer secrets that name a principal, the projects it may use and its scopes.

Plaintext format: `rhl_<10 chars of the token id>_<43 chars of secrets.token_urlsafe(32)>`. The
plaintext is shown once, at creation; the database keeps only its SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import string
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from rhumbline import contract
from rhumbline.contract import ALL_PROJECTS, Caller
from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.core import ApiToken
from rhumbline.stores.relational.projects import SLUG_PATTERN
from rhumbline.vocabulary import FAMILIES

TOKEN_PREFIX = "rhl_"
ID_PREFIX = "tk_"
# The caller id of an OIDC subject (gateway/oidc.py): metered on a row of subject_meters.
SUBJECT_PREFIX = "oidc_"
ID_LENGTH = 10
SCOPES = tuple(sorted(contract.SCOPES))
MAX_PROJECTS_PER_TOKEN = 1000
MAX_LISTED = 1000
# Recording every use would turn each read-only call into a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)
LIMITS = ("rate_per_minute", "rate_burst", "monthly_quota")
MAX_LIMIT = 2**31 - 1  # the columns are 32-bit integers

_ID_ALPHABET = string.ascii_lowercase + string.digits
_PLAINTEXT = re.compile(r"^rhl_([a-z0-9]{10})_([A-Za-z0-9_-]{43})$")


@dataclass(frozen=True)
class TokenCheck:
    ok: bool
    reason: str | None  # 'malformed_token' | 'unknown' | 'expired' | 'revoked' when not ok
    token: ApiToken | None  # also set for 'expired' and 'revoked', so the denial can be audited


def _hash(plaintext: str) -> str:
    # A plain SHA-256 is enough: the secret has 256 bits of entropy, so there is no dictionary to
    # try and brute force is hopeless with or without a slow KDF. A KDF (bcrypt, scrypt) would only
    # slow every call down and make the indexed lookup by hash impossible.
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def _validate_scopes(scopes: list[str]) -> list[str]:
    if not scopes:
        raise ValueError(f"scopes must not be empty: choose from {', '.join(SCOPES)}")
    unknown = sorted({scope for scope in scopes if scope not in SCOPES}, key=str)
    if unknown:
        raise ValueError(f"unknown scope(s) {', '.join(map(repr, unknown))}: choose from {', '.join(SCOPES)}")
    return sorted(set(scopes))


def validate_projects(projects: list[str]) -> list[str]:
    if not projects:
        raise ValueError("projects must not be empty: list 'owner/repo' slugs, or '*' for all projects")
    if len(projects) > MAX_PROJECTS_PER_TOKEN:
        raise ValueError(f"a token may list at most {MAX_PROJECTS_PER_TOKEN} projects, not {len(projects)}")
    for project in projects:
        if project != ALL_PROJECTS and not (isinstance(project, str) and SLUG_PATTERN.match(project)):
            raise ValueError(f"invalid project {project!r}: expected 'owner/repo' or '*'")
    if ALL_PROJECTS in projects and len(projects) > 1:
        raise ValueError("'*' already grants every project: pass it alone")
    return list(dict.fromkeys(projects))


def validate_toolsets(toolsets: list[str]) -> list[str]:
    unknown = sorted({name for name in toolsets if name not in FAMILIES}, key=str)
    if unknown:
        raise ValueError(f"unknown toolsets {', '.join(map(str, unknown))}: choose from {', '.join(FAMILIES)}")
    return sorted(set(toolsets), key=FAMILIES.index)


def _validate_limits(rate_per_minute: int | None, rate_burst: int | None, monthly_quota: int | None) -> None:
    for name, value in zip(LIMITS, (rate_per_minute, rate_burst, monthly_quota)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT):
            raise ValueError(f"{name} must be a whole number from 1 to {MAX_LIMIT}, not {value!r}")
    if rate_burst is not None and rate_per_minute is None:
        raise ValueError("rate_burst needs rate_per_minute: a burst is the size of the rate limit's bucket")


def create(
    session: Session,
    *,
    principal: str,
    projects: list[str],
    scopes: list[str],
    expires_at: datetime | None = None,
    description: str | None = None,
    toolsets: list[str] | None = None,
    rate_per_minute: int | None = None,
    rate_burst: int | None = None,
    monthly_quota: int | None = None,
) -> tuple[str, ApiToken]:
    """Create a token. Returns the plaintext (shown once, never stored) and the stored row.
    Toolsets: None for all. Limits: None for none; a burst defaults to the rate per minute."""
    principal = principal.strip() if isinstance(principal, str) else ""
    if not principal or len(principal) > 200:
        raise ValueError("principal must be 1-200 characters (who the token is for, e.g. an email)")
    checked_scopes = _validate_scopes(scopes)
    checked_projects = validate_projects(projects)
    if expires_at is not None:
        if expires_at.tzinfo is None:
            raise ValueError("expires_at must be timezone-aware")
        if expires_at <= utcnow():
            raise ValueError(f"expires_at {expires_at.isoformat()} is in the past")
    _validate_description(description)
    _validate_limits(rate_per_minute, rate_burst, monthly_quota)
    checked_toolsets = validate_toolsets(toolsets) if toolsets else None

    short_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(ID_LENGTH))
    plaintext = f"{TOKEN_PREFIX}{short_id}_{secrets.token_urlsafe(32)}"
    token = ApiToken(
        id=ID_PREFIX + short_id,
        token_hash=_hash(plaintext),
        principal=principal,
        projects=checked_projects,
        scopes=checked_scopes,
        created_at=utcnow(),
        expires_at=expires_at,
        description=description,
        toolsets=checked_toolsets,
        rate_per_minute=rate_per_minute,
        rate_burst=rate_burst,
        monthly_quota=monthly_quota,
    )
    session.add(token)
    session.flush()
    return plaintext, token


def presented(plaintext: str) -> tuple[str, str] | None:
    """The row id and hash a presented token names, or None when it is not in our format: a
    request with such a token is refused without a query."""
    match = _PLAINTEXT.match(plaintext) if isinstance(plaintext, str) else None
    return (ID_PREFIX + match.group(1), _hash(plaintext)) if match is not None else None


def verify(session: Session, plaintext: str, *, now: datetime | None = None) -> TokenCheck:
    """Check a presented bearer token. Never raises for bad input: it reports why it failed."""
    now = now or utcnow()
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    match = _PLAINTEXT.match(plaintext) if isinstance(plaintext, str) else None
    if match is None:
        # The token, not the Authorization header: `malformed` tells the client its header is wrong.
        return TokenCheck(ok=False, reason="malformed_token", token=None)
    digest = _hash(plaintext)
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == digest))
    # Belt and braces: the lookup already matched, but a constant-time compare of the id and the
    # hash costs nothing and does not depend on how the database compares strings.
    if (
        token is None
        or not hmac.compare_digest(token.token_hash, digest)
        or not hmac.compare_digest(token.id, ID_PREFIX + match.group(1))
    ):
        return TokenCheck(ok=False, reason="unknown", token=None)
    if token.revoked_at is not None:
        return TokenCheck(ok=False, reason="revoked", token=token)
    if token.expires_at is not None and token.expires_at <= now:
        return TokenCheck(ok=False, reason="expired", token=token)
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        token.last_used_at = now
    return TokenCheck(ok=True, reason=None, token=token)


def list_all(session: Session) -> list[ApiToken]:
    """Newest first, at most MAX_LISTED."""
    query = select(ApiToken).order_by(ApiToken.created_at.desc(), ApiToken.id).limit(MAX_LISTED)
    return list(session.scalars(query))


def is_stored(token_id: str) -> bool:
    """Whether a caller's token id names a row here: an `rhl_` token's does; an OIDC access
    token's (gateway/oidc.py) and the local stdio principal's (local/stdio.py) do not."""
    return token_id.startswith(ID_PREFIX)


def is_subject(token_id: str) -> bool:
    """Whether a caller's token id is an OIDC subject's (gateway/oidc.py)."""
    return token_id.startswith(SUBJECT_PREFIX)


def get(session: Session, token_id: str) -> ApiToken | None:
    return session.get(ApiToken, token_id)


def _validate_description(description: str | None) -> None:
    if description is not None and len(description) > 500:
        raise ValueError("description must be at most 500 characters")


def update(session: Session, token_id: str, **changes: Any) -> ApiToken | None:
    """Change a token's limits (LIMITS; None removes one) or description; None if there is no such
    token. A new rate limit starts with a full bucket; the month's count of calls stays."""
    unknown = sorted(set(changes) - {*LIMITS, "description"})
    if unknown:
        raise ValueError(f"cannot change {', '.join(unknown)}: only {', '.join(LIMITS)} and description")
    token = get(session, token_id)
    if token is None:
        return None
    limits = {name: changes.get(name, getattr(token, name)) for name in LIMITS}
    _validate_limits(**limits)
    if "description" in changes:
        _validate_description(changes["description"])
    for name, value in changes.items():
        setattr(token, name, value)
    if {"rate_per_minute", "rate_burst"} & set(changes):
        token.bucket_level = token.bucket_at = None
    session.flush()
    return token


def revoke(session: Session, token_id: str) -> bool:
    """Revoke a token. False if there is no such token; revoking twice keeps the first time."""
    token = get(session, token_id)
    if token is None:
        return False
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        session.flush()
    return True


def to_caller(token: ApiToken) -> Caller:
    return Caller(
        principal=token.principal,
        token_id=token.id,
        projects=tuple(token.projects),
        scopes=tuple(scope for scope in SCOPES if scope in token.scopes),  # validated against SCOPES at creation
    )

"""The administration commands, each a pydantic input model and one function, in one registry.

A command runs against a relational engine and returns JSON data; where it runs (this process, or
a stack's admin function) is `client.py`'s business. To add one: an input model, a function, one
`COMMANDS` entry, and its `rhumbline` subcommand in cli.py. `audit.prune` also runs on a schedule
(template.yaml: the admin function's retention event).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rhumbline.tools.get_usage import MAX_LIMIT as MAX_USAGE_ROWS
from rhumbline.tools.get_usage import UsageFilters

if TYPE_CHECKING:
    from sqlalchemy import Engine


class AdminError(Exception):
    """A refusal the administrator can act on: `code` is stable, the message says what to change."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


# A limit as a command takes it: a number, "none" for no limit, or left out (None): for token.create
# the deployment's default, for token.update unchanged.
Limit = Annotated[int, Field(ge=1, le=2**31 - 1)] | Literal["none"] | None
LIMITS = ("rate_per_minute", "rate_burst", "monthly_quota")


class TokenCreate(Input):
    principal: str = Field(description="who the token is for, e.g. an email")
    projects: list[str] = Field(description="owner/repo slugs, or ['*']")
    scopes: list[str] = Field(description="read, write, admin, cypher")
    expires_in_days: int | None = Field(default=None, gt=0, le=3650)
    description: str | None = None
    toolsets: list[str] | None = Field(default=None, description="default toolsets: code, exploration, review, admin")
    rate_per_minute: Limit = None
    rate_burst: Limit = None
    monthly_quota: Limit = None


class TokenList(Input):
    pass


class TokenRevoke(Input):
    token_id: str = Field(min_length=1, max_length=64)


class TokenUpdate(Input):
    token_id: str = Field(min_length=1, max_length=64)
    rate_per_minute: Limit = None
    rate_burst: Limit = None
    monthly_quota: Limit = None
    description: str | None = None


class Usage(UsageFilters):
    limit: int = Field(default=MAX_USAGE_ROWS, ge=1, le=MAX_USAGE_ROWS)
    offset: int = Field(default=0, ge=0)


class AuditPrune(Input):
    older_than_days: int = Field(ge=1, le=36500)
    # Each batch is a transaction of its own; the command stops after this long and says whether
    # it is done (the scheduled run continues the next day, the CLI asks again).
    max_seconds: float = Field(default=20.0, gt=0, le=3600)


class DbUpgrade(Input):
    pass


def token_create(arguments: TokenCreate, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    from rhumbline.config import settings

    expires_at = None
    if arguments.expires_in_days is not None:
        expires_at = datetime.now(timezone.utc) + timedelta(days=arguments.expires_in_days)
    current = settings()
    rate = chosen(arguments.rate_per_minute, current.default_rate_per_minute)
    # The deployment's default burst sizes the default rate: a rate given here has its own, or none.
    burst_default = current.default_rate_burst if arguments.rate_per_minute is None else None
    limits = {
        "rate_per_minute": rate,
        "rate_burst": chosen(arguments.rate_burst, burst_default),
        "monthly_quota": chosen(arguments.monthly_quota, current.default_monthly_quota),
    }
    try:
        with session_scope(engine) as session:
            plaintext, token = tokens.create(
                session,
                principal=arguments.principal,
                projects=arguments.projects,
                scopes=arguments.scopes,
                expires_at=expires_at,
                description=arguments.description,
                toolsets=arguments.toolsets,
                **limits,
            )
            described = token_fields(token)
    except ValueError as error:
        raise AdminError("invalid_arguments", str(error)) from None
    return {"token": plaintext, **described}


def chosen(given: int | str | None, default: int | None) -> int | None:
    """A limit as given to a command ("none": no limit) or, left out, the default."""
    if given is None:
        return default
    return None if given == "none" else int(given)


def token_list(arguments: TokenList, engine: Engine) -> dict[str, Any]:
    from sqlalchemy import func, select

    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.schema.core import ApiToken
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        listed = [token_fields(token) for token in tokens.list_all(session)]
        total = session.scalar(select(func.count()).select_from(ApiToken)) or 0
    return {"tokens": listed, "total": total}


def token_revoke(arguments: TokenRevoke, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        if not tokens.revoke(session, arguments.token_id):
            raise AdminError("not_found", f"no token {arguments.token_id!r}")
    return {"id": arguments.token_id, "revoked": True}


def token_update(arguments: TokenUpdate, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    changes = {
        name: None if value == "none" else value
        for name, value in arguments.model_dump(exclude={"token_id"}).items()
        if value is not None
    }
    if not changes:
        raise AdminError("invalid_arguments", "token.update: nothing to change (rate_per_minute, rate_burst, monthly_quota, description)")
    if changes.get("rate_per_minute", ...) is None and "rate_burst" not in changes:
        changes["rate_burst"] = None  # the rate limit goes, and its bucket size with it
    try:
        with session_scope(engine) as session:
            token = tokens.update(session, arguments.token_id, **changes)
            if token is None:
                raise AdminError("not_found", f"no token {arguments.token_id!r}")
            return token_fields(token)
    except ValueError as error:
        raise AdminError("invalid_arguments", str(error)) from None


def usage_report(arguments: Usage, engine: Engine) -> dict[str, Any]:
    from rhumbline.tools.get_usage import report

    today = datetime.now(timezone.utc).date()
    with engine.connect() as connection:
        output = report(connection, arguments, today=today, projects=None, limit=arguments.limit, offset=arguments.offset)
    return output.model_dump(mode="json", exclude={"next_cursor"})


def audit_prune(arguments: AuditPrune, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import audit

    cutoff = datetime.now(timezone.utc) - timedelta(days=arguments.older_than_days)
    deleted, done = audit.prune(engine, before=cutoff, deadline=time.monotonic() + arguments.max_seconds)
    return {"before": cutoff.isoformat(), "deleted": deleted, "done": done}


def db_upgrade(arguments: DbUpgrade, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import migrate

    migrate.upgrade(engine)
    return {"revision": migrate.current_revision(engine)}


def token_fields(token: Any) -> dict[str, Any]:
    """A token as JSON, never its secret (only its hash is stored anyway)."""

    def when(moment: datetime | None) -> str | None:
        return moment.astimezone(timezone.utc).isoformat() if moment else None

    return {
        "id": token.id,
        "principal": token.principal,
        "projects": list(token.projects),
        "scopes": list(token.scopes),
        "toolsets": list(token.toolsets or []),
        "description": token.description,
        "created_at": when(token.created_at),
        "expires_at": when(token.expires_at),
        "revoked_at": when(token.revoked_at),
        "last_used_at": when(token.last_used_at),
        **{name: getattr(token, name) for name in LIMITS},
    }


@dataclass(frozen=True)
class Command:
    model: type[Input]
    run: Callable[[Any, "Engine"], dict[str, Any]]


COMMANDS: dict[str, Command] = {
    "token.create": Command(TokenCreate, token_create),
    "token.list": Command(TokenList, token_list),
    "token.revoke": Command(TokenRevoke, token_revoke),
    "token.update": Command(TokenUpdate, token_update),
    "usage": Command(Usage, usage_report),
    "audit.prune": Command(AuditPrune, audit_prune),
    "db.upgrade": Command(DbUpgrade, db_upgrade),
}


def execute(name: str, arguments: Any, engine: Engine) -> dict[str, Any]:
    """Validate and run one command; AdminError for anything the caller got wrong."""
    command = COMMANDS.get(name) if isinstance(name, str) else None
    if command is None:
        raise AdminError("unknown_command", f"unknown command {name!r}: one of {', '.join(COMMANDS)}")
    try:
        parsed = command.model.model_validate(arguments if arguments is not None else {})
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in error.errors())
        raise AdminError("invalid_arguments", f"{name}: {problems}") from None
    return command.run(parsed, engine)

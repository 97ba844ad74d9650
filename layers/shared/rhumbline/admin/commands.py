"""The administration commands, each a pydantic input model and one function, in one registry.

A command runs against a relational engine and returns JSON data; where it runs (this process, or
a stack's admin function) is `client.py`'s business. To add one (say `token.update` or `usage`):
an input model, a function, one `COMMANDS` entry, and its `rhumbline` subcommand in cli.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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


class TokenCreate(Input):
    principal: str = Field(description="who the token is for, e.g. an email")
    projects: list[str] = Field(description="owner/repo slugs, or ['*']")
    scopes: list[str] = Field(description="read, write, admin, cypher")
    expires_in_days: int | None = Field(default=None, gt=0, le=3650)
    description: str | None = None
    toolsets: list[str] | None = Field(default=None, description="default toolsets: code, exploration, review, admin")


class TokenList(Input):
    pass


class TokenRevoke(Input):
    token_id: str = Field(min_length=1, max_length=64)


class DbUpgrade(Input):
    pass


def token_create(arguments: TokenCreate, engine: Engine) -> dict[str, Any]:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    expires_at = None
    if arguments.expires_in_days is not None:
        expires_at = datetime.now(timezone.utc) + timedelta(days=arguments.expires_in_days)
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
            )
            described = token_fields(token)
    except ValueError as error:
        raise AdminError("invalid_arguments", str(error)) from None
    return {"token": plaintext, **described}


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
    }


@dataclass(frozen=True)
class Command:
    model: type[Input]
    run: Callable[[Any, "Engine"], dict[str, Any]]


COMMANDS: dict[str, Command] = {
    "token.create": Command(TokenCreate, token_create),
    "token.list": Command(TokenList, token_list),
    "token.revoke": Command(TokenRevoke, token_revoke),
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

"""Deployment settings, read once per process from the environment.

Embedded default (no servers): SQLite for the relational store and SQLite for the graph, both under
`RHUMBLINE_HOME` (default `.rhumbline`). Hosted: Aurora PostgreSQL and Neo4j, with credentials from
Secrets Manager (the template sets the `*_SECRET_ARN` variables).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal, TypeVar, get_args

Mode = Literal["local", "hosted"]
GraphBackend = Literal["sqlite", "neo4j"]
Choice = TypeVar("Choice", bound=str)
# More concurrent writers of a full Neo4j write than this would only queue on any server a
# deployment is likely to use, each holding a connection and a transaction's memory there.
NEO4J_MAX_WRITERS = 16


@dataclass(frozen=True)
class Settings:
    mode: Mode = "local"
    home: Path = Path(".rhumbline")
    # SQLAlchemy URL. Empty with a secret ARN set: built from the secret (hosted).
    database_url: str = ""
    database_secret_arn: str = ""
    graph_backend: GraphBackend = "sqlite"
    graph_path: Path = Path(".rhumbline/graph.sqlite3")
    neo4j_uri: str = ""
    neo4j_user: str = "neo4j"
    neo4j_password: str = field(default="", repr=False)
    neo4j_database: str = "neo4j"
    neo4j_secret_arn: str = ""
    # Prefix of every graph key this deployment writes, when stacks share one Neo4j database
    # (per-branch stacks; stores/graph/neo4j/keys.py). Empty: the database is this stack's own.
    neo4j_namespace: str = ""
    # The `query` tool's own Neo4j user (a reader-role user; Community edition has none): its
    # secret {"username", "password", "uri"?, "database"?}, or a user and password. Unset: `query`
    # connects as the graph store's user, still in read transactions.
    neo4j_readonly_secret_arn: str = ""
    neo4j_readonly_user: str = ""
    neo4j_readonly_password: str = field(default="", repr=False)
    # Rows per transaction of a full write into Neo4j (stores/graph/neo4j/staged.py): lower it when
    # the server's db.memory.transaction.max is small (managed Neo4j tiers).
    neo4j_tx_rows: int = 50_000
    # Concurrent transactions of a full write into Neo4j (1 to NEO4J_MAX_WRITERS): about the
    # server's cores; each holds a connection and up to neo4j_tx_rows rows of transaction memory.
    neo4j_writers: int = 4
    # Seconds. Every backend call is bounded by these (and by the invocation's deadline).
    db_timeout: float = 10.0
    graph_timeout: float = 10.0
    tool_timeout: float = 25.0
    # Graph versions (with their diffable snapshots) kept per project; older ones are pruned.
    graph_retention: int = 20
    # The S3 bucket that keeps the ingested files' contents (stores/source_blobs.py). Empty: they
    # are kept in the relational store.
    contents_bucket: str = ""
    # Directories the `ingest` tool may read a local `path` under (resolved, symlinks followed):
    # RHUMBLINE_INGEST_ROOTS, separated by os.pathsep; default the directory the server started in
    # (`rhumbline up PATH` sets PATH).
    ingest_roots: tuple[Path, ...] = ()
    # Seconds an ingest holds its project's lease without renewing it (it renews it while it runs):
    # a killed ingest blocks the project's next one at most this long, then its build is failed.
    ingest_lease_seconds: float = 60.0
    # TLS to PostgreSQL (stores/relational/tls.py): disable | require | verify-full, and the PEM
    # bundle of CAs verify-full trusts.
    db_ssl: str = "disable"
    db_ca_bundle: str = ""
    # OAuth (gateway/oidc.py): access tokens from this OIDC issuer are accepted beside the
    # static `rhl_` tokens. Empty: static tokens only. The JWKS URI defaults to the issuer's
    # discovery document; audiences are matched against `aud` or Cognito's `client_id`.
    oidc_issuer: str = ""
    oidc_jwks_uri: str = ""
    oidc_audiences: tuple[str, ...] = ()
    # Prepended to our scope names in the token's `scope` claim (a Cognito resource server's
    # identifier and a slash, say `rhumbline/`).
    oidc_scope_prefix: str = ""
    oidc_principal_claim: str = "sub"
    oidc_projects_claim: str = "rhumbline_projects"
    # Projects of a token whose projects claim is absent (`*` for a single-team deployment).
    oidc_default_projects: tuple[str, ...] = ()
    # The public URL of the MCP endpoint (a custom domain); empty: taken from each request's Host.
    resource_url: str = ""
    # The most calls the whole deployment runs in a calendar month (UTC); None: no ceiling.
    monthly_call_ceiling: int | None = None
    # Limits a new token gets when its creator names none (None: unlimited).
    default_rate_per_minute: int | None = None
    default_rate_burst: int | None = None
    default_monthly_quota: int | None = None
    # Search also ranks by meaning (stores/graph/semantic.py): needs the `semantic` extra, which
    # the hosted layer leaves out.
    semantic_ranking: bool = False


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def _positive_int(name: str, default: str) -> int:
    text = _env(name, default)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{name} must be a positive integer, not {text!r}")
    return int(text)


def _at_most(most: int, name: str, default: str) -> int:
    value = _positive_int(name, default)
    if value > most:
        raise ValueError(f"{name} must be at most {most}, not {value}")
    return value


def _list(name: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in _env(name).replace(" ", ",").split(",") if item.strip())


def _directories(name: str) -> tuple[Path, ...]:
    """The directories listed in `name` (os.pathsep-separated), resolved; else the working directory."""
    listed = [part.strip() for part in _env(name).split(os.pathsep) if part.strip()]
    return tuple(Path(os.path.realpath(Path(part).expanduser())) for part in listed or [os.getcwd()])


def _flag(name: str) -> bool:
    text = _env(name).lower()
    if text in ("", "0", "false", "off", "no"):
        return False
    if text in ("1", "true", "on", "yes"):
        return True
    raise ValueError(f"{name} must be on or off (1/0, true/false), not {text!r}")


def _optional_limit(name: str) -> int | None:
    """A positive integer, or None when unset, empty or 0 (template parameters say 0 for none)."""
    text = _env(name)
    if text in ("", "0"):
        return None
    if not text.isdigit():
        raise ValueError(f"{name} must be a positive integer (or 0 for none), not {text!r}")
    return int(text)


def _one_of(variable: str, value: str, choices: tuple[Choice, ...]) -> Choice:
    """`value` as the choice it names (typed as the choice), or a ValueError naming the choices."""
    for choice in choices:
        if value == choice:
            return choice
    raise ValueError(f"{variable} must be {' or '.join(map(repr, choices))}, not {value!r}")


def load_settings() -> Settings:
    # Absolute once, here: a relative home would follow each command's working directory, and a
    # server started elsewhere would open another (empty) store.
    home = Path(_env("RHUMBLINE_HOME", ".rhumbline")).expanduser().resolve()
    mode = _one_of("RHUMBLINE_MODE", _env("RHUMBLINE_MODE", "local"), get_args(Mode))
    backend = _one_of("RHUMBLINE_GRAPH_BACKEND", _env("RHUMBLINE_GRAPH_BACKEND", "sqlite"), get_args(GraphBackend))
    return Settings(
        mode=mode,
        home=home,
        database_url=_env("RHUMBLINE_DATABASE_URL"),
        database_secret_arn=_env("RHUMBLINE_DATABASE_SECRET_ARN"),
        graph_backend=backend,
        graph_path=Path(_env("RHUMBLINE_GRAPH_PATH", str(home / "graph.sqlite3"))).expanduser().resolve(),
        neo4j_uri=_env("RHUMBLINE_NEO4J_URI"),
        neo4j_user=_env("RHUMBLINE_NEO4J_USER", "neo4j"),
        neo4j_password=_env("RHUMBLINE_NEO4J_PASSWORD"),
        neo4j_database=_env("RHUMBLINE_NEO4J_DATABASE", "neo4j"),
        neo4j_secret_arn=_env("RHUMBLINE_NEO4J_SECRET_ARN"),
        neo4j_namespace=_env("RHUMBLINE_NEO4J_NAMESPACE"),
        neo4j_readonly_secret_arn=_env("RHUMBLINE_NEO4J_READONLY_SECRET_ARN"),
        neo4j_readonly_user=_env("RHUMBLINE_NEO4J_READONLY_USER"),
        neo4j_readonly_password=_env("RHUMBLINE_NEO4J_READONLY_PASSWORD"),
        neo4j_tx_rows=_positive_int("RHUMBLINE_NEO4J_TX_ROWS", "50000"),
        neo4j_writers=_at_most(NEO4J_MAX_WRITERS, "RHUMBLINE_NEO4J_WRITERS", "4"),
        db_timeout=float(_env("RHUMBLINE_DB_TIMEOUT", "10")),
        db_ssl=_env("RHUMBLINE_DB_SSL", "disable"),
        db_ca_bundle=_env("RHUMBLINE_DB_CA_BUNDLE"),
        graph_timeout=float(_env("RHUMBLINE_GRAPH_TIMEOUT", "10")),
        tool_timeout=float(_env("RHUMBLINE_TOOL_TIMEOUT", "25")),
        graph_retention=max(1, int(_env("RHUMBLINE_GRAPH_RETENTION", "20"))),
        contents_bucket=_env("RHUMBLINE_CONTENTS_BUCKET"),
        oidc_issuer=_env("RHUMBLINE_OIDC_ISSUER").rstrip("/"),
        oidc_jwks_uri=_env("RHUMBLINE_OIDC_JWKS_URI"),
        oidc_audiences=_list("RHUMBLINE_OIDC_AUDIENCES"),
        oidc_scope_prefix=_env("RHUMBLINE_OIDC_SCOPE_PREFIX"),
        oidc_principal_claim=_env("RHUMBLINE_OIDC_PRINCIPAL_CLAIM", "sub"),
        oidc_projects_claim=_env("RHUMBLINE_OIDC_PROJECTS_CLAIM", "rhumbline_projects"),
        oidc_default_projects=_list("RHUMBLINE_OIDC_DEFAULT_PROJECTS"),
        resource_url=_env("RHUMBLINE_RESOURCE_URL").rstrip("/"),
        monthly_call_ceiling=_optional_limit("RHUMBLINE_MONTHLY_CALL_CEILING"),
        default_rate_per_minute=_optional_limit("RHUMBLINE_DEFAULT_RATE_PER_MINUTE"),
        default_rate_burst=_optional_limit("RHUMBLINE_DEFAULT_RATE_BURST"),
        default_monthly_quota=_optional_limit("RHUMBLINE_DEFAULT_MONTHLY_QUOTA"),
        ingest_roots=_directories("RHUMBLINE_INGEST_ROOTS"),
        ingest_lease_seconds=float(_env("RHUMBLINE_INGEST_LEASE_SECONDS", "60")),
        semantic_ranking=_flag("RHUMBLINE_SEMANTIC_RANKING"),
    )


@lru_cache(maxsize=1)
def settings() -> Settings:
    return load_settings()

"""Open the graph store the settings name, with its schema in place."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rhumbline.config import Settings
from rhumbline.stores.graph.protocol import GraphStore

@dataclass(frozen=True)
class Neo4jCredentials:
    uri: str
    user: str
    password: str
    database: str


def open_graph_store(settings: Settings) -> GraphStore:
    store: GraphStore
    if settings.graph_backend == "sqlite":
        from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

        path = Path(settings.graph_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        store = SqliteGraphStore(path, timeout=settings.graph_timeout)
    elif settings.graph_backend == "neo4j":
        from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

        credentials = neo4j_credentials(settings)
        store = Neo4jGraphStore(
            credentials.uri,
            credentials.user,
            credentials.password,
            database=credentials.database,
            timeout=settings.graph_timeout,
            tx_rows=settings.neo4j_tx_rows,
            writers=settings.neo4j_writers,
            namespace=settings.neo4j_namespace,
        )
    else:
        raise ValueError(f"unknown graph backend {settings.graph_backend!r}")
    store.semantic_ranking = settings.semantic_ranking
    try:
        store.ensure_schema()
    except BaseException:
        store.close()
        raise
    return store


def neo4j_credentials(settings: Settings) -> Neo4jCredentials:
    """From the settings, or from the secret JSON {"uri", "username", "password", "database"?}
    when a secret ARN is set and no password is given (hosted)."""
    uri, user, password, database = (
        settings.neo4j_uri,
        settings.neo4j_user,
        settings.neo4j_password,
        settings.neo4j_database,
    )
    if settings.neo4j_secret_arn and not password:
        from rhumbline.secrets import read_secret

        secret = read_secret(settings.neo4j_secret_arn, transform="json")
        if not isinstance(secret, dict) or "password" not in secret:
            raise ValueError(
                f"Neo4j secret {settings.neo4j_secret_arn} is not JSON with a 'password' key"
            )
        uri = secret.get("uri") or uri
        user = secret.get("username") or user
        password = secret["password"]
        database = secret.get("database") or database
    if not uri:
        raise ValueError("Neo4j graph backend needs RHUMBLINE_NEO4J_URI or a secret with 'uri'")
    return Neo4jCredentials(uri=uri, user=user, password=password, database=database)


def neo4j_readonly_credentials(settings: Settings) -> tuple[Neo4jCredentials, bool]:
    """What the `query` tool connects as, and whether it is a dedicated read-only user: the
    read-only secret {"username", "password", "uri"?, "database"?} or user and password when set
    (uri and database default to the graph store's), else the graph store's own credentials."""
    main = neo4j_credentials(settings)
    user, password = settings.neo4j_readonly_user, settings.neo4j_readonly_password
    uri, database = main.uri, main.database
    if settings.neo4j_readonly_secret_arn and not password:
        from rhumbline.secrets import read_secret

        secret = read_secret(settings.neo4j_readonly_secret_arn, transform="json")
        if not isinstance(secret, dict) or not secret.get("username") or "password" not in secret:
            raise ValueError(
                f"Neo4j read-only secret {settings.neo4j_readonly_secret_arn} is not JSON with"
                " 'username' and 'password' keys"
            )
        user, password = secret["username"], secret["password"]
        uri, database = secret.get("uri") or uri, secret.get("database") or database
    if not user:
        return main, False
    if not password:
        raise ValueError("RHUMBLINE_NEO4J_READONLY_USER is set without RHUMBLINE_NEO4J_READONLY_PASSWORD")
    return Neo4jCredentials(uri=uri, user=user, password=password, database=database), True

"""The database URL from a Secrets Manager secret (what RDS / Aurora attach to a cluster)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import URL

from rhumbline.secrets import read_secret

REQUIRED_KEYS = ("username", "password", "host", "dbname")


def database_url_from_secret(arn: str) -> str:
    """`postgresql+pg8000://...` built from the secret's JSON; cached per container (a rotated
    password is picked up within secrets.SECRET_MAX_AGE_SECONDS, and pool_pre_ping drops
    connections the rotation closed)."""
    secret = read_secret(arn, transform="json")
    if not isinstance(secret, Mapping):
        raise ValueError(f"secret {arn} is not a JSON object")
    return url_from_secret_values(secret)


def url_from_secret_values(secret: Mapping[str, Any]) -> str:
    """The URL for a secret shaped {"username", "password", "host", "port", "dbname"}.

    URL.create escapes the credentials, so any character is safe in the password.
    """
    missing = [key for key in REQUIRED_KEYS if not secret.get(key)]
    if missing:
        # Names only: the message must never carry a secret value.
        raise ValueError(f"database secret lacks {', '.join(missing)}")
    url = URL.create(
        "postgresql+pg8000",
        username=str(secret["username"]),
        password=str(secret["password"]),
        host=str(secret["host"]),
        port=int(secret.get("port") or 5432),
        database=str(secret["dbname"]),
    )
    return url.render_as_string(hide_password=False)

"""The database URL from a Secrets Manager secret (what RDS / Aurora attach to a cluster)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

# Warm invocations reuse the value; a rotated password is picked up within this many seconds
# (and pool_pre_ping drops connections the rotation closed).
SECRET_MAX_AGE_SECONDS = 300
REQUIRED_KEYS = ("username", "password", "host", "dbname")

_lock = threading.Lock()
_provider: "SecretsProvider | None" = None


def _secrets_provider() -> "SecretsProvider":
    # One provider per container: its cache is what makes warm invocations free. Built here rather
    # than using parameters.get_secret's default provider so the Secrets Manager call has timeouts.
    global _provider
    with _lock:
        if _provider is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider
            from botocore.config import Config

            _provider = SecretsProvider(
                boto_config=Config(connect_timeout=3, read_timeout=5, retries={"max_attempts": 2, "mode": "standard"})
            )
        return _provider


def database_url_from_secret(arn: str) -> str:
    """`postgresql+pg8000://...` built from the secret's JSON; cached for SECRET_MAX_AGE_SECONDS."""
    secret = _secrets_provider().get(arn, transform="json", max_age=SECRET_MAX_AGE_SECONDS)
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

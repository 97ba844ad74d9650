"""Secrets Manager reads with bounded time: the database, Neo4j and GitHub credentials.

Powertools' default provider (what `parameters.get_secret` uses) has botocore's default 60 s
connect and read timeouts with retries: a Secrets Manager that does not answer would hold a call
for minutes. One provider per container, made here with short timeouts; its cache is what makes
warm invocations free (a rotated secret is picked up within SECRET_MAX_AGE_SECONDS).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

SECRET_MAX_AGE_SECONDS = 300
CONNECT_TIMEOUT_SECONDS = 3
READ_TIMEOUT_SECONDS = 5

_lock = threading.Lock()
_provider: "SecretsProvider | None" = None


def secrets_provider() -> "SecretsProvider":
    global _provider
    with _lock:
        if _provider is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider
            from botocore.config import Config

            _provider = SecretsProvider(
                boto_config=Config(
                    connect_timeout=CONNECT_TIMEOUT_SECONDS,
                    read_timeout=READ_TIMEOUT_SECONDS,
                    retries={"max_attempts": 2, "mode": "standard"},
                )
            )
        return _provider


def read_secret(arn: str, *, transform: Literal["json", "binary", "auto"] | None = None) -> Any:
    """The secret's value (parsed when `transform="json"`), cached for SECRET_MAX_AGE_SECONDS."""
    return secrets_provider().get(arn, transform=transform, max_age=SECRET_MAX_AGE_SECONDS)


def reset() -> None:
    """Forget the provider: its client, connections and cached values (after a SnapStart restore)."""
    global _provider
    with _lock:
        _provider = None

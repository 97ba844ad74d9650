"""Webhook secrets: one per repository or GitHub App installation, with a default.

The secrets are one JSON object mapping `"owner/repo"`, `"installation:<id>"` or `"default"` to the
secret GitHub signs with. Hosted: a Secrets Manager secret (RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN),
read through Powertools with a cache (a rotated secret is picked up within SECRET_MAX_AGE_SECONDS)
and bounded timeouts. Locally: the same JSON in RHUMBLINE_GITHUB_WEBHOOK_SECRETS.

The most specific configured key wins and is the ONLY one tried: a repository with its own secret
cannot be signed for with the default one.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

SECRETS_VARIABLE = "RHUMBLINE_GITHUB_WEBHOOK_SECRETS"
SECRET_ARN_VARIABLE = "RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN"
DEFAULT_KEY = "default"
SECRET_MAX_AGE_SECONDS = 300
MAX_KEYS = 10_000

_lock = threading.Lock()
_provider: "SecretsProvider | None" = None


class SecretsUnavailable(Exception):
    """The secret store could not be read (answered 503: GitHub shows the failure, redeliver later)."""


class SecretsMisconfigured(Exception):
    """The configured secrets are not a JSON object of non-empty strings (a deployment error)."""


def _secrets_provider() -> "SecretsProvider":
    global _provider
    with _lock:
        if _provider is None:
            from aws_lambda_powertools.utilities.parameters import SecretsProvider
            from botocore.config import Config

            _provider = SecretsProvider(
                boto_config=Config(connect_timeout=2, read_timeout=3, retries={"max_attempts": 2, "mode": "standard"})
            )
        return _provider


def _validated(raw: Any, where: str) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        raise SecretsMisconfigured(f"{where} must be a JSON object of \"owner/repo\" | \"installation:<id>\" | \"default\" → secret")
    if len(raw) > MAX_KEYS:
        raise SecretsMisconfigured(f"{where} has more than {MAX_KEYS} keys")
    secrets: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not isinstance(value, str) or not value:
            # Key names only: a message must never carry a secret.
            raise SecretsMisconfigured(f"{where}: the value of {str(key)[:100]!r} must be a non-empty string")
        secrets[key.strip().lower()] = value
    return secrets


def load_secrets() -> dict[str, str]:
    """The configured secrets, keys lower-cased. Empty when none are configured."""
    arn = os.environ.get(SECRET_ARN_VARIABLE, "").strip()
    if arn:
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError, TransformParameterError

        try:
            raw = _secrets_provider().get(arn, transform="json", max_age=SECRET_MAX_AGE_SECONDS)
        except TransformParameterError:
            raise SecretsMisconfigured(f"secret {arn} is not JSON") from None
        except GetParameterError as error:
            raise SecretsUnavailable(f"the webhook secrets could not be read from Secrets Manager: {error}") from None
        return _validated(raw, f"secret {arn}")
    text = os.environ.get(SECRETS_VARIABLE, "").strip()
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        raise SecretsMisconfigured(f"{SECRETS_VARIABLE} is not valid JSON") from None
    return _validated(raw, SECRETS_VARIABLE)


def choose(secrets: Mapping[str, str], repository: str | None, installation_id: int | None) -> tuple[str, str] | None:
    """(key, secret) of the most specific configured secret for this sender, or None."""
    candidates = []
    if repository:
        candidates.append(repository.strip().lower())
    if installation_id is not None:
        candidates.append(f"installation:{installation_id}")
    candidates.append(DEFAULT_KEY)
    for key in candidates:
        if key in secrets:
            return key, secrets[key]
    return None

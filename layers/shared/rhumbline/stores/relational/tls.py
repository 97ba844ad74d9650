"""TLS from pg8000 to PostgreSQL: Aurora with `rds.force_ssl = 1` refuses anything else.

RHUMBLINE_DB_SSL:
- `disable` (default: the local embedded stores and the test server): plain TCP (pg8000's own
  default, `ssl_context=None`, would try TLS unverified and silently fall back to plain);
- `require`: encrypted, the server's certificate not checked (protects from passive eavesdropping
  only; what libpq's sslmode=require does without a root certificate);
- `verify-full` (the SAM deployment): the certificate must chain to a CA in RHUMBLINE_DB_CA_BUNDLE
  (a PEM file, the Amazon RDS global bundle in production, see docs/deploy.md) and name the host
  of the database URL.

A bad setting fails when the engine is created, with the variable to fix; a server that fails
verification fails the connection with pg8000's certificate error. Neither carries a password.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

MODES = ("disable", "require", "verify-full")


@dataclass(frozen=True)
class DbTls:
    mode: str = "disable"
    ca_bundle: str = ""  # PEM file of the CAs to trust (verify-full)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"RHUMBLINE_DB_SSL must be one of {', '.join(MODES)}, not {self.mode!r}")


def ssl_context(tls: DbTls) -> ssl.SSLContext | bool:
    """What pg8000's `ssl_context` connect argument gets (False: no TLS; a context: TLS or no
    connection, pg8000 raising "Server refuses SSL")."""
    if tls.mode == "disable":
        return False
    if tls.mode == "require":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context = _verifying_context(tls.ca_bundle)
        context.check_hostname = True
        context.verify_mode = ssl.CERT_REQUIRED
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


def _verifying_context(path_text: str) -> ssl.SSLContext:
    hint = "(the Amazon RDS global bundle: see docs/deploy.md)"
    if not path_text:
        raise ValueError(f"RHUMBLINE_DB_SSL=verify-full needs RHUMBLINE_DB_CA_BUNDLE, a PEM file of the CAs to trust {hint}")
    path = Path(path_text)
    if not path.is_file():
        raise ValueError(f"RHUMBLINE_DB_CA_BUNDLE {path} is not a file {hint}")
    try:
        return ssl.create_default_context(cafile=str(path))
    except (ssl.SSLError, OSError, ValueError) as error:
        raise ValueError(f"RHUMBLINE_DB_CA_BUNDLE {path} holds no usable PEM certificate: {error}") from None

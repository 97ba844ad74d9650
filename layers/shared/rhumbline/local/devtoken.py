"""The local development token `rhumbline up` prints: created once, kept in RHUMBLINE_HOME.

It is a real token in the local store (all projects, all scopes), so the local server checks it
exactly as the hosted gateway checks any other.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rhumbline.contract import SCOPES

if TYPE_CHECKING:
    from sqlalchemy import Engine

DEV_PRINCIPAL = "local-dev"
DEV_SCOPES: list[str] = list(SCOPES)
TOKEN_FILE = "dev-token"


def ensure_dev_token(home: Path, engine: "Engine") -> str:
    """The stored dev token while it still verifies, else a new one (stored with mode 0600)."""
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    path = home / TOKEN_FILE
    if path.is_file():
        plaintext = path.read_text().strip()
        with session_scope(engine) as session:
            if tokens.verify(session, plaintext).ok:
                return plaintext
    with session_scope(engine) as session:
        plaintext, _ = tokens.create(
            session,
            principal=DEV_PRINCIPAL,
            projects=["*"],
            scopes=DEV_SCOPES,
            description="rhumbline up: local development token",
        )
    write_private(path, plaintext + "\n")
    return plaintext


def write_private(path: Path, text: str) -> None:
    """Write a secret readable by its owner only, replacing the file atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.chmod(temporary, 0o600)  # O_CREAT's mode does not apply to a file that already existed
    os.replace(temporary, path)

"""The security suite's worlds: the tool world of tests/functional/tools (both deployment shapes:
SQLite+SQLite and PostgreSQL+Neo4j), reached through the tool handler as the gateway reaches it."""

from __future__ import annotations

from tests.functional.tools.conftest import tools_database_url, world  # noqa: F401 - fixtures used by name
from tests.functional.gateway.conftest import gateway_stores, make_gateway  # noqa: F401,E402 - fixtures used by name

from __future__ import annotations

import threading

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from rhumbline.stores.relational.migrate import current_revision, upgrade
from rhumbline.stores.relational.schema.base import Base

TABLES = {"alembic_version", "projects", "api_tokens", "audit_log", "graph_versions"}
# Review data (0002_reviews).
TABLES |= {"pull_requests", "pull_request_files", "reviews", "webhook_deliveries"}
# Incremental, versioned ingestion (0003_snapshots).
TABLES |= {"ingested_files", "graph_snapshots"}
# Graph exploration: annotations and cached centrality (0004_annotations).
TABLES |= {"annotations", "graph_centrality"}
# Usage rollups (0007_metering).
TABLES |= {"usage_daily"}
# Commit e-mails tied to logins (0009_contributor_emails).
TABLES |= {"contributor_emails"}
# The meters of OIDC subjects (0011_subject_meters).
TABLES |= {"subject_meters"}
# The stored files of graph versions and their contents (0012_sources).
TABLES |= {"version_files", "source_blobs"}
# A snapshot's bytes in bounded parts (0013_snapshot_parts).
TABLES |= {"graph_snapshot_parts"}


def head_revision() -> str:
    """The newest revision on disk: every upgrade must end there (and there must be one head)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from rhumbline.stores.relational.migrate import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return ScriptDirectory.from_config(config).get_current_head()


def test_upgrade_from_empty_creates_every_table(fresh_database) -> None:
    engine = fresh_database()
    assert current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) == set()

    upgrade(engine)

    assert current_revision(engine) == head_revision()
    assert set(inspect(engine).get_table_names()) == TABLES
    indexes = {index["name"] for index in inspect(engine).get_indexes("audit_log")}
    assert indexes == {"ix_audit_log_at", "ix_audit_log_principal_at", "ix_audit_log_project_at"}


def test_upgrade_twice_is_a_no_op(fresh_database) -> None:
    engine = fresh_database()
    upgrade(engine)
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [(head_revision(),)]


def test_concurrent_cold_starts_migrate_once(fresh_database) -> None:
    # Separate engines, like separate Lambda containers starting at the same moment.
    engines = [fresh_database() for _ in range(4)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(engines))

    def cold_start(engine) -> None:
        try:
            barrier.wait(timeout=10)
            upgrade(engine)
        except BaseException as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)

    threads = [threading.Thread(target=cold_start, args=(engine,)) for engine in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert [current_revision(engine) for engine in engines] == [head_revision()] * 4


def test_models_and_migrations_agree(fresh_database) -> None:
    engine = fresh_database()
    upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


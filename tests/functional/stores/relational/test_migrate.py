from __future__ import annotations

import threading

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from rhumbline.stores.relational.migrate import current_revision, upgrade
from rhumbline.stores.relational.models import Base

TABLES = {"alembic_version", "projects", "api_tokens", "audit_log", "graph_versions"}


def test_upgrade_from_empty_creates_every_table(fresh_database) -> None:
    engine = fresh_database()
    assert current_revision(engine) is None
    assert set(inspect(engine).get_table_names()) == set()

    upgrade(engine)

    assert current_revision(engine) == "0001"
    assert set(inspect(engine).get_table_names()) == TABLES
    indexes = {index["name"] for index in inspect(engine).get_indexes("audit_log")}
    assert indexes == {"ix_audit_log_at", "ix_audit_log_principal_at", "ix_audit_log_project_at"}


def test_upgrade_twice_is_a_no_op(fresh_database) -> None:
    engine = fresh_database()
    upgrade(engine)
    upgrade(engine)
    assert current_revision(engine) == "0001"
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [("0001",)]


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
    assert [current_revision(engine) for engine in engines] == ["0001"] * 4


def test_models_and_migrations_agree(fresh_database) -> None:
    engine = fresh_database()
    upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


"""What every table of the relational store is built on: the declarative base with its naming
convention, the portable column types and the clock.

The same models run on SQLite (embedded default) and PostgreSQL (Aurora).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TypeVar

from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer, MetaData, TypeDecorator
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase

# Explicit constraint names: Alembic can only alter or drop constraints it can name, and SQLite
# batch migrations rebuild tables from these names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSONB on PostgreSQL (indexable, compact); JSON text on SQLite.
PortableJSON = JSON().with_variant(JSONB(), "postgresql")

# SQLite only auto-increments an INTEGER PRIMARY KEY, not BIGINT.
AutoBigInt = BigInteger().with_variant(Integer(), "sqlite")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always a UTC-aware datetime in Python.

    PostgreSQL stores `timestamptz`; SQLite has no time zones, so the UTC wall time is stored and
    the zone re-attached on read. Naive datetimes are refused: their zone is a guess.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value.isoformat()}: pass a timezone-aware datetime")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


Value = TypeVar("Value", bound=str)


def checked(what: str, value: str, values: tuple[Value, ...]) -> Value:
    """`value` as the one of `values` it is (typed as a column's Literal), or a ValueError naming them."""
    for known in values:
        if value == known:
            return known
    raise ValueError(f"{what} must be one of {', '.join(values)}, not {value!r}")


def one_of(column: str, values: tuple[str, ...]) -> str:
    """A CHECK constraint's text: `column` holds one of `values`."""
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)

"""The relational store's tables: `base` (the declarative base, portable types) and one module
per table group, each with its migration: `core` (0001), `reviews` (0002), `ingest` (0003),
`exploration` (0004), `metering` (0007), `sources` (0012).

Every change to a table needs a migration in `migrations/versions/`; a test compares the two and
fails on drift. Importing any module of the package registers every table on `Base.metadata` (the
migrations' target and the drift test's reference), so foreign keys across groups always resolve.
"""

from rhumbline.stores.relational.schema import core, exploration, ingest, metering, reviews, sources  # noqa: F401

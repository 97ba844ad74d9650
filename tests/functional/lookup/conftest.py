"""The lookup layer's relational reads, on both databases (the relational store tests' engines)."""

from tests.functional.stores.relational.conftest import engine  # noqa: F401  (a fixture)

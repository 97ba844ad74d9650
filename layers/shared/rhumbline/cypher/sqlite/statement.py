"""The SQL statement a query compiles to, as it is built: the values bound as its parameters, its
recursive CTEs and the fresh names of its tables and columns."""

from __future__ import annotations

from typing import Any


class Statement:
    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params  # the query's own parameters (`$name`), as given
        self.sql_params: dict[str, Any] = {}
        self.ctes: list[str] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def bind(self, value: Any) -> str:
        name = self.fresh("p")
        self.sql_params[name] = value
        return f":{name}"

"""A recursive-descent parser for the read-only Cypher subset (syntax.py), over guard.py's tokens.

It accepts what both backends can answer identically and refuses everything else by name
(`NotInSubset`) before anything runs: a construct is either parsed into syntax.py's classes or
refused here, never passed through. docs/query.md lists the subset and why the parser is our own.

One module per part of the grammar, each a class extending the one below it: `stream` (tokens,
names, literals, the errors), `expressions`, `patterns`, `clauses` (where `parse` starts).
"""

from rhumbline.cypher.parser.clauses import parse
from rhumbline.cypher.parser.stream import (
    FUNCTIONS,
    GENERATED,
    MAX_HOPS,
    PROCEDURES,
    CypherSyntaxError,
    NotInSubset,
)

__all__ = ["FUNCTIONS", "GENERATED", "MAX_HOPS", "PROCEDURES", "CypherSyntaxError", "NotInSubset", "parse"]

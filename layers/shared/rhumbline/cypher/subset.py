"""The read-only Cypher subset both backends answer alike: a text read into it (parser/), or the
tool error saying what is outside it and what runs instead."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
from rhumbline.cypher.parser import parse as parse_text
from rhumbline.errors import InvalidArguments, QueryTooLarge, Unsupported

SUBSET_HELP = (
    "The embedded store, and tokens limited to some projects on Neo4j, run a read-only Cypher subset "
    "(MATCH/OPTIONAL MATCH, WHERE, WITH, RETURN, UNWIND, aggregation, ORDER BY/SKIP/LIMIT, bounded "
    "variable-length relationships, shortestPath, EXISTS/COUNT subqueries, db.labels/relationshipTypes/"
    "propertyKeys; see docs/query.md). The full language runs on the Neo4j backend for a token that sees "
    "every project."
)


def parse(text: str) -> s.Query:
    """The query in the subset, or the error saying what is outside it."""
    with refusals():
        return parse_text(text)


@contextmanager
def refusals() -> Iterator[None]:
    """Reading or compiling a query: what the subset refuses, as the tool errors an agent can act on."""
    try:
        yield
    except RecursionError:
        raise _too_deep() from None
    except NotInSubset as error:
        raise Unsupported(f"query refused: {error}. {SUBSET_HELP}", details={"construct": error.construct}) from None
    except CypherSyntaxError as error:
        raise InvalidArguments(f"invalid Cypher: {error}") from None


def _too_deep() -> QueryTooLarge:
    # The parser and the compiler recurse once per level of nesting: past Python's stack, the query
    # (or a parameter) nests too deeply to be read, whatever it would compute.
    return QueryTooLarge(
        "the query nests expressions or values too deeply to be read (a few dozen levels of brackets "
        "or parentheses at most)",
        details={"limit": "nesting"},
    )

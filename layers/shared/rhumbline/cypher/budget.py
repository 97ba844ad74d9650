"""The largest value a scoped query may build, on both backends (issue 26, item 3).

The embedded store counts a value as its JSON text (sqlite/functions.py refuses before building one
past VALUE_BYTES). Neo4j builds values on its heap, which `db.memory.transaction.max` does not
count, so the scoped writer (neo4j/scoping.py) guards every value a query builds at run time with the
same budget, weighed the way its JSON text is at least: a string one unit per character, a list
two per element (the element and a comma), anything else one.
"""

from __future__ import annotations

import secrets

VALUE_BYTES = 2 * 1024 * 1024
LIST_ELEMENT_WEIGHT = 2

# The parameter a guard fails on: `date()` of a text no date has, which Neo4j raises only when the
# guard's branch is taken (CASE is lazy) and quotes in its message. The marker is this process's
# own, so no other error of Neo4j's reads as a value past the budget.
ABORT_PARAM = "rhumbline_too_large"
ABORT_MARKER = f"rhumbline value past the budget {secrets.token_hex(8)}"

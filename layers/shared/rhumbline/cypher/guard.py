"""First of the `query` tool's three read-only layers: a lexical check of the Cypher text.

Layers, each enough on its own against writes:
1. this check: a real tokenizer (strings, backtick identifiers and comments are skipped, never
   matched against), then rules on the remaining tokens — one statement only; no clause that
   writes, loads or administers (CREATE, MERGE, SET, DELETE, REMOVE, DROP, FOREACH, LOAD CSV,
   USE, SHOW, GRANT, ... and `IN TRANSACTIONS`); CALL only of a short list of procedures;
   namespaced functions only from Neo4j's built-in temporal/spatial/vector namespaces.
2. `EXPLAIN` of the query must report query type 'r' (neo4j/runner.py);
3. the query runs in a READ access-mode transaction, which the database itself refuses to let
   write (neo4j/runner.py), as a dedicated read-only user when one is configured.

Layer 1 is also what stops reads that are not graph reads: LOAD CSV (files, URLs) plans as 'r'.
False positives are accepted: a variable named like a write keyword must be backticked.

Like Neo4j, the text is read after its `\\uXXXX` escapes are decoded (`decoded`): Neo4j decodes
them everywhere before it lexes a statement, in strings, comments and backtick-quoted names too,
so `\\u0043REATE` is CREATE and `\\u0060` closes a quoted name. Reading anything else than what
Neo4j reads would let a text mean one thing here and another there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUERY_CHARS = 20_000

# Clause keywords that write, load data, switch database or administer the server.
FORBIDDEN_KEYWORDS = frozenset(
    {
        "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "FOREACH", "LOAD", "CSV",
        "USE", "SHOW", "GRANT", "DENY", "REVOKE", "ALTER", "RENAME", "START", "STOP", "TERMINATE",
        "ENABLE", "DEALLOCATE", "REALLOCATE", "INSERT", "TRANSACTIONS", "PERIODIC", "EXPLAIN",
        "PROFILE", "CYPHER",
    }
)  # fmt: skip
# Procedures a query may CALL: schema introspection and the full-text index, all read-only.
ALLOWED_PROCEDURES = frozenset(
    {
        "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.index.fulltext.queryNodes",
        "db.index.fulltext.queryRelationships", "db.schema.nodeTypeProperties",
        "db.schema.relTypeProperties",
    }
)  # fmt: skip
# Namespaces of callable functions (`date.truncate(...)`); apoc.*, gds.*, dbms.* and user-defined
# functions are refused. Plain functions (count, toLower, ...) have no namespace.
ALLOWED_FUNCTION_NAMESPACES = frozenset(
    {"date", "datetime", "localdatetime", "localtime", "time", "duration", "point", "vector.similarity"}
)


# 0x1F, 12, 1.5, 1e3, 2.5E-4 (and whatever letters follow, so that `12abc` is one bad token).
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[A-Za-z0-9_]*")


class CypherRejected(ValueError):
    """The text is not an acceptable read-only query; the message says why."""


_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


def decoded(text: str) -> str:
    """`text` as Neo4j 5 lexes it: each `\\uXXXX` whose backslash follows an even number of
    backslashes is the character it names (exactly one `u`, exactly four hex digits, else an
    error as in Neo4j); a decoded backslash starts no further escape; UTF-16 surrogate pairs
    join into one character."""
    if "\\u" not in text:
        return text
    out, i, n = [], 0, len(text)
    while (start := text.find("\\", i)) >= 0:
        end = start
        while end < n and text[end] == "\\":
            end += 1
        if end < n and text[end] == "u" and (end - start) % 2 == 1:
            digits = text[end + 1 : end + 5]
            if not _HEX4.fullmatch(digits):
                raise CypherRejected(
                    f"bad unicode escape '\\u{digits}' at offset {end - 1}: expected four hexadecimal digits"
                )
            out += [text[i : end - 1], chr(int(digits, 16))]
            i = end + 5
        else:
            out.append(text[i:end])
            i = end
    out.append(text[i:])
    text = "".join(out)
    if any("\ud800" <= char <= "\udfff" for char in text):
        try:
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
        except UnicodeDecodeError:
            raise CypherRejected("the query holds half of a UTF-16 surrogate pair without the other half") from None
    return text


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "word", "quoted" (a backtick identifier), "param", "number", "string", "symbol"
    text: str  # for "quoted": the identifier without its backticks
    offset: int
    end: int  # offset just past the token in the text


def tokenize(text: str) -> list[Token]:
    """Cypher's lexical structure, enough to find keywords safely: comments dropped, strings and
    backtick identifiers kept whole. An unterminated string or comment is refused."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherRejected(f"unterminated /* comment at offset {i}")
            i = end + 2
        elif c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise CypherRejected(f"unterminated string at offset {i}")
            tokens.append(Token("string", text[i : j + 1], i, j + 1))
            i = j + 1
        elif c == "`":
            j, name = i + 1, []
            while True:
                end = text.find("`", j)
                if end < 0:
                    raise CypherRejected(f"unterminated `identifier` at offset {i}")
                name.append(text[j:end])
                if text.startswith("``", end):  # `` is an escaped backtick
                    name.append("`")
                    j = end + 2
                    continue
                break
            tokens.append(Token("quoted", "".join(name), i, end + 1))
            i = end + 1
        elif c == "$":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("param", text[i:j], i, j))
            i = j
        elif c.isdigit():
            found = _NUMBER.match(text, i)
            j = found.end() if found else i + 1
            tokens.append(Token("number", text[i:j], i, j))
            i = j
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            tokens.append(Token("word", text[i:j], i, j))
            i = j
        else:
            tokens.append(Token("symbol", c, i, i + 1))
            i += 1
    return tokens


def _is(token: Token | None, symbol: str) -> bool:
    return token is not None and token.kind == "symbol" and token.text == symbol


def _name_at(tokens: list[Token], start: int) -> tuple[str, int]:
    """A dotted name (`db.index.fulltext.queryNodes`, parts may be backticked) and the index after it."""
    parts, i = [], start
    while i < len(tokens) and tokens[i].kind in ("word", "quoted"):
        parts.append(tokens[i].text)
        if _is(tokens[i + 1] if i + 1 < len(tokens) else None, ".") and i + 2 < len(tokens):
            i += 2
            continue
        i += 1
        break
    return ".".join(parts), i


def check(text: str) -> None:
    """Raise CypherRejected unless `text` is one read-only statement within these rules."""
    if len(text) > MAX_QUERY_CHARS:
        raise CypherRejected(f"the query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
    tokens = tokenize(decoded(text))
    if not tokens:
        raise CypherRejected("the query is empty")
    if _is(tokens[-1], ";"):
        tokens = tokens[:-1]  # one trailing semicolon is harmless
    for index, token in enumerate(tokens):
        before = tokens[index - 1] if index else None
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if _is(token, ";"):
            raise CypherRejected("only one statement per query: remove the ';' and what follows it")
        if token.kind not in ("word", "quoted"):
            continue
        # `n.set`, `:Create`, `{delete: 1}`: a property, label or map key, not a clause.
        if _is(before, ".") or _is(before, ":") or _is(after, ":"):
            continue
        upper = token.text.upper() if token.kind == "word" else ""
        if upper in FORBIDDEN_KEYWORDS:
            raise CypherRejected(
                f"'{token.text}' at offset {token.offset}: `query` is read-only (no writes, LOAD CSV, "
                "USE, SHOW or administration); backtick an identifier that is spelled like a keyword"
            )
        if upper == "CALL":
            if _is(after, "{") or _is(after, "("):
                continue  # a subquery: its clauses are checked like the rest
            name, _ = _name_at(tokens, index + 1)
            if name not in ALLOWED_PROCEDURES:
                raise CypherRejected(
                    f"procedure '{name or '?'}' is not allowed; allowed: {', '.join(sorted(ALLOWED_PROCEDURES))}"
                )
            continue
        if before is not None and before.kind == "word" and before.text.upper() == "CALL":
            continue  # the procedure name, checked above
        # A function call: a (dotted, possibly backticked) name followed by `(`.
        name, end = _name_at(tokens, index)
        if "." in name and end < len(tokens) and _is(tokens[end], "("):
            namespace = name.rsplit(".", 1)[0]
            # Neo4j resolves built-in function names case-insensitively: compare in lower case.
            if namespace.lower() not in ALLOWED_FUNCTION_NAMESPACES:
                raise CypherRejected(
                    f"function '{name}' is not allowed; namespaced functions allowed from: "
                    f"{', '.join(sorted(ALLOWED_FUNCTION_NAMESPACES))}"
                )

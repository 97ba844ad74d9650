"""What every part of the Cypher subset's parser shares: its limits and names, its two errors, the
token stream it reads (guard.py's tokens) and the literals it decodes."""

from __future__ import annotations

import re
from typing import NoReturn

from rhumbline.cypher.guard import CypherRejected, Token, decoded, tokenize

# Procedures the subset answers itself on both backends, and the column each yields.
PROCEDURES = {
    "db.labels": "label",
    "db.relationshiptypes": "relationshipType",
    "db.propertykeys": "propertyKey",
}
PROCEDURE_NAMES = {"db.labels": "db.labels", "db.relationshiptypes": "db.relationshipTypes",
                   "db.propertykeys": "db.propertyKeys"}  # fmt: skip
MAX_INTEGER = 2**63 - 1
MAX_HOPS = 10  # the longest variable-length relationship the subset expands
GENERATED = "rhumbline_"  # prefix of the variables the server adds to a query
CLAUSE_STARTS = {"MATCH", "OPTIONAL", "WITH", "RETURN", "UNWIND", "CALL", "UNION"}
ESCAPES = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
QUANTIFIERS = ("any", "all", "none", "single")
# Functions the subset knows (compiled by sqlite/calls.py, written as they are for Neo4j).
FUNCTIONS = frozenset({
    "count", "collect", "min", "max", "avg", "sum", "id", "elementid", "labels", "type", "startnode", "endnode",
    "properties", "keys", "size", "length", "nodes", "relationships", "coalesce", "tolower", "toupper", "trim",
    "ltrim", "rtrim", "tostring", "tointeger", "tofloat", "substring", "left", "right", "replace", "split",
    "reverse", "abs", "ceil", "floor", "round", "sign", "sqrt", "head", "last", "tail", "range", "isempty",
})  # fmt: skip


class CypherSyntaxError(CypherRejected):
    """The text is not valid Cypher (as far as the subset reads it)."""


class NotInSubset(CypherRejected):
    """Valid Cypher, outside the subset; `construct` names what was refused."""

    def __init__(self, construct: str) -> None:
        super().__init__(f"{construct} is not in the read-only Cypher subset `query` runs here")
        self.construct = construct


class TokenStream:
    def __init__(self, text: str) -> None:
        self.text = decoded(text)  # read as Neo4j reads it: `\\uXXXX` escapes decoded first (guard.py)
        self.tokens: list[Token] = tokenize(self.text)
        if self.tokens and self.tokens[-1].kind == "symbol" and self.tokens[-1].text == ";":
            self.tokens.pop()
        self.i = 0
        self.anonymous = 0

    def peek(self, ahead: int = 0) -> Token | None:
        at = self.i + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def kind(self, ahead: int = 0) -> str:
        """The kind of the token `ahead` of the position; "" past the end."""
        token = self.peek(ahead)
        return token.kind if token is not None else ""

    def keyword(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return token.text.upper() if token is not None and token.kind == "word" else ""

    def at(self, *words: str) -> bool:
        return all(self.keyword(k) == w for k, w in enumerate(words))

    def accept(self, *words: str) -> bool:
        if self.at(*words):
            self.i += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            self.fail(f"expected {' '.join(words)}")

    def symbol(self, chars: str, ahead: int = 0) -> bool:
        """The next tokens spell `chars` with nothing between them (`<>`, `..`, `->`)."""
        previous = None
        for k, char in enumerate(chars):
            token = self.peek(ahead + k)
            if token is None or token.kind != "symbol" or token.text != char:
                return False
            if previous is not None and previous.end != token.offset:
                return False
            previous = token
        return True

    def accept_symbol(self, chars: str) -> bool:
        if self.symbol(chars):
            self.i += len(chars)
            return True
        return False

    def expect_symbol(self, chars: str) -> None:
        if not self.accept_symbol(chars):
            self.fail(f"expected '{chars}'")

    def fail(self, message: str) -> NoReturn:
        token = self.peek()
        where = f"at offset {token.offset} ('{token.text}')" if token else "at the end of the query"
        raise CypherSyntaxError(f"{message} {where}")

    def name(self) -> str:
        """An identifier: a word or a `backtick quoted` name."""
        token = self.peek()
        if token is None or token.kind not in ("word", "quoted"):
            self.fail("expected a name")
        self.i += 1
        return token.text

    def alias(self) -> str:
        """A name given with AS: any identifier, keywords included."""
        found = self.name()
        if found.lower().startswith(GENERATED):
            raise NotInSubset(f"variable names starting with '{GENERATED}' (the server names its own so)")
        return found

    def variable(self) -> str:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text.upper() in CLAUSE_STARTS | {"WHERE"}:
            self.fail("expected a variable")
        found = self.name()
        if found.lower().startswith(GENERATED):
            raise NotInSubset(f"variable names starting with '{GENERATED}' (the server names its own so)")
        return found


def param_name(token: Token) -> str:
    name = token.text[1:]
    if not name:
        raise NotInSubset("a `backtick`-quoted parameter name")
    return name


def number(text: str) -> int | float:
    try:
        if text[:2].lower() == "0x":
            value: int | float = int(text[2:], 16)
        elif re.fullmatch(r"\d+", text):
            value = int(text)
        else:
            value = float(text)
    except ValueError:
        raise CypherSyntaxError(f"'{text}' is not a number") from None
    if isinstance(value, int) and value > MAX_INTEGER + 1:  # + 1: the literal may follow a minus
        raise CypherSyntaxError(f"the integer {text} is too large (64-bit integers)")
    return value


def unescape(raw: str) -> str:
    """A string literal's value, escapes read as Neo4j reads them once `\\uXXXX` escapes are
    decoded (guard.decoded): a `\\u` or `\\U` left then (`\\u005cu0041`) stays as written."""
    body, out, i = raw[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in ESCAPES:
            out.append(ESCAPES[nxt])
            i += 2
        elif nxt in ("u", "U"):
            out.append(char)
            i += 1
        else:
            raise CypherSyntaxError(f"unknown escape '\\{nxt}' in string {raw[:40]}")
    return "".join(out)

"""Whether a call's arguments fit a method's signature (name matching's narrowing)."""

from __future__ import annotations

import pytest

from rhumbline.ingest.languages.python.signatures import fits, parse

GET = parse("def get(self, url, params=None, *, timeout=5)", bound=True)
STATIC = parse("def make(kind, /, *names, **options)", bound=False)


@pytest.mark.parametrize(
    ("signature", "arguments", "expected"),
    [
        (GET, "1", True),
        (GET, "2", True),
        (GET, "3", False),  # self is not passed
        (GET, "0", False),  # url is required
        (GET, "0,url", True),
        (GET, "1,timeout", True),
        (GET, "1,verify", False),
        (GET, "1*", True),  # *args: anything may be passed
        (GET, "0,**", True),
        (STATIC, "4,anything", True),
        (STATIC, "0", False),
        (STATIC, "0,kind", False),  # positional-only
        (None, "9", True),  # unknown signature
        (GET, "", True),  # arguments not read
    ],
)
def test_fits(signature, arguments: str, expected: bool) -> None:
    assert fits(signature, arguments) is expected


def test_unreadable_signatures_are_unknown() -> None:
    assert parse("def f(self, a, b, c…", bound=True) is None
    assert parse("def f(self, a, a)", bound=True) is None
    assert parse("class C(Base)", bound=False) is None
    assert parse("async def f(self, a) -> int", bound=True) is not None

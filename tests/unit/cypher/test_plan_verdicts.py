"""The `query` runner's memory of read-only plan verdicts: exact texts, bounded, least recently
used dropped first (the real database is the judge of the verdicts themselves: see
tests/functional/tools/code_context/test_query_readonly.py)."""

from __future__ import annotations

from rhumbline.cypher.neo4j.runner import PlanVerdicts


def test_exact_texts_only() -> None:
    verdicts = PlanVerdicts(size=4)
    verdicts.remember_read("MATCH (n) RETURN n")
    assert verdicts.known_read("MATCH (n) RETURN n")
    for other in ("MATCH (n) RETURN n ", "match (n) return n", "MATCH (n) RETURN n;", ""):
        assert not verdicts.known_read(other)


def test_bounded_least_recently_used_first() -> None:
    verdicts = PlanVerdicts(size=3)
    for text in ("a", "b", "c"):
        verdicts.remember_read(text)
    assert verdicts.known_read("a")  # now the most recently used
    verdicts.remember_read("d")
    assert [t for t in "abcd" if verdicts.known_read(t)] == ["a", "c", "d"]
    verdicts.remember_read("c")  # again: no duplicate, still three
    verdicts.remember_read("e")
    assert [t for t in "abcde" if verdicts.known_read(t)] == ["c", "d", "e"]

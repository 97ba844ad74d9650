"""Brandes' betweenness (rhumbline.centrality.betweenness) against values worked out by hand."""

from __future__ import annotations

import pytest

from rhumbline.centrality import betweenness


def test_a_chain_and_a_diamond() -> None:
    # a -> b -> c: only b lies between (a, c); normalized by (n-1)(n-2) = 2.
    assert betweenness([("a", "b"), ("b", "c")]) == ({"b": 0.5}, 3, True)
    # a -> b -> c, a -> d -> c, c -> e (n = 5, norm 12): b and d share (a,c) and (a,e); c carries
    # every path into e.
    values, sources, exact = betweenness([("a", "b"), ("b", "c"), ("a", "d"), ("d", "c"), ("c", "e")])
    assert values == pytest.approx({"b": 1 / 12, "d": 1 / 12, "c": 3 / 12})
    assert (sources, exact) == (5, True)


def test_cycles_self_loops_and_duplicates_do_not_count_twice() -> None:
    values, _, _ = betweenness([("a", "b"), ("b", "a"), ("b", "c"), ("b", "c"), ("c", "c")])
    # Pairs through b: (a, c) only.
    assert values == pytest.approx({"b": 0.5})
    assert betweenness([("a", "b")]) == ({}, 2, True)
    assert betweenness([]) == ({}, 0, True)


def test_sampled_sources_are_seeded_and_scaled() -> None:
    star = [(f"s{i}", "hub") for i in range(50)] + [("hub", f"t{i}") for i in range(50)]
    exact, _, _ = betweenness(star)
    first = betweenness(star, max_sources=20, seed="p")
    again = betweenness(star, max_sources=20, seed="p")
    assert first == again and first[1] == 20 and first[2] is False
    # Only the hub is between anything; the estimate is of the same order as the truth.
    assert set(first[0]) <= {"hub"} and set(exact) == {"hub"}

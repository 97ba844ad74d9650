"""bench/questions.json and bench/harness/questions.py (calls.py --questions): the question bench
holds what it claims (enough questions, repositories and languages, every repository in the dev or
the held-out set), and a set can be scored alone."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[3] / "bench"


@pytest.fixture(scope="module")
def questions():
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`
    try:
        from harness import questions as module

        yield module
    finally:
        sys.path.remove(str(BENCH))


def test_the_bench_spans_enough_questions_repositories_languages_and_both_sets(questions):
    spec = questions.load()
    repositories = spec["repositories"]
    assert len(spec["questions"]) >= 300
    assert len(repositories) >= 10
    assert len({source["language"] for source in repositories.values()}) >= 3
    asked = Counter(item["repo"] for item in spec["questions"])
    assert set(asked) == set(repositories)  # no repository without questions
    per_set = Counter(repositories[item["repo"]]["set"] for item in spec["questions"])
    assert set(per_set) == set(questions.SETS) and min(per_set.values()) >= 100
    assert len({(item["repo"], item["question"]) for item in spec["questions"]}) == len(spec["questions"])


def test_one_set_keeps_its_own_repositories_and_questions(questions):
    held_out = questions.load("held-out")
    assert held_out["repositories"] and {s["set"] for s in held_out["repositories"].values()} == {"held-out"}
    assert {item["repo"] for item in held_out["questions"]} == set(held_out["repositories"])
    with pytest.raises(SystemExit, match="unknown question set 'test'"):
        questions.load("test")


def test_a_go_module_is_named_by_its_last_element_before_a_major_version(questions):
    from harness import corpus

    assert corpus._go_name("github.com/go-chi/chi/v5") == "chi"
    assert corpus._go_name("github.com/spf13/cobra") == "cobra"
    assert corpus._go_name("gopkg.in/yaml.v3") == "yaml.v3"


def test_a_release_the_call_graph_sets_fetched_is_named_by_its_registry_path_and_version(questions):
    from harness import corpus

    assert corpus.slug("github.com/labstack/echo/v4", "v4.12.0") == "github.com_labstack_echo_v4-v4.12.0"
    assert corpus.slug("@types/node", "20.0.0") == "types_node-20.0.0"

"""Answer quality of `search` and `query_graph`:
`bench/calls.py --questions [--set dev|held-out] [--neo4j [URI]] [--show]`.

The questions of bench/questions.json, over their repositories at pinned versions (PyPI sdists, Go
modules, npm packages: harness/corpus.py, ingested whole: sources, tests, docs), asked through the
real tool handlers in process. Every expected answer is first checked to exist in the graph (a
question whose answer is not in the code is a broken question, not a miss). Each repository is in
the dev set or the held-out set (its `set`): ranking is tuned on the dev set only, and the held-out
set tells whether a change generalises. Per set and category:

    search hit@10   an expected node among the first 10 hits
    search MRR@10   the mean of 1 / rank of the first expected hit (0 past 10)
    query_graph     an expected node among query_graph's nodes (max_nodes 30)

Goals (natural-language questions): hit@10 >= 0.8, MRR@10 >= 0.6, query_graph >= 0.85; partial
identifiers MRR >= 0.94 and exact names 1.0.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from harness import corpus

QUESTIONS = Path(__file__).resolve().parents[1] / "questions.json"
GOALS = {"natural": (0.8, 0.6, 0.85), "partial": (None, 0.94, None), "exact": (None, 1.0, None)}
SEARCH_LIMIT = 10
GRAPH_NODES = 30


def _call(tool: str, arguments: dict[str, Any], projects: list[str]) -> dict[str, Any]:
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    event = {
        "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": arguments,
        "caller": {"principal": "bench", "token_id": "tk_bench", "projects": projects, "scopes": ["read"]},
        "request_id": "answers", "deadline_ms": int((time.time() + 600) * 1000),
    }  # fmt: skip
    outcome = handle(tool, event)
    if not outcome["ok"]:
        raise SystemExit(f"{tool} {arguments} failed: {outcome['error']}")
    return outcome["result"]


def _rank(names: list[str], answers: set[str]) -> int | None:
    return next((i for i, name in enumerate(names, 1) if name in answers), None)


SETS = ("dev", "held-out")


def load(chosen: str | None = None) -> dict[str, Any]:
    """bench/questions.json, checked, limited to the repositories of set `chosen` (None: all)."""
    spec = json.loads(QUESTIONS.read_text())
    for repo, source in spec["repositories"].items():
        if source["set"] not in SETS or source["registry"] not in corpus.REGISTRIES:
            raise SystemExit(f"bench/questions.json's {repo}: set must be one of {SETS}, registry one of {corpus.REGISTRIES}")
    for item in spec["questions"]:
        if item["repo"] not in spec["repositories"] or item["category"] not in GOALS or not item["answers"]:
            raise SystemExit(f"bench/questions.json: {item['question']!r} names an unknown repository or category, or no answer")
    if chosen is not None:
        if chosen not in SETS:
            raise SystemExit(f"unknown question set {chosen!r}: one of {', '.join(SETS)}")
        spec["repositories"] = {r: s for r, s in spec["repositories"].items() if s["set"] == chosen}
        spec["questions"] = [q for q in spec["questions"] if q["repo"] in spec["repositories"]]
    return spec


def score_answers(
    *, neo4j: str | None, show: bool, semantic: bool = False, chosen: str | None = None
) -> dict[str, dict[str, dict[str, float]]]:
    spec = load(chosen)
    suffix = f"-{uuid.uuid4().hex[:6]}" if neo4j else ""
    projects = {repo: f"bench/{repo}{suffix}" for repo in spec["repositories"]}
    with tempfile.TemporaryDirectory(prefix="rhumbline-answers-") as directory:
        env = {
            "RHUMBLINE_HOME": str(Path(directory) / "home"),
            "POWERTOOLS_METRICS_DISABLED": "true",
        }
        if neo4j:
            env.update(
                RHUMBLINE_GRAPH_BACKEND="neo4j",
                RHUMBLINE_NEO4J_URI=neo4j,
                RHUMBLINE_NEO4J_PASSWORD=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
            )
        for key in [key for key in os.environ if key.startswith("RHUMBLINE_")]:
            del os.environ[key]
        os.environ.update(env)
        from rhumbline.runtime import resources

        resources.reset()
        try:
            return _score(spec, projects, show=show, semantic=semantic)
        finally:
            if neo4j:
                for project in projects.values():
                    resources.graph_store().delete_project(project)
            resources.reset()


def _score(spec: dict[str, Any], projects: dict[str, str], *, show: bool, semantic: bool) -> dict[str, dict[str, float]]:
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.runtime import resources
    from rhumbline.stores.relational.migrate import upgrade

    upgrade(resources.relational_engine())
    for repo, source in spec["repositories"].items():
        root = corpus.package(source["registry"], source["package"], source["version"])
        started = time.perf_counter()
        summary = ingest_local(root, projects[repo], store=resources.graph_store(), engine=resources.relational_engine())
        print(f"ingested {repo} {source['version']} ({source['language']}, {source['set']}): "
              f"{summary.node_count} nodes in {time.perf_counter() - started:.1f} s")  # fmt: skip
    graph = resources.graph_store()
    found = _ask(spec, projects, graph, show=show)
    if semantic:
        # The same graph, its candidates re-ranked by meaning too (RHUMBLINE_SEMANTIC_RANKING).
        print("\nwith semantic ranking:")
        graph.semantic_ranking = True
        found = _ask(spec, projects, graph, show=show)
    return found


Row = tuple[str, str, str, int | None, bool, float]  # repository, category, question, rank, contained, ms


def _ask(spec: dict[str, Any], projects: dict[str, str], graph: Any, *, show: bool) -> dict[str, dict[str, dict[str, float]]]:
    rows: list[Row] = []
    for item in spec["questions"]:
        project, answers = projects[item["repo"]], set(item["answers"])
        missing = [a for a in answers if not any(n.qualified_name == a for n in graph.find_by_name(project, a)[0])]
        if missing:
            raise SystemExit(f"{item['question']!r}: expected answers not in the code: {missing}")
        started = time.perf_counter()
        hits = _call("search", {"project": project, "query": item["question"], "limit": SEARCH_LIMIT}, [project])
        elapsed = (time.perf_counter() - started) * 1000
        rank = _rank([h["qualified_name"] for h in hits["hits"]], answers)
        around = _call("query_graph", {"project": project, "question": item["question"], "max_nodes": GRAPH_NODES}, [project])
        contained = any(n["qualified_name"] in answers for n in around["nodes"])
        rows.append((item["repo"], item["category"], item["question"], rank, contained, elapsed))
        if show:
            top = ", ".join(h["qualified_name"] for h in hits["hits"][:3])
            print(f"  {item['repo']:<10} {item['category']:<8} {rank or '-':>2} {'+' if contained else '-'} "
                  f"{item['question']!r}: {top}")  # fmt: skip
    sets = {repo: source["set"] for repo, source in spec["repositories"].items()}
    found = {}
    for name in SETS:
        chosen = [row for row in rows if sets[row[0]] == name]
        if chosen:
            repos = sorted({row[0] for row in chosen})
            print(f"\n{name} set: {len(chosen)} questions over {len(repos)} repositories")
            found[name] = _report(chosen)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (search p50: in process, this machine)")
    return found


def _report(rows: list[Row]) -> dict[str, dict[str, float]]:
    print(f"{'category':<10}{'n':>4}{'hit@10':>8}{'MRR@10':>8}{'graph':>8}{'p50 ms':>8}  goals")
    found: dict[str, dict[str, float]] = {}
    for category, (hit_goal, mrr_goal, graph_goal) in GOALS.items():
        chosen = [row for row in rows if row[1] == category]
        if not chosen:
            continue
        hit = sum(row[3] is not None for row in chosen) / len(chosen)
        mrr = sum(1 / row[3] for row in chosen if row[3] is not None) / len(chosen)
        graph = sum(row[4] for row in chosen) / len(chosen)
        p50 = statistics.median(row[5] for row in chosen)
        goals = [
            f"{name} {'ok' if value >= goal else 'MISSED'} (>= {goal:g})"
            for name, value, goal in (("hit@10", hit, hit_goal), ("MRR", mrr, mrr_goal), ("graph", graph, graph_goal))
            if goal is not None
        ]
        print(f"{category:<10}{len(chosen):>4}{hit:>8.3f}{mrr:>8.3f}{graph:>8.3f}{p50:>8.2f}  {'; '.join(goals)}")
        found[category] = {"hit@10": hit, "mrr@10": mrr, "graph": graph}
    by_repo = sorted({row[0] for row in rows})
    print("by repository (natural): " + ", ".join(
        f"{repo} MRR {statistics.fmean([(1 / r[3]) if r[3] else 0.0 for r in rows if r[0] == repo and r[1] == 'natural']):.2f}"
        for repo in by_repo
    ))  # fmt: skip
    return found

"""Checking a caller's CALLS edges as the tools read them (`edges_of`) against a rule: the exact
targets, each with its confidence and a fragment of its explanation; and a fixture's rules after
ingesting a copy of it."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.stores.graph.protocol import GraphStore


def call_problems(
    store: GraphStore, project: str, caller: str, caller_id: str, expected: dict[str, tuple[str, str]]
) -> list[str]:
    """What differs between `caller_id`'s CALLS edges and `expected` (target → (confidence, what
    its explanation says)); [] when they agree."""
    views, total = store.edges_of(project, caller_id, "out", limit=100)
    assert total < 100
    calls = {v.other_id: (v.confidence, v.explanation) for v in views if v.relation == "CALLS"}
    if set(calls) != set(expected):
        return [f"{caller}: calls {sorted(calls)}, expected {sorted(expected)}"]
    problems = []
    for target, (confidence, fragment) in expected.items():
        got_confidence, explanation = calls[target]
        if got_confidence != confidence or fragment not in explanation:
            problems.append(f"{caller} → {target}: {got_confidence} `{explanation}`, expected {confidence} `{fragment}`")
    return problems


def fixture_problems(
    fixture: Path, tmp_path: Path, store: GraphStore, engine: Engine, project: str,
    rules: dict[str, dict[str, tuple[str, str]]],
) -> list[str]:
    """Ingest a copy of `fixture` into `store` and check every caller's rule; [] when all agree."""
    root = tmp_path / fixture.name
    shutil.copytree(fixture, root)
    pipeline.ingest_local(root, project, store=store, engine=engine, history=False)
    problems = []
    for caller, expected in rules.items():
        problems.extend(call_problems(store, project, caller, caller, expected))
    return problems


def uncalled_problems(store: GraphStore, project: str, targets: list[str]) -> list[str]:
    """Each of `targets` is a node (its container DEFINES it) that nothing CALLS; [] when so."""
    problems = []
    for target in targets:
        views, _ = store.edges_of(project, target, "in", limit=100)
        if not any(v.relation == "DEFINES" for v in views):
            problems.append(f"{target} is no node")
        callers = [v.other_id for v in views if v.relation == "CALLS"]
        if callers:
            problems.append(f"{target} is called by {callers}")
    return problems

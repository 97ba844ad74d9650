"""Phase 2's language groups (ingest/groups.py): resolved in forked processes beside this one,
they build exactly the graph the one-process build does, a child that fails is resolved again
here, and how many children a tree gets follows its size and the memory."""

from __future__ import annotations

import multiprocessing
import random
import shutil
from multiprocessing.process import BaseProcess
from pathlib import Path

import pytest

from rhumbline.ingest import groups
from rhumbline.ingest.build import BuiltGraph, build_graph
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.groups import CHILD_MEMORY_PER_CODE_BYTE, MEMORY_PER_CODE_BYTE, Group, forked_lanes
from rhumbline.ingest.languages.polyglot.build import files_by_family
from rhumbline.stores.graph.model import WRITE_ONLY_FIELDS

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
PROJECT = "acme/mixed"
MB = 1024 * 1024


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for name in ("pyproj", "go", "java", "kotlin", "typescript"):
        shutil.copytree(FIXTURES / name, root / name)
    return root


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any tree forks, with all the memory it asks for: the fixture tree is small."""
    monkeypatch.setattr(groups, "FORKED_ABOVE_BYTES", 0)
    monkeypatch.setattr(groups, "memory_limit", lambda: 1 << 50)


@pytest.fixture
def alone(mixed: Path) -> tuple[object, ...]:
    """The mixed tree's graph built in one process."""
    return _graph(build_graph(mixed, PROJECT, workers=1, history=False))


def _graph(built: BuiltGraph) -> tuple[object, ...]:
    # Node equality leaves out the fields only the store reads (WRITE_ONLY_FIELDS): compared too.
    written = [(node, *(getattr(node, name) for name in WRITE_ONLY_FIELDS)) for node in built.nodes]
    return written, built.edges, built.failures, built.unresolved_calls, built.unresolved_by_file


def _forks_seen(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = groups._decoded

    def decoded(blob: bytes) -> groups._Part:
        seen.append("part")
        return real(blob)

    monkeypatch.setattr(groups, "_decoded", decoded)
    return seen


@pytest.mark.usefixtures("forked")
def test_groups_resolved_in_forked_processes_build_the_graph_of_one_process(
    mixed: Path, alone: tuple[object, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = _forks_seen(monkeypatch)

    beside = build_graph(mixed, PROJECT, workers=3, history=False, keep_facts=False)

    assert 2 <= len(parts) <= 3  # four groups, two children at once: a freed one may take a third
    assert _graph(beside) == alone
    assert {node.language for node in beside.nodes} >= {"python", "go", "java", "kotlin", "typescript"}
    assert any(node.body for node in beside.nodes if node.language == "java")
    assert multiprocessing.active_children() == []


@pytest.mark.usefixtures("forked")
def test_a_group_whose_child_fails_is_resolved_again_here(
    mixed: Path, alone: tuple[object, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unsendable(*_: object) -> bytes:
        raise MemoryError("the child could not encode its part")

    monkeypatch.setattr(groups, "_encoded", unsendable)  # the forked children inherit it
    again = build_graph(mixed, PROJECT, workers=3, history=False)

    assert _graph(again) == alone
    assert multiprocessing.active_children() == []


@pytest.mark.usefixtures("forked")
def test_where_no_process_can_be_forked_this_one_resolves_every_group(
    mixed: Path, alone: tuple[object, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = _forks_seen(monkeypatch)

    def refused(_: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(BaseProcess, "start", refused)
    again = build_graph(mixed, PROJECT, workers=3, history=False)

    assert parts == []
    assert _graph(again) == alone


@pytest.mark.usefixtures("forked")
def test_a_group_that_raises_raises_its_own_error_and_leaves_no_child(
    mixed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the python resolver is broken")

    monkeypatch.setattr(groups, "build_python_graph", broken)
    with pytest.raises(RuntimeError, match="the python resolver is broken"):
        build_graph(mixed, PROJECT, workers=3, history=False)
    assert multiprocessing.active_children() == []


def test_the_groups_merge_in_their_own_order_whoever_resolves_them(mixed: Path) -> None:
    sources = build_graph(mixed, PROJECT, workers=1, history=False).sources
    python = [s for s in sources if s.language == "python" and s.code is not None]
    found = groups.groups_of(python, files_by_family(sources))
    assert [group.name for group in found][0] == groups.PYTHON
    assert all(group.files for group in found)

    edges = EdgeSet()
    resolved = groups.resolve_groups(found, mixed, edges, Failures(), workers=1)

    assert found == []  # taken out as resolved, so their facts can go
    assert resolved.nodes and len(edges) > 0


def _group(name: str, mb: int) -> Group:
    return Group(name, [SourceFile(f"{name}.src", name, "", 1, mb * MB, None)])


def test_a_small_tree_or_one_group_or_one_worker_resolves_in_this_process() -> None:
    big = [_group("java", 300), _group("go", 200)]
    plenty = 1 << 50
    assert forked_lanes([_group("java", 10), _group("go", 10)], workers=4, memory=plenty) == 0
    assert forked_lanes([_group("java", 500)], workers=4, memory=plenty) == 0
    assert forked_lanes(big, workers=1, memory=plenty) == 0
    assert forked_lanes(big, workers=2, memory=plenty) == 1
    assert forked_lanes(big, workers=4, memory=plenty) == 1  # the last group is this process's


def test_children_are_forked_only_as_far_as_the_memory_holds_them() -> None:
    sizes = [("java", 400), ("typescript", 300), ("python", 200), ("go", 100)]
    tree = [_group(name, mb) for name, mb in sizes]
    alone = MEMORY_PER_CODE_BYTE * 1000 * MB
    java, typescript = (CHILD_MEMORY_PER_CODE_BYTE * mb * MB for mb in (400, 300))

    assert forked_lanes(tree, workers=4, memory=int((alone + java + typescript) / groups.MEMORY_SHARE)) == 2
    assert forked_lanes(tree, workers=4, memory=int((alone + java) / groups.MEMORY_SHARE)) == 1
    assert forked_lanes(tree, workers=4, memory=int(alone / groups.MEMORY_SHARE)) == 0  # a 30M-line tree's case


def test_absorbing_a_set_gives_what_adding_its_edges_after_gives() -> None:
    rng = random.Random(7)
    confidences = ["EXTRACTED", "INFERRED", "AMBIGUOUS"]
    adds = [
        (f"n{rng.randrange(6)}", rng.choice(["CALLS", "IMPORTS"]), f"n{rng.randrange(6)}", rng.choice(confidences),
         rng.choice([0.5, 0.8, 1.0]), f"why {index}", "a.py", index)
        for index in range(400)
    ]  # fmt: skip
    one, first, second = EdgeSet(), EdgeSet(), EdgeSet()
    for index, add in enumerate(adds):
        one.add(*add)
        (first if index < 250 else second).add(*add)
    one.set_properties("n1", "CALLS", "n2", {"kind": "first"})
    first.set_properties("n1", "CALLS", "n2", {"kind": "first"})
    one.set_properties("n1", "CALLS", "n2", {"kind": "second"})
    second.set_properties("n1", "CALLS", "n2", {"kind": "second"})

    first.absorb(EdgeSet.of(second.evidence()))

    assert first.edges() == one.edges()

"""An ingest's build (keep_facts=False) lets each language's facts go once it is resolved, and
still builds exactly the graph and summary of a build that keeps them."""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

from rhumbline.ingest.build import BuiltGraph, build_graph, summarize
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.languages.polyglot.build import build_families, files_by_family
from rhumbline.ingest.snapshots.facts_cache import FactCache

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
PROJECT = "acme/mixed"


def _mixed(root: Path) -> Path:
    for name in ("pyproj", "go", "java", "kotlin", "typescript"):
        shutil.copytree(FIXTURES / name, root / name)
    return root


def _graph(built: BuiltGraph) -> tuple[object, ...]:
    return built.nodes, built.edges, built.failures, built.unresolved_calls, built.unresolved_by_file


def test_a_build_that_lets_the_facts_go_builds_the_same_graph_and_summary(tmp_path: Path) -> None:
    root = _mixed(tmp_path / "tree")
    kept = build_graph(root, PROJECT, workers=1, history=False)
    cache = FactCache.empty(PROJECT)
    stored: list[SourceFile] = []
    gone = build_graph(
        root, PROJECT, workers=1, history=False, cache=cache, store_facts=stored.extend, keep_facts=False
    )  # fmt: skip

    assert _graph(gone) == _graph(kept)
    assert {node.kind for node in gone.nodes} >= {"Function", "Class", "Method", "Document"}
    assert [s._replace(code=None) for s in kept.sources] == gone.sources
    assert all(source.code is None for source in gone.sources)
    # The facts cache was handed every file read, with its facts, before phase 2; then let go.
    assert stored == kept.sources
    assert len(cache) == 0
    timeless = {"duration_s", "phase_seconds"}
    assert summarize(gone, project=PROJECT, version=1, commit=None, duration_s=0).model_dump(exclude=timeless) == (
        summarize(kept, project=PROJECT, version=1, commit=None, duration_s=0).model_dump(exclude=timeless)
    )


def test_each_family_s_files_are_taken_out_as_it_is_built(tmp_path: Path) -> None:
    root = _mixed(tmp_path / "tree")
    sources = build_graph(root, PROJECT, workers=1, history=False).sources
    by_family = files_by_family(sources)
    assert len(by_family) == 3  # Go, Java/Kotlin, JavaScript/TypeScript

    graph = build_families(by_family, root, EdgeSet())

    assert by_family == {}
    assert graph.nodes


def _tree_of_facts_then_graph(root: Path) -> Path:
    """Python files whose facts are large and make no graph (calls to names defined nowhere),
    then Go files that make much graph: Python resolves first."""
    for index in range(5):
        calls = "\n".join(f"    nowhere_{index}_{call}(1, key=2)" for call in range(1_500))
        (root / "py" / f"m{index}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / "py" / f"m{index}.py").write_text(f"def caller():\n{calls}\n")
    (root / "go.mod").write_text("module example.com/big\n\ngo 1.22\n")
    for index in range(5):
        functions = "\n".join(
            f"// F{index}x{n} does one thing.\nfunc F{index}x{n}(a int) int {{ return G{index}x{n}(a) }}\n"
            f"func G{index}x{n}(a int) int {{ return a + {n} }}"
            for n in range(250)
        )
        (root / "pkg" / f"f{index}.go").parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / f"f{index}.go").write_text(f"package pkg\n\n{functions}\n")
    return root


def _traced_peak(root: Path, keep_facts: bool) -> int:
    tracemalloc.start()
    try:
        build_graph(root, PROJECT, workers=1, history=False, keep_facts=keep_facts)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_python_facts_are_gone_before_the_go_graph_is_built(tmp_path: Path) -> None:
    root = _tree_of_facts_then_graph(tmp_path / "tree")
    kept = _traced_peak(root, keep_facts=True)
    gone = _traced_peak(root, keep_facts=False)
    assert gone < kept * 0.9, (gone, kept)

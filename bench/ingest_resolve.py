"""CPU of phase 2 (resolve) alone, by part, on one parse: comparable on a loaded machine.

    PYTHONPATH=<checkout>/layers/shared .venv/bin/python bench/ingest_resolve.py
        [--target django|sdist] [--repeat 5]

Parses the target once (bench/.corpus, as bench/ingest.py; a pool of 2), then runs phase 2 as
build_graph does (structure, Python, polyglot, knowledge, `edges()`) --repeat times with the
cyclic collector off, and prints each part's best CPU seconds (time.process_time) and the best
total, with the 1-minute load average. Also the call-site counts of the Python files: sites,
distinct (scope, callee) pairs per file. Run it with two checkouts on the PYTHONPATH, back to
back, to compare them.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import TARGETS, ensure_corpus  # noqa: E402 — bench/ingest.py, beside this file

PARTS = ("structure", "python", "polyglot", "knowledge", "edges")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=sorted(TARGETS), default="django")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    ensure_corpus()

    import rhumbline
    from rhumbline.ingest.graph.edges import EdgeSet
    from rhumbline.ingest.facts import SourceFile
    from rhumbline.ingest.languages.knowledge.graph import build_knowledge_graph
    from rhumbline.ingest.discover.parallel import read_all
    from rhumbline.ingest.languages.polyglot.build import build_polyglot_graph
    from rhumbline.ingest.languages.python.graph import build_python_graph
    from rhumbline.ingest.graph.structure import build_structure
    from rhumbline.ingest.discover.walk import discover

    print(f"# rhumbline from {Path(rhumbline.__file__).parent}")
    root = TARGETS[args.target].resolve()
    outcomes = read_all(root, discover(root, ()).paths, workers=2)
    sources = [outcome for outcome in outcomes if isinstance(outcome, SourceFile)]
    python = [s for s in sources if s.language == "python" and s.code is not None]
    sites = sum(len(s.code.calls) for s in python)
    pairs = sum(len({(c.scope, c.callee) for c in s.code.calls}) for s in python)
    print(f"{args.target}: {len(python)} Python files, {sites} call sites, {pairs} (scope, callee) pairs")

    best: dict[str, float] = {}
    totals: list[float] = []
    gc.disable()  # as build_graph does
    for _ in range(args.repeat):
        spent: dict[str, float] = {}
        clock = time.process_time()

        def lap(part: str) -> None:
            nonlocal clock
            now = time.process_time()
            spent[part] = now - clock
            clock = now

        edges = EdgeSet()
        nodes = build_structure("bench/resolve", sources, edges)
        lap("structure")
        nodes.extend(build_python_graph(sources, root.name, edges).nodes)
        lap("python")
        nodes.extend(build_polyglot_graph(sources, root, edges).nodes)
        lap("polyglot")
        nodes.extend(build_knowledge_graph(sources, nodes, edges).nodes)
        lap("knowledge")
        built = edges.edges()
        lap("edges")
        totals.append(sum(spent.values()))
        for part, seconds in spent.items():
            best[part] = min(best.get(part, seconds), seconds)
        del nodes, built, edges
        gc.collect()  # this run's garbage out of the next one's way (not timed)
    figures = ", ".join(f"{part} {best[part]:.3f}" for part in PARTS)
    print(f"phase 2 CPU s, best of {args.repeat}: total {min(totals):.3f} ({figures})")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""Graph identity before/after a refactoring: the graph phase 2 builds from the same trees, by this
checkout and by REF, node for node and edge for edge.

    .venv/bin/python bench/graph_identity.py --against REF [DIR ...]

Each checkout builds each tree (`build_graph`, no git history, one worker) in its own subprocess
with its own PYTHONPATH, and writes every node and edge with all their fields; the two are then
compared. Default trees: the multi-language ingest fixtures (tests/fixtures/ingest) and whatever of
bench/.corpus is present. Prints per tree the node and edge counts and the ids that differ;
exits 1 when any tree differs. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from harness.checkouts import checkout, legend, this_checkout
from harness.serve import THIS_CHECKOUT, Checkout

FIXTURES = THIS_CHECKOUT / "tests" / "fixtures" / "ingest"
CORPUS = THIS_CHECKOUT / "bench" / ".corpus"
SHOWN = 5  # differing ids printed per tree and kind

# Run by each checkout's code: build the tree, write its nodes and edges as sorted JSON lines.
_DUMP = """
import dataclasses, json, sys
from pathlib import Path
from rhumbline.ingest.build import build_graph
root, out = Path(sys.argv[1]), Path(sys.argv[2])
built = build_graph(root, root.name, workers=1, history=False)
nodes = sorted(json.dumps(dataclasses.asdict(n), sort_keys=True) for n in built.nodes)
edges = sorted(
    json.dumps({**dataclasses.asdict(e), "properties": dict(e.properties or {})}, sort_keys=True)
    for e in built.edges
)
out.write_text(json.dumps({"nodes": nodes, "edges": edges, "failures": [str(f) for f in built.failures]}))
"""


def built(code: Checkout, tree: Path, out: Path) -> dict:
    env = {"PYTHONPATH": code.pythonpath, "PATH": "/usr/bin:/bin", "HOME": str(out.parent)}
    subprocess.run([sys.executable, "-c", _DUMP, str(tree), str(out)], check=True, env=env, timeout=1800)
    return json.loads(out.read_text())


def _key(line: str, fields: tuple[str, ...]) -> str:
    record = json.loads(line)
    return " ".join(str(record[name]) for name in fields)


def compare(name: str, before: dict, after: dict) -> bool:
    same = before == after
    print(f"{name}: nodes {len(before['nodes'])} → {len(after['nodes'])}, edges {len(before['edges'])}"
          f" → {len(after['edges'])}, failures {len(before['failures'])} → {len(after['failures'])}:"
          f" {'identical' if same else 'DIFFERENT'}")  # fmt: skip
    for kind, fields in (("nodes", ("id",)), ("edges", ("source", "relation", "target"))):
        old, new = set(before[kind]), set(after[kind])
        for label, lines in (("only before", old - new), ("only after", new - old)):
            if lines:
                keys = sorted(_key(line, fields) for line in lines)
                print(f"  {kind} {label}: {len(lines)}, e.g. {keys[:SHOWN]}")
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", required=True, metavar="REF", help="a git ref or a checkout's directory")
    parser.add_argument("trees", nargs="*", type=Path, help="default: the ingest fixtures and bench/.corpus")
    args = parser.parse_args()
    trees = args.trees or [FIXTURES, *sorted(p for p in CORPUS.glob("*") if p.is_dir())]
    identical = True
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="rhumbline-identity-") as scratch:
        before_code = stack.enter_context(checkout(args.against))
        after_code = this_checkout()
        print(legend([before_code, after_code]))
        for index, tree in enumerate(trees):
            before = built(before_code, tree.resolve(), Path(scratch) / f"{index}-before.json")
            after = built(after_code, tree.resolve(), Path(scratch) / f"{index}-after.json")
            identical &= compare(str(tree), before, after)
    sys.exit(0 if identical else 1)


if __name__ == "__main__":
    main()

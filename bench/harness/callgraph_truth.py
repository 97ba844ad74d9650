"""The compilers' call-graph truths for Go, Java and TypeScript, and our side for those languages.

Each truth is a small program under bench/truth/<language>/ using the language's own resolver:
Go `golang.org/x/tools/go/packages` + `go/types` (built with the machine's Go, modules from the
proxy), Java JavaParser's symbol solver (its classpath from Maven Central), TypeScript the
compiler API (`npm ci`). Each prints one record per named call site: [file, line, name, where,
target, dispatch, implementations] (each program's header says what it decides). The truth of a
project depends only on its corpus and the program, so it is cached next to the corpus, keyed by a
hash of the program and its pinned dependencies.

Targets are "file:line:name" of a declaration; they become our node ids through the nodes our
ingest makes for that file: the innermost node of that name whose lines hold that line, else the
only node of that name in the file (overloads share the first declaration's node). A target no
node stands for is left undecided (counted apart), as is a site whose records disagree.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from harness.callgraph import IN, OUT, Key, Prediction, Truth, recorder, write_cache
from harness.callgraph_sets import Project
from harness.corpus import CORPUS

TRUTH = Path(__file__).resolve().parents[1] / "truth"
TOOLS = CORPUS / ".tools"
TIMEOUT_S = 1800
# The tree-sitter languages our resolver reads for each truth language (one family each).
OUR_LANGUAGES = {"go": {"go"}, "java": {"java"}, "typescript": {"typescript", "tsx"}}
_CALLEE = re.compile(r"`(.+?)\(\.\.\.\)`")


def _fingerprint(language: str) -> str:
    digest = hashlib.sha256()
    for path in sorted((TRUTH / language).iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _command(language: str, root: Path) -> tuple[list[str], dict[str, str]]:
    """The truth program's command line for `root` (built or installed on first use)."""
    TOOLS.mkdir(parents=True, exist_ok=True)
    source = TRUTH / language
    env = dict(os.environ)
    if language == "go":
        binary = TOOLS / f"callgraph-truth-go-{_fingerprint('go')}"
        if not binary.exists():
            subprocess.run(["go", "build", "-o", str(binary), "."], cwd=source, check=True, timeout=TIMEOUT_S)
        # The corpus's dependencies come from the module proxy; its go.sum may need entries.
        env.update(GOFLAGS="-mod=mod", GOWORK="off")
        return [str(binary), str(root)], env
    if language == "java":
        classpath = TOOLS / f"callgraph-truth-java-{_fingerprint('java')}.classpath"
        if not classpath.exists():
            subprocess.run(["mvn", "-q", "dependency:build-classpath", f"-Dmdep.outputFile={classpath}"],
                           cwd=source, check=True, timeout=TIMEOUT_S)  # fmt: skip
        return ["java", "-Xss8m", "-cp", classpath.read_text().strip(), str(source / "Truth.java"), str(root)], env
    if not (source / "node_modules" / "typescript").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=source, check=True, timeout=TIMEOUT_S)
    return ["node", str(source / "truth.js"), str(root)], env


def records(project: Project, root: Path) -> dict:
    """The truth program's output for a project (cached next to the corpus)."""
    cache = CORPUS / f".callgraph-truth-{project.language}-{project.slug}-{_fingerprint(project.language)}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    command, env = _command(project.language, root)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise SystemExit(f"the {project.language} truth failed on {root}:\n{done.stderr[-3000:]}")
    found = json.loads(done.stdout)
    write_cache(cache, found)
    print(f"  truth for {project.label}: {found['sites']} sites in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)  # fmt: skip
    return found


class NodeIndex:
    """(file, name) → the nodes of that name in that file, to name a truth target by our id."""

    def __init__(self, nodes) -> None:  # noqa: ANN001 - rhumbline Node objects
        self._by_name: dict[tuple[str, str], list[tuple[int, int, str]]] = defaultdict(list)
        for node in nodes:
            if node.file and node.start_line is not None:
                end = node.end_line if node.end_line is not None else node.start_line
                self._by_name[(node.file, node.name)].append((node.start_line, end, node.id))

    def at(self, where: str) -> str | None:
        path, line_text, name = where.rsplit(":", 2)
        line = int(line_text)
        named = self._by_name.get((path, name), ())
        holding = [(end - start, node_id) for start, end, node_id in named if start <= line <= end]
        if holding:
            return min(holding)[1]
        # Overloads share one node (the first declaration's): the only node of that name in the file.
        return named[0][2] if len(named) == 1 else None


def truth_from_records(found: dict, index: NodeIndex) -> tuple[Truth, int]:
    """The Truth of a truth program's records (our node ids for its targets), and how many decided
    sites named a declaration no node of ours holds (left undecided)."""
    truth = Truth(sites=found["sites"])
    votes: dict[Key, set[tuple[str, str, frozenset[str] | None]]] = defaultdict(set)
    unnamed = 0
    for path, line, name, where, target, dispatch, implementations in found["records"]:
        key = (path, line, name)
        decision: tuple[str, str, frozenset[str] | None] = ("", "", None)
        if where == IN:
            node_id = index.at(target)
            unnamed += node_id is None
            decision = (IN, node_id, None) if node_id else decision
        elif where == OUT:
            decision = (OUT, target, None)
        if dispatch and decision[0]:
            accepted = {index.at(t) for t in implementations}
            if decision[0] == IN:
                accepted.add(decision[1])
            decision = (*decision[:2], frozenset(a for a in accepted if a))
        votes[key].add(decision)
    for key, decisions in votes.items():
        truth.shape[key] = "static"
        if len(decisions) != 1:
            continue
        ((where, target, accepted),) = decisions
        if not where:
            continue
        truth.decided[key] = (where, target)
        if accepted is not None:
            truth.dispatch[key] = accepted
            truth.shape[key] = "dispatch"
    return truth, unnamed


def predict(root: Path, language: str) -> tuple[dict[Key, Prediction], list]:
    """Our resolver's CALLS evidence per site key for one language family, and the nodes made."""
    from rhumbline.ingest.discover.parallel import read_all
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.facts import SourceFile
    from rhumbline.ingest.languages.polyglot.build import build_polyglot_graph

    def key_of(explanation: str, file: str, line: int) -> Key | None:
        # The explanation's own line is the first site's (memoized per callee): the edge's is this one's.
        callee = _CALLEE.search(explanation)
        return None if callee is None else (file, line, callee.group(1).removeprefix("new ").rsplit(".", 1)[-1])

    edges, predictions = recorder(key_of)
    root = root.resolve()
    wanted = OUR_LANGUAGES[language]
    sources = [o for o in read_all(root, discover(root).paths, workers=1)
               if isinstance(o, SourceFile) and o.language in wanted]  # fmt: skip
    graph = build_polyglot_graph(sources, root, edges)
    return dict(predictions), graph.nodes

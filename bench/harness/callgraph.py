"""Python call-graph fidelity against a type-aware ground truth (`bench/ingest.py --callgraph`).

The truth: jedi (`goto`, then `infer` when goto stops at a variable) on the callee name of every
call site of a project; a site is *decided* when jedi gives exactly one definition. It is decided
*in the corpus* when that definition is a function, method or class of the project (then it is a
node of our graph), *outside* when it is anything else jedi is sure of (the standard library,
third-party code, a builtin, a property: a call there links to no project function). Sites jedi
cannot decide are left out of both figures, and so are two kinds of jedi answers that name no
call target: a stop at the descriptor protocol (`classmethod.__get__`, through an alias of a
classmethod) and an inference that leaves the project from a name jedi found inside it (a stub's
decorator such as `typing.dataclass_transform`). The project's own source roots come first on
jedi's path, so an installed copy of the project never stands in for the corpus.

Our side: the CALLS evidence the Python resolver gives each site (before edges are merged per
caller), with its confidence label. A site is keyed by (file, line of the callee, the called name),
so both sides agree on sites whatever text each keeps of a chained callee; a key whose sites jedi
decides differently is dropped.

- precision: of the (site, target) pairs we give at decided sites, the share that are jedi's
  in-corpus target (a link at a site decided outside is wrong);
- recall: of the sites decided in the corpus, the share where jedi's target is among ours.

Both overall, per confidence label (recall: the sites found through that label) and per call kind.
The truth depends only on the corpus and the jedi version, so it is cached next to the corpus.
jedi is a bench-only dependency (`pip install -e .[bench]`).
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness import corpus

CORPUS = corpus.CORPUS
# Pure-Python projects with their tests (not requests or Django, which other checks use).
PROJECTS = {
    "httpx": "0.28.1",
    "rich": "13.9.4",
    "click": "8.1.8",
    "starlette": "0.41.3",
    "attrs": "24.3.0",
}

IN, OUT = "in", "out"  # where jedi's one definition is
KINDS = ("f()", "mod.f()", "x.m()", "self.m()", "self.x.m()", "super().m()", "chained().m()")
LABELS = ("EXTRACTED", "INFERRED", "AMBIGUOUS")
_SITE = re.compile(r"call `(.+?)\(\.\.\.\)` at (.+):(\d+)")

Key = tuple[str, int, str]  # (path, line of the callee, called name)


@dataclass
class Truth:
    """Per decided site key: (IN, node id) or (OUT, what it is); and the call kind of each key."""

    decided: dict[Key, tuple[str, str]] = field(default_factory=dict)
    shape: dict[Key, str] = field(default_factory=dict)  # receiver shape (kind before the target split)
    sites: int = 0  # every call site with a name jedi could be asked about
    # Interface or virtual dispatch (the compiler truths): the targets accepted at that site, the
    # static one and its implementations in the project. Scored apart from the other sites.
    dispatch: dict[Key, frozenset[str]] = field(default_factory=dict)

    def kind(self, key: Key) -> str:
        shape = self.shape[key]
        if shape != "x.m()":
            return shape
        where, target = self.decided.get(key, (OUT, ""))
        # `a.b(...)` on a plain name: a module's function (or class) or a method of a value.
        return "x.m()" if where == OUT or target.startswith("method:") else "mod.f()"


def ensure_project(name: str) -> Path:
    version = PROJECTS[name]
    return corpus.fetch(name, version, f"{name}-{version}")


# ---- the truth -------------------------------------------------------------------------------


def build_truth(name: str, root: Path, version: str | None = None) -> Truth:
    import jedi  # noqa: F401 - fails at once when the bench extra is not installed

    truth = _cached_truth(name, root, version or PROJECTS[name])
    # jedi's goto through an alias of a classmethod (`get = Measurement.get`) stops at the
    # descriptor protocol (`classmethod.__get__`), not at a target: undecided.
    for key, (where, target) in list(truth.decided.items()):
        if where == OUT and target in _DESCRIPTORS:
            del truth.decided[key]
    return truth


_DESCRIPTORS = frozenset(
    f"builtins.{kind}.__get__" for kind in ("classmethod", "staticmethod", "property", "function")
)


def _cached_truth(name: str, root: Path, version: str) -> Truth:
    import jedi

    cache = CORPUS / f".callgraph-truth-{name}-{version}-jedi{jedi.__version__}.json"
    if cache.exists():
        raw = json.loads(cache.read_text())
        truth = Truth(sites=raw["sites"])
        for path, line, called, where, target, shape in raw["keys"]:
            key = (path, line, called)
            truth.shape[key] = shape
            if where:
                truth.decided[key] = (where, target)
        return truth
    started = time.perf_counter()
    truth = _jedi_truth(root)
    rows = [
        [*key, *truth.decided.get(key, ("", "")), shape] for key, shape in sorted(truth.shape.items())
    ]
    write_cache(cache, {"sites": truth.sites, "keys": rows})
    print(f"  truth for {name}: {truth.sites} sites in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return truth


def write_cache(cache: Path, content: object) -> None:
    """Write a truth's cache whole or not at all: two runs may compute the same truth at once."""
    partial = cache.with_name(f"{cache.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps(content))
    partial.replace(cache)


def _python_files(root: Path) -> list[str]:
    from rhumbline.ingest.discover.walk import discover

    return [path for path in discover(root).paths if path.endswith(".py")]


def _jedi_truth(root: Path) -> Truth:
    import jedi
    import tree_sitter_python
    from tree_sitter import Language, Parser, Query, QueryCursor

    language = Language(tree_sitter_python.language())
    parser, query = Parser(language), Query(language, "(call function: (_) @callee)")
    # The project's own source roots first: an installed copy of it (click and starlette are in
    # this virtualenv) must not stand in for the corpus.
    first = [str(root / "src")] if (root / "src").is_dir() else []
    first.append(str(root))
    environment = jedi.get_default_environment()
    rest = [p for p in environment.get_sys_path() if p not in first]
    project = jedi.Project(root, sys_path=[*first, *rest], smart_sys_path=False)
    definitions = _DefinitionIndex(root)
    truth = Truth()
    votes: dict[Key, set[tuple[str, str]]] = defaultdict(set)
    for path in _python_files(root):
        source = (root / path).read_bytes()
        tree = parser.parse(source)
        script = jedi.Script(source.decode("utf-8", "replace"), path=root / path, project=project)
        for callee in QueryCursor(query).captures(tree.root_node).get("callee", ()):
            located = _called_name(callee)
            if located is None:
                continue
            name_node, shape = located
            called = name_node.text.decode("utf-8", "replace")
            key = (path, callee.start_point.row + 1, called)
            truth.sites += 1
            truth.shape.setdefault(key, shape)
            row, column = name_node.start_point.row + 1, name_node.start_point.column
            votes[key].add(_decide(script, row, column, root, definitions))
    for key, decisions in votes.items():
        if len(decisions) == 1:
            (decision,) = decisions
            if decision[0]:
                truth.decided[key] = decision
    return truth


def _called_name(callee):
    """(the node of the called name, the call's shape), or None when the callee has no name."""
    if callee.type == "identifier":
        return callee, "f()"
    if callee.type != "attribute":
        return None
    name = callee.child_by_field_name("attribute")
    receiver = callee.child_by_field_name("object")
    if name is None or receiver is None:
        return None
    if receiver.type == "identifier":
        return name, "self.m()" if receiver.text in (b"self", b"cls") else "x.m()"
    if receiver.type == "call":
        function = receiver.child_by_field_name("function")
        if function is not None and function.text == b"super":
            return name, "super().m()"
        return name, "chained().m()"
    if receiver.type == "attribute":
        head = receiver
        while head.type == "attribute":
            head = head.child_by_field_name("object")
        if head.type == "identifier":
            return name, "self.x.m()" if head.text in (b"self", b"cls") else "x.m()"
    return name, "chained().m()"


def _decide(script, line: int, column: int, root: Path, definitions: "_DefinitionIndex") -> tuple[str, str]:
    """(IN, node id), (OUT, description) or ("", "") when jedi cannot say one thing."""
    try:
        names = _distinct(script.goto(line, column, follow_imports=True))
        if len(names) != 1 or names[0].type not in ("function", "class"):
            inferred = _distinct(script.infer(line, column))
            if len(inferred) == 1 and inferred[0].type in ("function", "class"):
                # goto stopped at a name of the project (`s = attrs`): jedi's inference of its
                # value may leave through a stub's decorator (typing.dataclass_transform), which
                # is not where the call goes; only a value inside the project decides it
                if names and all(_inside(n, root) for n in names) and not _inside(inferred[0], root):
                    return "", ""
                names = inferred
    except Exception:  # jedi gives up on some code (recursion, odd syntax): undecided
        return "", ""
    if len(names) != 1:
        return "", ""
    (found,) = names
    if found.type not in ("function", "class"):
        return "", ""
    if not _inside(found, root):
        return OUT, found.full_name or found.name
    relative = Path(found.module_path).relative_to(root).as_posix()
    known = definitions.at(relative, found.line, found.name)
    if known is None:
        return "", ""  # a lambda or a definition our index cannot name
    node_id, is_property = known
    return (OUT, f"property {node_id}") if is_property else (IN, node_id)


def _inside(name, root: Path) -> bool:  # noqa: ANN001
    path = name.module_path
    return path is not None and root in Path(path).parents and not name.in_builtin_module()


def _distinct(names: list) -> list:
    seen = {}
    for name in names:
        seen.setdefault((str(name.module_path), name.line, name.column, name.name), name)
    return list(seen.values())


class _DefinitionIndex:
    """(path, line of a `def`/`class`, name) → (node id, is a property), from the stdlib parser:
    independent of our extractor."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, dict[tuple[int, str], tuple[str, bool]]] = {}

    def at(self, path: str, line: int, name: str) -> tuple[str, bool] | None:
        if path not in self._files:
            self._files[path] = self._index(path)
        return self._files[path].get((line, name))

    def _index(self, path: str) -> dict[tuple[int, str], tuple[str, bool]]:
        from rhumbline.ingest.graph.ids import definition_id

        try:
            tree = ast.parse((self.root / path).read_bytes())
        except (SyntaxError, ValueError):
            return {}
        found: dict[tuple[int, str], tuple[str, bool]] = {}

        def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
            for statement in _flattened(body):
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qualname = f"{prefix}.{statement.name}" if prefix else statement.name
                    if isinstance(statement, ast.ClassDef):
                        kind = "Class"
                    else:
                        kind = "Method" if in_class else "Function"
                    is_property = any(_is_property(d) for d in statement.decorator_list)
                    node_id = definition_id(kind, path, qualname)
                    found[(statement.lineno, statement.name)] = (node_id, is_property)
                    visit(statement.body, qualname, isinstance(statement, ast.ClassDef))

        visit(tree.body, "", False)
        return found


def _flattened(body: list[ast.stmt]):
    """Statements of a block, those inside if/try/with/for/while blocks included (same scope)."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            yield from _flattened(statement.body)
            yield from _flattened(getattr(statement, "orelse", []))
        elif isinstance(statement, ast.Try | getattr(ast, "TryStar", ast.Try)):
            yield from _flattened(statement.body)
            for handler in statement.handlers:
                yield from _flattened(handler.body)
            yield from _flattened(statement.orelse)
            yield from _flattened(statement.finalbody)


def _is_property(decorator: ast.expr) -> bool:
    text = ast.unparse(decorator)
    return text in ("property", "cached_property", "functools.cached_property") or text.endswith(
        (".setter", ".getter", ".deleter")
    )


# ---- our side -------------------------------------------------------------------------------


@dataclass
class Prediction:
    targets: dict[str, str] = field(default_factory=dict)  # node id → confidence label
    explanations: dict[str, str] = field(default_factory=dict)


def recorder(key_of: Callable[[str, str, int], Key | None]) -> tuple[object, dict[Key, Prediction]]:
    """An EdgeSet that also records each CALLS evidence (before edges are merged per caller) under
    `key_of(explanation, file, line)`, and the predictions it fills."""
    from rhumbline.ingest.graph.edges import EdgeSet

    predictions: dict[Key, Prediction] = defaultdict(Prediction)

    class Recording(EdgeSet):
        def add(self, source, relation, target, confidence, score, explanation, file, line):  # noqa: ANN001
            key = key_of(explanation, file, line) if relation == "CALLS" else None
            if key is not None:
                prediction = predictions[key]
                prediction.targets[target] = confidence
                prediction.explanations[target] = explanation
            super().add(source, relation, target, confidence, score, explanation, file, line)

    return Recording(), predictions


def predict(root: Path) -> dict[Key, Prediction]:
    """The resolver's CALLS evidence per site key, recorded before edges are merged."""
    from rhumbline.ingest.discover.parallel import read_all
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.facts import SourceFile
    from rhumbline.ingest.languages.python.graph import build_python_graph

    def key_of(explanation: str, file: str, line: int) -> Key | None:
        site = _SITE.match(explanation)
        return None if site is None else (site.group(2), int(site.group(3)), site.group(1).rsplit(".", 1)[-1])

    edges, predictions = recorder(key_of)
    root = root.resolve()
    paths = [path for path in discover(root).paths if path.endswith(".py")]
    sources = [o for o in read_all(root, paths, workers=1) if isinstance(o, SourceFile)]
    build_python_graph(sources, root.name, edges)
    return dict(predictions)


# ---- the score -------------------------------------------------------------------------------


@dataclass
class Tally:
    pairs: int = 0  # (site, target) pairs given at decided sites
    correct: int = 0
    truth: int = 0  # sites decided in the corpus
    found: int = 0  # ... whose target we give

    def add(self, other: "Tally") -> None:
        for name in ("pairs", "correct", "truth", "found"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> tuple[str, str]:
        precision = f"{self.correct / self.pairs:.3f}" if self.pairs else "-"
        recall = f"{self.found / self.truth:.3f}" if self.truth else "-"
        return precision, recall


@dataclass
class Score:
    overall: Tally = field(default_factory=Tally)  # every decided site but dispatched ones
    dispatch: Tally = field(default_factory=Tally)  # interface/virtual dispatch, apart
    by_label: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    by_kind: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    sites: int = 0
    decided_in: int = 0
    decided_out: int = 0
    undecided_pairs: int = 0  # pairs at sites jedi could not decide: not judged
    errors: list[dict] = field(default_factory=list)

    def add(self, other: "Score") -> None:
        self.overall.add(other.overall)
        self.dispatch.add(other.dispatch)
        for name in ("by_label", "by_kind"):
            mine = getattr(self, name)
            for key, tally in getattr(other, name).items():
                mine[key].add(tally)
        for name in ("sites", "decided_in", "decided_out", "undecided_pairs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)


def score(project: str, truth: Truth, predictions: dict[Key, Prediction]) -> Score:
    result = Score(sites=truth.sites)
    for key, prediction in predictions.items():
        if key not in truth.decided:
            result.undecided_pairs += len(prediction.targets)
    for key, (where, target) in truth.decided.items():
        kind = truth.kind(key)
        prediction = predictions.get(key, Prediction())
        result.decided_in += where == IN
        result.decided_out += where == OUT
        accepted = truth.dispatch.get(key)
        if accepted is not None:
            _score_dispatch(project, key, where, accepted, prediction, result)
            continue
        if where == IN:
            for tally in (result.overall, result.by_kind[kind]):
                tally.truth += 1
                tally.found += target in prediction.targets
            if target in prediction.targets:
                result.by_label[prediction.targets[target]].found += 1
            else:
                result.errors.append(_error(project, key, kind, "missed", target, prediction))
        for given, label in prediction.targets.items():
            right = where == IN and given == target
            for tally in (result.overall, result.by_kind[kind], result.by_label[label]):
                tally.pairs += 1
                tally.correct += right
            if not right:
                result.errors.append(_error(project, key, kind, "wrong", target, prediction, given))
    return result


def _score_dispatch(
    project: str, key: Key, where: str, accepted: frozenset[str], prediction: Prediction, result: Score
) -> None:
    """A dispatched call: a pair is right when it names the static target or an implementation.
    Recall counts the sites whose interface (or overridden method) is the project's: a call
    through an interface from outside (`err.Error()`) may reach any implementation anywhere, so
    linking it to the project's implementations is right but not owed."""
    tally = result.dispatch
    if accepted and where == IN:
        tally.truth += 1
        tally.found += bool(accepted & prediction.targets.keys())
        if not accepted & prediction.targets.keys():
            result.errors.append(_error(project, key, "dispatch", "missed", sorted(accepted), prediction))
    for given, label in prediction.targets.items():
        right = given in accepted
        for counted in (tally, result.by_label[label]):
            counted.pairs += 1
            counted.correct += right
        if not right:
            result.errors.append(_error(project, key, "dispatch", "wrong", sorted(accepted), prediction, given))


def _error(project, key, kind, what, target, prediction, given=None) -> dict:
    error = {"project": project, "what": what, "file": key[0], "line": key[1], "name": key[2],
             "kind": kind, "truth": target}  # fmt: skip
    if given is not None:
        error.update(given=given, label=prediction.targets[given],
                     explanation=prediction.explanations[given])  # fmt: skip
    else:
        error["ours"] = dict(prediction.targets)
    return error


def run(projects: list[str], report: Path | None = None) -> Score:
    """Score each named Python project and all together; print the tables; the errors go to `report`."""
    total = Score()
    for name in projects:
        root = ensure_project(name)
        truth = build_truth(name, root)
        started = time.perf_counter()
        predictions = predict(root)
        seconds = time.perf_counter() - started
        found = score(name, truth, predictions)
        print_score(f"{name} {PROJECTS[name]} (our phase 1+2: {seconds:.1f} s)", found)
        total.add(found)
    if len(projects) > 1:
        print_score("all projects", total)
    if report is not None:
        report.write_text(json.dumps(total.errors, indent=1))
        print(f"errors: {len(total.errors)} written to {report}")
    return total


def run_sets(language: str, set_name: str = "all", names: list[str] | None = None,
             report: Path | None = None) -> dict[str, Score]:  # fmt: skip
    """Score the declared projects of a language (bench/callgraph_sets.json), per project and per
    set; print the tables and the summary; the errors go to `report`. Both sets unless told."""
    from harness import callgraph_sets

    chosen = [p for p in callgraph_sets.projects(language, set_name) if not names or p.name in names]
    totals: dict[str, Score] = {}
    rows: list[tuple[str, str, Score]] = []
    for project in chosen:
        root = callgraph_sets.fetch(project)
        started = time.perf_counter()
        if language == "python":
            truth = build_truth(project.name, root, project.version)
            predictions, unnamed = predict(root), 0
        else:
            from harness import callgraph_truth

            found = callgraph_truth.records(project, root)
            predictions, nodes = callgraph_truth.predict(root, language)
            truth, unnamed = callgraph_truth.truth_from_records(found, callgraph_truth.NodeIndex(nodes))
        seconds = time.perf_counter() - started
        result = score(project.name, truth, predictions)
        note = f", targets no node of ours holds (undecided): {unnamed}" if unnamed else ""
        print_score(f"[{project.set_name}] {project.label} ({seconds:.1f} s{note})", result)
        totals.setdefault(project.set_name, Score()).add(result)
        rows.append((project.set_name, project.label, result))
    for set_name_, total in totals.items():
        rows.append((set_name_, "all", total))
    print_summary(language, rows)
    if report is not None:
        errors = [e for total in totals.values() for e in total.errors]
        report.write_text(json.dumps(errors, indent=1))
        print(f"errors: {len(errors)} written to {report}")
    return totals


def print_summary(language: str, rows: list[tuple[str, str, Score]]) -> None:
    """One line per project and per set: static sites, dispatched sites, AMBIGUOUS pairs right."""
    print(f"\n{language}: precision / recall (static sites), dispatch apart, AMBIGUOUS pairs right")
    print(f"  {'set':<9}{'project':<34}{'prec':>7}{'recall':>8}{'sites':>7}{'d.prec':>8}{'d.rec':>7}"
          f"{'d.sites':>8}{'AMBIG right':>13}")  # fmt: skip
    for set_name, label, found in rows:
        precision, recall = found.overall.figures()
        d_precision, d_recall = found.dispatch.figures()
        ambiguous = found.by_label.get("AMBIGUOUS", Tally())
        share = f"{ambiguous.correct}/{ambiguous.pairs}" if ambiguous.pairs else "-"
        print(f"  {set_name:<9}{label[:33]:<34}{precision:>7}{recall:>8}{found.overall.truth:>7}"
              f"{d_precision:>8}{d_recall:>7}{found.dispatch.truth:>8}{share:>13}")  # fmt: skip


def print_score(title: str, found: Score) -> None:
    print(f"\n{title}")
    print(
        f"  call sites {found.sites}, decided by the truth: {found.decided_in} in the project, "
        f"{found.decided_out} outside; our pairs at undecided sites (not judged): {found.undecided_pairs}"
    )
    print(f"  {'':<16}{'precision':>10}{'recall':>8}{'pairs':>8}{'wrong':>7}{'sites':>7}{'missed':>8}")

    def row(label: str, tally: Tally, recall: bool = True) -> None:
        precision, recall_text = tally.figures()
        missed = tally.truth - tally.found
        print(
            f"  {label:<16}{precision:>10}{recall_text if recall else '':>8}{tally.pairs:>8}"
            f"{tally.pairs - tally.correct:>7}{tally.truth if recall else '':>7}{missed if recall else '':>8}"
        )

    row("overall", found.overall)
    if found.dispatch.pairs or found.dispatch.truth:
        row("dispatch (apart)", found.dispatch)
    for label in LABELS:
        tally = found.by_label.get(label, Tally())
        # recall per label: the share of decided sites found through that label
        print_tally = Tally(tally.pairs, tally.correct, found.decided_in, tally.found)
        precision, recall_text = print_tally.figures()
        print(f"  {label:<16}{precision:>10}{recall_text:>8}{tally.pairs:>8}{tally.pairs - tally.correct:>7}")
    for kind in KINDS:
        if kind in found.by_kind:
            row(kind, found.by_kind[kind])
    failures = Counter(error["what"] for error in found.errors)
    print(f"  errors: {dict(failures)}")

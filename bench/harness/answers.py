"""Do two revisions answer the same? `bench/calls.py --compare-answers REF [--corpus requests,django]`.

REF is checked out into a temporary git worktree. For each corpus, one copy of the tree is made;
each revision (REF first, then this checkout) ingests that same copy with its own code into its own
fresh embedded home, through its own `ingest` tool handler, then runs the same fixed steps through
its real tool handlers (bench/harness/answer_calls.py, in a child process with that revision on
PYTHONPATH): the 20 tools of the original set (list_projects, ingest, search, get_node, context,
function, class, explain, query_graph, trace_path, blast_radius, graph_diff, query, add_annotation,
list_annotations, record_review, get_recent_reviews, get_pr_verdict, get_contributor_stats,
get_repo_health), pages followed through their cursors, and bad inputs whose errors are compared too.

The JSON answers are compared after normalising only what differs between two runs of the same
code (checked with `--compare-answers HEAD`), by key: durations (`duration_s`, `duration_ms`,
`elapsed_ms`, `phase_seconds`, `seconds`), a snapshot's size (`snapshot_bytes`: it holds the files'
stat stamps and its read time), wall-clock stamps (keys ending in `_at`), and cursors'
opaque tokens (`cursor`, `next_cursor`, and the token a markdown answer quotes after "`cursor` =":
only whether one is present is compared; the next page, fetched with each side's own token, is
compared in full). Ids of
builds, annotations and reviews are sequence numbers in a fresh home, equal on both sides, and are
compared as they are. Prints every differing answer with its first differing paths. With --neo4j
the graph lives in that server, and each run deletes its project; with --database (a PostgreSQL
server's URL) the relational store lives there, in a database of each run's own, dropped after it.
The project's slug is fresh per comparison, so runs beside others on a shared server stay apart.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from harness import corpus
from harness.checkouts import checkout, legend, this_checkout
from harness.serve import THIS_CHECKOUT, Checkout
from harness.stats import uptime

CHILD = Path(__file__).resolve().parent / "answer_calls.py"
# snapshot_bytes: a snapshot records the files' stat stamps (mtime, inode) and the read time, whose
# pickled sizes vary; the graph it holds is compared through every other answer.
VOLATILE_KEYS = {"duration_s", "duration_ms", "elapsed_ms", "phase_seconds", "seconds", "snapshot_bytes"}
TOKEN_KEYS = {"cursor", "next_cursor"}
# A markdown answer names its next page's cursor in its text.
TOKEN_IN_TEXT = re.compile(r"(`cursor` = `)[^`]+(`)")

# Per corpus: files for context, functions, classes, path pairs, blast roots, search queries, questions.
PROFILES: dict[str, dict[str, list]] = {
    "django": {
        "files": ["db/models/query.py", "shortcuts.py", "http/request.py", "utils/text.py"],
        "functions": ["django.shortcuts.get_object_or_404", "QuerySet.filter", "django.utils.html.escape"],
        "classes": ["django.db.models.query.QuerySet", "django.http.response.HttpResponse"],
        "paths": [["django.shortcuts.render", "django.template.base.Template.render"],
                  ["HttpResponseRedirect", "django.http.response.HttpResponse"]],
        "blast": ["QuerySet.filter", "django.utils.html.escape"],
        "searches": ["get_object_or_404", "QuerySet", "cache key", "Model"],
        "questions": ["how does QuerySet filter work", "csrf token middleware"],
    },
    "requests": {
        "files": ["src/requests/api.py", "src/requests/sessions.py", "src/requests/models.py", "tests/test_requests.py"],
        "functions": ["requests.api.get", "requests.sessions.Session.request", "requests.sessions.merge_setting"],
        "classes": ["requests.sessions.Session", "requests.models.Response"],
        "paths": [["requests.api.get", "requests.sessions.Session.send"],
                  ["requests.api.request", "requests.models.PreparedRequest.prepare"]],
        "blast": ["requests.sessions.merge_setting", "requests.models.PreparedRequest.prepare"],
        "searches": ["Session", "get", "redirect cookies", "HTTPAdapter"],
        "questions": ["how are redirects followed", "session send adapter"],
    },
}  # fmt: skip
CYPHER = [
    "MATCH (n:CodeNode) RETURN n.kind AS kind, count(*) AS c ORDER BY c DESC, kind",
    "MATCH (c)-[:CALLS]->(f:CodeNode) RETURN f.qualified_name AS f, count(*) AS calls ORDER BY calls DESC, f LIMIT 10",
    "MATCH (f:CodeNode {kind: 'File'}) RETURN f.file AS file ORDER BY file LIMIT 20",
]
SECOND_VERSION = ("rhumbline_bench_answers.py", "def added(value):\n    return value + 1\n\n\ndef caller():\n    return added(1)\n")


def steps(profile: dict[str, list], p: str) -> list[dict[str, Any]]:
    """The fixed steps for one corpus in project `p`; "@LABEL:path" takes a value from an earlier answer."""
    out: list[dict[str, Any]] = []

    def call(label: str, tool: str, **arguments: Any) -> None:
        out.append({"label": label, "tool": tool, "arguments": arguments})

    call("ingest v1", "ingest", path="$TREE", project=p)
    call("list_projects", "list_projects")
    for n, query in enumerate(profile["searches"]):
        call(f"search {n}", "search", project=p, query=query)
    call("search kinds", "search", project=p, query=profile["searches"][0], kinds=["Class", "Function", "Method"], limit=5)
    call("search docs", "search", project=p, query=profile["searches"][2], docs=True)
    for n, file in enumerate(profile["files"]):
        call(f"context {n}", "context", project=p, file=file)
    call("context md", "context", project=p, file=profile["files"][0], format="markdown")
    call("context page 2", "context", project=p, file=profile["files"][0], cursor="@context 0:next_cursor")
    call("get_node file", "get_node", project=p, node_id=f"file:{profile['files'][0]}")
    call("get_node hit", "get_node", project=p, node_id="@search 0:hits.0.id")
    call("get_node page 1", "get_node", project=p, node_id=f"file:{profile['files'][0]}", edge_limit=3)
    call("get_node page 2", "get_node", project=p, node_id=f"file:{profile['files'][0]}", edge_limit=3,
         cursor="@get_node page 1:next_cursor")  # fmt: skip
    for n, name in enumerate(profile["functions"]):
        call(f"function {n}", "function", project=p, name=name, depth=2)
    call("function md", "function", project=p, name=profile["functions"][0], format="markdown")
    for n, name in enumerate(profile["classes"]):
        call(f"class {n}", "class", project=p, name=name)
        call(f"explain class {n}", "explain", project=p, name=name)
    call("explain function", "explain", project=p, name=profile["functions"][1])
    for n, question in enumerate(profile["questions"]):
        call(f"query_graph {n}", "query_graph", project=p, question=question)
    for n, (start, end) in enumerate(profile["paths"]):
        call(f"trace_path {n}", "trace_path", project=p, from_node=start, to_node=end, max_paths=3)
    for n, root in enumerate(profile["blast"]):
        call(f"blast_radius {n}", "blast_radius", project=p, node_id=root, depth=2)
    call("blast_radius page 1", "blast_radius", project=p, node_id=profile["blast"][0], depth=3, limit=5)
    call("blast_radius page 2", "blast_radius", project=p, node_id=profile["blast"][0], depth=3, limit=5,
         cursor="@blast_radius page 1:next_cursor")  # fmt: skip
    for n, text in enumerate(CYPHER):
        call(f"query {n}", "query", project=p, cypher=text)
    # Writes, then what reads them.
    call("add_annotation", "add_annotation", project=p, node_id="@search 0:hits.0.id",
         content="Bench note: compared across revisions.", tags=["bench"])  # fmt: skip
    call("list_annotations", "list_annotations", project=p)
    call("get_node annotated", "get_node", project=p, node_id="@search 0:hits.0.id")
    for number, verdict in ((1, "APPROVED"), (2, "CHANGES_REQUESTED")):
        call(f"record_review {number}", "record_review", project=p, pr_number=number, verdict=verdict,
             summary=f"bench review {number}", head_sha="a" * 40, status="completed", reviewer="bench-bot",
             files=profile["files"][:2])  # fmt: skip
    call("get_recent_reviews", "get_recent_reviews", repo=p)
    call("get_pr_verdict", "get_pr_verdict", repo=p, pr_number=2)
    call("get_contributor_stats", "get_contributor_stats", repo=p)
    call("get_repo_health", "get_repo_health", repo=p)
    # A second version, and what compares versions.
    out.append({"label": "write second version", "write_file": list(SECOND_VERSION)})
    call("ingest v2", "ingest", path="$TREE", project=p)
    call("graph_diff", "graph_diff", project=p)
    call("graph_diff v1 v2", "graph_diff", project=p, from_version=1, to_version=2)
    call("list_projects v2", "list_projects")
    call("function added", "function", project=p, name="added")
    # Bad inputs: the errors are answers too.
    call("error unknown file", "context", project=p, file="no/such/file.py")
    call("error unknown name", "function", project=p, name="no_such_function_anywhere")
    call("error unknown node", "get_node", project=p, node_id="function:nowhere.py:nothing")
    call("error bad argument", "search", project=p, query="")
    call("error unknown argument", "search", project=p, query="x", bogus=1)
    call("error foreign project", "search", project="someone/else", query="x")
    call("error bad cursor", "blast_radius", project=p, node_id=profile["blast"][0], cursor="not-a-cursor")
    call("error write query", "query", project=p, cypher="CREATE (n:CodeNode {id: 'x'}) RETURN n")
    call("error root file", "context", project=p, file="/")
    return out


def normalise(value: Any, key: str = "") -> Any:
    if key in VOLATILE_KEYS:
        return "<volatile>"
    if key.endswith("_at") and (value is None or isinstance(value, str)):
        return "<time>" if value else value
    if key in TOKEN_KEYS and isinstance(value, str):
        return "<token>"
    if isinstance(value, dict):
        return {k: normalise(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(item) for item in value]
    if isinstance(value, str) and "`cursor` = `" in value:
        return TOKEN_IN_TEXT.sub(r"\1<token>\2", value)
    return value


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Paths where two JSON values differ (capped per answer by the caller)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for key in sorted(set(a) | set(b)):
            if key not in a:
                found.append(f"{path}.{key}: only in this checkout = {_short(b[key])}")
            elif key not in b:
                found.append(f"{path}.{key}: only in REF = {_short(a[key])}")
            else:
                found += differences(a[key], b[key], f"{path}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list):
        found = [] if len(a) == len(b) else [f"{path}: length {len(a)} (REF) vs {len(b)} (this)"]
        for n, (x, y) in enumerate(zip(a, b)):
            found += differences(x, y, f"{path}[{n}]")
        return found
    return [] if a == b else [f"{path}: REF {_short(a)} | this {_short(b)}"]


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def run_checkout(
    variant: Checkout, tree: Path, home: Path, out: Path, profile: dict[str, list], project: str,
    graph_env: dict[str, str], database: str | None,
) -> list[dict]:
    request = {"tree": str(tree), "project": project, "out": str(out), "steps": steps(profile, project),
               "delete_after": bool(graph_env)}  # fmt: skip
    with ExitStack() as stack:
        stores_env = dict(graph_env)
        if database:
            # Ids of builds, annotations and reviews are sequence numbers: each run starts its own.
            stores_env["RHUMBLINE_DATABASE_URL"] = stack.enter_context(fresh_database(database))
        done = subprocess.run(
            # The tree is ingested by path, which a server allows only under its ingest roots.
            [sys.executable, str(CHILD)], input=json.dumps(request),
            env=variant.env(home, RHUMBLINE_INGEST_ROOTS=str(tree), **stores_env),
            capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{variant.name}: the answer run failed:\n{done.stderr[-3000:]}")
    return json.loads(out.read_text())


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server at `server_url` (its URL), dropped on exit."""
    # The suite's own throwaway-database helper, from this checkout's tests/.
    if str(THIS_CHECKOUT) not in sys.path:
        sys.path.append(str(THIS_CHECKOUT))
    from tests.pg_database import fresh_database_url

    url, drop = fresh_database_url(server_url, f"rhumbline_answers_{uuid.uuid4().hex[:10]}")
    try:
        yield url
    finally:
        drop()


def compare_corpus(
    reference: Checkout, this: Checkout, name: str, root: Path, graph_env: dict[str, str], database: str | None
) -> int:
    """Both revisions on one copy of the corpus (each ingests it into its own home); the count of
    differing answers."""
    source = corpus.tree(name)
    profile = PROFILES.get(name)
    if profile is None:
        raise SystemExit(f"--compare-answers knows the calls for {', '.join(PROFILES)}, not {name!r}")
    results = []
    # The tree's own directory name is kept: it is the first part of every module's qualified name.
    tree = corpus.copy_tree(source, root / name / "tree" / source.name)
    project = f"bench/answers{uuid.uuid4().hex[:8]}"
    for variant in (reference, this):
        # The same copy for both: the second version's file is written by the run, so start again from it.
        if (tree / SECOND_VERSION[0]).exists():
            (tree / SECOND_VERSION[0]).unlink()
        home = root / name / f"home-{len(results)}"
        out = root / name / f"answers-{len(results)}.json"
        results.append(run_checkout(variant, tree, home, out, profile, project, graph_env, database))
    differing = 0
    print(f"\n{name}: {len(results[1])} answers; REF = {reference.name}, this = {this.name}")
    by_label = [{entry["label"]: entry for entry in side} for side in results]
    for label in by_label[1]:
        old, new = by_label[0].get(label), by_label[1][label]
        if old is None:
            print(f"  {label}: only in this checkout")
            differing += 1
            continue
        found = differences(normalise({k: old[k] for k in ("ok", "result", "error")}),
                            normalise({k: new[k] for k in ("ok", "result", "error")}))  # fmt: skip
        if found:
            differing += 1
            print(f"  DIFFERS {label} ({new['tool']}): {len(found)} path(s)")
            for line in found[:8]:
                print(f"      {line}")
    same = len(by_label[1]) - differing
    oks = sum(entry["ok"] for entry in results[1])
    print(f"  {name}: {same} of {len(by_label[1])} answers identical ({oks} successes, "
          f"{len(by_label[1]) - oks} errors on this checkout); {differing} differ")  # fmt: skip
    return differing


def main(ref: str, corpora: list[str], keep: str | None, graph_env: dict[str, str], database: str | None) -> int:
    """graph_env: the Neo4j settings when the graph is to live there (each revision's run deletes
    its project afterwards, so both use the same slug); empty for the embedded store. database: a
    PostgreSQL server's URL for the relational store; None for the embedded one."""
    with ExitStack() as stack:
        reference = stack.enter_context(checkout(ref))
        this = this_checkout()
        root = Path(keep) if keep else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rhumbline-answers-")))
        root.mkdir(parents=True, exist_ok=True)
        print(legend([reference, this]))
        differing = sum(compare_corpus(reference, this, name, root, graph_env, database) for name in corpora)
        backend = ("Neo4j" if graph_env else "embedded SQLite graph") + (" + PostgreSQL" if database else "")
        print(f"\n{differing} differing answer(s) over {', '.join(corpora)} ({backend}); {uptime()}")
        return 1 if differing else 0

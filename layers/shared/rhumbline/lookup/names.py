"""From what an agent types (a bare or qualified name, a node id, a path) to one node — or a
specific error: unknown (with the closest names), ambiguous (with candidates), the wrong kind,
a file the project does not have, a project not ingested or empty.

Never a guess: several matches are an `ambiguous` error listing them, unless exactly one of them
has the name typed as its full qualified name (`django.shortcuts.get_object_or_404`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rhumbline.errors import Ambiguous, InvalidArguments, NotFound
from rhumbline.lookup.project_state import empty_project_failure
from rhumbline.lookup.views import node_ref
from rhumbline.stores.graph.model import MAX_PAGE, Node

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext
    from rhumbline.stores.graph.protocol import GraphStore

CANDIDATES = 20  # candidates listed by an `ambiguous` error
CLOSEST = 5  # closest names listed by an unknown-name error
# `method:django/db/models/query.py:QuerySet.filter`: a node id, as search and get_node return.
_NODE_ID = re.compile(r"^[a-z][a-z_]*:\S*$")
_SEPARATORS = re.compile(r"::|[.#/\\]")


def normalize_path(text: str) -> str:
    path = text.strip().replace("\\", "/")
    if path.startswith("file:"):
        path = path[len("file:") :]
    while path.startswith("./"):
        path = path[2:]
    return re.sub(r"/{2,}", "/", path)


def _same_file(stored: str, typed: str) -> bool:
    """`typed` names `stored`: the same path, an absolute path ending with it, or its tail."""
    return stored == typed or typed.endswith("/" + stored) or stored.endswith("/" + typed)


def file_id(file: str) -> str:
    """The id of the File node `file` names if it is the path in the project (the common case)."""
    path = normalize_path(file).strip("/")
    if not path:
        raise InvalidArguments(f"`file` {file!r} names no file: give its path relative to the repository root")
    return f"file:{path}"


def resolve_file(context: "ToolContext", project: str, file: str, *, id_missed: bool = False) -> Node:
    """The File node `file` names: its path in the project, an absolute path on the machine that
    was ingested, or a unique tail of its path (`models/query.py`). `id_missed`: the caller
    already looked `file_id(file)` up and found no File node."""
    path = normalize_path(file)
    graph = context.graph
    exact = file_id(file)
    node = None if id_missed else graph.get_node(project, exact)
    if node is not None and node.kind == "File":
        return node
    base = path.rstrip("/").rsplit("/", 1)[-1]
    found, _ = graph.find_by_name(project, base, kinds=["File"], limit=MAX_PAGE)
    matches = [n for n in found if _same_file(n.qualified_name, path)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Ambiguous(
            f"'{file}' matches {len(matches)} files in project '{project}': give more of the path",
            details={"candidates": [n.qualified_name for n in matches[:CANDIDATES]], "total": len(matches)},
        )
    empty = empty_project_failure(context, project)
    if empty is not None:
        raise empty
    raise NotFound(
        f"file '{file}' is not in project '{project}' (paths are relative to the repository root)",
        details={"reason": "unknown_file", "closest": _closest_files(context, project, path)},
    )


def resolve_name(
    context: "ToolContext",
    project: str,
    name: str,
    *,
    kinds: Sequence[str] | None,
    file: str | None = None,
    noun: str = "node",
    other_kind_hint: str = "",
) -> Node:
    """The one node of `kinds` (any kind when None) that `name` names, optionally in `file`."""
    graph = context.graph
    name = name.strip()
    if _NODE_ID.match(name):
        node = graph.get_node(project, name)
        if node is not None:
            if kinds is not None and node.kind not in kinds:
                raise NotFound(
                    f"'{name}' is a {node.kind}, not a {noun}{other_kind_hint}",
                    details={"reason": "other_kind", "node": node_ref(node).model_dump()},
                )
            return node
    path = resolve_file(context, project, file).file if file else None
    found, total = graph.find_by_name(project, name, kinds=kinds, limit=MAX_PAGE if path else CANDIDATES + 1)
    found, total = or_spelled_by_path(graph, project, name, kinds, found, total)
    return choose(
        context, project, name, found, total, kinds=kinds, path=path, noun=noun, other_kind_hint=other_kind_hint
    )


def or_spelled_by_path(
    graph: GraphStore, project: str, name: str, kinds: Sequence[str] | None, found: list[Node], total: int
) -> tuple[list[Node], int]:
    """find_by_name's page, or when it found nothing the nodes whose file path spells the dotted
    name (`pkg.sub.mod.func` through namespace packages: GraphStore.spelled_by_path)."""
    if total:
        return found, total
    spelled = graph.spelled_by_path(project, name, kinds=kinds)
    return spelled, len(spelled)


def is_node_id(name: str) -> bool:
    """`name` has a node id's form (resolve_name looks it up as one first)."""
    return bool(_NODE_ID.match(name.strip()))


def choose(
    context: "ToolContext",
    project: str,
    name: str,
    found: list[Node],
    total: int,
    *,
    kinds: Sequence[str] | None,
    path: str | None,
    noun: str,
    other_kind_hint: str,
) -> Node:
    """The node `name` (stripped) names among find_by_name's page `found` of `total` (in `path`
    when given), or the error that says why none. Neo4j's named_bundle statement guesses the same
    node to bundle it in the same round trip; this rule has the last word."""
    matches = [n for n in found if n.file == path] if path else found
    if path:
        total = len(matches)
    exact = [n for n in matches if n.qualified_name == name]
    if len(exact) == 1:
        return exact[0]
    # Names match ignoring case, but code is written with it: `QuerySet` means the class, not the
    # `queryset` methods. Only when every match is at hand (a capped page could hide a cased one).
    cased = [n for n in matches if as_typed(n, name)] if len(matches) == total else []
    if len(cased) == 1:
        return cased[0]
    if cased:
        matches, total = cased, len(cased)
    elif len(matches) == 1:
        return matches[0]
    elif matches and kinds is not None and not path:
        other = _cased_of_other_kind(context, project, name, kinds)
        if other:
            raise NotFound(
                f"'{name}' names {' and '.join(sorted({n.kind for n in other}))} node(s), not a {noun}{other_kind_hint}; "
                f"{total} candidate{'s' if total > 1 else ''} ({noun}) match it ignoring case (see candidates)",
                details={"reason": "other_kind", "candidates": [node_ref(n).model_dump() for n in [*other, *matches][:CANDIDATES]],
                         "total": len(other) + total},
            )  # fmt: skip
    where = f" in {path}" if path else ""
    if matches:
        raise Ambiguous(
            f"'{name}' is ambiguous: {total} candidates ({noun}){where} in project '{project}'; pass "
            + ("a qualified name or a node id" if path else "`file`, a qualified name or a node id"),
            details={"candidates": [node_ref(n).model_dump() for n in matches[:CANDIDATES]], "total": total},
        )
    raise _unknown(context, project, name, kinds=kinds, path=path, noun=noun, hint=other_kind_hint, elsewhere=found)


def as_typed(node: Node, name: str) -> bool:
    """`name` spells the node's name, qualified name or a dotted tail of it with the same case."""
    return node.name == name or node.qualified_name == name or node.qualified_name.endswith("." + name)


def _cased_of_other_kind(context: "ToolContext", project: str, name: str, kinds: Sequence[str]) -> list[Node]:
    """Nodes of other kinds spelled exactly `name` (the class `QuerySet` when `function` was asked)."""
    others, _ = context.graph.find_by_name(project, name, limit=CANDIDATES)
    return [n for n in others if n.kind not in kinds and as_typed(n, name)]


def _unknown(
    context: "ToolContext",
    project: str,
    name: str,
    *,
    kinds: Sequence[str] | None,
    path: str | None,
    noun: str,
    hint: str,
    elsewhere: list[Node],
) -> NotFound:
    graph = context.graph
    if path and elsewhere:
        return NotFound(
            f"no {noun} named '{name}' in {path}; {len(elsewhere)} match{'es' if len(elsewhere) > 1 else ''} "
            f"elsewhere in project '{project}' (see candidates)",
            details={"reason": "other_file", "candidates": [node_ref(n).model_dump() for n in elsewhere[:CANDIDATES]]},
        )
    if kinds is not None and not path:
        others, total = graph.find_by_name(project, name, limit=CLOSEST)
        if others:
            kinds_found = sorted({n.kind for n in others})
            return NotFound(
                f"'{name}' names {' and '.join(kinds_found)} node(s), not a {noun}{hint}",
                details={"reason": "other_kind", "candidates": [node_ref(n).model_dump() for n in others], "total": total},
            )
    empty = empty_project_failure(context, project)
    if empty is not None:
        return empty
    where = f" in {path}" if path else ""
    return NotFound(
        f"no {noun} named '{name}'{where} in project '{project}'",
        details={"reason": "unknown_name", "closest": closest_names(context, project, name, kinds=kinds)},
    )


def closest_names(context: "ToolContext", project: str, name: str, *, kinds: Sequence[str] | None) -> list[dict[str, Any]]:
    """Up to CLOSEST nodes whose names look like `name`: full-text and prefix hits on its last
    part, ranked by string similarity (typos included: `chekout` finds `checkout`)."""
    last = [part for part in _SEPARATORS.split(name) if part][-1:] or [name]
    word = last[0].lower()
    found = _similar(context, project, [name, word, word[:3]], kinds=kinds, like=word, text=lambda n: n.name.lower())
    return [node_ref(n).model_dump() for n in found]


def _closest_files(context: "ToolContext", project: str, path: str) -> list[str]:
    base = path.rsplit("/", 1)[-1].lower()
    stem = base.split(".", 1)[0]
    found = _similar(context, project, [base, stem, stem[:3]], kinds=["File"], like=path.lower(),
                     text=lambda n: n.qualified_name.lower())  # fmt: skip
    return [n.qualified_name for n in found]


def _similar(
    context: "ToolContext",
    project: str,
    queries: Sequence[str],
    *,
    kinds: Sequence[str] | None,
    like: str,
    text: Callable[[Node], str],
) -> list[Node]:
    """Search hits for each query (on the error path only), the CLOSEST most like `like`."""
    seen: dict[str, Node] = {}
    for query in dict.fromkeys(queries):
        if len(query) < 2:
            continue
        try:
            hits, _ = context.graph.search([project], query, kinds=kinds, limit=25)
        except ValueError:  # a query with no searchable word
            continue
        for hit in hits:
            seen.setdefault(hit.node.id, hit.node)
    ranked = sorted(
        seen.values(),
        key=lambda n: (-difflib.SequenceMatcher(None, like, text(n)).ratio(), len(n.qualified_name), n.id),
    )
    return ranked[:CLOSEST]

"""Phase 2's language groups: Python and each polyglot family, resolved apart.

No group reads another's facts or nodes (Python resolves against its own modules, a family
against its own files), so the groups are resolution's shards. They are resolved in this process
one after another, or above a size each in a forked process (it starts with every file's facts
already in memory, nothing sent to it) that hands back its part: nodes as tuples and the edge
evidence, in marshal's format, which reads back at a fraction of the group's own resolution. The
parts are merged in group order, so both ways build the same graph. A child that fails or dies is
resolved again here, which raises the group's own error if it has one.

Processes and pipes rather than a process pool: a pool would pickle each group's facts to its
worker, and on Lambda it cannot start at all (no /dev/shm for its semaphores).
"""

from __future__ import annotations

import marshal
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from rhumbline.ingest.discover.parallel import die_with_parent
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures, FileFailure
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.records import new_node
from rhumbline.ingest.languages.polyglot.build import build_families
from rhumbline.ingest.languages.python.graph import build_python_graph
from rhumbline.stores.graph.model import Node

PYTHON = "python"
# Code bytes below which the groups resolve in this process: forking and merging cost more than
# they save on a tree this size.
FORKED_ABOVE_BYTES = 32 * 1024 * 1024
# Peak memory of phase 2 in one process, and what a forked child adds, per byte of code resolved
# (bench/ingest.py --scale measures both), and the share of the memory the estimate may fill:
# forked_lanes' rule, so that a child never costs an ingest that one process would finish.
MEMORY_PER_CODE_BYTE = 9
CHILD_MEMORY_PER_CODE_BYTE = 10
MEMORY_SHARE = 0.8
_NODE_FIELDS = tuple(f.name for f in fields(Node))


@dataclass
class Group:
    name: str  # PYTHON, or a polyglot family (languages.families())
    files: list[SourceFile]

    @property
    def size(self) -> int:
        return sum(source.size for source in self.files)


@dataclass
class Resolved:
    """What the groups built: nodes in group order (a Module two families share, once), the
    unresolved call sites, per Python file too. Edges and failures went into the caller's."""

    nodes: list[Node] = field(default_factory=list)
    unresolved_calls: int = 0
    unresolved_by_file: dict[str, int] = field(default_factory=dict)


@dataclass
class _Part:
    nodes: list[Node]
    unresolved_calls: int
    unresolved_by_file: dict[str, int]
    edges: EdgeSet | None = None  # None: added to the caller's set as they were found
    failures: list[FileFailure] = field(default_factory=list)


def groups_of(python: list[SourceFile], families: dict[str, list[SourceFile]]) -> list[Group]:
    """Python first, then the families in files_by_family's order (the order they merge in)."""
    found = [Group(PYTHON, python)] if python else []
    return found + [Group(name, files) for name, files in families.items()]


def resolve_groups(
    groups: list[Group],
    root: Path,
    edges: EdgeSet,
    failures: Failures,
    *,
    package_dirs: Mapping[str, str] | None = None,
    workers: int = 1,
) -> Resolved:
    """Every group's nodes; their edges go into `edges`, files whose resolution raised into
    `failures`. The groups' files are taken out of `groups` as each is resolved, so their facts
    can go. `workers`: how many groups may resolve at once (forked_lanes)."""
    children = forked_lanes(groups, workers)
    if children:
        parts = _in_lanes(groups, root, package_dirs, children)
    else:
        parts = ((group.name, _resolve(group, root, package_dirs, edges, failures)) for group in _taken(groups))
    resolved = Resolved()
    seen: set[str] = set()
    for name, part in parts:
        if part.edges is not None:
            edges.absorb(part.edges)
        failures.found.extend(part.failures)
        if name == PYTHON:
            resolved.nodes.extend(part.nodes)
        else:
            for node in part.nodes:
                if node.id not in seen:  # a package Module shared by two families
                    seen.add(node.id)
                    resolved.nodes.append(node)
        resolved.unresolved_calls += part.unresolved_calls
        resolved.unresolved_by_file.update(part.unresolved_by_file)
    return resolved


def forked_lanes(groups: Sequence[Group], workers: int, memory: int | None = None) -> int:
    """Forked children to resolve beside this process: none for one group, one worker, a tree
    below FORKED_ABOVE_BYTES or where processes cannot fork; else up to workers - 1 (and one
    group fewer than there are: the last is this process's), the largest groups first, as many as
    fit MEMORY_SHARE of `memory` (default memory_limit()) beside a resolution in one process. A
    child copies its group's facts and holds its part twice while sending it: where the memory
    holds none, the groups resolve one after another, each letting go of its facts."""
    sizes = sorted((group.size for group in groups), reverse=True)
    total = sum(sizes)
    if workers < 2 or len(sizes) < 2 or total <= FORKED_ABOVE_BYTES:
        return 0
    if "fork" not in multiprocessing.get_all_start_methods():
        return 0
    budget = MEMORY_SHARE * (memory_limit() if memory is None else memory) - MEMORY_PER_CODE_BYTE * total
    children = 0
    for size in sizes[: min(workers, len(sizes)) - 1]:
        budget -= CHILD_MEMORY_PER_CODE_BYTE * size
        if budget < 0:
            break
        children += 1
    return children


def memory_limit() -> int:
    """Bytes this process may use: its Lambda function's memory size, else the machine's memory."""
    configured = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
    if configured:
        return int(configured) * 1024 * 1024
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _taken(groups: list[Group]) -> Iterator[Group]:
    while groups:
        yield groups.pop(0)


def _resolve(
    group: Group, root: Path, package_dirs: Mapping[str, str] | None, edges: EdgeSet, failures: Failures
) -> _Part:
    if group.name == PYTHON:
        python = build_python_graph(group.files, root.name, edges, failures=failures, package_dirs=package_dirs)
        return _Part(python.nodes, python.unresolved_calls, python.unresolved_by_file)
    others = build_families({group.name: group.files}, root, edges, failures)
    return _Part(others.nodes, others.unresolved_calls, {})


def _apart(groups: list[Group], index: int, root: Path, package_dirs: Mapping[str, str] | None) -> _Part:
    """One group resolved in this process into a part of its own, its facts let go."""
    edges, failures = EdgeSet(), Failures()
    part = _resolve(groups[index], root, package_dirs, edges, failures)
    part.edges, part.failures = edges, failures.found
    groups[index] = Group(groups[index].name, [])
    return part


def _in_lanes(
    groups: list[Group], root: Path, package_dirs: Mapping[str, str] | None, children: int
) -> Iterator[tuple[str, _Part]]:
    """The largest groups each in a forked child (at most `children` at once), the smallest in
    this process meanwhile, and the last group waiting here too rather than waiting on a child;
    the parts yielded in group order once every group is resolved. A group whose child failed or
    died is resolved here, where its error, if it has one, raises."""
    context = multiprocessing.get_context("fork")
    names = [group.name for group in groups]
    waiting = sorted(range(len(groups)), key=lambda index: -groups[index].size)
    running: dict[Connection, tuple[int, BaseProcess]] = {}
    parts: dict[int, _Part | None] = {}
    try:
        while waiting or running:
            while len(waiting) > 1 and len(running) < children:  # the last one waiting is this process's
                index = waiting.pop(0)
                receiver, sender = context.Pipe(duplex=False)
                process: BaseProcess = context.Process(
                    target=_child, args=(groups[index], root, package_dirs, sender, os.getpid()), daemon=True
                )  # fmt: skip
                try:
                    process.start()
                except OSError:  # no process to be had (memory, a process limit): this one resolves the rest
                    receiver.close()
                    sender.close()
                    waiting.insert(0, index)
                    children = len(running)
                    break
                sender.close()
                running[receiver] = (index, process)
            if waiting:
                index = waiting.pop()
                parts[index] = _apart(groups, index, root, package_dirs)
            for ready in wait(list(running), timeout=0 if waiting else None) if running else ():
                assert isinstance(ready, Connection)
                index, child = running.pop(ready)
                blob = _received(ready, child)
                parts[index] = None if blob is None else _decoded(blob)
                if blob is not None:  # its facts are needed here no more
                    groups[index] = Group(names[index], [])
                del blob
        for index in range(len(groups)):
            part = parts.pop(index)
            yield names[index], part if part is not None else _apart(groups, index, root, package_dirs)
    finally:
        for receiver, (_, process) in running.items():
            process.kill()
            process.join()
            receiver.close()
        groups.clear()


def _received(receiver: Connection, child: BaseProcess) -> bytes | None:
    try:
        blob: bytes | None = receiver.recv_bytes()
    except (EOFError, OSError):
        blob = None
    receiver.close()
    child.join()
    return blob if child.exitcode == 0 else None


def _child(group: Group, root: Path, package_dirs: Mapping[str, str] | None, sender: Connection, parent: int) -> None:
    """A forked process's whole life: resolve one group, send its part, leave without running
    the parent's exit handlers."""
    die_with_parent(parent)
    try:
        edges, failures = EdgeSet(), Failures()
        part = _resolve(group, root, package_dirs, edges, failures)
        group.files.clear()  # this process's copies of the facts go before the part is encoded
        blob = _encoded(part, edges, failures)
        del part, edges
        sender.send_bytes(blob)
        sender.close()
    except BaseException:  # noqa: BLE001 — the parent resolves the group again, where it raises
        os._exit(1)
    os._exit(0)


def _encoded(part: _Part, edges: EdgeSet, failures: Failures) -> bytes:
    nodes = [tuple(getattr(node, name) for name in _NODE_FIELDS) for node in part.nodes]
    failed = [tuple(failure) for failure in failures.found]
    return marshal.dumps((nodes, edges.evidence(), part.unresolved_calls, part.unresolved_by_file, failed))


def _decoded(blob: bytes) -> _Part:
    nodes, evidence, unresolved, by_file, failed = marshal.loads(blob)
    return _Part(
        [new_node(*row) for row in nodes], unresolved, by_file, EdgeSet.of(evidence),
        [FileFailure(*failure) for failure in failed],
    )  # fmt: skip

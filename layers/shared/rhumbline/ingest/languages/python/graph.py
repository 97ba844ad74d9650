"""Phase 2 for Python: all parsed Python files → nodes and edges.

Per-file work (nodes, DEFINES) depends on one file and its module name; everything else needs the
symbol tables of every file, built here once: module index → namespaces → resolver (classes,
methods) → IMPORTS, INHERITS, DECORATES and CALLS, then the Import and Decorator nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import module_id, variable_id
from rhumbline.ingest.languages.python import calls, links, nodes, statement_nodes
from rhumbline.ingest.languages.python.modules import ModuleIndex
from rhumbline.ingest.languages.python.namespace import Namespaces
from rhumbline.ingest.languages.python.receivers import Receivers
from rhumbline.ingest.languages.python.resolve import Resolver
from rhumbline.ingest.languages.python.syntax import is_secondary_site
from rhumbline.stores.graph.model import Node

STAGE = "resolve python"


@dataclass
class PythonGraph:
    nodes: list[Node] = field(default_factory=list)
    unresolved_calls: int = 0
    unresolved_by_file: dict[str, int] = field(default_factory=dict)  # per file in `only`


def build_python_graph(
    sources: Sequence[SourceFile],
    root_name: str,
    edges: EdgeSet,
    *,
    only: Set[str] | None = None,
    failures: Failures | None = None,
    package_dirs: Mapping[str, str] | None = None,
) -> PythonGraph:
    """Nodes of the Python files in `sources` (their File nodes excepted); edges go into `edges`.

    `only`: the paths whose nodes and edges are wanted (an incremental rebuild, partial.py); the
    symbol tables are still built from every file, so those files resolve exactly as in a full
    build. Default: every file. `failures`: where a file whose resolution raised is recorded
    (its nodes and edges may then be incomplete); default: discarded. `package_dirs`: the source
    directories the packaging declares (python/packaging.py)."""
    failures = Failures() if failures is None else failures
    python = [s for s in sources if s.language == "python" and s.code is not None]
    index = ModuleIndex(root_name, (s.path for s in python), package_dirs)
    resolver = Resolver(Namespaces(index, {s.path: s.code for s in python}))
    graph = PythonGraph()
    # Qualified names of every Python node, for explanations (a full build's nodes would give the
    # same; a partial build makes only its own files' nodes).
    qualified: dict[str, str] = {}
    for source in python:
        try:
            _add_tables(source, index, resolver, qualified, graph, edges, only)
        except Exception as error:  # noqa: BLE001 — reported; the other files are built (failures.py)
            failures.add(source.path, STAGE, error)
    receivers = Receivers(resolver)
    for source in python:
        if only is not None and source.path not in only:
            continue
        try:
            _add_links(source, index, resolver, receivers, qualified, graph, edges)
        except Exception as error:  # noqa: BLE001 — reported; the other files are built (failures.py)
            failures.add(source.path, STAGE, error)
    return graph


def _add_tables(
    source: SourceFile, index: ModuleIndex, resolver: Resolver, qualified: dict[str, str],
    graph: PythonGraph, edges: EdgeSet, only: Set[str] | None,
) -> None:
    """One file's definitions in the symbol tables; its nodes and DEFINES edges when wanted."""
    code = source.code
    path = source.path
    module = index.name_of[path]
    owns = index.owns_module(path)
    ids = nodes.definition_ids(path, code)
    resolver.classes.add_file(path, code.definitions, ids)
    if owns:
        qualified[module_id(module)] = module
    for definition, node_id in zip(code.definitions, ids, strict=True):
        qualified[node_id] = f"{module}.{definition.qualname}"
        if definition.kind != "Class" and definition.decorators:
            decorators = tuple(decorator.expression for decorator in definition.decorators)
            resolver.add_function(node_id, decorators)
        if definition.kind == "Method" and not is_secondary_site(definition.qualname):
            decorators = tuple(decorator.expression for decorator in definition.decorators)
            resolver.add_method(definition.name, node_id, decorators, definition.signature)
    for variable in code.variables:
        qualified[variable_id(path, variable.name)] = f"{module}.{variable.name}"
    if only is not None and path not in only:
        return
    if owns:
        graph.nodes.append(nodes.module_node(source, module))
    graph.nodes.extend(nodes.definition_nodes(path, module, code))
    nodes.add_defines(path, module if owns else None, code, ids, edges)


def _add_links(
    source: SourceFile, index: ModuleIndex, resolver: Resolver, receivers: Receivers,
    qualified: dict[str, str], graph: PythonGraph, edges: EdgeSet,
) -> None:
    """One file's IMPORTS, INHERITS, DECORATES and CALLS edges, and its statement nodes."""
    namespaces = resolver.namespaces
    code = source.code
    # What each import loads: IMPORTS edges and Import nodes both need it.
    loaded = [links.imported_modules(source.path, fact, index) for fact in code.imports]
    links.add_imports(source.path, code, loaded, edges)
    links.add_inherits(source.path, code, resolver, qualified, edges)
    links.add_decorates(source.path, code, resolver, qualified, edges)
    unresolved = calls.add_calls(source.path, code, receivers, qualified, edges)
    graph.unresolved_by_file[source.path] = unresolved
    graph.unresolved_calls += unresolved
    module = index.name_of[source.path]
    graph.nodes.extend(
        statement_nodes.import_nodes(source, module, index, namespaces, qualified, edges, loaded)
    )
    graph.nodes.extend(statement_nodes.decorator_nodes(source, resolver, qualified, edges))

"""Phase 2 for Python: all parsed Python files → nodes and edges.

Per-file work (nodes, DEFINES) depends on one file and its module name; everything else needs the
symbol tables of every file, built here once: module index → namespaces → resolver (classes,
methods) → IMPORTS, INHERITS, DECORATES and CALLS, then the Import and Decorator nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rhumbline.ingest.edges import EdgeSet
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.python import calls, links, nodes, statement_nodes
from rhumbline.ingest.python.modules import ModuleIndex
from rhumbline.ingest.python.namespace import FileNamespace, Namespaces
from rhumbline.ingest.python.resolve import Resolver
from rhumbline.stores.graph.protocol import Node


@dataclass
class PythonGraph:
    nodes: list[Node] = field(default_factory=list)
    unresolved_calls: int = 0


def build_python_graph(
    sources: Sequence[SourceFile], root_name: str, edges: EdgeSet
) -> PythonGraph:
    """Nodes of the Python files in `sources` (their File nodes excepted); edges go into `edges`."""
    python = [s for s in sources if s.language == "python" and s.code is not None]
    index = ModuleIndex(root_name, (s.path for s in python))
    files = {s.path: FileNamespace(s.path, index.name_of[s.path], s.code, index) for s in python}
    resolver = Resolver(Namespaces(index, files))
    graph = PythonGraph()
    for source in python:
        code = source.code
        module = index.name_of[source.path]
        owns = index.owns_module(source.path)
        if owns:
            graph.nodes.append(nodes.module_node(source, module))
        graph.nodes.extend(nodes.definition_nodes(source.path, module, code))
        nodes.add_defines(source.path, module if owns else None, code, edges)
        ids = nodes.definition_ids(source.path, code)
        resolver.classes.add_file(source.path, code.definitions, ids)
        for definition, node_id in zip(code.definitions, ids, strict=True):
            if definition.kind == "Method":
                resolver.add_method(definition.name, node_id)
    qualified = {node.id: node.qualified_name for node in graph.nodes}
    namespaces = resolver.namespaces
    for source in python:
        code = source.code
        links.add_imports(source.path, code, index, edges)
        links.add_inherits(source.path, code, resolver, qualified, edges)
        links.add_decorates(source.path, code, resolver, qualified, edges)
        graph.unresolved_calls += calls.add_calls(source.path, code, resolver, qualified, edges)
        module = index.name_of[source.path]
        graph.nodes.extend(
            statement_nodes.import_nodes(source, module, index, namespaces, qualified, edges)
        )
        graph.nodes.extend(statement_nodes.decorator_nodes(source, resolver, qualified, edges))
    return graph

"""The tree: Repository → Directory → File nodes and CONTAINS edges, for every ingested file.

Every text file that survives the walk gets a File node (language by extension, a `.h` header's by
its content: languages/ `language_in`; possibly None), so
agents see the whole tree; only languages with an extractor add definitions under their files.
Directories appear when they hold at least one ingested file.
"""

from __future__ import annotations

from collections.abc import Sequence

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import REPOSITORY_ID, directory_id, file_id
from rhumbline.ingest.graph.records import new_node
from rhumbline.stores.graph.model import Node


def build_structure(project: str, sources: Sequence[SourceFile], edges: EdgeSet) -> list[Node]:
    nodes = [new_node(id=REPOSITORY_ID, kind="Repository", name=project, qualified_name=project)]
    directories: set[str] = set()
    for source in sources:
        path = source.path
        nodes.append(
            new_node(
                id=file_id(path),
                kind="File",
                name=path.rsplit("/", 1)[-1],
                qualified_name=path,
                file=path,
                start_line=1,
                end_line=max(source.line_count, 1),
                language=source.language,
                content_hash=source.content_hash,
            )
        )
        parent = _parent(path)
        _contain(edges, parent, file_id(path), path, f"file `{path}`")
        # Walk up until a directory already seen: each directory is linked to its parent once.
        while parent and parent not in directories:
            directories.add(parent)
            nodes.append(
                new_node(
                    id=directory_id(parent),
                    kind="Directory",
                    name=parent.rsplit("/", 1)[-1],
                    qualified_name=parent,
                )
            )
            grandparent = _parent(parent)
            _contain(edges, grandparent, directory_id(parent), parent, f"directory `{parent}`")
            parent = grandparent
    return nodes


def _contain(edges: EdgeSet, directory: str, child: str, child_path: str, what: str) -> None:
    source = directory_id(directory) if directory else REPOSITORY_ID
    holder = f"directory `{directory}`" if directory else "the repository root"
    # The evidence of containment is the child's path itself: it is the edge's location.
    explanation = f"{holder} contains {what}"
    edges.extracted(source, "CONTAINS", child, explanation, child_path, None)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""

"""Small, fully known graphs for the graph-store suite."""

from __future__ import annotations

from rhumbline.stores.graph.model import Edge, Node
from rhumbline.stores.graph.protocol import GraphStore


def node(kind: str, qualified_name: str, file: str | None = None, **fields: object) -> Node:
    """A node with a readable id; the name is the last dotted part of the qualified name."""
    name = str(fields.pop("name", qualified_name.rsplit(".", 1)[-1]))
    return Node(
        id=f"{kind.lower()}:{file or ''}:{qualified_name}",
        kind=kind,
        name=name,
        qualified_name=qualified_name,
        file=file,
        **fields,  # type: ignore[arg-type]
    )


def edge(source: str, target: str, relation: str = "CALLS", **fields: object) -> Edge:
    values: dict[str, object] = {
        "confidence": "EXTRACTED",
        "confidence_score": 1.0,
        "explanation": f"{source} {relation.lower()} {target}",
    }
    values.update(fields)
    return Edge(source=source, target=target, relation=relation, **values)  # type: ignore[arg-type]


# The search corpus: names, qualified names and docstrings chosen so that every tier and tie-break
# is exercised (expected scores are worked out in test_graph_store_search.py).
GET = node("Method", "pkg.query.QuerySet.get", "pkg/query.py",
           docstring="Perform the query and return a single object.")
GET_OBJECT_OR_404 = node("Function", "pkg.shortcuts.get_object_or_404", "pkg/shortcuts.py",
                         docstring="Use get() to return an object, or raise Http404.")
GET_OBJECT_OR_404_CAMEL = node("Function", "pkg.shortcuts.getObjectOr404", "pkg/shortcuts.py")
GET_LIST = node("Function", "pkg.http.get_list", "pkg/http.py")
QUERY_SET = node("Class", "pkg.query.QuerySet", "pkg/query.py",
                 docstring="A lazy database lookup for a set of objects.")
FILTER = node("Method", "pkg.query.QuerySet.filter", "pkg/query.py",
              docstring="Return a new QuerySet instance.")
HTTP_RESPONSE = node("Class", "pkg.http.HttpResponse", "pkg/http.py",
                     docstring="An HTTP response; get its content from content.")
HTTP_404 = node("Class", "pkg.http.Http404", "pkg/http.py", docstring="Raised when a page is not found.")
RENDER = node("Function", "pkg.http.render", "pkg/http.py",
              docstring="Build an HTTP response from a template.")
SEARCH_CORPUS = [GET, GET_OBJECT_OR_404, GET_OBJECT_OR_404_CAMEL, GET_LIST, QUERY_SET, FILTER,
                 HTTP_RESPONSE, HTTP_404, RENDER]  # fmt: skip


def ids(store: GraphStore, project: str, node_id: str, direction: str = "out") -> list[str]:
    """The other ends of a node's edges, in the store's order."""
    views, _ = store.edges_of(project, node_id, direction, limit=1000)  # type: ignore[arg-type]
    return [view.other_id for view in views]

"""One valid argument set per tool, for a project holding the pyproj fixture: what the outage and
conflict tests send every tool. A tool added without an entry here fails those tests by name."""

from __future__ import annotations

from typing import Any


def valid_arguments(project: str, tree: str) -> dict[str, dict[str, Any]]:
    node = "class:shop/base.py:Model"
    return {
        "add_annotation": {"project": project, "node_id": node, "content": "a note"},
        "blast_radius": {"project": project, "node_id": node},
        "class": {"project": project, "name": "Model"},
        "context": {"project": project, "file": "shop/models.py"},
        "delete_project": {"project": project, "reviews": "keep"},  # without `confirm`: a dry run
        "explain": {"project": project, "name": "Model"},
        "function": {"project": project, "name": "Product.save"},
        "get_contributor_stats": {"repo": project},
        "get_node": {"project": project, "node_id": node},
        "get_pr_verdict": {"repo": project, "pr_number": 1},
        "get_recent_reviews": {"repo": project},
        "get_repo_health": {"repo": project},
        "get_usage": {},
        "graph_diff": {"project": project},
        "ingest": {"path": tree, "project": project},
        "list_annotations": {"project": project},
        "list_projects": {},
        "query": {"cypher": "MATCH (n) RETURN count(n) AS c", "project": project},
        "query_graph": {"project": project, "question": "what calls save?"},
        "read_file": {"project": project, "path": "shop/models.py"},
        "record_review": {"project": project, "pr_number": 1, "verdict": "APPROVED", "summary": "fine"},
        "search": {"project": project, "query": "save"},
        "trace_path": {"project": project, "from_node": node, "to_node": node},
    }

"""What phase 2 builds the graph with, whatever the language: node ids (ids.py), the edge set
(edges.py), node records (records.py), the tree's Repository, Directory and File nodes
(structure.py), Import and Decorator statement nodes (statements.py) and Contributor nodes from
git history (contributors.py)."""

"""Cypher on Neo4j: a scoped query rewritten so every pattern is bound to the caller's projects
(scoping.py), run in a READ transaction after Neo4j's own plan check (runner.py)."""

"""The `query` tool's Cypher: the read-only subset (guard.py, parser/, syntax.py, procedures.py,
schema.py), the answer both backends give (answer.py), the engine protocol (protocol.py) and one
engine per graph backend, peers that never import each other: sqlite/ compiles the subset to SQL,
neo4j/ runs Cypher on the server (bound to the caller's projects by scoping.py). engines.py opens
the one the settings name."""

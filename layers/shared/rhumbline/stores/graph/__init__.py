"""The code graph store: one protocol, two native implementations (SQLite and Neo4j)."""

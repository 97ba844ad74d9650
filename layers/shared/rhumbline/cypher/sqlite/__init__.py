"""The Cypher subset on the embedded SQLite store: compiled to one SELECT (compiler.py, with
expressions.py, calls.py and patterns.py) and run on a read-only connection (runner.py)."""

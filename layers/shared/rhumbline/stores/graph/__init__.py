"""The code graph store: its data (model.py), the base class both backends extend (protocol.py) and
the two native backends (sqlite/, neo4j/)."""

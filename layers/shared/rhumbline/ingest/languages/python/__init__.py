"""Python: tree-sitter extraction (phase 1) and static name resolution (phase 2)."""

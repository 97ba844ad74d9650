"""Phase 1: which files of a tree are ingested (walk.py, gitignore.py, skiprules.py, git.py), where
a hosted tree comes from (sources.py), and reading each into facts (read.py), many at a time in
a process pool (parallel.py).

Nothing is imported here, so a pool worker importing the reader stays cheap.
"""

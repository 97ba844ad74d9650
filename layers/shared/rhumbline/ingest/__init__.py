"""Ingestion: a source tree → the project's code graph.

Pipeline (language-agnostic): walk (walk.py: git or .gitignore rules, skip rules) → phase 1 per
file in a process pool (read.py: bytes checks, then the language's extractor → plain facts) →
phase 2 in the parent (structure.py for the tree, then each language's resolver over all its
files) → one atomic store write (pipeline.py, which also numbers the graph version).

Graph produced (ids in ids.py):
- Repository → CONTAINS → Directory / File; every ingested text file is a File, language by
  extension; only languages with an extractor (Python so far: python/) add definitions.
- Python: File DEFINES its Module and its top-level Class / Function / Variable; Class DEFINES
  methods and nested classes; Function / Method DEFINES nested definitions. IMPORTS (File →
  Module), CALLS (Function / Method / Class body / File → Function / Method / Class), INHERITS,
  DECORATES, each with EXTRACTED / INFERRED / AMBIGUOUS evidence (python/evidence.py).

Nothing is imported here, so a worker importing the reader stays cheap. Entry point:
`rhumbline.ingest.pipeline.ingest_local`.
"""

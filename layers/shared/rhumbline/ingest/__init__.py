"""Ingestion: a source tree → the project's code graph.

Pipeline (language-agnostic): walk (walk.py: git or .gitignore rules, skip rules) → phase 1 per
file in a process pool (read.py: bytes checks, then the language's extractor → plain facts) →
phase 2 in the parent (structure.py for the tree, then each language's resolver over all its
files) → one atomic store write (pipeline.py, which also numbers the graph version).

Incremental and versioned (docs/incremental.md; incremental.py, stat_index.py, partial.py,
partitioned.py, snapshots.py, diff.py): files whose stat stamp is unchanged are not read, and
phase-1 facts are cached by content hash, so a re-ingest parses only changed files; phase 2 is
skipped when nothing it reads changed, rebuilds only the changed files' partitions when no
interface changed (partial.py), and otherwise runs over every file; only the difference from the
stored version's snapshot is written, in one conditional batch. Every version keeps a per-file
chunked snapshot, so any two retained versions can be diffed exactly (diff.diff_versions, what
graph_diff returns).

Graph produced (ids in ids.py):
- Repository → CONTAINS → Directory / File; every ingested text file is a File, language by
  extension; only languages with an extractor add definitions: Python (python/, the deepest
  resolution) and JavaScript, TypeScript/TSX, Go, Java, Kotlin, Rust, C, C++, C#, Ruby, PHP
  (one package each on the shared polyglot/ core). vendor/ and third_party/ trees and minified
  bundles are skipped (skiprules.py).
- Markdown (the knowledge layer, knowledge/): File DEFINES Document; sections become WikiPage,
  Concept or Rule nodes, ADRs Decision nodes; DOCUMENTS edges to the code they link or mention.
- Git history (contributors.py): Contributor MODIFIED File, with {commits, last_at} properties.
- Python: File DEFINES its Module and its top-level Class / Function / Variable; Class DEFINES
  methods and nested classes; Function / Method DEFINES nested definitions. IMPORTS (File →
  Module), CALLS (Function / Method / Class body / File → Function / Method / Class), INHERITS,
  DECORATES, each with EXTRACTED / INFERRED / AMBIGUOUS evidence (python/evidence.py).
- Every language: an Import node per import binding and a Decorator node per decorator,
  annotation or attribute (statements.py): CONTAINS, RESOLVES_TO, APPLIES_TO.

Nothing is imported here, so a worker importing the reader stays cheap. Entry point:
`rhumbline.ingest.pipeline.ingest_local`.
"""

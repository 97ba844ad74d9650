"""Ingestion: a source tree → the project's code graph, as a numbered graph version.

pipeline.py is the plan: discover → parse (phase 1) → resolve (phase 2) → write → snapshot →
centrality. By stage:

- discover/: which files are ingested (git or .gitignore rules, skip rules), hosted sources, and
  reading each file into facts, many at a time in a process pool;
- languages/: which language a file is in, and one package per language: its extractor (phase 1:
  bytes → facts.py records) and its resolver (phase 2: every file's facts → nodes and edges);
- graph/: what every resolver builds with (ids, edges, the tree's nodes, statement nodes,
  contributors);
- snapshots/: what an ingest remembers between versions (stat stamps, the facts cache, per-file
  snapshot chunks) so a re-ingest reads and resolves only what changed and writes only the
  difference (docs/incremental.md); build.py runs phases 1 and 2, partial.py the partial phase 2,
  plan.py decides what to write.

Graph produced (ids in graph/ids.py):
- Repository → CONTAINS → Directory / File; every ingested text file is a File, language by
  extension (the language table, languages/__init__.py); only parsed languages add definitions: Python (languages/python/, the deepest
  resolution) and JavaScript, TypeScript/TSX, Go, Java, Kotlin, Rust, C, C++, C#, Ruby, PHP
  (one package each on the shared polyglot/ core). vendor/ and third_party/ trees and minified
  bundles are skipped (discover/skiprules.py).
- Markdown (the knowledge layer, knowledge/): File DEFINES Document; sections become WikiPage,
  Concept or Rule nodes, ADRs Decision nodes; DOCUMENTS edges to the code they link or mention.
- Git history (graph/contributors.py): Contributor MODIFIED File, with {commits, last_at} properties.
- Python: File DEFINES its Module and its top-level Class / Function / Variable; Class DEFINES
  methods and nested classes; Function / Method DEFINES nested definitions. IMPORTS (File →
  Module), CALLS (Function / Method / Class body / File → Function / Method / Class), INHERITS,
  DECORATES, each with EXTRACTED / INFERRED / AMBIGUOUS evidence (python/evidence.py).
- Every language: an Import node per import binding and a Decorator node per decorator,
  annotation or attribute (graph/statements.py): CONTAINS, RESOLVES_TO, APPLIES_TO.

Nothing is imported here, so a pool worker importing the reader stays cheap. Entry point:
`rhumbline.ingest.pipeline.ingest_local`.
"""

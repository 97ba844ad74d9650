"""Phase 1 as a plan of shards, run by a pluggable executor.

    list and shard the tree (layout.py: by directory, bounded by bytes and files)
    → parse each shard (worker.py: paths in, each parsed file's facts written to a
      content-addressed store, reusable across versions; a plain JSON-able answer out)
    → the parent reads the facts back, in path order, and the ingest goes on as ever:
      resolution, the staged graph write, the head flip (pipeline.py).

A shard's task and its answer are plain dicts of strings and numbers, and its facts are blobs
under keys that depend only on the file's bytes, its language and the extractor's code, so any
executor that can call `parse_shard` somewhere the facts store reaches runs the same plan: here a
process pool (executors.py); a Step Functions Distributed Map over Lambda functions is another
(ingest/distributed/, the facts in S3: facts_bucket.py). The single-process
reader (discover/parallel.py) stays the path for small trees, chosen by size (executors.by_size).
"""

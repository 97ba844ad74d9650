"""Phase 1 as a plan of shards, run by a pluggable executor.

    list and shard the tree (layout.py: by directory, bounded by bytes and files)
    → parse each shard (worker.py: paths in, one answer out, answer.py: each file's row and
      its facts, one object whatever the shard's file count)
    → the parent reads the answers back, in path order, and the ingest goes on as ever:
      resolution, the staged graph write, the head flip (pipeline.py).

A shard's task is a plain dict of strings and its answer one `bytes`, and the worker touches no
store, so any executor that can call `parse_shard` somewhere and hand its answer back runs the
same plan: here a process pool (executors.py); a Step Functions Distributed Map over Lambda
functions is another (ingest/distributed/: each answer one object in S3, kept under its shard's
key for later runs, content_ids.py). The single-process
reader (discover/parallel.py) stays the path for small trees, chosen by size (executors.by_size).
"""

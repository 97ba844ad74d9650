"""The shard plan hosted on Step Functions (template.yaml, statemachines/ingest.asl.yaml).

    plan    fetch the source, list and shard the tree (sharded/layout.py), start the version
            (the project's lease, held for the whole run), copy in the answers earlier runs
            kept for unchanged shards, upload the tree once (each other shard's files a span
            of it), write the shard list the Distributed Map reads
    shard   one per shard, in the Map: its span in, sharded/worker.py's parse_shard, its
            one answer (each file's row and facts) written beside the run and kept by its key,
            its files' contents stored where the deployment keeps them in a bucket (contents.py)
    finish  the tree again, and the ingest as ever (pipeline.ingest_local, continuing the
            plan's version) with phase 1 read from the answers, one GET a shard, recording the
            contents the workers stored
    failed  a step or a shard failed past its retry: the version fails, naming the shard

Each step's input and output are small JSON objects; everything large is under the run's prefix
in the ingest bucket (run.py). A tree at most sharded.executors.SHARDED_ABOVE_BYTES to parse skips
the Map: finish parses it with the single reader, as the one-function ingest does.
"""

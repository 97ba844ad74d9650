"""What an ingest remembers between versions, and how it uses it (docs/incremental.md).

1. Phase 1 reads only files whose stat stamp changed (stat_index.py) and parses only bytes the
   facts cache has not seen (facts_cache.py).
2. Phase 2 is skipped when its inputs are the stored version's (inputs_key.py); rebuilds only the
   changed files' partitions when that is provably exact (ingest/partial.py, with
   history_records.py for new commits); otherwise runs over every file's facts, which is what
   makes the result exact in every case.
3. The new graph is compared with the snapshot of the version the store holds (records.py,
   format.py, storage.py) and only the difference is written (changes.py). Any two retained
   versions can be diffed exactly (diff.py: what graph_diff returns).
"""

"""List and shard: a tree's files cut into shards by directory, each bounded in bytes and files.

Paths arrive sorted, so a directory's files are contiguous; a shard takes whole directories while
they fit its budget, and a directory larger than a shard is cut by size into as many as it needs.
A shard is a tuple of paths: the only thing a worker is told besides where the tree is.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

# A shard's budget: enough work that a worker's start and its answer's hop are small beside it,
# little enough that a worker holds one shard's facts in a few hundred MB at most.
SHARD_BYTES = 8 * 1024 * 1024
SHARD_FILES = 2_000


def plan_shards(
    paths: Sequence[str], sizes: Sequence[int], *, max_bytes: int = SHARD_BYTES, max_files: int = SHARD_FILES
) -> list[list[int]]:
    """Indices of `paths` (sorted) by shard: whole directories while they fit, big ones cut."""
    if max_bytes < 1 or max_files < 1:
        raise ValueError(f"a shard needs a positive budget, not {max_bytes} bytes and {max_files} files")
    shards: list[list[int]] = []
    current: list[int] = []
    spent = 0
    for _, group in groupby(range(len(paths)), key=lambda index: paths[index].rpartition("/")[0]):
        members = list(group)
        weight = sum(sizes[index] for index in members)
        if current and (spent + weight > max_bytes or len(current) + len(members) > max_files):
            shards.append(current)
            current, spent = [], 0
        for index in members:  # a directory alone over budget is cut by size
            if current and (spent + sizes[index] > max_bytes or len(current) >= max_files):
                shards.append(current)
                current, spent = [], 0
            current.append(index)
            spent += sizes[index]
    if current:
        shards.append(current)
    return shards


def described(number: int, files: int, first: str, last: str) -> str:
    """How a failure names a shard: its number and the paths it spans."""
    return f"shard {number} ({files} files, {first} to {last})"

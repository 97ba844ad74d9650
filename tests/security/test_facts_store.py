"""The facts store of the shard plan (ingest/sharded/facts_store.py) names nothing outside itself,
and what it holds cannot make an ingest run code or fail: a key is checked against its one form
(`<fingerprint>/<language>/<sha256>`) before a path is made of it, whoever wrote it (a worker's
answer included); a blob is decoded by the facts codec's restricted unpickler, and one that does
not decode, or is gone, is parsed again from the file and replaced."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from rhumbline.ingest.sharded.executors import ShardedReader, in_process
from rhumbline.ingest.sharded.facts_store import FactsDirectory, facts_key
from rhumbline.ingest.sharded.worker import parse_shard
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint

SOURCE = "def greet(name):\n    return name.title()\n"
ESCAPES = [
    "../../etc/passwd", "/etc/passwd", f"{'0' * 16}/python/../../../x", f"{'0' * 16}/python/{'a' * 63}",
    f"{'0' * 16}/Python/{'a' * 64}", f"{'0' * 16}/python/{'a' * 64}/x", f"{'0' * 15}/python/{'a' * 64}", "",
]  # fmt: skip


@pytest.mark.parametrize("key", ESCAPES)
def test_a_key_of_another_form_names_no_path(tmp_path: Path, key: str) -> None:
    store = FactsDirectory(tmp_path / "facts")
    (tmp_path / "x").write_bytes(b"outside")
    for call in (store.has, store.get, lambda k: store.put(k, b"blob")):
        with pytest.raises(ValueError, match="not a facts key"):
            call(key)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x"]


def test_facts_keys_are_made_only_of_what_decides_the_facts() -> None:
    digest = "a" * 64
    assert facts_key("0123456789abcdef", "python", digest) == f"0123456789abcdef/python/{digest}"
    with pytest.raises(ValueError, match="not a facts key"):
        facts_key("0123456789abcdef", "../python", digest)


def test_a_tampered_answer_or_blob_runs_nothing_and_fails_nothing(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "app.py").write_text(SOURCE)
    facts = tmp_path / "facts"
    task = {"root": str(tree), "paths": ["app.py"], "facts": str(facts), "fingerprint": extractor_fingerprint()}
    (row,) = parse_shard(task)["outcomes"]
    key = row[-1]

    # A blob that would call a function when unpickled: refused by the codec, parsed again, replaced.
    evil = pickle.dumps(_Evil(tmp_path / "ran"))
    FactsDirectory(facts).put(key, evil)
    reader = ShardedReader(facts, extractor_fingerprint(), executor=in_process)
    ((outcome, blob),) = reader(tree, ["app.py"], workers=1)
    assert [d.name for d in outcome.code.definitions] == ["greet"]
    assert FactsDirectory(facts).get(key) == blob != evil
    assert not (tmp_path / "ran").exists()

    # A blob gone from under its answer (expired in the bucket): parsed again and put back.
    (facts / key).unlink()
    ((outcome, blob),) = ShardedReader(facts, extractor_fingerprint(), executor=_answered(row))(tree, ["app.py"], workers=1)
    assert [d.name for d in outcome.code.definitions] == ["greet"] and FactsDirectory(facts).get(key) == blob

    # An answer naming a key outside the store is refused before any path is opened.
    forged = _answered([*row[:-1], "../../tree/app.py"])
    with pytest.raises(ValueError, match="not a facts key"):
        ShardedReader(facts, extractor_fingerprint(), executor=forged)(tree, ["app.py"], workers=1)


def _answered(row: list):  # type: ignore[no-untyped-def,type-arg]
    """An executor whose one shard answers `row` without running the worker."""
    from contextlib import contextmanager

    @contextmanager
    def executor(workers: int):  # type: ignore[no-untyped-def]
        yield lambda work, tasks: iter([(0, {"outcomes": [row]})])

    return executor


class _Evil:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple:
        return (Path.touch, (self.target,))

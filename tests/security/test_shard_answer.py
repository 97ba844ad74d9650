"""A shard's answer (ingest/sharded/answer.py) cannot make an ingest run code, nor pass off a
partial or shifted set of facts: its header is JSON, its facts lengths must cover the object
exactly or it is refused naming why, and a facts blob is read by the facts codec's restricted
unpickler; one that does not decode is parsed again from the file, never run."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from rhumbline.ingest.sharded.answer import decode_answer, encode_answer
from rhumbline.ingest.sharded.executors import ShardedReader
from rhumbline.ingest.sharded.worker import parse_shard

SOURCE = "def greet(name):\n    return name.title()\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "app.py").write_text(SOURCE)
    return tmp_path / "tree"


def test_an_answer_round_trips_its_rows_and_facts(tree: Path) -> None:
    body = parse_shard({"root": str(tree), "paths": ["app.py", "missing.py"]})
    (row, blob), (skipped, none) = decode_answer(body)
    assert row[:3] == ["file", "app.py", "python"] and blob and skipped[:2] == ["skipped", "missing.py"] and none is None
    assert encode_answer(decode_answer(body)) == body


def test_facts_that_would_run_code_are_parsed_again_instead(tree: Path, tmp_path: Path) -> None:
    ((row, _),) = decode_answer(parse_shard({"root": str(tree), "paths": ["app.py"]}))
    evil = pickle.dumps(_Evil(tmp_path / "ran"))

    ((outcome, blob),) = ShardedReader(executor=_answered(encode_answer([(row, evil)])))(tree, ["app.py"], workers=1)

    assert [d.name for d in outcome.code.definitions] == ["greet"] and blob != evil
    assert not (tmp_path / "ran").exists()


def _header(rows: list[Any], lengths: list[Any]) -> bytes:
    header = json.dumps({"outcomes": rows, "facts": lengths}).encode()
    return len(header).to_bytes(4, "big") + header


ROW = ["file", "app.py", "python", "a" * 64, 2, 41]
TAMPERED = {
    "a longer blob than the object": _header([ROW], [10]) + b"12345",
    "bytes after the last blob": _header([ROW], [2]) + b"12345",
    "a negative length": _header([ROW], [-5]) + b"",
    "lengths that do not pair with the rows": _header([ROW, ROW], [None]),
    "a header that is not JSON": b"\x00\x00\x00\x05{nope",
    "a header longer than the object": b"\xff\xff\xff\xff{}",
    "a row that is not a list": _header(["file"], [None]),
}


@pytest.mark.parametrize("body", TAMPERED.values(), ids=TAMPERED.keys())
def test_a_tampered_answer_is_refused_naming_why(tree: Path, body: bytes) -> None:
    with pytest.raises(ValueError, match="not a shard answer: "):
        ShardedReader(executor=_answered(body))(tree, ["app.py"], workers=1)


def _answered(body: bytes) -> Callable[[int], Any]:
    """An executor whose one shard answers `body` without running the worker."""

    @contextmanager
    def executor(workers: int) -> Iterator[Any]:
        yield lambda work, tasks: iter([(0, body)])

    return executor


class _Evil:
    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.target,))

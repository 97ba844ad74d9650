"""What an ingested definition's body says is searched, on the SQLite and the Neo4j graph stores:
the names it calls and reads, its comments and strings (words.py `body_terms`, written with the
node, so a one-file re-ingest never leaves the old body searchable); and Python declarations
without a body (`@overload` stubs, abstract and protocol methods) rank under their
implementation and fold into it; a hook's registration ranks under the code that runs the hooks."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.stores.graph.protocol import GraphStore

POOL = """\
class Pool:
    def acquire(self):
        \"\"\"Take a connection.\"\"\"
        # {comment}
        return self.{read}()


def unrelated():
    return "nothing here"
"""
POOL_V1 = POOL.format(comment="hand out an idle socket", read="_lanterns.popleft")
# acquire's body says something else: its old words must stop finding it.
POOL_V2 = POOL.format(comment="borrow from the reservoir", read="_marmalade.pop")
DECLARED = '''\
import abc
from typing import Protocol, overload


class Transport(Protocol):
    def deliver_frame(self, frame: bytes) -> None:
        """Deliver one frame to the peer over the wire, whole."""


class BaseTransport(abc.ABC):
    @abc.abstractmethod
    def deliver_frame(self, frame: bytes) -> None:
        """Deliver one frame to the peer over the wire, whole."""


class SocketTransport(BaseTransport):
    def deliver_frame(self, frame):
        self.sock.sendall(frame)


@overload
def decode_packet(data: bytes) -> str: ...
@overload
def decode_packet(data: str) -> str: ...
def decode_packet(data):
    return data.decode() if isinstance(data, bytes) else data
'''


def _ingest_one(tmp_path: Path, store: GraphStore, engine: Engine, project: str, name: str, text: str) -> None:
    """A tree of one Python file, ingested."""
    root = tmp_path / "app"
    root.mkdir()
    (root / name).write_text(text)
    pipeline.ingest_local(root, project, store=store, engine=engine)


def _ids(store: GraphStore, project: str, query: str) -> list[str]:
    return [hit.node.id for hit in store.search([project], query)[0]]


def test_a_body_is_searched_by_its_current_words_only(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    root = tmp_path / "app"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "other.py").write_text("def other():\n    return 1\n")
    pool = root / "pkg" / "pool.py"
    pool.write_text(POOL_V1)
    acquire = "method:pkg/pool.py:Pool.acquire"
    pipeline.ingest_local(root, unique_project, store=store, engine=engine)
    # Words only its body holds: a comment, a name read, a name called.
    for query in ("idle socket", "lanterns", "popleft"):
        assert _ids(store, unique_project, query)[:1] == [acquire], query

    pool.write_text(POOL_V2)
    again = pipeline.ingest_local(root, unique_project, store=store, engine=engine)

    assert (again.changes.mode, again.changes.files_parsed) == ("incremental", 1)
    for query in ("idle socket", "lanterns", "popleft"):
        assert acquire not in _ids(store, unique_project, query), query
    for query in ("reservoir", "marmalade"):
        assert _ids(store, unique_project, query)[:1] == [acquire], query


def test_python_declarations_rank_under_their_implementation_and_fold_into_it(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    _ingest_one(tmp_path, store, engine, unique_project, "transport.py", DECLARED)

    for query in ("deliver_frame", "how is a frame delivered to the peer?"):
        hits, _ = store.search([unique_project], query)
        assert hits[0].node.id == "method:transport.py:SocketTransport.deliver_frame", query
        assert {d.id for d in hits[0].declarations} == {
            "method:transport.py:Transport.deliver_frame", "method:transport.py:BaseTransport.deliver_frame",
        }, query  # fmt: skip
    hits, _ = store.search([unique_project], "decode_packet")
    assert hits[0].node.id == "function:transport.py:decode_packet"
    assert {d.id for d in hits[0].declarations} == {
        "function:transport.py:decode_packet~1", "function:transport.py:decode_packet~2",
    }  # fmt: skip
    assert not [hit for hit in hits if hit.node.id.startswith("function:transport.py:decode_packet~")]


HOOKS = '''\
class App:
    def teardown_request(self, f):
        """Register a function to call when the request context is torn down."""
        self.teardown_request_funcs.setdefault(None, []).append(f)
        return f

    def do_teardown_request(self, exc):
        """Call the functions registered for when the request context is torn down, newest first."""
        for func in reversed(self.teardown_request_funcs.get(None, ())):
            func(exc)
'''


def test_a_hooks_registration_ranks_under_the_code_that_runs_the_hooks(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    _ingest_one(tmp_path, store, engine, unique_project, "hooks.py", HOOKS)

    hits, _ = store.search([unique_project], "what happens when the request context is torn down?")

    assert [hit.node.id for hit in hits[:2]] == [
        "method:hooks.py:App.do_teardown_request", "method:hooks.py:App.teardown_request",
    ]  # fmt: skip
    # Its name asked for, the registration is still the exact match.
    assert store.search([unique_project], "teardown_request")[0][0].node.id == "method:hooks.py:App.teardown_request"

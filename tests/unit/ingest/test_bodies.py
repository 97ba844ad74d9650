"""A definition's body words (ingest/bodies.py) and body terms (words.py): its own lines only,
what it calls and reads and its prose, bounded however long the body."""

from __future__ import annotations

from rhumbline.ingest.bodies import BODY_WORDS, with_bodies
from rhumbline.ingest.languages.python.extract import extract_python
from rhumbline.stores.graph.words import MAX_BODY_TERMS, node_text

SOURCE = b'''\
class Pool:
    """A pool of connections."""
    limit = compute_limit()

    def acquire(self, timeout):
        """Take a connection."""
        # hand out an idle socket
        conn = self._idle.popleft()
        if conn is None:
            raise PoolEmpty("no socket left")
        return conn
'''


def _bodies(source: bytes) -> dict[str, str]:
    code = extract_python(source)
    return {d.qualname: d.body for d in with_bodies(code, source).definitions}


def test_a_body_holds_what_it_calls_reads_and_says_and_not_its_nested_definitions() -> None:
    bodies = _bodies(SOURCE)
    said = bodies["Pool.acquire"].split()
    assert {"popleft", "_idle", "PoolEmpty", "hand", "idle", "socket", "left"} <= set(said)
    # Not its header, docstring, keywords, or plain local names.
    assert not {"acquire", "timeout", "Take", "conn", "return", "None", "self"} & set(said)
    # The class has the lines its methods do not: its own attribute's call.
    assert bodies["Pool"].split() == ["compute_limit"]


def test_a_long_body_keeps_a_bounded_number_of_words_and_terms() -> None:
    calls = "\n".join(f"    call_number_{i}(word{i}x)  # comment{i}y" for i in range(500))
    source = f"def long():\n{calls}\n".encode()
    body = _bodies(source)["long"]
    assert len(body.split()) == BODY_WORDS
    terms = node_text("Function", "long", "m.long", "m.py", "def long():", None, body=body).body_terms.split()
    assert 0 < len(terms) <= MAX_BODY_TERMS
    assert len(terms) == len(set(terms))


def test_the_scan_finds_calls_and_reads_wherever_the_text_between_them_ends() -> None:
    # A call right after punctuation, a read after a call's parenthesis, a call after a number
    # glued to a word (not a name: `2fast` is no identifier), a `*` comment line, strings.
    source = b'''\
def run(x):
    y = [fetch_all(x)].pop().strip ( )
    z = 2fast(x) + x.size*3
    /* a star block
     * starred prose line
     */
    return "quoted words" + 'single one'
'''
    said = _bodies(source)["run"].split()
    assert said[:4] == ["fetch_all", "pop", "strip", "size"]
    assert "fast" not in said
    assert {"star", "block", "starred", "prose", "line", "quoted", "words", "single", "one"} <= set(said)


def test_names_that_fill_the_bound_leave_no_room_for_prose() -> None:
    calls = "\n".join(f"    call_number_{i}()" for i in range(BODY_WORDS + 5))
    source = f"def busy():\n    # a comment\n{calls}\n".encode()
    said = _bodies(source)["busy"].split()
    assert said == [f"call_number_{i}" for i in range(BODY_WORDS)]

"""Source text shared by the incremental-ingest tests' sample apps."""

# pkg/b.py's definitions that both sample apps start from: a base class, and two functions that
# the edits change (helper's body) and move (mover).
LIBRARY = """\
class Base:
    def base_method(self):
        return 1


def helper():
    return 1


def mover():
    return 2
"""

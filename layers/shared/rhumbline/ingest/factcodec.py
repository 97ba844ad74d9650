"""Phase-1 facts as bytes: what the facts cache stores (incremental.py) and pool workers send back.

Facts are pickled NamedTuples and loaded by a restricted unpickler that only constructs classes
from `rhumbline.ingest.*` (tuples of plain values): a tampered row cannot run code. Encoding runs
in the pool workers beside the parse (read.read_sources_encoded), not in the process that waits
for them, and these bytes are what the workers send back: the facts are pickled once.
"""

from __future__ import annotations

import io
import pickle
import zlib
from typing import Any

# Facts are small and written once per change: fast compression is enough.
_FACTS_COMPRESSION = 1
_PICKLE_PROTOCOL = 5


def encode_facts(code: Any) -> bytes:
    return zlib.compress(pickle.dumps(code, protocol=_PICKLE_PROTOCOL), _FACTS_COMPRESSION)


class _FactsUnpickler(pickle.Unpickler):
    """Only NamedTuple-like classes of the ingest package: never a function or another global."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("rhumbline.ingest.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, tuple):
                return found
        raise pickle.UnpicklingError(f"cached facts may not reference {module}.{name}")


def decode_facts(blob: bytes) -> Any:
    return _FactsUnpickler(io.BytesIO(zlib.decompress(blob))).load()

"""Lambda SnapStart: what runs before the snapshot of a published version's init, and after each
restore from it (the runtime's `snapshot_restore_py`; anywhere else these hooks never run).

One snapshot is restored into many containers, so it must hold nothing that is one container's
own. Init opens no connection, makes no AWS client and reads no secret: runtime/resources.py opens
them on first use, which comes after the restore. `after_restore` still makes sure of it, and
re-seeds what would otherwise repeat in every copy:
- the `random` module's generator, seeded once at import (uuid4 and `secrets` read os.urandom,
  which the restored kernel re-seeds);
- the container's engines, graph store and settings (resources.reset), and the Secrets Manager
  client with the secrets it caches (secrets.reset): made again on first use.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from rhumbline import secrets
from rhumbline.runtime import resources

_registered = False


def after_restore() -> None:
    random.seed()
    resources.reset()
    secrets.reset()


def runtime_hooks() -> Any:
    """The Lambda runtime's hook registry, or None where there is none (no SnapStart, not Lambda)."""
    try:
        import snapshot_restore_py
    except ImportError:
        return None
    return snapshot_restore_py


def register(hooks: Any = None) -> bool:
    """Register `after_restore` with the runtime, once per process; whether it is registered."""
    global _registered
    hooks = hooks or runtime_hooks()
    if hooks is None:
        return False
    if not _registered:
        hooks.register_after_restore(after_restore)
        _registered = True
    return True


def before_snapshot(*steps: Callable[[], Any], hooks: Any = None) -> None:
    """Run `steps` before the snapshot is taken, so that the snapshot holds what the first call
    would otherwise load. None of them may open a connection (after_restore would close it)."""
    hooks = hooks or runtime_hooks()
    if hooks is None:
        return
    register(hooks)
    for step in steps:
        hooks.register_before_snapshot(step)

"""Another revision's code beside this checkout's: a git ref checked out into a temporary
worktree (removed afterwards), or a directory that already holds a checkout."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.serve import THIS_CHECKOUT, Checkout


def _git(*arguments: str) -> str:
    done = subprocess.run(["git", "-C", str(THIS_CHECKOUT), *arguments], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(arguments)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def describe(root: Path) -> str:
    """The commit a checkout is at, with `+dirty` when its tracked files differ from it."""
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    return f"{head or '?'}{'+dirty' if dirty else ''}"


@contextmanager
def checkout(ref: str) -> Iterator[Checkout]:
    """REF as a Checkout: a directory holding layers/shared/rhumbline is used as it is; anything
    else is resolved by git and checked out (detached) into a temporary worktree."""
    path = Path(ref).expanduser()
    if (path / "layers" / "shared" / "rhumbline").is_dir():
        yield Checkout(path.name[:14], path.resolve())
        return
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="rhumbline-ref-") as scratch:
        root = Path(scratch) / "checkout"
        _git("worktree", "add", "--detach", str(root), commit)
        try:
            yield Checkout(ref[:14], root)
        finally:
            _git("worktree", "remove", "--force", str(root))


def this_checkout() -> Checkout:
    return Checkout("this", THIS_CHECKOUT)


def legend(checkouts: list[Checkout]) -> str:
    """What each short name stands for: the directory and the commit it is at."""
    return "; ".join(f"{c.name} = {c.root} at {describe(c.root)}" for c in checkouts)

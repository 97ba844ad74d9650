"""`rhumbline watch PATH` and `rhumbline up --watch`: re-ingest a tree when its files change.

watchfiles (Rust's notify) reports changes in debounced batches: a save that touches several files,
or a branch switch, is one batch and one incremental ingest. The loop runs one ingest at a time and
the ingest itself holds the project's lock (rhumbline/ingest/lock.py), so a watcher never ingests a
project while another ingest of it runs. The store's own files never trigger an ingest.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger("rhumbline.watch")

DEBOUNCE_MS = 1000
# Directories no source tree wants watched, beyond watchfiles' own list (.git, node_modules, .venv, ...).
EXTRA_IGNORED_DIRS = (".rhumbline", ".aws-sam", "dist", "build", ".services", ".tools")


def change_filter(home: Path) -> Any:
    from watchfiles import DefaultFilter

    return DefaultFilter(
        ignore_dirs=(*DefaultFilter.ignore_dirs, *EXTRA_IGNORED_DIRS),
        ignore_paths=(str(home.resolve()),),
    )


def watch_and_ingest(
    root: Path,
    ingest: Callable[[], Any],
    *,
    home: Path,
    stop: threading.Event | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    report: Callable[[str], None] = print,
) -> None:
    """Call `ingest` after each batch of changes under `root` until `stop` is set (or Ctrl-C).
    A failed ingest is reported and the watch goes on: the previous graph version is still served."""
    from watchfiles import watch

    for changes in watch(
        root, watch_filter=change_filter(home), debounce=debounce_ms, stop_event=stop, raise_interrupt=False
    ):
        report(f"{len(changes)} change{'s' if len(changes) != 1 else ''} under {root}: re-ingesting")
        try:
            summary = ingest()
        except Exception as error:  # noqa: BLE001 - one failed ingest must not end the watch
            logger.debug("re-ingest failed", exc_info=True)
            report(f"re-ingest failed: {error} (the previous graph version is still served)")
            continue
        report(describe(summary))


def stop_on_signals() -> threading.Event:
    """An event set by SIGINT or SIGTERM. The handlers are installed whatever dispositions the
    process inherited: a job started in the background inherits SIGINT ignored, and Python then
    never raises KeyboardInterrupt. Call it from the main thread."""
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    return stop


def describe(summary: Any) -> str:
    parsed = f", {summary.changes.files_parsed:,} parsed" if summary.changes is not None else ""
    return (
        f"re-ingested {summary.files:,} files{parsed}: {summary.node_count:,} nodes, {summary.edge_count:,} edges "
        f"in {summary.duration_s:.1f} s"
    )


def watch_in_background(root: Path, ingest: Callable[[], Any], *, home: Path) -> tuple[threading.Thread, threading.Event]:
    """The watcher on a daemon thread (beside `rhumbline up`'s server); set the event to stop it."""
    import watchfiles  # noqa: F401 - without the local extra, fail here in the caller's thread, not in the watcher's
    stop = threading.Event()
    thread = threading.Thread(
        target=watch_and_ingest, args=(root, ingest), kwargs={"home": home, "stop": stop}, name="rhumbline-watch", daemon=True
    )
    thread.start()
    return thread, stop

"""A one-line ingest progress display for a terminal: a bar, files done, total, and files per second.

With an incremental ingest the files whose facts are cached count as done at once; the rate then
includes them."""

from __future__ import annotations

import time
from typing import TextIO

REFRESH_SECONDS = 0.1
BAR_WIDTH = 30


class ProgressLine:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self._shown_at = 0.0
        self._width = 0

    def __call__(self, done: int, total: int | None = None) -> None:
        now = time.monotonic()
        # Redrawing on every file would cost more than parsing small ones.
        if now - self._shown_at < REFRESH_SECONDS and done != total:
            return
        self._shown_at = now
        rate = done / max(now - self.started, 1e-6)
        of_total = f"/{total:,}" if total is not None else ""
        bar = ""
        if total:
            filled = round(BAR_WIDTH * min(done, total) / total)
            bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * done // total:3d}%  "
        text = f"  {bar}{done:,}{of_total} files  {rate:,.0f} files/s"
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def finish(self) -> None:
        if self._width:
            self.stream.write("\n")
            self.stream.flush()

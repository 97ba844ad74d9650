"""Another code-graph tool on the same target, for bench/ingest.py's side-by-side rows.

    python bench/ingest.py --only django --compare cgc
    python bench/ingest.py --only django --compare "cgc index {path} --force"
    python bench/ingest.py --compare auto            # every known tool found on PATH

A spec is a known tool name (KNOWN_TOOLS) or a command template with `{path}`. The command runs
under a small measuring process (this file, `--measure`), so the peak RSS read from its children's
rusage belongs to that tool alone, not to the ingests the benchmark ran before. Nothing is
installed or downloaded: a tool missing from PATH is reported and skipped. Its own store (Neo4j,
Memgraph, KùzuDB) must be up beforehand; that is the tool's setup, not the benchmark's.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# name → (command template, what it is). PyPI: codegraphcontext (`cgc`), code-graph-rag (`cgr`).
KNOWN_TOOLS: dict[str, tuple[str, str]] = {
    "cgc": ("cgc index {path} --force", "CodeGraphContext (pip install codegraphcontext)"),
    "cgr": (
        "cgr start --repo-path {path} --update-graph --clean",
        "code-graph-rag (pip install code-graph-rag; needs Memgraph running)",
    ),
}
DEFAULT_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Comparison:
    name: str
    command: str
    status: str  # "ok", "not installed", "timed out after N s", "failed: exit N"
    seconds: float | None = None
    cpu_s: float | None = None
    peak_rss_mb: int | None = None


def commands(spec: str) -> list[tuple[str, str]]:
    """(name, template) pairs a --compare value names; `auto`: the known tools on PATH."""
    spec = spec.strip()
    if not spec:
        raise ValueError("--compare needs a tool name or a command template with {path}")
    if spec == "auto":
        return [(name, template) for name, (template, _) in KNOWN_TOOLS.items() if shutil.which(name)]
    if spec in KNOWN_TOOLS:
        return [(spec, KNOWN_TOOLS[spec][0])]
    if "{path}" not in spec:
        known = ", ".join(sorted(KNOWN_TOOLS))
        raise ValueError(f"--compare {spec!r}: not a known tool ({known}, auto) nor a template with {{path}}")
    return [(shlex.split(spec)[0], spec)]


def run(name: str, template: str, path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> Comparison:
    argv = [part.replace("{path}", str(path)) for part in shlex.split(template)]
    shown = shlex.join(argv)
    if shutil.which(argv[0]) is None:
        return Comparison(name, shown, f"not installed (`{argv[0]}` is not on PATH): skipped")
    measure = [sys.executable, __file__, "--measure", str(timeout_s), "--", *argv]
    # The measuring process never takes longer than the tool's own timeout plus its clean-up.
    finished = subprocess.run(measure, capture_output=True, text=True, timeout=timeout_s + 60)
    if finished.returncode != 0 or not finished.stdout.strip():
        return Comparison(name, shown, f"failed: the measuring process exited {finished.returncode}")
    figures = json.loads(finished.stdout.strip().splitlines()[-1])
    if figures["timed_out"]:
        status = f"timed out after {timeout_s:g} s"
    elif figures["returncode"] != 0:
        status = f"failed: exit {figures['returncode']}"
    else:
        status = "ok"
    return Comparison(name, shown, status, figures["seconds"], figures["cpu_s"], figures["peak_rss_mb"])


def _measure(timeout_s: float, argv: list[str]) -> dict:
    """Run argv (its output discarded) in its own process group; its wall time, CPU and peak RSS."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    timed_out = False
    try:
        returncode = process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)  # the tool and whatever it started
        returncode = process.wait()
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "returncode": returncode,
        "timed_out": timed_out,
        "seconds": round(seconds, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": usage.ru_maxrss // 1024,
    }


if __name__ == "__main__" and len(sys.argv) > 3 and sys.argv[1] == "--measure" and sys.argv[3] == "--":
    print(json.dumps(_measure(float(sys.argv[2]), sys.argv[4:])))

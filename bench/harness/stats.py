"""Percentiles, the machine's load, and CPU time: what every bench table prints."""

from __future__ import annotations

import os
import statistics
import subprocess
from pathlib import Path


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def median(values: list[float]) -> float:
    return statistics.median(values)


def uptime() -> str:
    """`uptime`'s line: on a shared machine a timing means little without the load it was taken at."""
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        one, five, fifteen = os.getloadavg()
        return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"


def server_cpu_ms(pid: int) -> float:
    """CPU time a process has used (all threads), in ms: barely moved by other processes."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")

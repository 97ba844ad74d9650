"""The corpus zoo: every project declared in bench/zoo.json (pinned releases from PyPI, the Go proxy,
Maven Central, npm and crates.io) ingested, each in its own process into a fresh SQLite home.

    .venv/bin/python bench/zoo.py [--only NAME ...] [--language L ...] [--limit N] [--jobs N] [--report zoo.json]

Per project: ok or failed (the exception), the files lost to an exception (the ingest summary's
failures), syntax errors by language, files, nodes and seconds; then the totals. Exits 1 when an
ingest failed, a file was lost or a project could not be fetched. Downloads are cached in
bench/.corpus (bench/harness/callgraph_sets.py fetches them with each registry's client).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from harness import zoo

PROJECT_TIMEOUT_S = 900


def run_one(key: str) -> zoo.Result:
    """One declared project fetched and ingested in this process."""
    entry = next(e for e in zoo.entries() if e.key == key)
    try:
        root = zoo.fetch(entry)
    # What a registry or its archive can fail with (a missing release, a bad archive): the project's
    # result, counted in the totals; anything else is a bug of the bench and raises.
    except (subprocess.SubprocessError, OSError, SystemExit, KeyError, ValueError, tarfile.TarError,
            zipfile.BadZipFile) as error:  # fmt: skip
        detail = getattr(error, "stderr", "") or ""
        return zoo.Result(
            key, entry.language, "fetch-failed", f"{type(error).__name__}: {error} {detail}".strip()[:2000]
        )
    return zoo.ingest(entry, root)


def run_isolated(entry: zoo.Entry) -> zoo.Result:
    """One project in a child process: a crash or a hang is that project's failure, not the run's."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", entry.key]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROJECT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return zoo.Result(entry.key, entry.language, "failed", f"timeout: more than {PROJECT_TIMEOUT_S} s")
    last = done.stdout.strip().splitlines()[-1:] or [""]
    if done.returncode != 0 or not last[0].startswith("{"):
        return zoo.Result(entry.key, entry.language, "failed", f"exit {done.returncode}: {done.stderr.strip()[-2000:]}")
    return zoo.Result(**json.loads(last[0]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--only", nargs="+", default=[], metavar="NAME", help="projects by name or registry:name@version"
    )
    parser.add_argument("--language", nargs="+", default=[], help="projects of these languages (zoo.json's `language`)")
    parser.add_argument("--limit", type=int, help="the first N selected projects")
    parser.add_argument("--jobs", type=int, default=1, help="projects ingested at once (one process each)")
    parser.add_argument("--report", type=Path, help="write the report (totals and per project) as JSON here")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child of run_isolated
    options = parser.parse_args()
    if options.one:
        print(json.dumps(asdict(run_one(options.one))))
        return 0
    chosen = zoo.select(zoo.entries(), options.only, options.language, options.limit)
    results: list[zoo.Result] = []
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        for result in pool.map(run_isolated, chosen):
            results.append(result)
            print(zoo.render([result]).splitlines()[1], flush=True)
    print(zoo.render(results))
    if options.report:
        options.report.write_text(json.dumps(zoo.report(results), indent=1) + "\n")
    return zoo.exit_code(results)


if __name__ == "__main__":
    sys.exit(main())

"""Cold-start import cost of the Lambda entry points, and the size of the built layer.

    .venv/bin/python bench/cold_start.py [--runs 5] [--against REF]

Each measurement is a fresh interpreter that imports one `functions/<name>/app.py` (what Lambda's
init phase does), timed inside the child (CPU and wall); the table shows the medians of the runs. Variants:

- venv, .pyc: the project's venv with its compiled caches (a warm disk, like a reused container);
- venv, no .pyc: no cache read or written (-B, PYTHONDONTWRITEBYTECODE, PYTHONPYCACHEPREFIX at an
  empty directory), i.e. what a layer without .pyc costs on read-only /opt;
- layer, .pyc: the built layer (.aws-sam/build/SharedLayer/python) first on sys.path, as in
  Lambda, then a stand-in for the runtime's own site-packages (boto3 and its dependencies,
  linked from the venv; not the whole venv, whose many distributions slow down metadata scans).
  Run `scripts/sam.sh build` first.

The first entry is the yardstick: the mcp SDK's own Streamable HTTP server (bench/harness/
sdk_server.py); each entry's median is also printed as a multiple of its median. --against REF
adds REF's gateway (a git ref checked out into a temporary worktree, or a checkout's directory),
its code first on PYTHONPATH, in the venv variants: before and after, measured at the same moment.

Not part of the test suite: timings depend on the machine. Entry points whose modules do not
exist yet are reported as missing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from harness.checkouts import checkout, legend
from harness.stats import uptime

ROOT = Path(__file__).resolve().parents[1]
LAYER = ROOT / ".aws-sam" / "build" / "SharedLayer"
# The mcp SDK's own server import: the yardstick of the gateway's (issue 30: at most 1.3x).
SDK_ENTRY = "mcp SDK server"
ENTRIES = {
    SDK_ENTRY: ROOT / "bench" / "harness" / "sdk_server.py",
    "gateway": ROOT / "functions" / "gateway" / "app.py",
    "tool (get_node)": ROOT / "functions" / "tool" / "app.py",
}

# The child: time the import of the entry file (as Lambda imports `app`), print JSON.
CHILD = r"""
import json, sys, time, importlib.util
path = sys.argv[1]
started, cpu = time.perf_counter(), time.process_time()
spec = importlib.util.spec_from_file_location("app", path)
module = importlib.util.module_from_spec(spec)
sys.modules["app"] = module
try:
    spec.loader.exec_module(module)
except ModuleNotFoundError as error:
    print(json.dumps({"missing": error.name}))
    sys.exit(0)
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
assert callable(getattr(module, "handler", None)), "no handler"
print(json.dumps({"ms": elapsed * 1000, "cpu_ms": cpu * 1000, "modules": len(sys.modules)}))
"""

# Like the deployed functions' environment, minus real ARNs: nothing may connect at import.
LAMBDA_LIKE_ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "POWERTOOLS_SERVICE_NAME": "rhumbline",
    "POWERTOOLS_METRICS_NAMESPACE": "Rhumbline",
    "POWERTOOLS_TRACE_DISABLED": "1",
    "RHUMBLINE_MODE": "hosted",
    "RHUMBLINE_GRAPH_BACKEND": "neo4j",
    "RHUMBLINE_DATABASE_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:bench-db-AbCdEf",
    "RHUMBLINE_NEO4J_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:bench-neo4j-AbCdEf",
    "RHUMBLINE_DISPATCH": "lambda",
    "RHUMBLINE_TOOL_FUNCTION_PREFIX": "bench-tool-",
    # Lambda sets it; the tool entry point serves the tool the name ends with.
    "AWS_LAMBDA_FUNCTION_NAME": "bench-tool-get_node",
}


# What the Lambda Python runtime has in its own site-packages (boto3 and what it needs).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "urllib3", "dateutil", "six")


def runtime_standin(directory: Path) -> Path:
    """A directory of links to the runtime's packages in the venv (built once per run)."""
    site = next(Path(p) for p in sys.path if p.endswith("site-packages") and (Path(p) / "boto3").is_dir())
    directory.mkdir(exist_ok=True)
    for entry in site.iterdir():
        stem = entry.name.split("-")[0].split(".")[0].lower().replace("python_", "")
        if stem in RUNTIME_PACKAGES and not (directory / entry.name).exists():
            (directory / entry.name).symlink_to(entry)
    return directory


def run_once(entry: Path, variant: str, empty_cache: str, runtime_site: Path) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "RHUMBLINE_"))}
    env.update(LAMBDA_LIKE_ENV)
    # Another checkout's entry point: its own code before the installed one.
    code = entry.parents[2] / "layers" / "shared"
    if entry.parents[2] != ROOT and variant != "layer, .pyc":
        env["PYTHONPATH"] = str(code)
    command = [sys.executable]
    if variant == "venv, no .pyc":
        command.append("-B")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = empty_cache  # caches are looked up (and not found) here
    elif variant == "layer, .pyc":
        # -S: no site-packages from the venv (the editable rhumbline would shadow the layer's);
        # the layer first, then the runtime's packages - Lambda's order.
        command += ["-S", "-B"]
        env["PYTHONPATH"] = os.pathsep.join([str(LAYER / "python"), str(runtime_site)])
    command += ["-c", CHILD, str(entry)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=entry.parent, timeout=120)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:80]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_all(
    cells: list[tuple[str, Path, str]], runs: int, runtime_site: Path
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], float]]:
    """Per (entry, variant): the line to print, and the median CPU time (steadier than wall time
    on a shared machine). Runs are interleaved (round-robin over the cells) so that load from
    other processes on the machine hits every cell alike."""
    samples: dict[tuple[str, str], list[float]] = {(name, variant): [] for name, _, variant in cells}
    cpu: dict[tuple[str, str], list[float]] = {(name, variant): [] for name, _, variant in cells}
    verdicts: dict[tuple[str, str], str] = {}
    for _ in range(runs):
        for name, entry, variant in cells:
            key = (name, variant)
            if key in verdicts:
                continue
            if not entry.exists():
                verdicts[key] = "missing (no entry file)"
                continue
            with tempfile.TemporaryDirectory() as empty_cache:
                result = run_once(entry, variant, empty_cache, runtime_site)
            if "missing" in result:
                verdicts[key] = f"missing ({result['missing']})"
            elif "error" in result:
                verdicts[key] = f"error: {result['error']}"
            else:
                samples[key].append(result["ms"])
                cpu[key].append(result["cpu_ms"])
    medians = {key: statistics.median(values) for key, values in cpu.items() if key not in verdicts}
    for key, value in medians.items():
        wall = samples[key]
        verdicts[key] = (
            f"{value:8.0f} ms  {statistics.median(wall):8.0f} ms  (min {min(wall):.0f}, max {max(wall):.0f})"
        )
    return verdicts, medians


def layer_size() -> str:
    if not (LAYER / "python").is_dir():
        return "no built layer (run scripts/sam.sh build)"
    files = [path for path in LAYER.rglob("*") if path.is_file()]
    unzipped = sum(path.stat().st_size for path in files)
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "layer.zip"
        # What sam deploy uploads: a deflated zip of the directory.
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
            for path in files:
                zipped.write(path, path.relative_to(LAYER))
        zipped_size = archive.stat().st_size
    pyc = sum(1 for path in files if path.suffix == ".pyc")
    return f"{unzipped / 2**20:.1f} MB unzipped, {zipped_size / 2**20:.1f} MB zipped, {len(files)} files ({pyc} .pyc)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", metavar="REF", help="also REF's gateway (venv variants)")
    parser.add_argument("--variants", default="venv, .pyc;venv, no .pyc;layer, .pyc", help="';'-separated")
    args = parser.parse_args()
    if args.against:
        with checkout(args.against) as other:
            print(legend([other]))
            ENTRIES[f"gateway @{other.name}"] = other.root / "functions" / "gateway" / "app.py"
            run(args)
    else:
        run(args)


def run(args: argparse.Namespace) -> None:
    variants = [v for v in args.variants.split(";") if v != "layer, .pyc" or (LAYER / "python").is_dir()]
    print(
        f"python {sys.version.split()[0]}, median of {args.runs} fresh processes per cell, load {os.getloadavg()[0]:.1f}\n"
    )
    cells = [
        (name, entry, variant)
        for name, entry in ENTRIES.items()
        for variant in variants
        if entry.parents[2] == ROOT or variant != "layer, .pyc"
    ]
    with tempfile.TemporaryDirectory() as tmp:
        results, medians = measure_all(cells, args.runs, runtime_standin(Path(tmp) / "runtime-site-packages"))
    print(f"{'entry':<26}{'variant':<16}{'CPU':>11}{'wall':>11}")
    print("-" * 80)
    for name, _, variant in cells:
        print(f"{name:<26}{variant:<16}{results[(name, variant)]}")
    print("-" * 80)
    for variant in variants:
        sdk = medians.get((SDK_ENTRY, variant))
        ratios = [
            f"{name} {medians[(name, variant)] / sdk:.2f}x"
            for name in ENTRIES
            if name != SDK_ENTRY and (name, variant) in medians
        ]
        if sdk and ratios:
            print(f"{variant:<16}CPU vs the {SDK_ENTRY}: {', '.join(ratios)}")
    print(f"SharedLayer: {layer_size()}")
    print(uptime())


if __name__ == "__main__":
    main()

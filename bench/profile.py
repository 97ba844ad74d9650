"""Where the milliseconds of one warm tools/call go, through the local endpoint, in one process.

    .venv/bin/python bench/profile.py [--calls 500] [--tool get_node] [--yappi]
    .venv/bin/python bench/profile.py --database-url postgresql+pg8000://... [--limits 600,100,1000000]

Builds what `rhumbline serve --dispatch inprocess` serves (the template's LocalApi: API Gateway
stand-in -> gateway Lambda handler, which authenticates -> tool) in this process, against embedded
stores in a temporary RHUMBLINE_HOME holding one small ingested project, and drives it without a
socket (`LocalApi.respond`), so the numbers are the server's own work minus uvicorn's HTTP parsing.

Without --yappi: wall and CPU time per call (p50/mean) and the span of each layer, measured by
wrapping the layer's entry function with perf_counter laps (inclusive times, any thread).
With --yappi (pip install yappi into a scratch venv and put its site-packages on PYTHONPATH): a
wall-clock profile over all threads, the top functions by own time.
With --database-url (PostgreSQL): the relational store there, and the network round trips per call
(pg8000 flushes) of the gateway's admission (the meter), of its audit write (with the usage rollup),
and of everything else (the tool's own queries). --limits gives the token a rate limit, burst and
monthly quota, so admission meters them. Another revision: PYTHONPATH=ITS_CHECKOUT/layers/shared (its
template.yaml is used; layers it lacks are skipped). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.stats import percentile, uptime

SOURCE = '''class Cart:
    """A shopping cart."""

    def add_item(self, item):
        return total_price([item])


def total_price(items):
    return sum(item.price for item in items)
'''

CASES: dict[str, dict[str, Any]] = {
    "get_node": {"node_id": "file:shop.py", "edge_limit": 1},
    "search": {"query": "total_price"},
    "context": {"file": "shop.py"},
    "list_projects": {},
}

spans: dict[str, list[float]] = defaultdict(list)


def lap(owner: Any, attribute: str, label: str) -> None:
    """Wrap owner.attribute so each call's inclusive wall time lands in spans[label]."""
    original = getattr(owner, attribute, None)
    if original is None:  # an older checkout without this layer: skip it
        return
    if asyncio.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                spans[label].append((time.perf_counter() - started) * 1000)

        setattr(owner, attribute, timed_async)
        return

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spans[label].append((time.perf_counter() - started) * 1000)

    setattr(owner, attribute, timed)


def prepare_home(
    root: Path, home: str | None = None, project: str | None = None, limits: dict[str, int] | None = None
) -> tuple[str, str]:
    """Ingest the small project (or use an existing home's project) and create a token (with
    `limits`: rate_per_minute, rate_burst, monthly_quota); returns (project, token)."""
    from rhumbline import cli

    os.environ.update(POWERTOOLS_METRICS_DISABLED="true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    if home is not None:
        os.environ["RHUMBLINE_HOME"] = home
        project = project or "bench/django"
    else:
        tree = root / "shop"
        tree.mkdir()
        (tree / "shop.py").write_text(SOURCE)
        project = "bench/profile"
        os.environ["RHUMBLINE_HOME"] = str(root / "home")
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                cli.main(["ingest", str(tree), "--project", project])
            finally:
                sys.stdout = stdout
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    with session_scope(resources.relational_engine()) as session:
        plaintext, _ = tokens.create(
            session, principal="bench", projects=[project], scopes=["read", "write", "cypher"], **(limits or {})
        )
    return project, plaintext


def instrument() -> None:
    from rhumbline.gateway import authentication, calls, container, server
    from rhumbline.local import server as local_server
    from rhumbline.local.functions import FunctionRunner
    from rhumbline.runtime import handler

    lap(local_server.LocalApi, "respond", "1 LocalApi.respond (whole request)")
    lap(authentication.Authenticator, "authenticate", "2 authentication = admission: token, rate limit, quota")
    lap(FunctionRunner, "invoke_async", "3 runner.invoke_async (gateway function, incl. thread hop)")
    lap(FunctionRunner, "invoke", "4 runner.invoke (gateway handler on worker thread)")
    lap(container.GatewayContainer, "serve_http", "5 gateway ASGI app on container loop")
    lap(calls.ToolCalls, "call", "6 ToolCalls.call (policy+admission+dispatch+audit)")
    lap(calls.ToolCalls, "_result", "7 ToolCalls._result (worker: dispatch+translate)")
    lap(handler, "handle", "8 tool handler (validate, run, dump)")
    lap(calls.ToolCalls, "_record", "9 audit write + usage rollup + metric (worker)")
    lap(calls, "outcome_to_result", "a outcome -> CallToolResult wire dict (text JSON)")
    del server


class RoundTrips:
    """pg8000's flushes (each one a wait on the server) per span of the call: the thread that
    flushes is inside the meter's admission, inside the audit write, or elsewhere."""

    def __init__(self) -> None:
        import threading

        import pg8000.core

        from rhumbline.gateway.audit import RelationalAuditLog
        from rhumbline.gateway.meter import RelationalMeter

        self.counts: dict[str, int] = defaultdict(int)
        self.span = threading.local()
        original_flush = pg8000.core._flush

        def flush(sock: Any) -> None:
            self.counts[getattr(self.span, "label", "other: tool")] += 1
            original_flush(sock)

        pg8000.core._flush = flush
        self.within(RelationalMeter, "admit_token", "authentication + admission (meter)")
        self.within(RelationalMeter, "admit", "admission (meter)")
        self.within(RelationalAuditLog, "write", "audit write + usage rollup")

    def within(self, owner: Any, attribute: str, label: str) -> None:
        original = getattr(owner, attribute)

        @functools.wraps(original)
        def labelled(*args: Any, **kwargs: Any) -> Any:
            self.span.label = label
            try:
                return original(*args, **kwargs)
            finally:
                del self.span.label

        setattr(owner, attribute, labelled)


def build_api() -> Any:
    from rhumbline.local.functions import FunctionRunner
    from rhumbline.local.server import LocalApi, configure_dispatch
    from rhumbline.local.template import load_template

    import rhumbline

    # The template of the checkout whose code runs (PYTHONPATH may name another revision's).
    template = load_template(Path(rhumbline.__file__).resolve().parents[3] / "template.yaml")
    configure_dispatch(template, "inprocess", "127.0.0.1", 0)
    return LocalApi(template, FunctionRunner(template))


async def startup(api: Any) -> None:
    messages = [{"type": "lifespan.startup"}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else await asyncio.Event().wait()  # type: ignore[func-returns-value]

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    task = asyncio.create_task(api({"type": "lifespan"}, receive, send))
    while not sent:
        await asyncio.sleep(0.01)
    task.cancel()
    if sent[0]["type"] != "lifespan.startup.complete":
        raise SystemExit(f"startup failed: {sent[0]}")


def request_of(token: str, tool: str, arguments: dict[str, Any], request_id: int) -> Any:
    from rhumbline.local.apigw import HttpRequest

    body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    if tool == "tools/list":
        body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    headers = [
        ("host", "127.0.0.1:8080"),
        ("authorization", f"Bearer {token}"),
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2025-06-18"),
    ]
    return HttpRequest(method="POST", path="/mcp", headers=headers, body=json.dumps(body).encode())


async def drive(api: Any, token: str, tool: str, arguments: dict[str, Any], calls: int, warmup: int) -> tuple[list[float], float]:
    for i in range(warmup):
        response = await api.respond(request_of(token, tool, arguments, i))
        if response.status != 200 or b'"isError":true' in response.body:
            raise SystemExit(f"{tool} failed: {response.status} {response.body[:400]!r}")
    spans.clear()
    timings = []
    cpu_before = time.process_time()
    for i in range(calls):
        started = time.perf_counter()
        await api.respond(request_of(token, tool, arguments, i))
        timings.append((time.perf_counter() - started) * 1000)
    return timings, (time.process_time() - cpu_before) * 1000 / max(1, calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--tool", default="get_node", help=f"one of {sorted(CASES)} or tools/list")
    parser.add_argument("--yappi", action="store_true", help="wall-clock profile of all threads instead of laps")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", choices=["tsub", "ttot"], default="tsub", help="yappi: own or inclusive time")
    parser.add_argument("--clock", choices=["cpu", "wall"], default="cpu", help="yappi clock")
    parser.add_argument("--home", help="an existing RHUMBLINE_HOME (e.g. with Django ingested) instead of the small project")
    parser.add_argument("--project", help="the project in --home (default bench/django)")
    parser.add_argument("--arguments", type=json.loads, help="the tool's arguments as JSON (project added)")
    parser.add_argument("--database-url", help="the relational store on this PostgreSQL database (postgresql+pg8000://...)")
    parser.add_argument("--limits", help="the token's RATE_PER_MINUTE,BURST,MONTHLY_QUOTA (default: none)")
    args = parser.parse_args()
    limits = None
    if args.limits:
        limits = dict(zip(("rate_per_minute", "rate_burst", "monthly_quota"), map(int, args.limits.split(","))))
    if args.database_url:
        os.environ["RHUMBLINE_DATABASE_URL"] = args.database_url
    with tempfile.TemporaryDirectory(prefix="rhumbline-profile-") as directory:
        project, token = prepare_home(Path(directory), args.home, args.project, limits)
        arguments = {} if args.tool == "tools/list" else {**(args.arguments or CASES[args.tool]), "project": project}
        if args.tool == "list_projects":
            arguments = {}
        if not args.yappi:
            instrument()
        round_trips = RoundTrips() if (args.database_url or "").startswith("postgresql") else None
        api = build_api()
        asyncio.run(run(api, token, args, arguments, round_trips))


async def run(
    api: Any, token: str, args: argparse.Namespace, arguments: dict[str, Any], round_trips: RoundTrips | None
) -> None:
    await startup(api)
    profiler: Callable[[], None] | None = None
    if args.yappi:
        import yappi

        yappi.set_clock_type(args.clock)
        await drive(api, token, args.tool, arguments, 0, args.warmup)
        yappi.start(builtins=False, profile_threads=True)
        timings, cpu = await drive(api, token, args.tool, arguments, args.calls, 0)
        yappi.stop()
        stats = yappi.get_func_stats()
        stats.sort(args.sort, "desc")
        print(f"{'own ms/call':>12}{'incl ms/call':>13}{'calls/call':>11}  function")
        for entry in list(stats)[: args.top]:
            print(
                f"{entry.tsub * 1000 / args.calls:>12.3f}{entry.ttot * 1000 / args.calls:>13.3f}"
                f"{entry.ncall / args.calls:>11.1f}  {entry.name} ({Path(entry.module).name}:{entry.lineno})"
            )
    else:
        await drive(api, token, args.tool, arguments, 0, args.warmup)
        if round_trips is not None:
            round_trips.counts.clear()
        timings, cpu = await drive(api, token, args.tool, arguments, args.calls, 0)
    del profiler
    print(
        f"\n{args.tool}: {args.calls} calls, wall p50 {percentile(timings, 0.5):.3f} ms, "
        f"p99 {percentile(timings, 0.99):.3f} ms, mean {statistics.fmean(timings):.3f} ms, "
        f"process CPU {cpu:.3f} ms/call\n{uptime()}"
    )
    if round_trips is not None:
        print(f"{'PostgreSQL round trips (pg8000 flushes)':<64}{'per call':>8}")
        for label, count in sorted(round_trips.counts.items()):
            print(f"{label:<64}{count / args.calls:>8.2f}")
    if spans:
        print(f"{'span (inclusive)':<64}{'p50 ms':>8}{'mean ms':>9}{'per call':>9}")
        for label in sorted(spans):
            values = spans[label]
            print(f"{label:<64}{percentile(values, 0.5):>8.3f}{statistics.fmean(values):>9.3f}{len(values) / args.calls:>9.1f}")


if __name__ == "__main__":
    main()

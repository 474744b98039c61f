"""Throughput and latency of the MCP read tools under concurrent load (Streamable HTTP), on the
≥ 10,000-page graph of bench/mcp_latency_bench.py.

    .venv/bin/python bench/mcp_load_bench.py [--clients 8] [--seconds 60] [--owner bench-latency]
                                             [--max-calls 50000] [--rate-limit 1000000]
    .venv/bin/python bench/mcp_load_bench.py --clients-list 1,4,8,16 --seconds 30

It reuses the latency bench's graph (owner `bench-latency`; built by it on first use if missing),
starts one `subtext serve` on 127.0.0.1, creates one read-only key (a person's keys share the rate
limit anyway; the bench lifts that limit to `--rate-limit` calls per minute so it does not
interfere) and reads slugs and focus areas from one graph_snapshot call. Then `--clients` asyncio
tasks, each with its own MCP session (the initialize-handshake protocol Claude and Cursor speak),
call the read tools in a random mix for `--seconds` seconds:

  brief, search, get_page, scope (focus area), scope (thing), compile shallow, traverse

with arguments drawn from the graph (search limits, compile shapes and traverse edge types vary).
Deep and medium compiles and graph_snapshot are left out of the mix: they are single heavy calls an
assistant makes rarely, and bench/mcp_latency_bench.py measures them.

Every call is timed; a call fails when it raises or its result has isError, and a failure never
stops its client. It prints, per tool and in total, calls, calls per second over the level's wall
time, p50/p95/p99 latency in ms and errors, then the first error message of each kind.
With `--clients-list` it runs each level one after another against the same server, prints that
table for each level, then one totals row per level, so saturation shows side by side.
Bounds: `--seconds` is capped at 300, `--clients` at 64, and each level stops at `--max-calls` calls.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.mcp_latency_bench import _free_port, build_graph, percentile, start_server  # noqa: E402

MAX_SECONDS = 300
MAX_CLIENTS = 64
CALL_TIMEOUT_S = 60
MIX = ["brief", "search", "get_page", "scope (focus)", "scope (thing)", "compile shallow", "traverse"]


@dataclass
class Level:
    clients: int
    wall_s: float = 0.0
    samples: dict[str, list[float]] = field(default_factory=lambda: {tool: [] for tool in MIX})
    errors: dict[str, int] = field(default_factory=lambda: {tool: 0 for tool in MIX})
    first_error: dict[tuple[str, str], str] = field(default_factory=dict)
    error_counts: dict[tuple[str, str], int] = field(default_factory=dict)

    def fail(self, tool: str, kind: str, message: str) -> None:
        self.errors[tool] = self.errors.get(tool, 0) + 1
        self.first_error.setdefault((tool, kind), message.strip().splitlines()[0][:200] if message.strip() else kind)
        self.error_counts[(tool, kind)] = self.error_counts.get((tool, kind), 0) + 1


class Graph:
    """Arguments drawn from the graph: slugs of things, focus areas and search phrases."""

    def __init__(self, snapshot: dict, rng: random.Random) -> None:
        things = [p for p in snapshot["pages"] if p["kind"] not in ("focus", "you")]
        self.areas = [p["slug"] for p in snapshot["pages"] if p["kind"] == "focus"] or ["you"]
        picked = rng.sample(things, min(len(things), 2000))
        self.slugs = [p["slug"] for p in picked]
        self.queries = [p["title"] + " decision" for p in picked]

    def call(self, tool: str, rng: random.Random) -> tuple[str, dict]:
        slug, area = rng.choice(self.slugs), rng.choice(self.areas)
        if tool == "brief":
            return "brief", {}
        if tool == "search":
            return "search", {"query": rng.choice(self.queries), "limit": rng.choice((3, 5, 10))}
        if tool == "get_page":
            return "get_page", {"slug": slug}
        if tool == "scope (focus)":
            return "scope", {"target": area}
        if tool == "scope (thing)":
            return "scope", {"target": slug}
        if tool == "compile shallow":
            return "compile", {"intent": rng.choice(("status update", "prepare the weekly review", "onboarding")),
                               "target": rng.choice((area, slug)), "depth": "shallow",
                               "shape": rng.choice(("narrative", "structured", "summary"))}
        if tool == "traverse":
            return "traverse", {"from_slug": slug, "edge_type": rng.choice(("RELATES_TO", "IN_CONTEXT")),
                                "limit": rng.choice((10, 20, 50))}
        raise ValueError(tool)


def _client(url: str, key: str):
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    return Client(StreamableHttpTransport(url, auth=key), mode="legacy", timeout=CALL_TIMEOUT_S)


async def timed_call(client, name: str, args: dict) -> tuple[float, str | None, str]:
    """(latency ms, error kind or None, error message)."""
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(client.call_tool(name, args, raise_on_error=False), CALL_TIMEOUT_S + 5)
    except Exception as e:  # noqa: BLE001 - every failure is counted, none stops the client
        return (time.perf_counter() - started) * 1000, type(e).__name__, str(e) or repr(e)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        text = " ".join(getattr(c, "text", "") for c in result.content or []) or "isError"
        return elapsed, "isError", text
    return elapsed, None, ""


async def run_level(url: str, key: str, graph: Graph, clients: int, seconds: float, max_calls: int) -> Level:
    level = Level(clients)
    budget = [max_calls]
    ready = asyncio.Barrier(clients + 1)
    go = asyncio.Event()
    deadline = [0.0]

    async def worker(index: int) -> None:
        rng = random.Random(1000 * clients + index)
        arrived = False
        while True:
            try:
                async with _client(url, key) as client:  # session set-up is not timed
                    if not arrived:
                        arrived = True
                        await ready.wait()
                        await go.wait()
                    while time.monotonic() < deadline[0] and budget[0] > 0:
                        budget[0] -= 1
                        tool = rng.choice(MIX)
                        name, args = graph.call(tool, rng)
                        elapsed, kind, message = await timed_call(client, name, args)
                        level.samples[tool].append(elapsed)
                        if kind:
                            level.fail(tool, kind, message)
                    return
            except Exception as e:  # noqa: BLE001 - the session itself failed: count it, open a new one
                level.fail("session", type(e).__name__, str(e) or repr(e))
                if not arrived:
                    arrived = True
                    await ready.wait()
                    await go.wait()
                if time.monotonic() >= deadline[0] or budget[0] <= 0:
                    return
                await asyncio.sleep(0.2)

    tasks = [asyncio.create_task(worker(i)) for i in range(clients)]
    await ready.wait()
    started = time.monotonic()
    deadline[0] = started + seconds
    go.set()
    await asyncio.gather(*tasks)
    level.wall_s = time.monotonic() - started
    return level


async def load(url: str, key: str, levels: list[int], seconds: float, max_calls: int,
               on_level) -> tuple[int, list[Level]]:
    async with _client(url, key) as client:
        snapshot = (await client.call_tool("graph_snapshot", {})).structured_content
        graph = Graph(snapshot, random.Random(7))
        warm = random.Random(3)
        for tool in MIX:  # warm-up: models loaded, caches as an assistant would find them
            for _ in range(2):
                await timed_call(client, *graph.call(tool, warm))
    done = []
    for clients in levels:
        level = await run_level(url, key, graph, clients, seconds, max_calls)
        on_level(level)
        done.append(level)
    return len(snapshot["pages"]), done


def _row(label: str, samples: list[float], errors: int, wall_s: float) -> str:
    if not samples:
        return f"{label:<18}{0:>8}{0:>10.1f}{'-':>9}{'-':>9}{'-':>9}{errors:>8}"
    return (f"{label:<18}{len(samples):>8}{len(samples) / wall_s:>10.1f}{statistics.median(samples):>9.1f}"
            f"{percentile(samples, 0.95):>9.1f}{percentile(samples, 0.99):>9.1f}{errors:>8}")


HEADER = f"{'':<18}{'calls':>8}{'calls/s':>10}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'errors':>8}"


def _totals(level: Level) -> tuple[list[float], int]:
    return [s for samples in level.samples.values() for s in samples], sum(level.errors.values())


def print_level(level: Level) -> None:
    print(f"\n{level.clients} client(s), {level.wall_s:.1f} s wall:")
    print(HEADER)
    for tool in MIX:
        print(_row(tool, level.samples[tool], level.errors[tool], level.wall_s))
    if level.errors.get("session"):
        print(f"{'session':<18}{'':>8}{'':>10}{'':>9}{'':>9}{'':>9}{level.errors['session']:>8}")
    samples, errors = _totals(level)
    print(_row("total", samples, errors, level.wall_s))
    print_errors(level)
    print(f"Summary: {len(samples) / level.wall_s:.1f} calls/s with {level.clients} client(s); "
          f"{errors} error(s) in {len(samples)} calls.", flush=True)


def print_errors(level: Level) -> None:
    for (tool, kind), message in level.first_error.items():
        print(f"  error {tool} [{kind}] ×{level.error_counts[(tool, kind)]}: {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8, help="Concurrent MCP sessions (at most 64).")
    parser.add_argument("--clients-list", default=None,
                        help="Comma-separated levels, e.g. 1,4,8,16, run one after another on one server.")
    parser.add_argument("--seconds", type=float, default=60, help=f"Seconds per level (at most {MAX_SECONDS}).")
    parser.add_argument("--owner", default="bench-latency")
    parser.add_argument("--pages", type=int, default=10_000, help="Pages the graph must hold (built if fewer).")
    parser.add_argument("--max-calls", type=int, default=50_000, help="Cap on calls in each level.")
    parser.add_argument("--rate-limit", type=int, default=1_000_000,
                        help="Per-minute call allowance for the bench server (high so the limiter stays out of it).")
    args = parser.parse_args()
    if not args.owner.startswith("bench-"):
        parser.error("the owner must start with bench- (the bench never touches a real graph)")
    try:
        levels = [int(n) for n in args.clients_list.split(",")] if args.clients_list else [args.clients]
    except ValueError:
        parser.error("--clients-list takes comma-separated integers, e.g. 1,4,8,16")
    if any(n < 1 or n > MAX_CLIENTS for n in levels):
        parser.error(f"client counts must be between 1 and {MAX_CLIENTS}")
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be above 0 and at most {MAX_SECONDS}")
    if args.max_calls < 1:
        parser.error("--max-calls must be at least 1")

    from graph_schema.settings import get_settings, reset_settings

    os.environ["SUBTEXT_OWNER"] = args.owner
    os.environ.setdefault("SUBTEXT_UPLOAD_DIR", str(get_settings().state_dir / "bench" / args.owner / "uploads"))
    os.environ["SUBTEXT_RATE_LIMIT_CALLS_PER_MINUTE"] = str(args.rate_limit)  # inherited by the server
    reset_settings()
    from subtext.local_neo4j import ensure_graph_server

    ensure_graph_server()
    pages = build_graph(args.owner, args.pages)  # returns at once when the graph is already big enough

    from graph_schema import db
    from graph_schema.access import KeyScope
    from knowledge.keys import create_key
    from pipeline.resources import shared_driver

    key = db.write(shared_driver(get_settings().bolt_uri), create_key, args.owner, "load bench", KeyScope(),
                   can_write=False, full_context=True).secret
    print(f"Graph: {pages:,} pages (owner {args.owner}); clients {','.join(map(str, levels))}; "
          f"{args.seconds:g} s per level (≤ {args.max_calls:,} calls); rate limit {args.rate_limit:,}/min; "
          "Streamable HTTP on 127.0.0.1 with one read-only Bearer key.\n"
          f"Tool mix (uniform random): {', '.join(MIX)}. Left out: compile medium/deep and graph_snapshot "
          "(one graph_snapshot at set-up; 2 warm-up calls per tool).", flush=True)

    port = _free_port()
    server = start_server(port)
    try:
        _, done = asyncio.run(load(f"http://127.0.0.1:{port}/mcp", key, levels, args.seconds, args.max_calls,
                                   print_level))
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except Exception:  # noqa: BLE001
            server.kill()
            server.wait(timeout=10)

    if len(levels) > 1:
        print(f"\nAll levels side by side (totals):\n{'clients':<18}" + HEADER[18:])
        for level in done:
            samples, errors = _totals(level)
            print(_row(str(level.clients), samples, errors, level.wall_s))
        best = max(done, key=lambda level: len(_totals(level)[0]) / level.wall_s)
        print(f"Summary: peak {len(_totals(best)[0]) / best.wall_s:.1f} calls/s at {best.clients} client(s); "
              f"{sum(_totals(level)[1] for level in done)} error(s) over all levels.")


if __name__ == "__main__":
    main()

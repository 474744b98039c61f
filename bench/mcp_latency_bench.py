"""Latency of every read tool, and of edit_page_body, over MCP (Streamable HTTP) on a graph of
≥ 10,000 pages, beside the raw limits, in one run.

    .venv/bin/python bench/mcp_latency_bench.py [--pages 10000] [--calls 50] [--owner bench-latency]

The graph is built once by ingesting real text through the pipeline (`subtext ingest`'s path), in
folders that become focus areas, until it holds `--pages` pages:

  peps/      the 150 PEPs in tests/data/peps
  packages/  the long descriptions of every package installed in this virtualenv (PyPI READMEs)
  python/    the Python reference topics shipped with the standard library (pydoc_data)
  django/    Django's documentation and release notes, from its source distribution on PyPI
  sqlalchemy/ SQLAlchemy's documentation and changelog, likewise
  numpy/, scipy/  their documentation and release notes (contributor lists name many people)

Later runs reuse the graph (owner `bench-latency`). Then it starts `subtext serve`, creates a
key and calls each tool `--calls` times per row after a warm-up (the client speaks the
initialize-handshake protocol that Claude and Cursor use today), and prints p50 and p95 per row
next to two floors measured in the same run: an MCP `ping` (the transport and auth round trip
with no work) and a raw Bolt read of one page (the database).

Pages, queries and compile targets are drawn at random from the whole graph. A cold row asks
what no earlier call asked (the brief right after a write, a new query, a new target or intent);
a '(repeat)' or '(cached)' row asks one thing again, so the two kinds of answer are never mixed.
The key can write: before each call of 'brief (after a write)' it links two random pages, which
moves the graph version (that row's only write; the bench owner's graph only).
"""

from __future__ import annotations

import argparse
import asyncio
import email
import importlib.metadata
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SDISTS = {"django": ("django", "5.2.8", ("docs/",), (".txt",)),
          "sqlalchemy": ("sqlalchemy", "2.0.44", ("doc/build/",), (".rst",)),
          "numpy": ("numpy", "2.3.5", ("doc/",), (".rst",)),
          "scipy": ("scipy", "1.16.3", ("doc/",), (".rst",))}
TARGETS_MS = {"brief (after a write)": 300, "get_page": 20, "search (new query)": 50, "scope (thing)": 50,
              "traverse": 30, "compile deep (new target)": 500, "graph_snapshot": 200, "edit_page_body": 1000}
MIN_WORDS = 150


def _write(folder: Path, name: str, text: str) -> None:
    if len(text.split()) >= MIN_WORDS:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def gather_peps(upload: Path) -> None:
    for path in sorted((ROOT / "tests" / "data" / "peps" / "docs").iterdir()):
        _write(upload / "peps", path.name, path.read_text(encoding="utf-8", errors="replace"))


def gather_package_readmes(upload: Path) -> None:
    for dist in importlib.metadata.distributions():
        meta = email.message_from_string(dist.read_text("METADATA") or "")
        body = meta.get_payload() if not meta.is_multipart() else ""
        name = (meta.get("Name") or "package").lower().replace("/", "-")
        suffix = ".rst" if "rst" in (meta.get("Description-Content-Type") or "text/x-rst") else ".md"
        _write(upload / "packages", f"{name}{suffix}", body or meta.get("Description") or "")


def gather_python_topics(upload: Path) -> None:
    from pydoc_data.topics import topics

    for name, text in sorted(topics.items()):
        _write(upload / "python", f"{name}.txt", text)


def download_sdist(name: str, version: str, folder: Path) -> Path:
    """The source archive from the package index's simple API (pip's own index; nothing is built)."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/") + f"/{name}/"
    html = urllib.request.urlopen(index, timeout=60).read().decode()
    for href in re.findall(r'href="([^"]+)"', html):
        if urllib.parse.urlparse(href).path.rsplit("/", 1)[-1].lower() == f"{name}-{version}.tar.gz":
            target = folder / f"{name}-{version}.tar.gz"
            target.write_bytes(urllib.request.urlopen(urllib.parse.urljoin(index, href), timeout=600).read())
            return target
    raise LookupError(f"{name} {version} has no source archive on {index}")


def gather_sdist_docs(upload: Path, folder: str) -> None:
    name, version, prefixes, suffixes = SDISTS[folder]
    with tempfile.TemporaryDirectory() as tmp:
        archive = download_sdist(name, version, Path(tmp))
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                inner = member.name.split("/", 1)[-1]
                if member.isfile() and inner.startswith(prefixes) and inner.endswith(suffixes):
                    text = tar.extractfile(member).read().decode("utf-8", errors="replace")
                    _write(upload / folder, inner.replace("/", "_"), text)


GATHERERS = [("peps", gather_peps), ("packages", gather_package_readmes), ("python", gather_python_topics),
             ("django", lambda u: gather_sdist_docs(u, "django")),
             ("sqlalchemy", lambda u: gather_sdist_docs(u, "sqlalchemy")),
             ("numpy", lambda u: gather_sdist_docs(u, "numpy")),
             ("scipy", lambda u: gather_sdist_docs(u, "scipy"))]


def page_count(owner: str) -> int:
    from graph_schema import db
    from graph_schema.queries.pages import graph_counts
    from pipeline.resources import shared_driver
    from graph_schema.settings import get_settings

    return db.read(shared_driver(get_settings().bolt_uri), graph_counts, owner)["pages"]


def build_graph(owner: str, pages: int) -> int:
    """Ingest the real-text sources one after another until the graph holds `pages` pages."""
    from pipeline.run import ingest_paths

    upload = Path(os.environ["SUBTEXT_UPLOAD_DIR"])
    count = page_count(owner)
    for folder, gather in GATHERERS:
        if count >= pages:
            break
        if (upload / folder).exists():
            continue  # gathered and ingested by an earlier run
        gather(upload)
        if not (upload / folder).exists():
            continue
        started = time.perf_counter()
        report = ingest_paths([upload / folder])
        count = page_count(owner)
        failed = [o for o in report.outcomes if o.status == "failed"]
        print(f"  ingested {folder}/: {len(report.outcomes)} documents ({len(failed)} failed) in "
              f"{time.perf_counter() - started:.0f} s; graph now {count:,} pages", flush=True)
    return count


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "subtext.cli", "serve", "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.3)
    process.kill()
    raise RuntimeError("subtext serve did not listen within 120 s")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def sample_pages(owner: str, count: int, seed: int = 7) -> tuple[list[dict], list[str]]:
    """`count` pages drawn at random from the whole graph (not a capped snapshot), and every focus area."""
    from graph_schema import db
    from graph_schema.queries.documents import known_pages
    from graph_schema.settings import get_settings
    from pipeline.resources import shared_driver

    pages = db.read(shared_driver(get_settings().bolt_uri), known_pages, owner)
    things = [{"slug": p.slug, "title": p.title} for p in pages if p.kind.value not in ("focus", "you")]
    areas = sorted(p.slug for p in pages if p.kind.value == "focus")
    return random.Random(seed).sample(things, min(len(things), count)), areas


class Rows:
    """Timed rows of one run: each row's calls, in milliseconds."""

    def __init__(self, client) -> None:
        self.client = client
        self.timings: dict[str, list[float]] = {}

    async def call(self, name: str, args: dict):
        return await (self.client.ping() if name == "ping" else self.client.call_tool(name, args))

    async def time(self, row: str, calls: list[tuple[str, dict]], before=None) -> None:
        """Time each call (and only it: `before(i)` runs first, untimed, e.g. a write)."""
        samples = []
        for i, (name, args) in enumerate(calls):
            if before is not None:
                await before(i)
            started = time.perf_counter()
            await self.call(name, args)
            samples.append((time.perf_counter() - started) * 1000)
        self.timings[row] = samples


async def measure(url: str, key: str, owner: str, calls: int) -> dict[str, list[float]]:
    """Cold rows ask what no earlier call asked (a page, query, target or intent not seen before, the
    brief right after a write); cached rows repeat one call. Pages and queries are drawn from the
    whole graph."""
    from fastmcp import Client
    from fastmcp.client.transports import StreamableHttpTransport

    from graph_schema import db
    from graph_schema.queries.pages import get_page
    from graph_schema.settings import get_settings
    from pipeline.resources import shared_driver

    driver = shared_driver(get_settings().bolt_uri)
    warm = 3
    # fresh pages for every cold row: no row reuses another's pages, so nothing it asks was asked before
    pool, areas = sample_pages(owner, warm + 10 * calls)
    fresh = iter(pool)

    def take(n: int) -> list[dict]:
        return [next(fresh) for _ in range(n)]

    async with Client(StreamableHttpTransport(url, auth=key), mode="legacy") as client:
        rows = Rows(client)
        for page in take(warm):  # models loaded, connections open, as an assistant finds the server
            await rows.call("get_page", {"slug": page["slug"]})
            await rows.call("search", {"query": page["title"] + " decision"})
        await rows.time("ping", [("ping", {})] * calls)

        await rows.call("brief", {})
        await rows.time("brief (cached)", [("brief", {})] * calls)
        pairs = take(2 * calls)

        async def write(i: int) -> None:  # a new link moves the graph version: the brief is rebuilt
            await rows.call("link_pages", {"from_slug": pairs[2 * i]["slug"], "to_slug": pairs[2 * i + 1]["slug"]})

        await rows.time("brief (after a write)", [("brief", {})] * calls, before=write)

        pages = take(calls)
        await rows.time("get_page", [("get_page", {"slug": p["slug"]}) for p in pages])
        await rows.time("get_page (repeat)", [("get_page", {"slug": pages[0]["slug"]})] * calls)
        await rows.time("search (new query)", [("search", {"query": p["title"] + " decision"}) for p in take(calls)])
        repeat = {"query": pages[0]["title"] + " decision"}
        await rows.call("search", repeat)
        await rows.time("search (repeat)", [("search", repeat)] * calls)
        await rows.time("scope (focus)", [("scope", {"target": areas[i % len(areas)]}) for i in range(calls)])
        await rows.time("scope (thing)", [("scope", {"target": p["slug"]}) for p in take(calls)])
        for depth in ("shallow", "medium", "deep"):
            await rows.time(f"compile {depth} (new target)",
                            [("compile", {"intent": "status update", "target": p["slug"], "depth": depth})
                             for p in take(calls)])
        await rows.time("compile deep (focus, new intent)",
                        [("compile", {"intent": f"status update {i}", "target": areas[i % len(areas)],
                                      "depth": "deep"}) for i in range(calls)])
        cached = {"intent": "status update", "target": areas[0], "depth": "deep"}
        await rows.call("compile", cached)
        await rows.time("compile deep (repeat)", [("compile", cached)] * calls)
        await rows.time("compile deep (re-shape)",
                        [("compile", {**cached, "shape": ["narrative", "structured", "summary"][i % 3]})
                         for i in range(calls)])
        await rows.time("traverse", [("traverse", {"from_slug": p["slug"]}) for p in take(calls)])
        await rows.time("graph_snapshot", [("graph_snapshot", {})] * calls)
        # last, as it writes: new prose anchored at a random page, through the pipeline's assets in
        # a recorded Dagster run, as an assistant's edit goes (the bench owner's graph only)
        edits = [("edit_page_body", {"slug": p["slug"], "body": f"Decided on {i % 28 + 1} March that {p['title']} "
                                     f"moves to release {i + 1}; Priya Natarajan owns the follow-up."})
                 for i, p in enumerate(take(calls))]
        await rows.time("edit_page_body", edits)
        raw = []
        for page in pages:
            started = time.perf_counter()
            db.read(driver, get_page, owner, page["slug"], 200)
            raw.append((time.perf_counter() - started) * 1000)
        rows.timings["raw Bolt get_page query"] = raw
    return rows.timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--owner", default="bench-latency")
    parser.add_argument("--rate-limit", type=int, default=100_000, help="Per-minute allowance for the bench server.")
    args = parser.parse_args()
    if not args.owner.startswith("bench-"):
        parser.error("the owner must start with bench- (the bench never touches a real graph)")

    from graph_schema.settings import get_settings, reset_settings

    os.environ["SUBTEXT_OWNER"] = args.owner
    os.environ.setdefault("SUBTEXT_UPLOAD_DIR", str(get_settings().state_dir / "bench" / args.owner / "uploads"))
    os.environ["SUBTEXT_RATE_LIMIT_CALLS_PER_MINUTE"] = str(args.rate_limit)
    reset_settings()
    from subtext.local_neo4j import ensure_graph_server

    ensure_graph_server()
    print(f"Building the graph of {args.owner} from real text (kept for later runs)…", flush=True)
    pages = build_graph(args.owner, args.pages)
    if pages < args.pages:
        print(f"Only {pages:,} pages after every source; measuring anyway.")

    from graph_schema import db
    from graph_schema.access import KeyScope
    from knowledge.keys import create_key
    from pipeline.resources import shared_driver

    # a write key: the 'brief (after a write)' row links two pages before each brief (the bench graph only)
    key = db.write(shared_driver(get_settings().bolt_uri), create_key, args.owner, "latency bench", KeyScope(),
                   can_write=True, full_context=True).secret
    port = _free_port()
    server = start_server(port)
    try:
        timings = asyncio.run(measure(f"http://127.0.0.1:{port}/mcp", key, args.owner, args.calls))
    finally:
        server.terminate()
        server.wait(timeout=20)

    print(f"\nGraph: {pages:,} pages (owner {args.owner}); {args.calls} calls per row, pages drawn at random "
          "from the whole graph; Streamable HTTP on 127.0.0.1 with a Bearer key. Cold rows ask what was not "
          "asked before; '(repeat)' and '(cached)' rows ask one thing again.\n")
    print(f"{'call':<34}{'p50 ms':>9}{'p95 ms':>9}{'target p50':>12}")
    for tool, samples in timings.items():
        target = TARGETS_MS.get(tool)
        print(f"{tool:<34}{statistics.median(samples):>9.1f}{percentile(samples, 0.95):>9.1f}"
              f"{(f'≤ {target}' if target else ''):>12}")
    floor = statistics.median(timings["ping"])
    print(f"\nMCP round-trip floor (ping) p50 {floor:.1f} ms; "
          f"get_page p50 is {statistics.median(timings['get_page']) / floor:.1f}× ping and "
          f"{statistics.median(timings['get_page']) / statistics.median(timings['raw Bolt get_page query']):.1f}× "
          "the raw Bolt query.")


if __name__ == "__main__":
    main()

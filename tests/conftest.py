"""Shared fixtures: a state folder of the session's own, a real Neo4j (a local one started for the
session on free ports, unless NEO4J_URI is set), a fresh owner and upload folder per test, and a
real MCP server over Streamable HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from graph_schema import db
from graph_schema.settings import PROJECT_ROOT, get_settings, reset_settings


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session", autouse=True)
def test_state_dir(tmp_path_factory):
    """Every test session has a state folder of its own (Dagster instance, stage store,
    submissions, the local Neo4j's data): tests never touch the repository's `.subtext/`, where
    a person's own graph lives, and two sessions at once never share anything."""
    state = tmp_path_factory.mktemp("subtext-state")
    saved = {k: os.environ.get(k) for k in _SESSION_ENV}
    os.environ["SUBTEXT_STATE_DIR"] = str(state)
    if "NEO4J_URI" not in os.environ:  # the session's own server, on ports nobody else uses
        os.environ["SUBTEXT_LOCAL_NEO4J_BOLT_PORT"] = str(_free_port())
        os.environ["SUBTEXT_LOCAL_NEO4J_HTTP_PORT"] = str(_free_port())
    reset_settings()
    yield state
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    reset_settings()


_SESSION_ENV = ("SUBTEXT_STATE_DIR", "SUBTEXT_LOCAL_NEO4J_BOLT_PORT", "SUBTEXT_LOCAL_NEO4J_HTTP_PORT")


@pytest.fixture(scope="session")
def neo4j_server(test_state_dir):
    """The session's Neo4j with the schema in place, as `subtext init` leaves it on an install
    (each test's person is made ready by whatever starts work on their graph)."""
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        _create_schema(settings)
        yield settings
        return
    from subtext.local_neo4j import LocalNeo4j

    local = LocalNeo4j(settings)
    local.start()
    _create_schema(settings)
    yield settings
    local.stop()


def _create_schema(settings) -> None:
    from graph_schema import db
    from graph_schema.queries.schema import create_schema

    with db.open_driver(settings) as driver:
        create_schema(driver)


@pytest.fixture()
def graph(neo4j_server, tmp_path, monkeypatch):
    """A person of their own (a fresh owner id) with an empty upload folder."""
    owner = f"test-{uuid.uuid4().hex[:10]}"
    upload = tmp_path / "uploads"
    upload.mkdir()
    monkeypatch.setenv("SUBTEXT_OWNER", owner)
    monkeypatch.setenv("SUBTEXT_UPLOAD_DIR", str(upload))
    reset_settings()
    from graph_schema import db
    from pipeline.resources import shared_driver

    driver = shared_driver(get_settings().bolt_uri)
    yield {"owner": owner, "upload": upload, "driver": driver, "db": db}
    reset_settings()


@dataclass
class Served:
    """A running `subtext serve` and a full-access, read + write key of the test's person."""

    base: str  # http://127.0.0.1:PORT
    key: str

    def mcp(self, key: str | None = None):
        """A Streamable HTTP transport to /mcp that sends `key` (default: the full key) as Bearer."""
        from fastmcp.client.transports import StreamableHttpTransport

        return StreamableHttpTransport(f"{self.base}/mcp", auth=key or self.key)


def make_key(graph, name: str = "test client", scope: str = "full", *, write: bool = True,
             full_context: bool = True, owner: str | None = None, upkeep: bool = False) -> str:
    from graph_schema.access import KeyScope
    from knowledge.keys import add_owner, create_key

    owner = owner or graph["owner"]
    db.write(graph["driver"], add_owner, owner, owner)
    return db.write(graph["driver"], create_key, owner, name, KeyScope.parse(scope), can_write=write,
                      full_context=full_context, upkeep=upkeep).secret


def _serve(graph, **settings: str):
    """`subtext serve` in a subprocess for this test's owner; yields a `Served`."""
    port = _free_port()
    env = {**os.environ, "SUBTEXT_OWNER": graph["owner"], "SUBTEXT_UPLOAD_DIR": str(graph["upload"]), **settings}
    process = subprocess.Popen(
        [sys.executable, "-m", "subtext.cli", "serve", "--port", str(port)],
        cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"subtext serve exited: {process.stdout.read().decode()[-2000:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.3)
    else:
        process.kill()
        raise RuntimeError("subtext serve did not listen within 120 s")
    try:
        yield Served(base=f"http://127.0.0.1:{port}", key=make_key(graph))
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture()
def served(graph):
    yield from _serve(graph)


@pytest.fixture()
def mcp(served):
    """The test person's server over Streamable HTTP, with a full read + write key."""
    return served.mcp()


@pytest.fixture()
def served_with_upkeep(graph):
    """The server offering the graph-upkeep tools (SUBTEXT_UPKEEP_TOOLS) to keys made for them."""
    yield from _serve(graph, SUBTEXT_UPKEEP_TOOLS="true")


@pytest.fixture()
def mcp_small_budget(graph):
    """The server with a small compile budget (400 tokens), to see packing and `omitted`."""
    for served in _serve(graph, SUBTEXT_DEEP_COMPILE_TOKEN_BUDGET="400"):
        yield served.mcp()


def export_then_import(graph: dict, tmp_path: Path) -> str:
    """The person's graph exported to a file and imported as a new person's; returns that person."""
    from knowledge.transfer import import_records, parse_records, write_export

    exported = tmp_path / "graph.jsonl"
    with exported.open("w", encoding="utf-8") as handle:
        db.in_session(graph["driver"], write_export, graph["owner"], handle)
    other = f"test-import-{uuid.uuid4().hex[:8]}"
    with exported.open(encoding="utf-8") as handle:
        db.in_session(graph["driver"], import_records, other, other, parse_records(handle, str(exported)))
    return other


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def exported(driver, owner: str) -> list[dict]:
    """Every record of the person's graph as `subtext export` writes them (the meta line first)."""
    from graph_schema import db
    from knowledge.transfer import export_records

    with db.session(driver) as graph:
        return list(export_records(graph, owner))


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is `pid` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def start_subtext_dagster(env: dict[str, str], port: int, timeout: float = 120) -> subprocess.Popen:
    """`subtext dagster --port PORT` (the webserver and the daemon of `dagster dev`) in a session
    of its own, returned once its UI answers; end it with `kill_process_groups`."""
    import urllib.request

    ui = subprocess.Popen([sys.executable, "-m", "subtext.cli", "dagster", "--port", str(port)], cwd=PROJECT_ROOT,
                          env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while True:
        if ui.poll() is not None:
            kill_process_groups(ui.pid)
            raise AssertionError("subtext dagster ended before its UI answered")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2) as answer:
                if answer.status == 200:
                    return ui
        except OSError:
            pass
        if time.monotonic() > deadline:
            kill_process_groups(ui.pid)
            raise AssertionError("the Dagster UI never answered")
        time.sleep(1)


def _groups_of(pid: int) -> set[int]:
    """The process group `pid` leads (started in a session of its own) and its children's groups."""
    groups = {pid}
    for child in child_pids(pid):
        try:
            groups.add(os.getpgid(child))
        except ProcessLookupError:
            pass
    return groups


def _kill_groups(groups: set[int]) -> None:
    import signal

    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_process_groups(pid: int) -> None:
    """Kill the process groups of `pid` and of its children that still run."""
    _kill_groups(_groups_of(pid))


def stop_subtext_dagster(ui: subprocess.Popen) -> None:
    """Stop it as Ctrl-C would, then kill whatever of its process groups still runs."""
    import signal

    groups = _groups_of(ui.pid)  # before it ends: its children then belong to no one
    ui.send_signal(signal.SIGTERM)
    try:
        ui.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    _kill_groups(groups)


def merges_of(instance, key: str) -> int:
    """How many times Dagster recorded the document as merged into the graph."""
    from dagster import AssetKey, AssetRecordsFilter

    found = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("graph_merge"), asset_partitions=[key]), limit=100
    )
    return len(found.records)


@pytest.fixture
def chromium():
    """Debian's Chromium, headless, driven by Playwright (`./install.sh --test-tools` installs it with
    apt; Playwright's own browser download is never used)."""
    import shutil

    from playwright.sync_api import sync_playwright

    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError("Chromium is missing: run `./install.sh --no-demo --test-tools`, which installs "
                           "Debian's chromium package (or `apt-get install chromium`).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path, args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                                        "--disable-background-networking"])
        try:
            yield browser
        finally:
            browser.close()

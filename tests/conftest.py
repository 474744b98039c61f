"""Shared fixtures: a real Neo4j (the local one, started here unless NEO4J_URI is set), a fresh
owner and upload folder per test, and a real MCP server over Streamable HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from graph_schema.settings import PROJECT_ROOT, get_settings, reset_settings


@pytest.fixture(scope="session")
def neo4j_server():
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        yield settings
        return
    from subtext.local_neo4j import LocalNeo4j

    local = LocalNeo4j(settings)
    started = local.start()
    yield settings
    if started:
        local.stop()


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(graph, **settings: str):
    """`subtext serve` in a subprocess for this test's owner; yields its /mcp address."""
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
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture()
def mcp_url(graph):
    yield from _serve(graph)


@pytest.fixture()
def mcp_url_with_budget(graph):
    """The server with a small compile budget (400 tokens), to see packing and `omitted`."""
    yield from _serve(graph, SUBTEXT_DEEP_COMPILE_TOKEN_BUDGET="400")


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path

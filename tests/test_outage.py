"""The graph database goes away and comes back: tools and runs say so, then recover by themselves."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from dagster import DagsterEventType

from graph_schema.db import UNAVAILABLE
from graph_schema.queries.pages import get_page
from graph_schema.settings import PROJECT_ROOT, get_settings
from pipeline.run import dagster_instance, ingest_paths
from tests.conftest import write


async def test_tools_report_an_outage_and_recover(graph, served):
    if not get_settings().uses_embedded_neo4j:
        pytest.skip("NEO4J_URI points at a server this project did not start, so the test cannot stop it")
    from subtext.local_neo4j import LocalNeo4j

    write(graph["upload"], "kickoff.md", "Priya Natarajan is leading the Harbour pitch for Acme Corporation.")
    ingest_paths([graph["upload"]])
    local = LocalNeo4j(get_settings())
    async with Client(served.mcp()) as client:
        assert (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        local.stop()
        try:
            for tool, args in [("get_page", {"slug": "priya-natarajan"}), ("brief", {}), ("search", {"query": "Harbour"})]:
                started = time.monotonic()
                with pytest.raises(ToolError) as refused:
                    await client.call_tool(tool, args)
                assert str(refused.value) == UNAVAILABLE, refused.value
                print(f"{tool} answered the outage in {time.monotonic() - started:.1f} s")
            started = time.monotonic()
            upload = httpx.post(f"{served.base}/api/upload", json={"content": "A note."},
                                headers={"Authorization": f"Bearer {served.key}"}, timeout=120)
            print(f"upload answered the outage in {time.monotonic() - started:.1f} s")
            assert upload.status_code == 503 and "unavailable" in upload.json()["error"]
        finally:
            local.start()
        page = (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        assert page["title"] == "Priya Natarajan"


def _cli(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "subtext.cli", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_ingest_runs_retry_through_an_outage_mid_run_and_say_so_when_it_lasts(graph):
    if not get_settings().uses_embedded_neo4j:
        pytest.skip("NEO4J_URI points at a server this project did not start, so the test cannot stop it")
    from subtext.local_neo4j import LocalNeo4j

    write(graph["upload"], "kickoff.md", "Priya Natarajan is leading the Harbour pitch for Acme Corporation.")
    # NEO4J_URI: the CLI must not start the local server itself, as it does by default.
    env = {**os.environ, "NEO4J_URI": get_settings().bolt_uri, "SUBTEXT_NEO4J_RETRY_ATTEMPTS": "1", "COLUMNS": "250"}
    give_up_soon = {**env, "SUBTEXT_RUN_RETRIES": "1", "SUBTEXT_RUN_RETRY_SECONDS": "1"}
    outlast = {**env, "SUBTEXT_RUN_RETRIES": "6", "SUBTEXT_RUN_RETRY_SECONDS": "3"}
    local = LocalNeo4j(get_settings())
    local.stop()
    try:
        failed = _cli("ingest", str(graph["upload"]), env=give_up_soon)
        assert failed.returncode == 1, failed.stdout + failed.stderr
        error = failed.stderr.strip().splitlines()[-1]
        assert "of kickoff.md failed: The graph database is unavailable" in error
        assert "run the same command again" in error
        status = _cli("status", env=env, timeout=120)
        assert status.returncode == 1 and "Neo4j: unavailable" in status.stdout
        latest_run = status.stdout.split("Latest Dagster runs", 1)[1]
        assert "FAILURE" in latest_run and "The graph database is unavailable" in latest_run

    finally:
        local.start()

    # Mid-run: once the run's first step has read the graph, the database goes away for a while.
    instance = dagster_instance()
    started = time.time()
    retrying = subprocess.Popen([sys.executable, "-m", "subtext.cli", "ingest", str(graph["upload"])],
                                cwd=PROJECT_ROOT, env=outlast, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run_id = _wait_for_event(instance, DagsterEventType.STEP_SUCCESS, "parsed_documents", since=started, timeout=300)
        assert run_id, "the run never parsed"
        # Killed, as in a crash: a clean stop keeps serving for seconds, and the run's next steps
        # (a few seconds of extraction, then a read) could finish before the outage began.
        local.stop(timeout_s=0)
        # The outage lasts until a step has met it: a fixed pause was sometimes shorter than a slow
        # machine's model loading, and the run then never saw the database gone.
        met = _wait_for_event(instance, DagsterEventType.STEP_UP_FOR_RETRY, None, since=started, timeout=240)
        assert met == run_id, "no step of the run met the outage within 240 s"
    finally:
        local.start()
    stdout, stderr = retrying.communicate(timeout=600)
    assert retrying.returncode == 0, stdout + stderr
    assert "1 ingested" in stdout
    run_prefix = stdout.rsplit("Dagster runs: ", 1)[1].split(",")[0].strip()
    run = next(r for r in instance.get_runs(limit=20) if r.run_id.startswith(run_prefix))
    retries = instance.get_records_for_run(run.run_id, of_type=DagsterEventType.STEP_UP_FOR_RETRY).records
    assert retries, "the run succeeded without meeting the outage; the test proved nothing"
    page = graph["db"].read(graph["driver"], get_page, graph["owner"], "priya-natarajan", 20)
    assert page is not None and len([s for s in recorded_keys(graph) if s == "kickoff.md"]) == 1
    assert _cli("status", env=env, timeout=120).returncode == 0


def _wait_for_event(instance, event_type: DagsterEventType, step: str | None, since: float, timeout: float) -> str | None:
    """The id of the run started after `since` that records `event_type` (for `step`, if given) within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for run in instance.get_runs(limit=3):
            stats = instance.get_run_stats(run.run_id)
            if not stats.start_time or stats.start_time < since:
                continue
            records = instance.get_records_for_run(run.run_id, of_type=event_type).records
            if any(step is None or record.event_log_entry.step_key == step for record in records):
                return run.run_id
        time.sleep(0.2)
    return None


def recorded_keys(graph) -> list[str]:
    with graph["driver"].session() as session:
        return [r["key"] for r in session.run("MATCH (s:Source {owner: $owner}) RETURN s.key AS key", owner=graph["owner"])]

"""A run `subtext ingest` started is a run of the `ingest_documents` job that the Dagster UI
re-executes (issue 15 item 1): a real `subtext dagster` (webserver, daemon, code server), its page
for the run opened in a real browser, "Re-execute all" clicked, and the new run started by the
daemon through the code location."""

from __future__ import annotations

import json
import os
import time
import urllib.request

from pipeline.definitions import CODE_LOCATION_MODULE, ingest_documents_job
from pipeline.run import dagster_instance, ingest_paths
from tests.conftest import _free_port, merges_of, start_subtext_dagster, stop_subtext_dagster, write

RUN = """
query Run($runId: ID!) {
  runOrError(runId: $runId) {
    ... on Run { pipelineName repositoryOrigin { repositoryLocationName } }
  }
}
"""


def _graphql(port: int, query: str, variables: dict) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", method="POST",
                                     data=json.dumps({"query": query, "variables": variables}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        body = json.load(answer)
    assert "errors" not in body, body
    return body["data"]


def _finished(instance, run_id: str, timeout: float):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = instance.get_run_by_id(run_id)
        if run is not None and run.is_finished:
            return run
        time.sleep(2)
    raise AssertionError(f"the run {run_id} did not finish within {timeout:.0f} s")


def test_an_ingest_run_is_re_executed_from_the_ui(graph, chromium, tmp_path):
    upload, owner = graph["upload"], graph["owner"]
    key = f"{owner}-ui.md"
    report = ingest_paths([write(upload, key, "Ingrid Solberg leads the Fjord Ferry project for Norsk Maritime.")])
    instance = dagster_instance()
    parent = instance.get_run_by_id(report.run_ids[0])
    assert parent.job_name == ingest_documents_job.name  # not Dagster's hidden `__ephemeral_asset_job__`

    port = _free_port()
    ui = start_subtext_dagster(dict(os.environ), port)
    try:
        shown = _graphql(port, RUN, {"runId": parent.run_id})["runOrError"]
        # what the UI needs to offer "Re-execute": the run's job in a loaded code location
        assert shown["repositoryOrigin"]["repositoryLocationName"] == CODE_LOCATION_MODULE

        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/runs/{parent.run_id}")
        skip = page.get_by_role("button", name="Skip")  # Dagster's newsletter modal: no setting turns it off
        try:
            skip.click(timeout=15_000)
        except Exception:  # noqa: BLE001 - shown once per browser profile, maybe not at all
            pass
        page.get_by_text(f"Run of {ingest_documents_job.name}").first.wait_for(timeout=30_000)
        page.screenshot(path=tmp_path / "parent-run.png")
        page.get_by_role("button", name="Re-execute all").click(timeout=30_000)
        page.wait_for_url(lambda url: "/runs/" in url and parent.run_id not in url, timeout=60_000)
        child_id = page.url.rstrip("/").rsplit("/", 1)[1]
        page.screenshot(path=tmp_path / "child-run.png")
        child = _finished(instance, child_id, timeout=300)
        page.close()
    finally:
        stop_subtext_dagster(ui)

    assert child.status.value == "SUCCESS", child.status
    assert child.parent_run_id == parent.run_id and child.job_name == ingest_documents_job.name
    assert child.tags["dagster/asset_partition_range_start"] == key  # the same document's partition
    assert merges_of(instance, key) == 2  # the re-execution ran the job over it again

"""A run `subtext ingest` started shows in the Dagster UI as a run of the `ingest_documents` job over
its document's partition (issue 15 item 1), checked in a real browser on a real `subtext dagster`."""

from __future__ import annotations

import os

from pipeline.definitions import ingest_documents_job
from pipeline.run import dagster_instance, ingest_paths
from tests.conftest import _free_port, start_subtext_dagster, stop_subtext_dagster, write


def test_an_ingest_run_shows_in_the_ui_as_a_run_of_its_job(graph, chromium, tmp_path):
    upload, owner = graph["upload"], graph["owner"]
    key = f"{owner}-ui.md"
    report = ingest_paths([write(upload, key, "Ingrid Solberg leads the Fjord Ferry project for Norsk Maritime.")])
    run = dagster_instance().get_run_by_id(report.run_ids[0])
    assert run.job_name == ingest_documents_job.name  # not Dagster's hidden `__ephemeral_asset_job__`

    port = _free_port()
    ui = start_subtext_dagster(dict(os.environ), port)
    try:
        page = chromium.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"http://127.0.0.1:{port}/runs/{run.run_id}")
        try:
            page.get_by_role("button", name="Skip").click(timeout=15_000)  # Dagster's newsletter modal
        except Exception:  # noqa: BLE001 - no setting turns it off; it may not show at all
            pass
        page.get_by_text(f"Run of {ingest_documents_job.name}").first.wait_for(timeout=30_000)
        page.get_by_text(key).first.wait_for(timeout=30_000)  # the partition its metadata names
        page.screenshot(path=tmp_path / "run.png")
        page.close()
    finally:
        stop_subtext_dagster(ui)

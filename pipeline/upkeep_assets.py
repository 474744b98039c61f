"""Graph upkeep in Dagster (issue 19): maintenance that runs on a schedule, beside ingest.

No `from __future__ import annotations` here: Dagster reads the context annotation at definition time."""

from dagster import AssetExecutionContext, DefaultScheduleStatus, MaterializeResult, ScheduleDefinition, asset, define_asset_job

from graph_schema import db
from graph_schema.queries.access import list_owners
from graph_schema.settings import get_settings
from pipeline.assets import retried_when_graph_unavailable
from pipeline.duplicate_scan import scan_for_duplicates
from pipeline.resources import GraphResource


@asset(
    group_name="upkeep",
    description="Pairs of pages that may be one thing, found among the pages changed since the last scan and "
                "recorded for review (POSSIBLY_SAME, with the evidence), for every person. Nothing is merged: "
                "`subtext review` lists the pairs and `subtext merge` folds one page into another.",
)
def duplicate_review_pairs(context: AssetExecutionContext, graph: GraphResource) -> MaterializeResult:
    settings = get_settings()
    with retried_when_graph_unavailable(context):
        driver = graph.driver()
        scans = [scan_for_duplicates(driver, person["id"], settings) for person in db.read(driver, list_owners)]
    for scan in scans:
        context.log.info(f"{scan.owner}: {scan.pages_scanned} pages scanned, {scan.pairs_recorded} new pairs to review")
    return MaterializeResult(metadata={
        "people": len(scans),
        "pages_scanned": sum(s.pages_scanned for s in scans),
        "new_pairs": sum(s.pairs_recorded for s in scans),
    })


UPKEEP_ASSETS = [duplicate_review_pairs]

scan_duplicates_job = define_asset_job(
    "scan_duplicates", selection=UPKEEP_ASSETS,
    description="Look for near-duplicate pages among those changed since the last scan, for every person, and "
                "record them for review.",
)

scan_duplicates_schedule = ScheduleDefinition(
    job=scan_duplicates_job, cron_schedule=get_settings().duplicate_scan_cron,
    default_status=DefaultScheduleStatus.RUNNING,
)

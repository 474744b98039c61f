"""Graph upkeep in Dagster (issue 19): maintenance that runs on a schedule, beside ingest.

No `from __future__ import annotations` here: Dagster reads the context annotation at definition time."""

from dagster import AssetExecutionContext, DefaultScheduleStatus, MaterializeResult, ScheduleDefinition, asset, define_asset_job

from graph_schema import db
from graph_schema.queries.access import list_owners
from graph_schema.settings import get_settings
from knowledge.focus_proposals import propose_focus_areas
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


@asset(
    group_name="upkeep",
    description="Groups of pages that documents keep naming together, proposed as focus areas, for every person. "
                "Nothing is filed: `subtext focus proposals` lists them and `subtext focus accept` makes one a focus area.",
)
def focus_area_proposals(context: AssetExecutionContext, graph: GraphResource) -> MaterializeResult:
    settings = get_settings()
    with retried_when_graph_unavailable(context):
        driver = graph.driver()
        owners = [person["id"] for person in db.read(driver, list_owners)]
        made = {owner: db.write(driver, propose_focus_areas, owner, settings) for owner in owners}
    for owner, proposals in made.items():
        context.log.info(f"{owner}: {len(proposals)} focus areas proposed"
                         + "".join(f"; {p.title!r} ({len(p.pages)} pages)" for p in proposals[:5]))
    return MaterializeResult(metadata={"people": len(made), "proposals": sum(len(p) for p in made.values())})


UPKEEP_ASSETS = [duplicate_review_pairs, focus_area_proposals]


def _nightly(name: str, upkeep_asset, description: str, cron: str) -> tuple:
    """A job of one upkeep asset and its schedule, on unless the person turns it off in the UI."""
    job = define_asset_job(name, selection=[upkeep_asset], description=description)
    return job, ScheduleDefinition(job=job, cron_schedule=cron, default_status=DefaultScheduleStatus.RUNNING)


scan_duplicates_job, scan_duplicates_schedule = _nightly(
    "scan_duplicates", duplicate_review_pairs,
    "Look for near-duplicate pages among those changed since the last scan, for every person, and record them for review.",
    get_settings().duplicate_scan_cron,
)

propose_focus_areas_job, propose_focus_areas_schedule = _nightly(
    "propose_focus_areas", focus_area_proposals,
    "Group every person's pages by the documents that name them together and propose the groups that are no focus "
    "area yet.",
    get_settings().focus_proposal_cron,
)

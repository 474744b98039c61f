"""The Dagster code location of subtext (`dagster dev` loads it via pyproject's [tool.dagster])."""

from __future__ import annotations

from dagster import Definitions, define_asset_job, in_process_executor

from pipeline.assets import INGEST_ASSETS, documents
from pipeline.resources import GRAPH_WRITES_TAG_KEY, GraphResource, ProgressReporter, StageStore, connection_from_environment
from pipeline.sensors import build_upload_folder_sensor
from pipeline.upkeep_assets import (
    UPKEEP_ASSETS,
    propose_focus_areas_job,
    propose_focus_areas_schedule,
    scan_duplicates_job,
    scan_duplicates_schedule,
)

# The module `subtext dagster` loads (`dagster dev -m …`); its name is the code location's name.
CODE_LOCATION_MODULE = "pipeline.definitions"

# Runs of this job write to the graph; dagster.yaml lets one such run per tag value go at a time.
# The sensor and `subtext ingest` set the value to the person whose graph the run writes; a run
# launched by hand without it shares the value "true".
GRAPH_WRITES_TAG = {GRAPH_WRITES_TAG_KEY: "true"}

ingest_documents_job = define_asset_job(
    "ingest_documents",
    selection=INGEST_ASSETS,
    partitions_def=documents,
    tags=GRAPH_WRITES_TAG,
    # One process for the whole run: the steps share the loaded spaCy and MiniLM models
    # instead of each step starting Python and loading them again.
    executor_def=in_process_executor,
    description="Parse, extract, resolve and merge the selected documents, then refresh their person's brief "
                "(re-run one from its partition). A document whose exact content the graph already holds is "
                "skipped as unchanged; add the tag subtext/force=true to the run to process it again (after "
                "a setting changed, say).",
)


def resources() -> dict:
    return {
        "graph": GraphResource(**connection_from_environment()),
        "stage_store": StageStore(),
        "progress": ProgressReporter(),
    }


defs = Definitions(
    assets=INGEST_ASSETS + UPKEEP_ASSETS,
    jobs=[ingest_documents_job, scan_duplicates_job, propose_focus_areas_job],
    sensors=[build_upload_folder_sensor(ingest_documents_job.name)],
    schedules=[scan_duplicates_schedule, propose_focus_areas_schedule],
    resources=resources(),
)

"""The upload-folder sensor: new, changed and deleted files become runs of the ingest job."""

from __future__ import annotations

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from graph_schema.settings import get_settings
from knowledge.upload_folders import owner_of_key
from pipeline.assets import BATCH_TAG, batch_tag, documents
from pipeline.watch import advance, read_cursor

RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"


def upload_folder_requests(context: SensorEvaluationContext, job_name: str) -> SensorResult:
    changes, cursor = advance(read_cursor(context.cursor), get_settings().upload_dir)
    stored = cursor.model_dump_json()
    if not changes.any:
        return SensorResult(skip_reason="No new, changed or deleted files in the upload folder.", cursor=stored)

    known = set(context.instance.get_dynamic_partitions(documents.name))
    default_owner = get_settings().owner
    # Grouped by person (stable order), so each person's new files are one contiguous range.
    to_add = sorted((k for k in changes.new if k not in known), key=lambda k: owner_of_key(k, default_owner))
    requests = []
    # Files that arrived together are one run per person over a contiguous range of new
    # partitions, so a bulk upload pays for model loading once; changed or deleted files get a
    # run each. Every run_key names one change (see pipeline.watch), never just a content.
    groups: dict[str, list[str]] = {}
    for key in to_add:
        groups.setdefault(owner_of_key(key, default_owner), []).append(key)
    for group in groups.values():
        first = group[0]
        requests.append(
            RunRequest(
                run_key=cursor.run_key(first, f"new-{len(group)}-{changes.state[first].sha256[:12]}"),
                job_name=job_name,
                tags={RANGE_START_TAG: first, RANGE_END_TAG: group[-1], BATCH_TAG: batch_tag(group)},
            )
        )
    for key in [k for k in changes.new if k in known] + changes.changed:
        requests.append(RunRequest(run_key=cursor.run_key(key, changes.state[key].sha256[:12]), partition_key=key,
                                   job_name=job_name))
    for key in changes.deleted:
        requests.append(RunRequest(run_key=cursor.run_key(key, "deleted"), partition_key=key, job_name=job_name))
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[documents.build_add_request(to_add)] if to_add else [],
        cursor=stored,
    )


def build_upload_folder_sensor(job_name: str):
    @sensor(
        name="upload_folder",
        job_name=job_name,
        minimum_interval_seconds=get_settings().upload_sensor_interval_seconds,
        default_status=DefaultSensorStatus.RUNNING,
        description="Watches the upload folder (by content hash) and requests ingest runs.",
    )
    def upload_folder(context: SensorEvaluationContext) -> SensorResult:
        return upload_folder_requests(context, job_name)

    return upload_folder

"""The upload-folder sensor: new, changed and deleted files become runs of the ingest job."""

from __future__ import annotations

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from graph_schema import db
from graph_schema.errors import GraphUnavailable
from graph_schema.kinds import SourceKind, SourceStatus
from graph_schema.queries.documents import source_states
from graph_schema.settings import get_settings
from graph_schema.slugs import source_id_for
from knowledge.upload_folders import owner_of_key
from pipeline.assets import BATCH_TAG, batch_tag, documents
from pipeline.resources import GRAPH_WRITES_TAG_KEY, shared_driver
from pipeline.watch import STATE_FOLDER, FileState, advance, read_cursor, store_state

RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
PARTITION_TAG = "dagster/partition"  # what Dagster tags a run of one partition (a RunRequest's partition_key) with


def upload_folder_requests(context: SensorEvaluationContext, job_name: str) -> SensorResult:
    settings = get_settings()
    folder = settings.dagster_storage_dir / STATE_FOLDER
    previous, generation = read_cursor(context.cursor, folder)
    changes, cursor = advance(previous, settings.upload_dir)
    # a new generation only when something changed (a touched file's new time included)
    stored = context.cursor if generation and cursor == previous else store_state(cursor, generation + 1, folder)
    if not changes.any:
        return SensorResult(skip_reason="No new, changed or deleted files in the upload folder.", cursor=stored)

    known = set(context.instance.get_dynamic_partitions(documents.name))
    default_owner = settings.owner
    held = already_held([*changes.new, *changes.changed], changes.state, default_owner)

    def writes_tag(key: str) -> dict[str, str]:  # a person's runs queue behind each other only (dagster.yaml)
        return {GRAPH_WRITES_TAG_KEY: owner_of_key(key, default_owner)}

    # Partitions for files the graph holds are added first and get no run; the rest are grouped
    # by person (stable order), so each person's new files are one contiguous range.
    held_to_add = sorted(k for k in changes.new if k not in known and k in held)
    to_run = sorted((k for k in changes.new if k not in known and k not in held),
                    key=lambda k: owner_of_key(k, default_owner))
    to_add = held_to_add + to_run
    requests = []
    # Files that arrived together are one run per person over a contiguous range of new
    # partitions, so a bulk upload pays for model loading once; changed or deleted files get a
    # run each. Every run_key names one change (see pipeline.watch), never just a content.
    groups: dict[str, list[str]] = {}
    for key in to_run:
        groups.setdefault(owner_of_key(key, default_owner), []).append(key)
    for person, group in groups.items():
        first = group[0]
        requests.append(
            RunRequest(
                run_key=cursor.run_key(first, f"new-{len(group)}-{changes.state[first].sha256[:12]}"),
                job_name=job_name,
                tags={RANGE_START_TAG: first, RANGE_END_TAG: group[-1], BATCH_TAG: batch_tag(group),
                      GRAPH_WRITES_TAG_KEY: person},
            )
        )
    for key in [k for k in changes.new if k in known and k not in held] + [k for k in changes.changed if k not in held]:
        requests.append(RunRequest(run_key=cursor.run_key(key, changes.state[key].sha256[:12]), partition_key=key,
                                   job_name=job_name, tags=writes_tag(key)))
    for key in changes.deleted:
        requests.append(RunRequest(run_key=cursor.run_key(key, "deleted"), partition_key=key, job_name=job_name,
                                   tags=writes_tag(key)))
    return SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[documents.build_add_request(to_add)] if to_add else [],
        cursor=stored,
    )


def already_held(keys: list[str], state: dict[str, FileState], default_owner: str) -> set[str]:
    """The keys whose exact content the graph already holds, ingested (by `subtext ingest`, or a
    run the sensor never saw): a run for them would write nothing and bury the real runs. When
    the graph cannot be asked, none: the runs then find out themselves."""
    by_owner: dict[str, dict[str, str]] = {}  # person -> source id -> key
    for key in keys:
        owner = owner_of_key(key, default_owner)
        by_owner.setdefault(owner, {})[source_id_for(owner, SourceKind.DOCUMENT, key)] = key
    held = set()
    try:
        driver = shared_driver(get_settings().bolt_uri)
        for owner, keys_by_source in by_owner.items():
            for sid, (content_hash, status) in db.read(driver, source_states, owner, list(keys_by_source)).items():
                key = keys_by_source[sid]
                if status == SourceStatus.INGESTED.value and content_hash == state[key].sha256:
                    held.add(key)
    except GraphUnavailable:
        return set()
    return held


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

"""Running the pipeline in-process through Dagster, as `subtext ingest` and edit_page_body do.

Runs are recorded in the instance that dagster.yaml configures, as runs of the `ingest_documents`
job with their documents' partitions, so a person can open any of them in `subtext dagster`
afterwards. The UI cannot re-execute them: Dagster records an in-process run without the code
location it came from (dagster-io/dagster#19458), and only private API could add one; a document is
re-run from the job's partitions page instead.
"""

from __future__ import annotations

import os
import threading
import uuid
from datetime import datetime, timezone
from collections.abc import Iterable
from pathlib import Path

import yaml
from dagster import DagsterInstance
from pydantic import BaseModel, Field

from graph_schema.errors import InvalidRequest, RunFailed
from graph_schema.models import MergeOutcome
from graph_schema.settings import PROJECT_ROOT, Settings, get_settings
from knowledge.upload_folders import owner_of_key
from pipeline.assets import BATCH_TAG, batch_tag, context_brief, documents
from pipeline.definitions import defs, ingest_documents_job
from pipeline.imports import import_file
from pipeline.parse import SUBMISSION_PREFIX, Submission, submission_file
from pipeline.resources import GRAPH_WRITES_TAG_KEY, GraphResource, ProgressReporter, StageStore
from pipeline.run_history import failure_reason
from pipeline.sensors import RANGE_END_TAG, RANGE_START_TAG



# Dagster's console logger prints every event at DEBUG; a person running the CLI wants warnings
# (a document skipped, and why). Everything is still recorded in the instance for the UI.
QUIET_CONSOLE = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


class IngestReport(BaseModel):
    outcomes: list[MergeOutcome] = Field(default_factory=list)
    run_ids: list[str] = Field(default_factory=list)
    brief_rebuilt: bool = False

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)


def dagster_instance(settings: Settings | None = None) -> DagsterInstance:
    """The instance dagster.yaml describes, with its storage under this state folder.

    dagster.yaml (the repository root) names its folders relative to the root, for `dagster dev`
    run there; the CLI, the MCP server and the tests may run from anywhere and keep their state
    elsewhere. So the state folder holds the instance's own copy of the file with those folders
    made absolute, DAGSTER_HOME points at it, and Dagster's public `DagsterInstance.get()` opens it.
    """
    settings = settings or get_settings()
    home = settings.dagster_home.resolve()  # Dagster wants DAGSTER_HOME absolute, and a relative SUBTEXT_STATE_DIR is allowed
    storage = settings.dagster_storage_dir.resolve()
    (storage / "compute_logs").mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((PROJECT_ROOT / "dagster.yaml").read_text())
    config["storage"]["sqlite"]["base_dir"] = str(storage)
    config["local_artifact_storage"]["config"]["base_dir"] = str(storage)
    config["compute_logs"]["config"]["base_dir"] = str(storage / "compute_logs")
    written = yaml.safe_dump(config, sort_keys=False)
    instance_file = home / "dagster.yaml"
    with _instances_lock:
        if not instance_file.exists() or instance_file.read_text() != written:
            home.mkdir(parents=True, exist_ok=True)
            scratch = home / f".dagster.yaml.{os.getpid()}"  # the CLI and the server may write it at once: whole or not at all
            scratch.write_text(written)
            os.replace(scratch, instance_file)
        os.environ["DAGSTER_HOME"] = str(home)
        # One instance per state folder for the life of the process: opening one costs about 0.13 s
        # (config, storage set-up, a schema check of the event log's index), on every edit an
        # assistant makes otherwise (issue 17).
        key = (str(home), written)
        if key not in _instances:
            _instances[key] = DagsterInstance.get()
        return _instances[key]


_instances: dict[tuple[str, str], DagsterInstance] = {}
_instances_lock = threading.Lock()


def document_keys(paths: Iterable[Path], settings: Settings) -> list[str]:
    """Keys of the documents to ingest; files outside the upload folder are copied into it first.

    A folder's contents land at the top of the upload folder (its subfolders become focus areas);
    a single file lands at the top. A copy never overwrites a different document of the same
    name (see pipeline.imports). Files of unsupported formats are still keyed, so the run reports
    why they were skipped instead of ignoring them silently. A path that does not exist is an
    error, unless it is in the upload folder: then its document is retired.
    """
    upload = settings.upload_dir.resolve()
    upload.mkdir(parents=True, exist_ok=True)
    given = [Path(p).absolute() for p in paths]
    missing = [p for p in given if not p.exists() and not _inside(p, upload)]
    if missing:
        raise InvalidRequest(
            f"{missing[0]} does not exist, so nothing was ingested. To take a document out of the graph, "
            f"delete it from the upload folder ({upload})."
        )
    keys: list[str] = []
    for path in given:
        inside = _inside(path, upload)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
            for file in files:
                relative = file.relative_to(path)
                if inside:  # keyed by where it sits, not where a symlink points (parse refuses those)
                    keys.append((path.resolve() / relative).relative_to(upload).as_posix())
                else:
                    keys.append(import_file(file, upload / relative, settings).relative_to(upload).as_posix())
        elif inside:
            keys.append((path.parent.resolve() / path.name).relative_to(upload).as_posix())
        else:
            keys.append(import_file(path, upload / path.name, settings).relative_to(upload).as_posix())
    return list(dict.fromkeys(keys))


def _inside(path: Path, upload: Path) -> bool:
    resolved = path.resolve()
    return resolved == upload or upload in resolved.parents


def _make_contiguous(instance: DagsterInstance, keys: list[str]) -> list[str]:
    """Add the new keys, and move the requested ones to the end of the partition order when they
    are not one contiguous range already, so that one run (a partition range) holds exactly them.
    Returns the keys in partition order.

    A Dagster run holds one range of partitions, and every partition in it is processed and marked
    materialised. With history, an edited document sits among documents nobody asked for: one run
    per range made ingest one run per document (issue 17), and one range over the gaps would
    re-read and mark the documents between. Deleting a dynamic partition drops only its place in
    the order; its runs and materialisations stay, so re-adding it at the end loses nothing.
    An older run whose range a move changed refuses to run again (see `batch_keys`).
    """
    existing = instance.get_dynamic_partitions(documents.name)
    if not _contiguous_once_added(keys, existing):
        _move_to_the_end(instance, keys, existing)
    else:
        instance.add_dynamic_partitions(documents.name, keys)
    order = instance.get_dynamic_partitions(documents.name)
    if not _contiguous_once_added(keys, order):  # another process added partitions in between
        _move_to_the_end(instance, keys, order)
        order = instance.get_dynamic_partitions(documents.name)
    position = {k: i for i, k in enumerate(order)}
    batch = sorted(keys, key=position.__getitem__)
    if position[batch[-1]] - position[batch[0]] + 1 != len(batch):
        raise RunFailed(
            "Another ingest kept changing Dagster's list of documents while this one started, so "
            "nothing was ingested; run the same command again."
        )
    return batch


def _move_to_the_end(instance: DagsterInstance, keys: list[str], existing: list[str]) -> None:
    for key in set(keys) & set(existing):
        instance.delete_dynamic_partition(documents.name, key)
    instance.add_dynamic_partitions(documents.name, keys)


def _contiguous_once_added(keys: list[str], existing: list[str]) -> bool:
    """Whether the keys make one unbroken range once the new ones are appended to `existing`."""
    position = {k: i for i, k in enumerate(existing)}
    known = sorted(position[k] for k in keys if k in position)
    if not known:
        return True
    unbroken = known[-1] - known[0] + 1 == len(known)
    return unbroken and (len(known) == len(keys) or known[-1] == len(existing) - 1)


def run_ingest(keys: list[str], owner: str | None = None, progress: ProgressReporter | None = None) -> IngestReport:
    """Ingest documents already in the upload folder by key, in one Dagster run that also
    refreshes the brief."""
    settings = get_settings()
    instance = dagster_instance(settings)
    keys = list(dict.fromkeys(keys))
    report = IngestReport()
    if not keys:
        return report
    batch = _make_contiguous(instance, keys)
    resources = {
        "graph": GraphResource(owner=owner or ""),
        "stage_store": StageStore(owner=owner or ""),
        "progress": progress or ProgressReporter(),
    }
    person = owner or owner_of_key(batch[0], settings.owner)  # one run holds one person's documents
    tags = {GRAPH_WRITES_TAG_KEY: person, BATCH_TAG: batch_tag(keys)}
    # One document is run as its partition, as the sensor runs it; several as a partition range.
    # A range costs two partition lookups in Dagster's storage at each of a run's ~60 events, which
    # one key does not (about 0.2 s of each edit_page_body, issue 17).
    if len(batch) > 1:
        tags |= {RANGE_START_TAG: batch[0], RANGE_END_TAG: batch[-1]}
    # The job itself, not `materialize`'s hidden `__ephemeral_asset_job__`: the UI lists the run
    # under `ingest_documents`, with its documents' partition range.
    job = defs.resolve_job_def(ingest_documents_job.name)
    result = job.execute_in_process(instance=instance, resources=resources, tags=tags, run_config=QUIET_CONSOLE,
                                    raise_on_error=False, partition_key=batch[0] if len(batch) == 1 else None)
    report.run_ids.append(result.run_id)
    _check_succeeded(instance, result.run_id, result.success, batch)
    report.outcomes.extend(result.output_for_node("graph_merge").values())
    # The run's last step refreshed the brief of the person it wrote for (pipeline.assets).
    briefs = result.asset_materializations_for_node(context_brief.op.name)
    report.brief_rebuilt = any(m.metadata["rebuilt"].value for m in briefs)
    return report


def _check_succeeded(instance: DagsterInstance, run_id: str, success: bool, keys: list[str]) -> None:
    if success:
        return
    what = f"of {keys[0]}" + (f" … {keys[-1]} ({len(keys)} documents)" if len(keys) > 1 else "")
    raise RunFailed(
        f"The Dagster run {run_id[:8]} {what} failed: {failure_reason(instance, run_id)} "
        "Nothing half-written stays behind (a batch is one transaction); run the same command "
        "again, or re-execute the run in `subtext dagster`."
    )


def ingest_paths(paths: Iterable[Path], owner: str | None = None, progress: ProgressReporter | None = None) -> IngestReport:
    settings = get_settings()
    return run_ingest(document_keys(paths, settings), owner=owner, progress=progress)


# The MCP server's edits run one at a time, so they do not compete with each other for the loaded
# models. Writes to a person's graph are serialised across every process by the merge step's
# write lock in Neo4j (see pipeline.stages), not by this.
_submit_lock = threading.Lock()


def submit_text(
    body: str,
    *,
    owner: str | None = None,
    anchor_slug: str | None = None,
    new_project: str | None = None,
    author: str | None = None,
    author_key: str | None = None,
) -> MergeOutcome:
    """edit_page_body's way in: run prose through the same assets as an upload (a recorded
    Dagster run) and report what actually changed. The caller checks that the anchor exists."""
    settings = get_settings()
    key = f"{SUBMISSION_PREFIX}{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"
    path = submission_file(key, settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    submission = Submission(body=body, anchor_slug=anchor_slug, new_project=new_project, author=author,
                            author_key=author_key)
    path.write_text(submission.model_dump_json())
    with _submit_lock:
        report = run_ingest([key], owner=owner)
    return report.outcomes[0]

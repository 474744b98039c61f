"""The latest Dagster runs and why a failed one failed, for `subtext status`.

Read from the same instance the UI shows (dagster.yaml), so the two never disagree.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from dagster import DagsterEventType, DagsterInstance
from pydantic import BaseModel

from pipeline.sensors import PARTITION_TAG, RANGE_END_TAG, RANGE_START_TAG


_QUALIFIED_NAME = re.compile(r"^[\w.]+(Error|Exception|Unavailable|Failed|Refused|Limited|Found)\b: ")


class RunSummary(BaseModel):
    run_id: str
    job: str  # the job the run belongs to (ingest_documents, or Dagster's own name for a run of bare assets)
    status: str  # SUCCESS, FAILURE, STARTED, QUEUED, CANCELED…
    started_at: datetime | None = None
    documents: str = ""  # the partition range, e.g. "notes/a.md … notes/z.md"
    failure: str = ""  # the first failed step's error, one line
    llm: str = ""  # what the LLM cost the run, when one is configured: "3 LLM calls, 1,204 tokens, 1 fallback"


def recent_runs(instance: DagsterInstance, limit: int) -> list[RunSummary]:
    summaries = []
    for run in instance.get_runs(limit=limit):
        stats = instance.get_run_stats(run.run_id)
        # a range of documents (a CLI ingest, a batch), or one (the sensor's run for a changed file)
        first = run.tags.get(RANGE_START_TAG) or run.tags.get(PARTITION_TAG)
        last = run.tags.get(RANGE_END_TAG) or first
        documents = "" if not first else (first if first == last else f"{first} … {last}")
        summaries.append(RunSummary(
            run_id=run.run_id,
            job=run.job_name,
            status=run.status.value,
            started_at=datetime.fromtimestamp(stats.start_time, timezone.utc) if stats.start_time else None,
            documents=documents,
            failure=failure_reason(instance, run.run_id) if run.status.value == "FAILURE" else "",
            llm=llm_usage_of(instance, run.run_id),
        ))
    return summaries


def llm_usage_of(instance: DagsterInstance, run_id: str) -> str:
    """The LLM calls, tokens and fallbacks the run's brief step recorded; "" when it used no LLM."""
    records = instance.get_records_for_run(run_id, of_type=DagsterEventType.ASSET_MATERIALIZATION).records
    for record in records:
        materialization = record.event_log_entry.asset_materialization
        if materialization is None or materialization.asset_key.path != ["context_brief"]:
            continue
        metadata = {k: v.value for k, v in materialization.metadata.items()}
        if "llm_calls" not in metadata:
            return ""
        tokens = int(metadata["llm_prompt_tokens"]) + int(metadata["llm_completion_tokens"])
        fallbacks = int(metadata["llm_fallbacks"])
        return (f"{metadata['llm_calls']} LLM call{'s' if metadata['llm_calls'] != 1 else ''}, {tokens:,} tokens"
                + (f", {fallbacks} fallback{'s' if fallbacks != 1 else ''} ({metadata['llm_fallback_reasons']})"
                   if fallbacks else ""))
    return ""


def _is_wrapper(cls_name: str | None) -> bool:
    return cls_name is None or cls_name.startswith("Dagster") or cls_name == "RetryRequested"


def failure_reason(instance: DagsterInstance, run_id: str) -> str:
    records = instance.get_records_for_run(
        run_id, of_type={DagsterEventType.STEP_FAILURE, DagsterEventType.RUN_FAILURE}
    ).records
    for record in records:
        event = record.event_log_entry.dagster_event
        error = getattr(event.event_specific_data, "error", None) if event else None
        while error is not None and _is_wrapper(error.cls_name) and error.cause is not None:
            error = error.cause  # Dagster wraps the step's own exception (and retries wrap ours)
        if error is not None:
            lines = [line for line in (error.message or "").strip().splitlines() if line.strip()]
            first = _QUALIFIED_NAME.sub("", lines[0]) if lines else error.cls_name or ""
            return first[:300]
    for record in records:
        event = record.event_log_entry.dagster_event
        if event and event.message:
            return event.message[:300]
    return "the run failed (open it in `subtext dagster` for the log)"

"""Dagster assets: one partition per source document, four stages, and the brief of the run's person.

The assets only wire `pipeline.stages` and report what a person wants to see in the UI.
A run may cover many documents at once (a single-run backfill): each stage then works on the
whole batch, so models load once and spaCy and the embedder see full batches.
"""


import hashlib
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from dagster import (
    AssetExecutionContext,
    BackfillPolicy,
    DynamicPartitionsDefinition,
    MaterializeResult,
    MetadataValue,
    ResourceParam,
    RetryRequested,
    asset,
)
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graph_schema import db
from graph_schema.errors import GraphUnavailable, InvalidRequest
from graph_schema.models import ExtractedDocument, MergeOutcome, ParsedDocument, ResolvedDocument
from graph_schema.settings import get_settings
from knowledge.brief import brief_is_stale, rebuild_brief
from knowledge.llm import llm_client
from pipeline.embedding import embed_texts_remembered
from pipeline.resources import GraphResource, ProgressReporter
from pipeline.stages import (
    extract_mentions,
    judge_conflicts_with_llm,
    judge_kinds_with_llm,
    judge_review_pairs_with_llm,
    merge_documents,
    parse_sources,
    resolve_entities,
)

warnings.filterwarnings("ignore", message=".*backfill_policy.*")

documents = DynamicPartitionsDefinition(name="documents")

_PER_DOCUMENT = dict(
    partitions_def=documents,
    backfill_policy=BackfillPolicy.single_run(),
    io_manager_key="stage_store",
    group_name="ingest",
)


# Names the documents a run was started for. A run holds a range of the partition order, and
# `subtext ingest` moves documents to the end of that order to keep a batch one range
# (pipeline.run), so an older run's range may since cover other documents.
BATCH_TAG = "subtext/documents"


def batch_tag(keys: list[str]) -> str:
    """The BATCH_TAG value for these documents: their number and a digest (a tag stays short)."""
    digest = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:16]
    return f"{len(keys)} documents, sha256 {digest}"


# A run with this tag set to "true" processes its documents even when the graph holds their
# exact content already (to apply changed settings); without it they are skipped as unchanged.
FORCE_TAG = "subtext/force"


def batch_keys(context: AssetExecutionContext) -> list[str]:
    """The run's documents, in one fixed order for the whole run (see StageStore); a re-executed
    run whose range now covers other documents than it was started for stops instead."""
    # one partition is read as itself: Dagster checks a range's two ends in its storage on every call
    keys = sorted(context.partition_keys) if context.has_partition_key_range else [context.partition_key]
    started_for = context.run.tags.get(BATCH_TAG)
    if started_for is not None and started_for != batch_tag(keys):
        raise InvalidRequest(
            f"This run was started for {started_for}, but a later ingest moved some of them in "
            f"Dagster's list of documents, so its range now covers {batch_tag(keys)}. Nothing was "
            "done; ingest the documents again (`subtext ingest` with their files) instead of "
            "re-executing this run."
        )
    return keys


@contextmanager
def retried_when_graph_unavailable(context: AssetExecutionContext) -> Iterator[None]:
    """A Neo4j outage fails the step with the sentence that says so, and Dagster retries it
    (SUBTEXT_RUN_RETRIES times, SUBTEXT_RUN_RETRY_SECONDS apart, doubling each time), so a
    database restart does not need a person to re-run anything. Writes are idempotent (MERGE on
    ids), so a retried merge never doubles what a failed attempt already wrote. Other errors
    are not retried: they would fail the same way again."""
    try:
        yield
    except (GraphUnavailable, ServiceUnavailable, SessionExpired) as e:
        reason = e if isinstance(e, GraphUnavailable) else db.unavailable(e)
        settings = get_settings()
        wait = settings.run_retry_seconds * 2 ** context.retry_number
        context.log.warning(f"{reason} Retrying this step in {wait:.0f} s.")
        raise RetryRequested(max_retries=settings.run_retries, seconds_to_wait=wait) from reason


def _per_partition(context: AssetExecutionContext, metadata: dict[str, dict]) -> None:
    """Metadata for each document of the batch, shown on that partition in the UI.

    Only the last step (graph_merge) records it, for every stage at once: Dagster checks each
    call's partition against all the documents it knows (one read of the whole list per call),
    so a call per document per step cost 35 s of a 787-document run. The cost still grows with
    the batch's size times the number of documents known; one step makes it a quarter."""
    for key, values in metadata.items():
        context.add_asset_metadata(values, partition_key=key)


def _for_the_batch(context: AssetExecutionContext, metadata: dict[str, int | float]) -> None:
    """Totals of a step over the run's documents, on every partition it materialises."""
    context.add_output_metadata(metadata)


@asset(**_PER_DOCUMENT, description="Each document read and split into chunks (unstructured for rich formats).")
def parsed_documents(
    context: AssetExecutionContext, graph: GraphResource, progress: ResourceParam[ProgressReporter]
) -> dict[str, ParsedDocument]:
    started = time.perf_counter()
    keys = batch_keys(context)
    progress.stage("parse", 0, len(keys))
    with retried_when_graph_unavailable(context):
        owner = graph.owner_for(keys, context.run.tags)
        graph.make_ready(owner)  # the first step of every run
        parsed = parse_sources(keys, owner, get_settings(), graph.driver(),
                               force=context.run.tags.get(FORCE_TAG, "").lower() == "true")
    progress.stage("parse", len(keys), len(keys))
    seconds = round(time.perf_counter() - started, 3)
    for document in parsed:
        if document.failure:
            context.log.warning(f"{document.key}: {document.failure}")
        elif document.truncated_reason:
            context.log.warning(f"{document.key} truncated: {document.truncated_reason}")
    _for_the_batch(context, {
        "documents": len(parsed),
        "failed": sum(1 for d in parsed if d.failure),
        "unchanged": sum(1 for d in parsed if d.unchanged),
        "chunks": sum(len(d.chunks) for d in parsed),
        "batch_seconds": seconds,
    })
    return {d.key: d for d in parsed}


@asset(**_PER_DOCUMENT, description="People, organisations, projects, tools and topics found by spaCy, and the sentences about them.")
def document_mentions(
    context: AssetExecutionContext, parsed_documents: dict[str, ParsedDocument], progress: ResourceParam[ProgressReporter]
) -> dict[str, ExtractedDocument]:
    started = time.perf_counter()
    progress.stage("extract", 0, len(parsed_documents))
    extracted = extract_mentions(list(parsed_documents.values()))
    progress.stage("extract", len(extracted), len(extracted))
    seconds = round(time.perf_counter() - started, 3)
    _for_the_batch(context, {
        "entities": sum(len(e.entities) for e in extracted),
        "candidate_facts": sum(len(e.facts) for e in extracted),
        "batch_seconds": seconds,
    })
    return {e.parsed.key: e for e in extracted}


@asset(**_PER_DOCUMENT, description="Which existing page each entity is, or a new page; with the evidence for each decision.")
def resolved_entities(
    context: AssetExecutionContext,
    graph: GraphResource,
    document_mentions: dict[str, ExtractedDocument],
    progress: ResourceParam[ProgressReporter],
) -> dict[str, ResolvedDocument]:
    started = time.perf_counter()
    progress.stage("resolve", 0, len(document_mentions))
    with retried_when_graph_unavailable(context):
        resolved = resolve_entities(list(document_mentions.values()), graph.owner_for(batch_keys(context), context.run.tags),
                                    get_settings(), graph.driver())
    progress.stage("resolve", len(resolved), len(resolved))
    seconds = round(time.perf_counter() - started, 3)
    _for_the_batch(context, {
        "new_pages": sum(1 for r in resolved for x in r.resolutions if x.method == "new"),
        "matched_pages": sum(1 for r in resolved for x in r.resolutions if x.method not in ("new", "you")),
        "possibly_same": sum(len(r.review_pairs) for r in resolved),
        "batch_seconds": seconds,
    })
    return {r.extracted.parsed.key: r for r in resolved}


def document_figures(resolved: ResolvedDocument | None) -> dict[str, str | int]:
    """What each stage made of one document, for its partition in the UI."""
    if resolved is None:
        return {}
    extracted = resolved.extracted
    parsed = extracted.parsed
    return {
        "format": parsed.format,
        "elements": parsed.element_count,
        "chunks": len(parsed.chunks),
        "characters": len(parsed.text),
        "truncated": parsed.truncated_reason or "",
        "entities": len(extracted.entities),
        "candidate_facts": len(extracted.facts),
        "new_pages": sum(1 for x in resolved.resolutions if x.method == "new"),
        "matched_pages": sum(1 for x in resolved.resolutions if x.method not in ("new", "you")),
        "possibly_same": len(resolved.review_pairs),
    }


@asset(**_PER_DOCUMENT, description="The documents merged into Neo4j: pages, facts with provenance, links (the batch in one transaction).")
def graph_merge(
    context: AssetExecutionContext,
    graph: GraphResource,
    resolved_entities: dict[str, ResolvedDocument],
    progress: ResourceParam[ProgressReporter],
) -> dict[str, MergeOutcome]:
    started = time.perf_counter()
    documents_in = list(resolved_entities.values())
    outcomes = []
    with retried_when_graph_unavailable(context):
        driver = graph.driver()
        owner = graph.owner_for(batch_keys(context), context.run.tags)
        per_transaction = get_settings().merge_max_documents_per_transaction
        progress.stage("merge", 0, len(documents_in))
        for written in merge_documents(documents_in, owner, driver, per_transaction):
            outcomes.extend(written)
            progress.stage("merge", len(outcomes), len(documents_in))
    seconds = round(time.perf_counter() - started, 3)
    for outcome in outcomes:
        if outcome.status == "failed":
            context.log.warning(f"{outcome.key} was not ingested: {outcome.reason}")
    _per_partition(context, {o.key: {
        "status": o.status,
        "reason": o.reason or "",
        **document_figures(resolved_entities.get(o.key)),
        "pages_created": len(o.pages_created),
        "pages_updated": len(o.pages_updated),
        "facts_added": o.facts_added,
        "mentions": o.mentions,
        "batch_seconds": seconds,
    } for o in outcomes})
    return {o.key: o for o in outcomes}


@asset(
    deps=[graph_merge],
    group_name="ingest",
    description="The cached brief of the person whose documents the run wrote, rebuilt when their graph changed.",
)
def context_brief(context: AssetExecutionContext, graph: GraphResource) -> MaterializeResult:
    # Part of every ingest run, for the run's own person: a sensor run, `subtext ingest`, an
    # upload or edit_page_body all leave that person's brief current. One brief per run, not one
    # per document: unpartitioned, the step records one materialization where a 787-document run
    # recorded 787 (and as many planned ones), at about 7 ms each in Dagster's event log.
    started = time.perf_counter()
    with retried_when_graph_unavailable(context):
        owner = graph.owner_for(batch_keys(context), context.run.tags)
        settings, driver = get_settings(), graph.driver()
        # with SUBTEXT_LLM_MODEL set, the model judges the open review pairs, then narrates the brief
        client = llm_client(settings)
        judged = judge_review_pairs_with_llm(owner, settings, driver, client)
        verdicts = {} if judged is None else {
            f"llm_review_{v.replace(' ', '_')}": judged[0].count(v) for v in ("same", "different", "unsure", "no answer")}
        # …and chooses the kind of pages whose sources disagree on it
        kinds = judge_kinds_with_llm(owner, settings, driver, client)
        if kinds is not None:
            verdicts |= {"llm_kind_asked": len(kinds.judged), "llm_kind_changed": kinds.changed}
        # …and judges the contradictions the rules found on the pages updated last
        conflicts = judge_conflicts_with_llm(owner, settings, driver, client)
        if conflicts is not None:
            verdicts |= {"llm_conflicts_exclusive": conflicts.count(True), "llm_conflicts_compatible": conflicts.count(False),
                         "llm_conflicts_no_answer": conflicts.count(None)}
        with db.session(driver) as session:
            brief = rebuild_brief(session, owner, embed_texts_remembered, client) if session.read(brief_is_stale, owner) else None
    llm = {} if client is None else {**client.usage.as_metadata(), **verdicts,
                                     "llm_narrative": bool(brief is not None and brief.narrative)}
    if client is not None and client.usage.fallbacks:
        context.log.warning(f"The LLM fell back {client.usage.fallbacks} time(s): {llm['llm_fallback_reasons']}")
    if brief is None:
        return MaterializeResult(metadata={"person": owner, "rebuilt": False, **llm})
    return MaterializeResult(
        metadata={
            **llm,
            "person": owner,
            "rebuilt": True,
            "graph_version": brief.graph_version,
            "sources": len(brief.sources),
            "seconds": round(time.perf_counter() - started, 3),
            "brief": MetadataValue.md(brief.text),
            **({"narrative": MetadataValue.md(brief.narrative)} if brief.narrative else {}),
        }
    )


INGEST_ASSETS = [parsed_documents, document_mentions, resolved_entities, graph_merge, context_brief]

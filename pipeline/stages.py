"""The four ingestion stages over a batch of sources, as plain functions (no Dagster here).

    parse_sources -> extract_mentions -> resolve_entities -> merge_documents

Each takes and returns `graph_schema` models; the Dagster assets only call these and report.
A batch is processed together (one spaCy `nlp.pipe`, embeddings in batches) and written in one
transaction (see `merge_batch`); a document that cannot be read is recorded as failed in that
same transaction and never stops the others.

One writer per person at a time, whichever process writes (`subtext ingest`, edit_page_body in
the MCP server, a sensor run under the daemon, a re-execution from the UI): the merge transaction
first takes the person's write lock in Neo4j (`lock_graph`), then checks that the graph version
the batch was resolved at is still the current one. If another writer committed in between, the
batch is resolved again inside the lock, against the pages as they are now, before it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import neo4j

from graph_schema import db
from graph_schema.kinds import PageKind, SourceKind, SourceStatus
from graph_schema.models import ExtractedDocument, KnownPage, MergeOutcome, ParsedDocument, ResolvedDocument
from graph_schema.queries.documents import known_pages, pages_named_with, source_states
from graph_schema.queries.owners import graph_version, lock_graph
from knowledge.connections import suggest_connections
from graph_schema.queries.search import vector_candidates
from graph_schema.settings import Settings, get_settings
from pipeline.embedding import embed_texts
from pipeline.extract import extract_documents
from pipeline.merge import merge_batch
from graph_schema.slugs import source_id_for
from pipeline.parse import SUBMISSION_PREFIX, parse_document, parse_submission
from pipeline.resolve import resolve_documents
from knowledge.llm import LlmClient, LlmUsage, llm_client
from knowledge.conflict_verdicts import ConflictVerdicts, judge_conflicts
from knowledge.kind_verdicts import KindVerdicts, judge_kinds
from knowledge.review_verdicts import ReviewVerdicts, judge_review_pairs

T = TypeVar("T")


def path_of_key(key: str, settings: Settings) -> Path | str:
    """The file behind a document key, or a reason it may not be read.

    A key is a path relative to the upload folder (`subtext ingest` copies outside files in
    first). An absolute key, say one typed into the Dagster UI, is refused, and nothing that
    resolves (through `..` or a symlink) outside the upload folder is read.
    """
    upload_dir = settings.upload_dir.resolve()
    path = Path(key)
    if path.is_absolute():
        return ("it is an absolute path, and a document key is a path inside the upload folder, so it was not "
                "read; ingest the file with `subtext ingest PATH`, which copies it into the upload folder")
    candidate = upload_dir / path
    resolved = candidate.resolve()
    if resolved != upload_dir and upload_dir not in resolved.parents:
        return "it points outside the upload folder, so it was not read"
    return candidate


def parse_sources(keys: list[str], owner: str, settings: Settings, driver: neo4j.Driver,
                  force: bool = False) -> list[ParsedDocument]:
    """Read and chunk each document; mark the ones whose exact content is already in the graph,
    unless the run is `force`d (after a setting changed, say), which processes them all again."""
    parsed = []
    for key in keys:
        if key.startswith(SUBMISSION_PREFIX):
            parsed.append(parse_submission(key, owner, settings))
            continue
        path = path_of_key(key, settings)
        if isinstance(path, str):
            source_id = source_id_for(owner, SourceKind.DOCUMENT, key)
            parsed.append(ParsedDocument(source_id=source_id, key=key, title=Path(key).name, failure=path))
        elif not path.exists() and not path.is_symlink():
            source_id = source_id_for(owner, SourceKind.DOCUMENT, key)
            parsed.append(ParsedDocument(source_id=source_id, key=key, title=Path(key).name, deleted=True))
        else:
            parsed.append(parse_document(path, key, owner, settings))
    if force:
        parsed = [p.model_copy(update={"forced": True}) for p in parsed]
    return mark_unchanged(parsed, owner, driver)


def mark_unchanged(parsed: list[ParsedDocument], owner: str, driver: neo4j.Driver) -> list[ParsedDocument]:
    return with_source_states(parsed, db.read(driver, source_states, owner, [p.source_id for p in parsed]))


def with_source_states(parsed: list[ParsedDocument], states: dict[str, tuple[str, str]]) -> list[ParsedDocument]:
    """Each document with the hash its source has in the graph, marked unchanged when the graph
    holds exactly this content already (or already knows a deleted file as retired)."""
    marked = []
    for document in parsed:
        previous_hash, status = states.get(document.source_id, (None, None))
        if document.deleted and status == SourceStatus.RETIRED.value:
            marked.append(document.model_copy(update={"unchanged": True, "previous_hash": previous_hash}))
            continue
        unchanged = (
            document.failure is None
            and not document.deleted
            and not document.forced
            and previous_hash == document.content_hash
            and status == SourceStatus.INGESTED.value
        )
        marked.append(document.model_copy(update={"unchanged": unchanged, "previous_hash": previous_hash}))
    return marked


def extract_mentions(parsed: list[ParsedDocument]) -> list[ExtractedDocument]:
    return extract_documents(parsed, embed=embed_texts)


def resolve_entities(
    extracted: list[ExtractedDocument], owner: str, settings: Settings, driver: neo4j.Driver
) -> list[ResolvedDocument]:
    """Resolve against the person's pages; each result remembers the graph version they had."""
    version, known = db.read(driver, _pages_at_version, owner)

    def lookup(vector: list[float], kinds: list[PageKind], limit: int):
        return db.read(driver, vector_candidates, owner, vector, kinds, limit)

    def named_with(slug: str) -> set[str]:
        return db.read(driver, pages_named_with, owner, slug, settings.given_name_max_neighbours)

    resolved = resolve_documents(extracted, known, settings, embed_texts, lookup, named_with)
    return [r.model_copy(update={"graph_version": version}) for r in resolved]


def _pages_at_version(tx: neo4j.ManagedTransaction, owner: str) -> tuple[int, list[KnownPage]]:
    # The version is read before the pages: a write committed between the two reads leaves the
    # version older than the pages, so the merge resolves again (needlessly, but safely); the
    # other order could pair a new version with old pages.
    return graph_version(tx, owner), known_pages(tx, owner)


def merge_documents(
    resolved: list[ResolvedDocument], owner: str, driver: neo4j.Driver, max_per_transaction: int,
    settings: Settings | None = None,
) -> Iterator[list[MergeOutcome]]:
    """Write the batch, `max_per_transaction` documents per transaction (so Neo4j's memory stays
    bounded on very large batches); yields each transaction's outcomes once it is committed.

    Each transaction holds the person's write lock. The next one expects the version the last one
    committed: only a writer that came in between makes it resolve its documents again."""
    settings = settings or get_settings()
    expected = _resolved_at(resolved)
    retyped: dict[str, set[PageKind]] = {}  # slug -> the kinds this run's transactions retyped it from
    for start in range(0, len(resolved), max(1, max_per_transaction)):
        batch = resolved[start : start + max_per_transaction]
        outcomes, expected, changes = db.write(driver, _merge_locked, owner, batch, expected, retyped, settings)
        for slug, (before, _) in changes.items():
            retyped.setdefault(slug, set()).add(before)
        yield outcomes


def _resolved_at(batch: list[ResolvedDocument]) -> int | None:
    """The graph version the batch was resolved at; None (resolve again) if unknown or mixed."""
    versions = {document.graph_version for document in batch}
    return versions.pop() if len(versions) == 1 else None


def _merge_locked(
    tx: neo4j.ManagedTransaction, owner: str, batch: list[ResolvedDocument], resolved_at: int | None,
    retyped: dict[str, set[PageKind]], settings: Settings,
) -> tuple[list[MergeOutcome], int, dict[str, tuple[PageKind, PageKind]]]:
    """Take the person's write lock, re-resolve the batch if the graph moved since it was
    resolved, write it; returns the outcomes, the version this transaction commits and the pages
    it retyped."""
    if lock_graph(tx, owner) != resolved_at:
        batch = _resolve_again(tx, owner, batch, settings)
    outcomes, changes = merge_batch(tx, owner, batch, retyped_in_run=retyped)
    # in the same transaction: a merge that commits always leaves its pages' suggestions current
    written = [slug for o in outcomes if o.status in ("ingested", "retired") for slug in (*o.pages_created, *o.pages_updated)]
    suggest_connections(tx, owner, written, settings)
    return outcomes, graph_version(tx, owner), changes


def _resolve_again(
    tx: neo4j.ManagedTransaction, owner: str, batch: list[ResolvedDocument], settings: Settings
) -> list[ResolvedDocument]:
    """The batch resolved inside the write lock, against the pages and sources as they are now.

    A document found unchanged when it was parsed stays so (it was not extracted); one that
    another writer has since ingested with the same content becomes unchanged, and a changed one
    replaces the version that writer left."""
    parsed = [d.extracted.parsed for d in batch]
    fresh = with_source_states(parsed, source_states(tx, owner, [p.source_id for p in parsed]))
    extracted = [
        d.extracted.model_copy(update={"parsed": now.model_copy(update={"unchanged": True}) if before.unchanged else now})
        for d, before, now in zip(batch, parsed, fresh, strict=True)
    ]

    def lookup(vector: list[float], kinds: list[PageKind], limit: int):
        return vector_candidates(tx, owner, vector, kinds, limit)

    def named_with(slug: str) -> set[str]:
        return pages_named_with(tx, owner, slug, settings.given_name_max_neighbours)

    return resolve_documents(extracted, known_pages(tx, owner), settings, embed_texts, lookup, named_with)


def _judged_by_llm(settings: Settings, driver: neo4j.Driver, client: LlmClient | None,
                   judge: Callable[[db.GraphSession, LlmClient], T]) -> T | None:
    """`judge` run with the configured LLM (counted on `client`, a new one when None is given) after
    a run's writes; None, and no call, when no LLM is configured."""
    client = client or llm_client(settings)
    if client is None:
        return None
    with db.session(driver) as session:
        return judge(session, client)


def judge_conflicts_with_llm(owner: str, settings: Settings, driver: neo4j.Driver,
                             client: LlmClient | None = None) -> ConflictVerdicts | None:
    """The LLM's judgement of the candidate contradictions on the person's most recently updated
    pages (knowledge.conflict_verdicts)."""
    return _judged_by_llm(settings, driver, client, lambda session, llm: judge_conflicts(session, owner, settings, llm))


def judge_kinds_with_llm(owner: str, settings: Settings, driver: neo4j.Driver,
                         client: LlmClient | None = None) -> KindVerdicts | None:
    """The LLM's kind for the person's pages whose sources disagree on it (knowledge.kind_verdicts)."""
    return _judged_by_llm(settings, driver, client, lambda session, llm: judge_kinds(session, owner, settings, llm))


def judge_review_pairs_with_llm(owner: str, settings: Settings, driver: neo4j.Driver,
                                client: LlmClient | None = None) -> tuple[ReviewVerdicts, LlmUsage] | None:
    """The LLM's verdicts on the person's open review pairs (knowledge.review_verdicts), with the usage."""
    return _judged_by_llm(settings, driver, client, lambda session, llm: (
        judge_review_pairs(session, owner, settings, llm, embed_texts), llm.usage))

"""The four ingestion stages over a batch of sources, as plain functions (no Dagster here).

    parse_sources -> extract_mentions -> resolve_entities -> merge_documents

Each takes and returns `graph_schema` models; the Dagster assets only call these and report.
A batch is processed together (one spaCy `nlp.pipe`, embeddings in batches) and written in one
transaction (see `merge_batch`); a document that cannot be read is recorded as failed in that
same transaction and never stops the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import neo4j

from graph_schema import db
from graph_schema.embedding import embed_texts
from graph_schema.kinds import PageKind, SourceKind, SourceStatus
from graph_schema.models import ExtractedDocument, MergeOutcome, ParsedDocument, ResolvedDocument
from graph_schema.queries.documents import known_pages, source_states
from graph_schema.queries.search import vector_candidates
from graph_schema.settings import Settings
from pipeline.extract import extract_documents
from pipeline.merge import merge_batch
from pipeline.parse import SUBMISSION_PREFIX, parse_document, parse_submission, source_id_for
from pipeline.resolve import resolve_documents


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


def parse_sources(keys: list[str], owner: str, settings: Settings, driver: neo4j.Driver) -> list[ParsedDocument]:
    """Read and chunk each document; mark the ones whose exact content is already in the graph."""
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
    return mark_unchanged(parsed, owner, driver)


def mark_unchanged(parsed: list[ParsedDocument], owner: str, driver: neo4j.Driver) -> list[ParsedDocument]:
    states = db.read(driver, source_states, owner, [p.source_id for p in parsed])
    marked = []
    for document in parsed:
        previous_hash, status = states.get(document.source_id, (None, None))
        if document.deleted and status == SourceStatus.RETIRED.value:
            marked.append(document.model_copy(update={"unchanged": True, "previous_hash": previous_hash}))
            continue
        unchanged = (
            document.failure is None
            and not document.deleted
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
    known = db.read(driver, known_pages, owner)

    def lookup(vector: list[float], kinds: list[PageKind], limit: int):
        return db.read(driver, vector_candidates, owner, vector, kinds, limit)

    return resolve_documents(extracted, known, settings, embed_texts, lookup)


def merge_documents(
    resolved: list[ResolvedDocument], owner: str, driver: neo4j.Driver, max_per_transaction: int
) -> Iterator[list[MergeOutcome]]:
    """Write the batch, `max_per_transaction` documents per transaction (so Neo4j's memory stays
    bounded on very large batches); yields each transaction's outcomes once it is committed."""
    for start in range(0, len(resolved), max(1, max_per_transaction)):
        yield db.write(driver, merge_batch, owner, resolved[start : start + max_per_transaction])

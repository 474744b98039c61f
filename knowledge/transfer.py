"""`subtext export` / `subtext import`: a person's graph as JSON Lines, and back.

One JSON object per line, each with a `type`:

    meta     format, version, owner, when, and how many records of each type follow
    page     slug, title, kind, aliases, name keys, body, embedding, when renamed or given its kind by hand
    source   a document or submission: key (its path in the upload folder), hash, status, reason
    chunk    a source's text in pieces, with character offsets
    fact     text, kind (decision, action, question or statement), action owner and due date if stated,
             retired flag, every source it came from with its character span, the pages it is about
    mention  source, page, the character spans and surface forms, and how resolution decided
    link     RELATES_TO, IN_CONTEXT, POSSIBLY_SAME or NOT_SAME (a person's answer to a review pair)
             between two pages, with the sources behind it
             (and, on a RELATES_TO between a person and an organisation, those saying one works at the other)

For .txt, .md and .rst files, spans index the file's own text, so a scorer can find every mention
again in the original. Import validates every line first and names the line of any error; then
it loads everything into an empty graph (it refuses to mix into one that has content), in one
transaction that holds the person's write lock: a failure midway leaves the graph as it was.

Source, chunk and fact ids are derived from the owner (`source_id_for`, `fact_id`); import gives
every record the id the importing person's own ingestion computes, so re-ingesting the same files
there finds them already present instead of adding a second copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from graph_schema import db
from graph_schema.errors import GraphRefused, InvalidRequest
from graph_schema.kinds import FactKind, PageKind, SourceKind
from graph_schema.models import AuthorKind
from graph_schema.plain_text import PlainName
from graph_schema.queries.owners import bump_version, ensure_owner, lock_graph
from graph_schema.queries.transfer import (
    EXPORT_QUERIES,
    content_counts,
    export_batch,
    import_batch,
    recount_facts,
)
from graph_schema.settings import get_settings
from graph_schema.slugs import fact_id, source_id_for


EXPORT_FORMAT = "subtext-export"
EXPORT_VERSION = 1
RECORD_ORDER = ("page", "source", "chunk", "fact", "mention", "link", "dismissed_focus")


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class PageRecord(_Record):
    type: Literal["page"] = "page"
    slug: str
    title: PlainName
    kind: PageKind
    aliases: list[PlainName] = Field(default_factory=list)
    name_keys: list[str] = Field(default_factory=list)
    body: str = ""
    embedding: list[float] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    created_by: str | None = None
    renamed_at: str | None = None  # renamed by hand: kept when no document supports it
    kind_set_at: str | None = None  # kind set by hand: later runs keep it
    former_slugs: list[str] | None = None  # slugs of pages folded into it: they still read it
    merge_evidence: list[str] | None = None  # why each was folded in
    # an LLM's answer on its kind, and the readings it was given (knowledge.kind_verdicts)
    llm_kind: str | None = None
    llm_kind_readings: list[str] | None = None
    llm_kind_by: str | None = None
    llm_kind_reason: str | None = None


class SourceRecord(_Record):
    type: Literal["source"] = "source"
    id: str
    key: str
    kind: SourceKind
    title: PlainName | None = None
    format: str | None = None
    content_hash: str | None = None
    status: Literal["ingested", "failed", "retired"]
    reason: str | None = None
    truncated_reason: str | None = None
    author: str | None = None
    author_kind: AuthorKind | None = None  # the key that sent a submission is not exported: keys stay
    focus: str | None = None
    created_at: str | None = None
    ingested_at: str | None = None
    retired_at: str | None = None
    changed_at: str | None = None  # when a read file's content last changed
    active_at: str | None = None  # when it last changed what it says


class ChunkRecord(_Record):
    type: Literal["chunk"] = "chunk"
    id: str
    source: str
    index: int
    start: int
    end: int
    text: str


class FactSource(_Record):
    source: str
    key: str | None = None
    start: int | None = None
    end: int | None = None


class FactRecord(_Record):
    type: Literal["fact"] = "fact"
    id: str
    text: str
    retired: bool = False
    kind: FactKind = FactKind.STATEMENT  # exports made before facts had kinds read as statements
    action_owner: str | None = None  # who is to act, where the sentence says
    due: str | None = None
    due_on: str | None = None  # ISO day: the due date counted from the document's date
    stated_on: str | None = None  # ISO day the document gives the fact
    done: bool = False  # it reports work finished
    document_status: bool = False  # the document's own status, from its header
    first_seen: str | None = None
    position: int | None = None
    created_by: str | None = None
    sources: list[FactSource] = Field(default_factory=list)
    about: list[str] = Field(default_factory=list)


class MentionRecord(_Record):
    type: Literal["mention"] = "mention"
    source: str
    key: str | None = None
    page: str
    starts: list[int]
    ends: list[int]
    surfaces: list[str]
    method: str | None = None
    score: float | None = None
    evidence: str | None = None
    kind_read: str | None = None  # the kind the source read the page as (older exports have none)
    kind_read_by_rule: bool | None = None  # whether a rule gave that reading (older graphs and exports have none)


class LinkRecord(_Record):
    type: Literal["link"] = "link"
    link: Literal["RELATES_TO", "IN_CONTEXT", "POSSIBLY_SAME", "NOT_SAME"]  # the relationship type
    source: str
    target: str
    sources: list[str] | None = None
    manual: bool | None = None
    score: float | None = None
    evidence: str | None = None
    created_at: str | None = None
    works_at: list[str] | None = None  # the sources saying the link's person works at its organisation


class DismissedFocusRecord(_Record):
    """A group of pages the person turned down as a focus area (never proposed again)."""

    type: Literal["dismissed_focus"] = "dismissed_focus"
    slug: str
    title: PlainName
    members: list[str]
    cohesion: float | None = None
    evidence: str | None = None
    dismissed_at: str | None = None
    dismissed_by: str | None = None


class MetaRecord(_Record):
    type: Literal["meta"] = "meta"
    format: Literal["subtext-export"] = EXPORT_FORMAT
    version: int = EXPORT_VERSION
    owner: str
    exported_at: str


AnyRecord = Annotated[
    MetaRecord | PageRecord | SourceRecord | ChunkRecord | FactRecord | MentionRecord | LinkRecord | DismissedFocusRecord,
    Field(discriminator="type"),
]
_RECORD = TypeAdapter(AnyRecord)


def _plain(value: Any) -> Any:
    """Neo4j temporal values (deeply nested too) as ISO strings, so every record is JSON."""
    if hasattr(value, "to_native"):
        value = value.to_native()
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def export_records(graph: db.GraphSession, owner: str, batch: int | None = None) -> Iterator[dict[str, Any]]:
    """Every record of the person's graph, type by type, read in batches (a transaction each,
    so a large graph streams out without one long transaction)."""
    yield MetaRecord(owner=owner, exported_at=datetime.now().astimezone().isoformat()).model_dump()
    batch = batch or get_settings().export_batch_size
    for record_type in RECORD_ORDER:
        _, cursor_field = EXPORT_QUERIES[record_type]
        after = ""
        while True:
            rows = graph.read(export_batch, owner, record_type, after, batch)
            for row in rows:
                row = _plain(row)
                cursor = row.pop("cursor", None)
                if record_type == "fact":  # collected in no particular order; sorted so exports compare
                    row["about"] = sorted(row["about"])
                    row["sources"] = sorted(row["sources"], key=lambda s: (s["source"], s["start"] or 0))
                    row["kind"] = row["kind"] or FactKind.STATEMENT.value  # written before facts had kinds
                yield {"type": record_type, **row}
            if len(rows) < batch:
                break
            after = cursor if cursor is not None else rows[-1][cursor_field]


def write_export(graph: db.GraphSession, owner: str, lines: Any) -> dict[str, int]:
    """Write the JSONL export to the text stream `lines`; returns how many records of each type."""
    counts: dict[str, int] = {}
    for record in export_records(graph, owner):
        lines.write(json.dumps(record, ensure_ascii=False) + "\n")
        counts[record["type"]] = counts.get(record["type"], 0) + 1
    return counts


def parse_records(lines: Iterable[str], origin: str) -> list[BaseModel]:
    """Validate every line; the first bad one raises InvalidRequest naming `origin` and the line."""
    records: list[BaseModel] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            records.append(_RECORD.validate_python(data))
        except (json.JSONDecodeError, ValidationError) as e:
            first = str(e).splitlines()[0] if isinstance(e, json.JSONDecodeError) else _first_error(e)
            raise InvalidRequest(f"{origin}, line {number}: {first}. Fix or remove that line and import again.") from e
    if not records or not isinstance(records[0], MetaRecord):
        raise InvalidRequest(f"{origin} does not start with a subtext export header line; was it made by `subtext export`?")
    return records


def _first_error(error: ValidationError) -> str:
    detail = error.errors()[0]
    where = ".".join(str(p) for p in detail["loc"])
    return f"{where}: {detail['msg']}" if where else detail["msg"]


def import_records(
    graph: db.GraphSession, owner: str, owner_name: str, records: list[BaseModel], batch: int | None = None
) -> dict[str, int]:
    """Load validated records into the person's graph, which must be empty, all or nothing."""
    by_type = rekeyed_rows(owner, records)
    batch = batch or get_settings().import_batch_size
    try:
        graph.write(_load, owner, owner_name, by_type, batch)
    except GraphRefused as e:  # the transaction was rolled back: nothing is written
        raise InvalidRequest(
            f"The import failed while writing ({e.detail}). Nothing was imported: the graph of {owner!r} "
            "is as it was. Fix the export file and import again."
        ) from e
    return {t: len(rows) for t, rows in by_type.items()}


def _load(
    tx: db.Tx, owner: str, owner_name: str, by_type: dict[str, list[dict[str, Any]]], batch: int
) -> None:
    """The whole import in one transaction: the emptiness check and every write see one graph,
    which no other writer of the person can change meanwhile (the write lock is held)."""
    ensure_owner(tx, owner, owner_name)
    lock_graph(tx, owner)
    pages, sources = content_counts(tx, owner)
    if pages or sources:
        raise InvalidRequest(
            f"The graph of {owner!r} already has {pages} pages and {sources} sources; import only fills an "
            "empty graph. Set SUBTEXT_OWNER to a new name to import beside it."
        )
    for record_type in RECORD_ORDER:
        rows = by_type[record_type]
        for start in range(0, len(rows), batch):
            import_batch(tx, owner, record_type, rows[start : start + batch])
    recount_facts(tx, owner)
    bump_version(tx, owner)


def rekeyed_rows(owner: str, records: list[BaseModel]) -> dict[str, list[dict[str, Any]]]:
    """Rows to write by record type, every owner-derived id recomputed for `owner`: sources from
    their kind and key, chunks from their source, facts from their text (facts whose new ids
    coincide become one fact with the sources and pages of both)."""
    sources = {r.id: source_id_for(owner, r.kind, r.key) for r in records if isinstance(r, SourceRecord)}
    by_type: dict[str, list[dict[str, Any]]] = {t: [] for t in RECORD_ORDER}
    facts: dict[str, dict[str, Any]] = {}
    for record in records:
        if isinstance(record, MetaRecord):
            continue
        row = record.model_dump(mode="json")
        record_type = row.pop("type")
        if isinstance(record, PageRecord):
            row["label"] = record.kind.label  # labels only ever come from the PageKind enum
            row["created_by"] = sources.get(record.created_by, record.created_by)
        elif isinstance(record, SourceRecord):
            row["id"] = sources[record.id]
        elif isinstance(record, ChunkRecord):
            row["id"], row["source"] = _chunk_id(record, sources), sources.get(record.source, record.source)
        elif isinstance(record, MentionRecord):
            row["source"] = sources.get(record.source, record.source)
        elif isinstance(record, LinkRecord):
            for field in ("sources", "works_at"):
                if row[field] is not None:
                    row[field] = [sources.get(s, s) for s in row[field]]
        elif isinstance(record, FactRecord):
            _add_fact(facts, owner, row, sources)
            continue
        by_type[record_type].append(row)
    by_type["fact"] = list(facts.values())
    return by_type


def _chunk_id(chunk: ChunkRecord, sources: dict[str, str]) -> str:
    """A chunk's id is its source's id and a suffix; the suffix stays, the source part is renamed."""
    new_source = sources.get(chunk.source)
    if new_source is None or not chunk.id.startswith(chunk.source):
        return chunk.id
    return new_source + chunk.id[len(chunk.source) :]


def _add_fact(facts: dict[str, dict[str, Any]], owner: str, row: dict[str, Any], sources: dict[str, str]) -> None:
    row["id"] = fact_id(owner, row["text"])
    row["created_by"] = sources.get(row["created_by"], row["created_by"])
    for source in row["sources"]:
        source["source"] = sources.get(source["source"], source["source"])
    same = facts.setdefault(row["id"], row)
    if same is not row:
        same["sources"] += [s for s in row["sources"] if s not in same["sources"]]
        same["about"] = sorted({*same["about"], *row["about"]})
        same["retired"] = same["retired"] and row["retired"]

"""Pydantic models of everything that moves between the pipeline stages, the graph and the tools.

Pipeline stages:  ParsedDocument -> ExtractedDocument -> ResolvedDocument -> MergeOutcome
Graph reads:      PageSummary, PageDetail, FactView, SearchResult (what the domain makes of them: knowledge.types)
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graph_schema.document_text import DATA_NOT_INSTRUCTIONS
from graph_schema.kinds import FactKind, PageKind, SourceKind
from graph_schema.plain_text import PlainName


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- pipeline stages


class Chunk(Model):
    index: int
    start: int  # character offsets into ParsedDocument.text
    end: int


class ParsedDocument(Model):
    """One source after parsing. `failure` set means it could not be read; the rest is empty then."""

    source_id: str
    key: str  # path in the upload folder (documents) or a generated key (submissions)
    kind: SourceKind = SourceKind.DOCUMENT
    title: str = ""
    format: str = ""
    content_hash: str = ""
    text: str = ""  # for .txt/.md/.rst this is the file's own text, so spans index the file
    chunks: list[Chunk] = Field(default_factory=list)
    element_count: int = 0
    focus: str | None = None  # title of the focus area (the upload subfolder) it is filed under
    author: str | None = None  # a submission's: the name of the access key that sent it
    author_key: str | None = None  # ... and that key's id
    anchor_slug: str | None = None  # edit_page_body's anchor page
    truncated_reason: str | None = None
    failure: str | None = None
    unchanged: bool = False  # already ingested with this exact content: nothing to do
    previous_hash: str | None = None  # content hash of the version already in the graph, if any
    deleted: bool = False  # the file is gone from the upload folder: retire what only it said
    forced: bool = False  # the run was forced (tag subtext/force): processed even when unchanged


class EntityMention(Model):
    start: int
    end: int
    surface: str


class DocumentEntity(Model):
    """One thing a document talks about, after in-document coreference of its mentions."""

    name: str  # the fullest name the document uses
    kind: PageKind
    kind_certain: bool = False  # set by a rule (a header field); otherwise the model's label, a guess
    candidate: bool = False  # found by its shape, not by spaCy: kept only if the kind classifier names a kind
    aliases: list[str] = Field(default_factory=list)  # every other surface form seen
    acronyms: list[str] = Field(default_factory=list)  # defined in the text: "Python Software Foundation (PSF)"
    # Names that mean this entity only inside its document: a lone given name or surname of a
    # person named in full, a generic head ("the Court"), titles alone ("Mr. Chief Justice").
    # Resolution never matches another document's page by them.
    local_names: list[str] = Field(default_factory=list)
    mentions: list[EntityMention] = Field(default_factory=list)
    context: str = ""  # a few sentences about it from this document (embedded for resolution)
    embedding: list[float] | None = None  # of `context`, when extraction embedded it


class CandidateFact(Model):
    text: str
    start: int
    end: int
    entities: list[int]  # indexes into ExtractedDocument.entities
    kind: FactKind = FactKind.STATEMENT  # set by pipeline.fact_kinds from the sentence's wording
    owner: str | None = None  # who is to act, when the sentence says (an entity's name, or "we")
    due: str | None = None  # when, as the sentence says it ("before Friday", "by the end of March")
    due_on: date | None = None  # that due date as a day, counted from the document's own date
    stated_on: date | None = None  # the date the document gives it (its Date: line, a dated heading)
    done: bool = False  # it reports something finished ("sent", "is done", "resolved"): it may close an open item
    document_status: bool = False  # the document's own status, read from its header (pipeline.header_facts)


class EntityRelation(Model):
    """A typed relation the document states by its structure: a table row's person works at its organisation."""

    subject: int  # indexes into ExtractedDocument.entities
    object: int
    type: Literal["works_at"]


class ExtractedDocument(Model):
    parsed: ParsedDocument
    entities: list[DocumentEntity] = Field(default_factory=list)
    facts: list[CandidateFact] = Field(default_factory=list)
    # The units (sentences, list items, table rows) facts are cut from, so that a mention found
    # after extraction (pipeline/gazetteer.py) makes its sentence a fact like any other.
    units: list[tuple[int, int]] = Field(default_factory=list)
    # Spans the model read as names of things that get no page (places, nationalities, dates…):
    # a known name written there is not a mention of its page ('United States' the place).
    other_names: list[tuple[int, int]] = Field(default_factory=list)
    relations: list[EntityRelation] = Field(default_factory=list)
    # Who the document says wrote it (an Author field, a byline, a mail's sender), as named there.
    authors: list[str] = Field(default_factory=list)


ResolutionMethod = Literal["slug", "alias", "fuzzy", "name-variant", "acronym", "embedding", "new", "you", "focus"]


class EntityResolution(Model):
    entity: int  # index into ExtractedDocument.entities
    slug: str
    title: str
    kind: PageKind
    method: ResolutionMethod
    score: float = 1.0
    evidence: str = ""  # a sentence a person can read: why this page
    new_alias: str | None = None  # the surface form this merge added to the page, if any
    embedding: list[float] | None = None  # only for new pages
    # The names other documents find the page by from now on (none for a name that only means
    # something inside its document, 'the Court'); the same keys resolution indexed in its batch.
    name_keys: list[str] = Field(default_factory=list)


class ReviewPair(Model):
    """Neither merged nor silently split: recorded as POSSIBLY_SAME for a person to review."""

    slug: str
    other_slug: str
    score: float
    evidence: str


class PageMerge(Model):
    """Two pages found to be one thing (an acronym page and the organisation that defines it)."""

    from_slug: str  # folded into `into_slug`, then deleted
    into_slug: str
    evidence: str


class ResolvedDocument(Model):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    extracted: ExtractedDocument
    resolutions: list[EntityResolution] = Field(default_factory=list)
    review_pairs: list[ReviewPair] = Field(default_factory=list)
    page_merges: list[PageMerge] = Field(default_factory=list)
    focus_slug: str | None = None  # the focus page the source is filed under
    anchor: KnownPage | None = None  # edit_page_body's anchor page, when it exists
    graph_version: int | None = None  # the person's graph version it was resolved at (None: unknown)


class MergeOutcome(Model):
    source_id: str
    key: str
    status: Literal["ingested", "unchanged", "failed", "retired"]
    reason: str | None = None
    pages_created: list[str] = Field(default_factory=list)
    pages_updated: list[str] = Field(default_factory=list)
    facts_added: int = 0
    mentions: int = 0
    focus_created: str | None = None


# --------------------------------------------------------------------------- graph reads


class PageRef(Model):
    slug: str
    title: PlainName
    kind: PageKind


class PageSummary(PageRef):
    preview: str = Field(default="", description="The start of the page's facts, " + DATA_NOT_INSTRUCTIONS + ".")


# Who stated a source's facts: an assistant (a submission, signed with its access key's name) or
# the people the document itself names as its authors.
AuthorKind = Literal["assistant", "document"]


class SourceRef(Model):
    source_id: str
    key: str
    kind: SourceKind
    title: str = ""
    author: str | None = Field(default=None, description="Who stated it: the assistant's key name, or the authors the document names.")
    author_kind: AuthorKind | None = None
    yours: bool = Field(default=False, description="Sent by the key reading it now.")
    start: int | None = None
    end: int | None = None


class FactView(Model):
    id: str
    text: str = Field(description="Document text, " + DATA_NOT_INSTRUCTIONS + ".")
    kind: FactKind = FactKind.STATEMENT
    owner: str | None = None
    due: str | None = None
    first_seen: datetime | None = None
    sources: list[SourceRef] = Field(default_factory=list)


class LinkView(Model):
    type: Literal["RELATES_TO", "IN_CONTEXT", "POSSIBLY_SAME"]
    direction: Literal["out", "in", "both"] = "both"
    page: PageRef
    suggested: bool = False  # a RELATES_TO subtext suggests (named together in several documents); link_pages confirms it


class ConflictingFact(Model):
    id: str
    text: str = Field(description="Document text, " + DATA_NOT_INSTRUCTIONS + ".")
    day: date | None = Field(default=None, description="The date its document states, else the day it was first seen.")
    sources: list[str] = Field(default_factory=list)  # source keys (file paths, submissions)


class FactConflict(Model):
    """Two facts about one page that cannot both hold, flagged and never deleted: the person decides."""

    kind: Literal["numbers", "dates", "negation"]
    reason: str = Field(description="What differs, in a sentence, " + DATA_NOT_INSTRUCTIONS + ".")
    facts: list[ConflictingFact] = Field(description="The two facts, newest first.")
    strength: float | None = Field(default=None, description="How surely the two cannot both hold (0-1), when an LLM judged them.")
    explanation: str | None = Field(default=None, description="Why they cannot both hold, when an LLM judged them, "
                                                              + DATA_NOT_INSTRUCTIONS + ".")


class PageDetail(PageRef):
    body: str = Field(default="", description="The page's facts, one per line, " + DATA_NOT_INSTRUCTIONS + ".")
    aliases: list[str] = Field(default_factory=list)
    facts: list[FactView] = Field(default_factory=list)
    facts_total: int = 0
    links: list[LinkView] = Field(default_factory=list)
    conflicts: list[FactConflict] = Field(default_factory=list, description="Facts about the page that disagree, newest first.")
    created_at: datetime | None = None
    updated_at: datetime | None = None


class SearchHit(PageSummary):
    score: float


class SearchResult(Model):
    mode: Literal["semantic", "fulltext", "none"]
    results: list[SearchHit] = Field(default_factory=list)


# --------------------------------------------------------------------------- status


# --------------------------------------------------------------------------- the merge plan


class PageUpsert(Model):
    slug: str
    title: PlainName
    kind: PageKind
    aliases: list[PlainName] = Field(default_factory=list)  # surface forms to add to the page
    name_keys: list[str] = Field(default_factory=list)  # normalised names resolution matches on
    embedding: list[float] | None = None  # set for new pages only
    is_new: bool = False


class MentionWrite(Model):
    slug: str
    starts: list[int]
    ends: list[int]
    surfaces: list[str]
    method: str
    score: float
    evidence: str
    kind_read: str | None = None  # the kind this document's reading gave the thing (its page may have another)
    kind_read_by_rule: bool = False  # that kind came from a rule (an attendee list, a projects field), not a model


class FactWrite(Model):
    id: str
    text: str
    start: int
    end: int
    slugs: list[str]
    kind: FactKind = FactKind.STATEMENT
    owner: str | None = None
    due: str | None = None
    due_on: date | None = None
    stated_on: date | None = None
    done: bool = False
    document_status: bool = False


class SourceWrite(Model):
    id: str
    key: str
    kind: SourceKind
    title: PlainName
    format: str
    content_hash: str
    status: str
    reason: str | None = None
    truncated_reason: str | None = None
    author: str | None = None
    author_kind: AuthorKind | None = None
    author_key: str | None = None  # the access key that sent a submission
    focus_slug: str | None = None


class ChunkWrite(Model):
    id: str
    index: int
    start: int
    end: int
    text: str


class DocumentWrite(Model):
    """Everything one document adds to the graph, written in one transaction."""

    source: SourceWrite
    chunks: list[ChunkWrite] = Field(default_factory=list)
    pages: list[PageUpsert] = Field(default_factory=list)
    mentions: list[MentionWrite] = Field(default_factory=list)
    facts: list[FactWrite] = Field(default_factory=list)
    relations: list[tuple[str, str]] = Field(default_factory=list)  # RELATES_TO, slug pairs a < b
    works_at: list[tuple[str, str]] = Field(default_factory=list)  # (person slug, organisation slug), on their RELATES_TO
    in_context: list[str] = Field(default_factory=list)  # slugs filed under source.focus_slug
    review_pairs: list[ReviewPair] = Field(default_factory=list)
    page_merges: list[PageMerge] = Field(default_factory=list)


class KnownPage(Model):
    """What resolution needs to know of an existing page."""

    slug: str
    title: str
    kind: PageKind
    name_keys: list[str] = Field(default_factory=list)
    kind_by_hand: bool = False  # the person set its kind (`subtext pages kind`): no run changes it
    kind_by_rule: bool = False  # a rule read its kind in some document (an attendee list): no guess
    kind_by_model: bool = False  # an LLM chose its kind among what its documents read (knowledge.kind_verdicts)
    not_same: list[str] = Field(default_factory=list)  # pages the person said are other things (`subtext review --not-same`)
    former_slugs: list[str] = Field(default_factory=list)  # of pages folded into it: they still read it, no new page takes them


ResolvedDocument.model_rebuild()

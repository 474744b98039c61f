"""What the domain package hands back and takes in: its result models and the embedder's shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from graph_schema.document_text import DATA_NOT_INSTRUCTIONS
from graph_schema.models import AuthorKind, FactConflict, Model, PageRef

# Sentences in, one vector each out (pipeline.embedding's embed_texts or embed_texts_remembered).
# The domain compares sentences by meaning (closing an open item, compile's relevance, a scoped
# key's search) but loads no model: the caller hands it the one it loaded.
Embed = Callable[[list[str]], Sequence[Sequence[float]]]


# --------------------------------------------------------------------------- the brief


class BriefLine(Model):
    """One statement of the brief, with the pages and documents it rests on."""

    section: Literal["you", "changed", "focus", "decision", "action", "question", "closed", "about", "matters"]
    text: str = Field(description="A statement of the brief, " + DATA_NOT_INSTRUCTIONS + ".")
    sources: list[PageRef] = Field(default_factory=list)
    documents: list[str] = Field(default_factory=list)  # keys of the sources it was read from


class FocusStatus(Model):
    """Where one focus area stands, as the brief reads it: what it is, what was decided (dated),
    what is open (owner and due date where stated) and what was closed, each line with its sources."""

    what_it_is: BriefLine | None = None
    decided: list[BriefLine] = Field(default_factory=list)
    open: list[BriefLine] = Field(default_factory=list)
    closed: list[BriefLine] = Field(default_factory=list)
    source_count: int = 0
    last_activity: datetime | None = None


class BriefView(Model):
    text: str = Field(description="The brief inside <document-text> tags, " + DATA_NOT_INSTRUCTIONS + ".")
    sources: list[PageRef] = Field(default_factory=list)
    lines: list[BriefLine] = Field(default_factory=list)  # every statement of `text`, each with its sources
    omitted: list[str] = Field(default_factory=list)  # what did not fit the token budget, in sentences
    narrative: str | None = Field(default=None, description=(
        "Only with an LLM configured (SUBTEXT_LLM_MODEL): the brief as prose, each sentence ending with the numbers "
        "of the statements of `lines` it rests on ('[1, 3]', counted from 1), " + DATA_NOT_INSTRUCTIONS + "."))
    estimated_tokens: int = 0
    graph_version: int = 0
    built_at: datetime | None = None
    cached: bool = False


# --------------------------------------------------------------------------- recent activity


class ActivityItem(Model):
    """One source that arrived, changed or went lately, and what it brought (issue 19 item 5)."""

    source: str  # the source's key: a file's path in the upload folder, or a submission's
    title: str = Field(description="The source's title, " + DATA_NOT_INSTRUCTIONS + ".")
    kind: Literal["document", "submission"]
    change: Literal["new", "changed", "deleted", "failed"]
    why: str  # the change in words: 'new document', 'sent by Claude (assistant)', 'could not be read: …'
    at: datetime
    focus: PageRef | None = None  # the focus area it is filed under
    pages: list[PageRef] = Field(default_factory=list)  # the pages it names, most named first
    more_pages: int = 0  # how many more it names
    facts: int = 0
    decisions: int = 0
    open_items: int = 0  # action items and open questions not reported done
    latest_decision: str | None = Field(default=None, description="Its newest decision, " + DATA_NOT_INSTRUCTIONS + ".")


class RelatedArea(Model):
    """A focus area that shares pages with another: how many, and a few of them."""

    area: PageRef
    together: int
    members: int
    shared: list[PageRef] = Field(default_factory=list)


# --------------------------------------------------------------------------- compile

Depth = Literal["shallow", "medium", "deep"]
Shape = Literal["narrative", "structured", "summary"]


class FactAuthor(BaseModel):
    """Who stated a fact: an assistant (the name of the key that sent it) or a document's author."""

    name: str
    kind: AuthorKind


class CompiledFact(BaseModel):
    text: str = Field(description="Document text, " + DATA_NOT_INSTRUCTIONS + ".")
    first_seen: datetime | None = None
    sources: list[str] = Field(default_factory=list)  # source keys (file paths, submissions)
    authors: list[FactAuthor] = Field(default_factory=list, description="Who stated it: {name: 'Claude', kind: "
                                      "'assistant'} for an assistant, kind 'document' for a document's author.")


class CompiledItem(PageRef):
    relation: str  # member, related, filed under, focus area
    line: str = Field(default="", description="Its first fact, shortened, " + DATA_NOT_INSTRUCTIONS + ".")
    facts: list[CompiledFact] = Field(default_factory=list)  # medium and deep
    facts_total: int = 0
    relevance: float | None = None  # cosine to the intent, when one was given


class CompiledRelation(BaseModel):
    source: PageRef
    target: PageRef
    how: str = Field(description="How the two relate, with a sentence " + DATA_NOT_INSTRUCTIONS + ".")


class NarrativeStatement(BaseModel):
    """A numbered statement an LLM's narrative cites ('[3]' is the third): a fact and its page."""

    slug: str
    text: str = Field(description="Document text, " + DATA_NOT_INSTRUCTIONS + ".")


class CompiledPackage(BaseModel):
    """What `gather` found and packed, before any shape is applied."""

    target: PageRef
    depth: Depth
    intent: str = ""
    freshness: str | None = None
    since: datetime | None = None
    target_facts: list[CompiledFact] = Field(default_factory=list)
    target_facts_total: int = 0
    status: FocusStatus | None = None  # a focus area's decisions, open and closed items (as the brief reads them)
    conflicts: list[FactConflict] = Field(default_factory=list)  # the target's facts that disagree, newest first
    recent: list[ActivityItem] = Field(default_factory=list)  # a focus area's latest sources, and what each brought
    related_areas: list[RelatedArea] = Field(default_factory=list)  # focus areas sharing pages with a focus area
    items: list[CompiledItem] = Field(default_factory=list)
    relations: list[CompiledRelation] = Field(default_factory=list)
    omitted: list[str] = Field(default_factory=list)  # what did not fit, said in sentences
    estimated_tokens: int = 0
    graph_version: int = 0
    # deep narrative compiles with an LLM configured (knowledge.compile_narrative), written once per package
    # (kept out of the structured shape: the narrative shape returns them, fenced)
    narrative: str | None = Field(default=None, exclude=True)
    narrative_statements: list[NarrativeStatement] = Field(default_factory=list, exclude=True)
    narrated: bool = Field(default=False, exclude=True)


class CompileAnswer(BaseModel):
    target: PageRef
    depth: Depth
    shape: Shape
    intent: str = ""
    freshness: str | None = None
    text: str | None = Field(default=None, description="The narrative or summary inside <document-text> tags, "
                             + DATA_NOT_INSTRUCTIONS + ".")
    structured: CompiledPackage | None = None  # structured
    narrative: str | None = Field(default=None, description="With an LLM configured, a deep narrative compile's "
                                  "prose inside <document-text> tags; each sentence ends with the numbers of the "
                                  "statements it rests on. " + DATA_NOT_INSTRUCTIONS + ".")
    narrative_statements: list[NarrativeStatement] = Field(default_factory=list, description="The statements the "
                                                           "narrative cites, numbered from 1.")
    omitted: list[str] = Field(default_factory=list)
    estimated_tokens: int
    cached: bool  # the material was gathered by an earlier call (another shape) on this graph version
    note: str | None = None
    sources: list[PageRef]


# --------------------------------------------------------------------------- status and people


class FocusProposal(Model):
    """A group of pages the graph proposes as a focus area: what it would be called, its pages and why."""

    slug: str = Field(description="The proposal's name in accept_focus_area; the focus area's slug if accepted as it is.")
    title: str = Field(description="The focus area's proposed title, made of its main pages' names.")
    pages: list[PageRef]
    cohesion: float = Field(description="The share of the pages' links (weighted by documents) that stay among them, 0-1.")
    evidence: str


class FocusAcceptance(Model):
    """A proposal made a focus area (or, in a dry run, what would be made)."""

    focus: PageRef
    pages: list[PageRef]
    applied: bool


class SourceProblem(Model):
    """A source that failed, or was processed only up to a limit."""

    key: str
    status: Literal["failed", "truncated"]
    reason: str
    at: datetime | None = None


class OwnerStatus(Model):
    """One person's graph as `subtext status` shows it."""

    owner: str
    name: str
    pages: int
    facts: int
    sources: dict[str, int] = Field(default_factory=dict)  # by status: ingested, failed, retired
    truncated: int = 0
    graph_version: int = 0
    brief_current: bool = False
    problems: list[SourceProblem] = Field(default_factory=list)


class UploadFolder(BaseModel):
    """A person's upload folder as it is on disk."""

    path: Path
    exists: bool
    is_link: bool  # a link is removed, never what it points to (files kept outside the upload folder)
    files: int  # files below it; 0 for a link or a missing folder


class OwnerContents(BaseModel):
    """Everything of a person that `subtext people remove` deletes."""

    id: str
    name: str | None  # None when only nodes of an interrupted removal are left
    pages: int
    facts: int
    sources: int
    chunks: int
    keys: int  # revoked ones included
    nodes: int  # every node that carries their id, those above included
    upload_folder: UploadFolder

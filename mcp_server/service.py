"""What the MCP tools do, over one person's graph; `server.py` only declares the tools.

Every method takes the caller (`Access`): whose graph, and what their key's scope lets them see.
Every query is bound to that one owner, and reads pass the scope's visible slugs, so a page
outside the scope behaves exactly as if it did not exist.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections import OrderedDict
from datetime import datetime

import neo4j
from pydantic import BaseModel, Field

from graph_schema import db
from graph_schema.access import PAUSED_MESSAGE, Access
from graph_schema.document_text import DATA_NOT_INSTRUCTIONS, fence
from graph_schema.errors import AccessRefused, GraphUnavailable, InvalidRequest, PageNotFound
from graph_schema.kinds import PageKind
from graph_schema.local_writes import RecentRead, written_stamp
from graph_schema.models import FactConflict, PageDetail, PageRef, SearchResult
from graph_schema.queries import navigation
from graph_schema.queries.access import visible_slugs
from graph_schema.queries.navigation import LinkOutcome
from graph_schema.queries.owners import graph_version
from graph_schema.queries.pages import get_page, page_refs
from graph_schema.plain_text import plain_name
from graph_schema.queries.search import fulltext_search, vector_search
from graph_schema.settings import Settings, get_settings
from knowledge.brief import current_brief, scoped_brief
from knowledge.compile_narrative import narrate_package
from knowledge.llm import llm_client
from knowledge.keys import authenticate
from knowledge.scoped_search import fulltext_in_scope, semantic_in_scope
from knowledge.compile import parse_freshness, render_narrative, render_summary
from knowledge.types import ActivityItem, BriefView, CompileAnswer, CompiledPackage, Depth, FocusAcceptance, FocusProposal, Shape
from knowledge.compile_gather import gather
from knowledge.activity import recent_activity
from knowledge.contradictions import page_conflicts
from knowledge.page_merges import PageMerge, ReviewPair, list_review_pairs, merge_pages, refresh_merged_vector
from knowledge.focus_proposals import accept_focus_proposal, dismiss_focus_proposal, list_focus_proposals
from pipeline.embedding import embed_text, embed_texts, embed_texts_remembered
from mcp_server.scoped_writes import check_submission_in_scope, home_focus, refuse_new_project

log = logging.getLogger(__name__)


class PageAnswer(BaseModel):
    page: PageDetail
    message: str | None = None
    sources: list[PageRef] = Field(default_factory=list)


class SearchAnswer(SearchResult):
    query: str
    sources: list[PageRef] = Field(default_factory=list)


class SnapshotLink(BaseModel):
    source: str
    type: str
    target: str


class SuggestedLink(BaseModel):
    """A RELATES_TO subtext suggests: the two pages are named together in several documents, in no
    one sentence. link_pages confirms it."""

    source: str
    target: str
    evidence: str = Field(description="Why it is suggested, " + DATA_NOT_INSTRUCTIONS + ".")


class Snapshot(BaseModel):
    pages: list[PageRef]
    links: list[SnapshotLink]
    total_pages: int
    total_links: int
    more: str | None = None
    next_cursor: str | None = None  # pass it back as `cursor` for the next pages; None: this was the last part
    # only when the server offers the upkeep group, to keys that may use it and see the whole graph
    suggested_links: list[SuggestedLink] = Field(default_factory=list)


class TraverseStep(PageRef):
    weight: int
    suggested: bool = Field(default=False, description="A link subtext suggests (no document states it); "
                                                       "link_pages confirms it.")
    evidence: str | None = Field(default=None, description="Why it is suggested, " + DATA_NOT_INSTRUCTIONS + ".")


class TraverseAnswer(BaseModel):
    start: PageRef
    edge_type: str
    within: str | None = None
    path: list[TraverseStep]
    sources: list[PageRef]


class ScopeAnswer(BaseModel):
    target: PageRef
    members: int | None = None
    relationships: int | None = None
    neighbours: dict[str, int] = Field(default_factory=dict)
    focus_areas: list[dict] = Field(default_factory=list)
    estimated_tokens: int
    advice: str
    sources: list[PageRef] = Field(default_factory=list)


class LinkAnswer(BaseModel):
    """What link_pages did (a refusal raises instead)."""

    message: str


class EditAnswer(BaseModel):
    pages_created: list[PageRef]
    pages_updated: list[PageRef]
    facts_added: int
    focus_created: PageRef | None = None
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class ReviewAnswer(BaseModel):
    """Pairs of pages that may be one thing, most alike first, with why resolution thought so."""

    pairs: list[ReviewPair]
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class ContradictionsAnswer(BaseModel):
    """Facts about one page that disagree, the newest conflict first; each pair newest fact first."""

    page: PageRef
    conflicts: list[FactConflict]
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class ActivityAnswer(BaseModel):
    """What changed lately: sources newest first, each with what it brought."""

    since: datetime | None = None
    focus: PageRef | None = None
    activity: list[ActivityItem]
    total: int  # how many sources changed in that time (more than `activity` when it was cut)
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class MergeAnswer(BaseModel):
    """What merge_pages moved (or, in a dry run, would move)."""

    merge: PageMerge
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class FocusProposalsAnswer(BaseModel):
    """Groups of pages the graph proposes as focus areas, largest first, with why."""

    proposals: list[FocusProposal]
    message: str
    sources: list[PageRef] = Field(default_factory=list)


class FocusAreaAnswer(BaseModel):
    """A focus-area proposal accepted (or, in a dry run, what accepting it would make) or dismissed."""

    accepted: FocusAcceptance | None = None
    message: str
    sources: list[PageRef] = Field(default_factory=list)


def _fenced(brief: BriefView) -> BriefView:
    """The brief as a tool answers it: its text marked as document text (graph_schema.document_text)."""
    return brief.model_copy(update={"text": fence(brief.text),
                                    "narrative": fence(brief.narrative) if brief.narrative else None})


def _snapshot_cursor(position: list[str]) -> str:
    """An opaque cursor for the snapshot part after `position` ([kind, title, slug] of a page)."""
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode().rstrip("=")


def _snapshot_position(cursor: str) -> list[str]:
    try:
        position = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        position = None
    if not (isinstance(position, list) and len(position) == 3 and all(isinstance(p, str) for p in position)):
        raise InvalidRequest("cursor is not one that graph_snapshot gave; pass the next_cursor of its last answer, "
                             "or call graph_snapshot without a cursor to start from the first part.")
    return position


class GraphService:
    """The driver (opened at the server's start, or by the first call once Neo4j answers) and the
    caches of the tools."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or get_settings()
        self._driver: neo4j.Driver | None = None
        self._ready = False  # schema and the person's page ensured by this process
        self._lock = threading.Lock()
        # compile's gathered material by (owner, scope, target, depth, freshness, intent); valid for one graph
        # version. The intent is free text, so the cache is bounded: least recently used go first.
        self._compiled: OrderedDict[tuple[str, ...], CompiledPackage] = OrderedDict()
        self._compiled_lock = threading.Lock()
        # Briefs by (person, scope), relied on until a write (see graph_schema.local_writes).
        self._briefs: dict[tuple[str, str], RecentRead[BriefView]] = {}

    @property
    def default_access(self) -> Access:
        """The configured person themselves, with full access (stdio without a key, the CLI)."""
        return Access(owner=self.settings.owner)

    def start(self) -> None:
        """Open the driver and make the graph ready (the server's lifespan calls this).

        Neo4j being down is not fatal: the server still starts, its tools say the graph database
        is unavailable, and the first call that reaches Neo4j finishes the start (see `driver`)."""
        try:
            self.driver()
        except GraphUnavailable as e:
            log.warning("subtext starts without the graph database: %s", e)

    def authenticate(self, secret: str) -> Access | None:
        """The caller a key stands for, or None (knowledge.keys.authenticate)."""
        with db.session(self.driver()) as graph:
            return authenticate(graph, secret)

    def driver(self) -> neo4j.Driver:
        """The open driver; opened here only when the start could not reach Neo4j or the server
        was stopped, and then the graph is made ready once, before the first query."""
        with self._lock:
            if self._driver is None:
                self._driver = self._connect()
            return self._driver

    def _connect(self) -> neo4j.Driver:
        driver = db.open_driver(self.settings, interactive=True)
        try:
            if self._ready:
                db.check_connection(driver)
            else:
                db.ensure_ready(driver, self.settings)
                self._ready = True
        except Exception:
            driver.close()
            raise
        return driver

    def close(self) -> None:
        """Close the driver (the lifespan's shutdown); a later call opens a new one."""
        with self._lock:
            if self._driver is not None:
                self._driver.close()
                self._driver = None

    # ------------------------------------------------------------------ access

    def visible(self, access: Access) -> list[str] | None:
        """The slugs the caller may see, or None for the whole graph."""
        if access.sees_everything:
            return None
        return db.read(self.driver(), visible_slugs, access.owner, access.scope)

    @staticmethod
    def check_active(access: Access) -> None:
        """A paused key may call nothing but brief (which says it is paused); see server._call."""
        if access.paused:
            raise AccessRefused(PAUSED_MESSAGE.format(name=access.key_name or ""))

    @staticmethod
    def check_can_write(access: Access, *, needs_full_context: bool = False) -> None:
        GraphService.check_active(access)  # the upload endpoint calls this directly
        if not access.can_write:
            raise AccessRefused(
                f"The key {access.key_name!r} is read-only, and this tool writes to the graph: it needs "
                "Read + write. The person can create a key with `subtext keys create NAME --write`."
            )
        if needs_full_context and not access.full_context:
            raise AccessRefused(
                f"The key {access.key_name!r} does not have Full context, which edit_page_body needs. The person "
                "can create a key with `subtext keys create NAME --write` (without --limited-context)."
            )

    # ------------------------------------------------------------------ reads

    def brief(self, access: Access) -> BriefView:
        if access.paused:
            return BriefView(text=PAUSED_MESSAGE.format(name=access.key_name or ""), sources=[], graph_version=0)
        key = (access.owner, str(access.scope))
        held = self._briefs.get(key)
        if held is not None and held.still_current():  # no write since: not even a version check
            return _fenced(held.value.model_copy(update={"cached": True}))
        stamp = written_stamp()
        brief = self._brief_from_graph(access, held.value if held else None)
        self._briefs[key] = RecentRead.before_reading(brief, stamp)
        return _fenced(brief)

    def _brief_from_graph(self, access: Access, held: BriefView | None) -> BriefView:
        driver = self.driver()
        visible = self.visible(access)
        if visible is None:
            with db.session(driver) as graph:  # the full brief is cached in the graph itself
                return current_brief(graph, access.owner, embed_texts_remembered, llm_client(self.settings))
        version = db.read_single(driver, graph_version, access.owner)
        if held is not None and held.graph_version == version:
            return held.model_copy(update={"cached": True})
        return db.in_session(driver, scoped_brief, access.owner, visible, embed_texts_remembered, access.areas)

    def search(self, access: Access, query: str, limit: int) -> SearchAnswer:
        limit = max(1, min(limit, 50))
        s = self.settings
        driver = self.driver()
        visible = self.visible(access)
        vector = embed_text(query)
        if visible is None:
            hits = db.read(driver, vector_search, access.owner, vector, limit, s.search_min_score, s.preview_chars)
        else:  # scored by what the key may read of each page, never by the rest of it
            hits = db.in_session(driver, semantic_in_scope, access.owner, vector, limit, visible, access.areas, s,
                                 embed_texts)
        mode = "semantic"
        if not hits:
            hits = (db.read(driver, fulltext_search, access.owner, query, limit, s.preview_chars)
                    if visible is None
                    else db.read(driver, fulltext_in_scope, access.owner, query, limit, visible, access.areas, s))
            mode = "fulltext" if hits else "none"
        sources = [PageRef(slug=h.slug, title=h.title, kind=h.kind) for h in hits]
        return SearchAnswer(query=query, mode=mode, results=hits, sources=sources)

    def get_page(self, access: Access, slug: str) -> PageAnswer:
        page = db.read(self.driver(), get_page, access.owner, slug, self.settings.get_page_max_facts,
                       self.settings.get_page_max_links,
                       visible=self.visible(access), areas=access.areas, key_id=access.key_id,
                       suggested=self.shows_suggestions(access))
        if page is None:
            raise PageNotFound(slug)
        conflicts = db.read(self.driver(), page_conflicts, access.owner, page.slug, self.settings,
                            self.visible(access), access.areas)
        page.conflicts = conflicts[: self.settings.get_page_max_conflicts]
        notes = []
        if conflicts:
            shown = f", the newest {len(page.conflicts)} in conflicts" if len(page.conflicts) < len(conflicts) else \
                " (see conflicts, newest first)"
            notes.append(f"{len(conflicts)} pair{'s' if len(conflicts) != 1 else ''} of its facts disagree{shown}: "
                         "ask the person which holds.")
        if page.slug != slug:
            notes.append(f"{slug!r} was merged into {page.slug!r}; use that slug from now on.")
        if page.facts_total > len(page.facts):
            notes.append(f"Showing the first {len(page.facts)} of {page.facts_total} facts; the body holds them all.")
        message = " ".join(notes) or None
        return PageAnswer(page=page, message=message, sources=[PageRef(slug=page.slug, title=page.title, kind=page.kind)])

    # ------------------------------------------------------------------ navigation

    def _ref(self, access: Access, slug: str, visible: list[str] | None = None) -> PageRef:
        """The page a slug names, as the caller may see it; PageNotFound otherwise."""
        refs = db.read(self.driver(), page_refs, access.owner, [slug], visible)
        if not refs:
            raise PageNotFound(slug)
        return refs[0]

    def graph_snapshot(self, access: Access, cursor: str | None = None) -> Snapshot:
        s = self.settings
        after = _snapshot_position(cursor) if cursor else None
        data = db.read(self.driver(), navigation.snapshot, access.owner, s.snapshot_max_pages, s.snapshot_max_links,
                       self.visible(access), access.areas, after, self.shows_suggestions(access))
        next_cursor = _snapshot_cursor(data["next"]) if data["next"] else None
        notes = []
        if next_cursor or cursor:
            notes.append(f"This part lists {len(data['pages'])} of {data['total_pages']} pages, with the links that "
                         "start at them." + (" Call graph_snapshot with cursor set to next_cursor for the next part."
                                             if next_cursor else " It is the last part."))
        if data["links_cut"]:
            notes.append(f"Only the first {len(data['links'])} links of these pages are listed; traverse from a page "
                         "gives all of its links.")
        return Snapshot(
            pages=[PageRef(**p) for p in data["pages"]],
            links=[SnapshotLink(**link) for link in data["links"]],
            total_pages=data["total_pages"],
            total_links=data["total_links"],
            more=" ".join(notes) or None,
            next_cursor=next_cursor,
            suggested_links=[SuggestedLink(**link) for link in data["suggested"]],
        )

    def traverse(self, access: Access, from_slug: str, edge_type: str, within: str | None, limit: int) -> TraverseAnswer:
        if from_slug == "you":
            raise InvalidRequest(
                "traverse starts from a specific page, never 'you'. Call scope('you') for the focus areas, "
                "or pick a page's slug from search or graph_snapshot."
            )
        if edge_type not in ("RELATES_TO", "IN_CONTEXT"):
            raise InvalidRequest(f"edge_type must be RELATES_TO or IN_CONTEXT, not {edge_type!r}.")
        visible = self.visible(access)
        start = self._ref(access, from_slug, visible)
        from_slug = start.slug  # a slug folded into another page reads that page
        if within is not None and db.read(self.driver(), navigation.page_kind, access.owner, within, visible) is not PageKind.FOCUS:
            raise InvalidRequest(
                f"within must be the slug of a focus area; {within!r} is not one. Call scope('you') to list them."
            )
        limit = max(1, min(limit, self.settings.traverse_max_limit))
        rows = db.read(self.driver(), navigation.traverse, access.owner, from_slug, edge_type, within, limit, visible,
                       access.areas, self.shows_suggestions(access))
        path = [TraverseStep(**r) for r in rows]
        sources = [start, *[PageRef(slug=p.slug, title=p.title, kind=p.kind) for p in path]]
        return TraverseAnswer(start=start, edge_type=edge_type, within=within, path=path, sources=sources)

    def scope(self, access: Access, target: str) -> ScopeAnswer:
        s = self.settings
        visible = self.visible(access)
        if target == "you":
            areas = db.read(self.driver(), navigation.focus_index, access.owner, visible)
            you = self._ref(access, "you")  # "you" always names the index, even for a focus-limited key
            advice = (
                f"{len(areas)} focus area{'s' if len(areas) != 1 else ''}. A compile of 'you' is always shallow; "
                "to go deep, scope and compile one focus area."
                if areas else "No focus areas yet. A compile of 'you' is always shallow."
            )
            refs = [you, *[PageRef(slug=a["slug"], title=a["title"], kind=PageKind.FOCUS) for a in areas]]
            return ScopeAnswer(target=you, focus_areas=areas, estimated_tokens=0, advice=advice, sources=refs)
        ref = self._ref(access, target, visible)
        target = ref.slug
        if ref.kind is PageKind.FOCUS:
            data = db.read(self.driver(), navigation.scope_focus, access.owner, target, visible, access.areas)
            tokens = int(data["characters"] / s.chars_per_token)
            answer = ScopeAnswer(target=ref, members=data["members"], relationships=data["relationships"],
                                 estimated_tokens=tokens, advice="", sources=[ref])
            size = f"{data['members']} members and {data['relationships']} relationships between them"
        else:
            rows = db.read(self.driver(), navigation.scope_thing, access.owner, target, visible, access.areas)
            neighbours = {r["type"]: r["count"] for r in rows if r["type"]}
            tokens = int(max((r["characters"] for r in rows), default=0) / s.chars_per_token)
            answer = ScopeAnswer(target=ref, neighbours=neighbours, estimated_tokens=tokens, advice="", sources=[ref])
            size = f"{sum(neighbours.values())} neighbours"
        if tokens <= s.deep_compile_token_budget:
            answer.advice = f"{ref.title} has {size}; a deep compile is sensible (about {tokens:,} tokens)."
        else:
            answer.advice = (
                f"{ref.title} has {size}; a deep compile would be about {tokens:,} tokens, over the "
                f"{s.deep_compile_token_budget:,}-token budget: compile it shallow or medium, or a narrower target."
            )
        return answer

    def compile(
        self, access: Access, intent: str, target: str, depth: Depth, shape: Shape, freshness: str | None
    ) -> CompileAnswer:
        if depth not in ("shallow", "medium", "deep"):
            raise InvalidRequest(f"depth must be shallow, medium or deep, not {depth!r}.")
        if shape not in ("narrative", "structured", "summary"):
            raise InvalidRequest(f"shape must be narrative, structured or summary, not {shape!r}.")
        since = parse_freshness(freshness)
        visible = self.visible(access)
        ref = self._ref(access, target, None if target == "you" else visible)
        note = None
        if ref.kind is PageKind.YOU and depth != "shallow":
            depth = "shallow"
            note = "A compile of 'you' is always shallow; compile one of the focus areas to go deeper."
        intent = " ".join(intent.split())[:500]
        freshness = freshness.strip() if freshness and freshness.strip() else None
        key = (access.owner, str(access.scope), ref.slug, depth, freshness or "", intent)
        version = db.read(self.driver(), graph_version, access.owner)
        with self._compiled_lock:
            package = self._compiled.get(key)
            if package is not None:
                self._compiled.move_to_end(key)
        cached = package is not None and package.graph_version == version
        if not cached:
            package = db.in_session(self.driver(), gather, access.owner, ref, depth, intent, freshness, since,
                                    self.settings, embed_texts_remembered, visible, access.areas)
            package.graph_version = version
            self._remember_compiled(key, package)
        if shape == "narrative" and depth == "deep" and not package.narrated and (client := llm_client(self.settings)):
            narrate_package(package, client, self.settings)  # once per gathered package: cached with it
        narrated = shape == "narrative" and package.narrative is not None
        render = {"narrative": render_narrative, "summary": render_summary}.get(shape)  # structured: no text
        sources = [package.target, *[PageRef(slug=i.slug, title=i.title, kind=i.kind) for i in package.items]]
        return CompileAnswer(
            target=package.target, depth=depth, shape=shape, intent=intent, freshness=freshness,
            text=fence(render(package)) if render else None,
            structured=package if shape == "structured" else None,
            narrative=fence(package.narrative) if narrated else None,
            narrative_statements=package.narrative_statements if narrated else [],
            omitted=package.omitted, estimated_tokens=package.estimated_tokens, cached=cached, note=note,
            sources=sources,
        )

    def _remember_compiled(self, key: tuple[str, ...], package: CompiledPackage) -> None:
        """Cache a package: older graph versions' packages go, then the least recently used ones
        beyond `compile_cache_max_entries` (intents are free text, so keys never repeat by themselves)."""
        with self._compiled_lock:
            for stale in [k for k, v in self._compiled.items() if v.graph_version != package.graph_version]:
                del self._compiled[stale]
            self._compiled[key] = package
            self._compiled.move_to_end(key)
            while len(self._compiled) > max(1, self.settings.compile_cache_max_entries):
                self._compiled.popitem(last=False)

    # ------------------------------------------------------------------ writes

    def rename_page(self, access: Access, slug: str, title: str) -> PageAnswer:
        self.check_can_write(access)
        slug = self._ref(access, slug, self.visible(access)).slug
        title = plain_name(title)  # no newline or bidi override reaches the brief through a title
        if not title:
            raise InvalidRequest("title must not be empty.")
        if len(title) > 200:
            raise InvalidRequest("title must be at most 200 characters.")
        if not db.write(self.driver(), navigation.rename_page, access.owner, slug, title):
            raise PageNotFound(slug)
        return self.get_page(access, slug)

    def link_pages(self, access: Access, from_slug: str, to_slug: str) -> LinkAnswer:
        self.check_can_write(access)
        if from_slug == to_slug:
            raise InvalidRequest("A page cannot be linked to itself; pass two different slugs.")
        visible = self.visible(access)
        from_slug, to_slug = self._ref(access, from_slug, visible).slug, self._ref(access, to_slug, visible).slug
        if from_slug == to_slug:
            raise InvalidRequest("These two slugs name one page (one was merged into the other); nothing to link.")
        outcome = db.write(self.driver(), navigation.link_pages, access.owner, from_slug, to_slug)
        if outcome is LinkOutcome.MISSING:  # deleted (folded) between the check and the write
            raise PageNotFound(from_slug if not self._exists(access, from_slug, visible) else to_slug)
        if outcome is LinkOutcome.CONFIRMED and self.shows_suggestions(access):
            return LinkAnswer(message=f"Confirmed the suggested link between {from_slug} and {to_slug}: it is now "
                                      "your own RELATES_TO.")
        if outcome in (LinkOutcome.CREATED, LinkOutcome.CONFIRMED):  # a suggestion the key does not see stays unsaid
            return LinkAnswer(message=f"Linked {from_slug} and {to_slug} (RELATES_TO).")
        if outcome is LinkOutcome.MADE_MANUAL:
            return LinkAnswer(message=f"{from_slug} and {to_slug} were linked by their documents; the link is now "
                                      "also yours, so it stays if those documents change.")
        return LinkAnswer(message=f"{from_slug} and {to_slug} were already linked; nothing changed.")

    # ------------------------------------------------------------------ upkeep (an opt-in group)

    def shows_suggestions(self, access: Access) -> bool:
        """Whether get_page, traverse and graph_snapshot list the links subtext suggests: an opt-in
        like the upkeep tools (the ten stay as specified by default), for keys that see everything."""
        return self.settings.upkeep_tools and access.upkeep and access.sees_everything

    @staticmethod
    def check_upkeep(access: Access, *, whole_graph: bool = True) -> None:
        """The upkeep tools need a key made for them; those that act on the whole graph (review,
        merge) need scope full, those that read one page (find_contradictions) obey the key's scope."""
        GraphService.check_active(access)
        if not access.upkeep:
            raise AccessRefused(
                f"The key {access.key_name!r} may not use the graph-upkeep tools. The person can create a key "
                "that may with `subtext keys create NAME --upkeep` (with --write to merge)."
            )
        if whole_graph and not access.sees_everything:
            raise AccessRefused(
                f"The key {access.key_name!r} sees part of the graph ({access.scope}), and merging pages moves "
                "facts of every focus area: the upkeep tools need a key with scope full."
            )

    def review(self, access: Access, limit: int) -> ReviewAnswer:
        self.check_upkeep(access)
        pairs = db.read(self.driver(), list_review_pairs, access.owner, min(limit, self.settings.review_max_pairs))
        if not pairs:
            message = "No pages to review: no two pages are thought to be one thing."
        else:
            message = (f"{len(pairs)} pair{'s' if len(pairs) > 1 else ''} of pages that may be one thing. Show them to "
                       "the person; merge_pages(from_slug, into_slug) shows what a merge would move.")
        refs = {ref.slug: ref for pair in pairs for ref in (pair.page, pair.other)}
        return ReviewAnswer(pairs=pairs, message=message, sources=list(refs.values()))

    def find_contradictions(self, access: Access, target: str, limit: int) -> ContradictionsAnswer:
        self.check_upkeep(access, whole_graph=False)
        visible = self.visible(access)
        ref = self._ref(access, target, visible)
        conflicts = db.read(self.driver(), page_conflicts, access.owner, ref.slug, self.settings, visible, access.areas)
        shown = conflicts[:limit]
        if not conflicts:
            message = (f"No facts about {ref.title!r} disagree: no two documents give it different numbers or dates "
                       "in the same place, or say the same with and without a negation.")
        else:
            message = (f"{len(conflicts)} pair{'s' if len(conflicts) != 1 else ''} of facts about {ref.title!r} disagree"
                       + (f" (showing the newest {len(shown)})" if len(shown) < len(conflicts) else "")
                       + ". Nothing was changed: ask the person which holds, and edit_page_body can record it.")
        return ContradictionsAnswer(page=ref, conflicts=shown, message=message, sources=[ref])

    def recent_activity(self, access: Access, since: str | None, focus: str | None, limit: int) -> ActivityAnswer:
        self.check_upkeep(access, whole_graph=False)
        visible = self.visible(access)
        cutoff = parse_freshness(since)
        area = None
        if focus:
            area = self._ref(access, focus, visible)
            if area.kind is not PageKind.FOCUS:
                raise InvalidRequest(f"{area.title!r} is a {area.kind.value} page, not a focus area: pass the slug of a "
                                     "focus area as focus, or leave it out for all of the graph's activity.")
        items, total = db.read(self.driver(), recent_activity, access.owner, cutoff, area.slug if area else None,
                               limit, self.settings, visible, access.areas)
        where = f" in {area.title!r}" if area else ""
        when = f" since {cutoff:%Y-%m-%d %H:%M} UTC" if cutoff else ""
        if not items:
            message = f"Nothing changed{where}{when}: no document was added, changed or deleted and nothing was sent."
        else:
            message = (f"{total} source{'s' if total != 1 else ''} changed{where}{when}"
                       + (f" (showing the newest {len(items)}; pass a shorter since or a focus area for the rest)"
                          if len(items) < total else "") + ", newest first.")
        refs = {p.slug: p for item in items for p in (*([item.focus] if item.focus else []), *item.pages)}
        return ActivityAnswer(since=cutoff, focus=area, activity=items, total=total, message=message,
                              sources=list(refs.values()))

    def merge_pages(self, access: Access, from_slug: str, into_slug: str, dry_run: bool) -> MergeAnswer:
        self.check_upkeep(access)
        if not dry_run:
            self.check_can_write(access)
        folded = self._ref(access, from_slug)
        if folded.slug != from_slug:
            # an old slug reads the page it joined; folding that page away is not what was named
            raise InvalidRequest(f"{from_slug!r} was merged into {folded.slug!r} already. To fold {folded.title!r} "
                                 f"itself into another page, call merge_pages with from_slug {folded.slug!r}.")
        from_slug, into_slug = folded.slug, self._ref(access, into_slug).slug
        if from_slug == into_slug:
            raise InvalidRequest("These two slugs name one page already (one was merged into the other); nothing to merge.")
        run = db.read if dry_run else db.write
        merge = run(self.driver(), merge_pages, access.owner, from_slug, into_slug, not dry_run)
        if merge.applied:
            db.in_session(self.driver(), refresh_merged_vector, access.owner, into_slug, self.settings, embed_texts)
        moved = (f"{merge.facts} fact{'s' if merge.facts != 1 else ''}, {merge.sources} source"
                 f"{'s' if merge.sources != 1 else ''} and {merge.links} link{'s' if merge.links != 1 else ''}")
        if dry_run:
            message = (f"Would merge {merge.from_page.title!r} into {merge.into_page.title!r}, moving {moved}. Nothing "
                       "changed: ask the person, then call again with dry_run false.")
        else:
            message = (f"Merged {merge.from_page.title!r} into {merge.into_page.title!r}: {moved} moved, and "
                       f"{from_slug!r} now reads {into_slug!r}.")
        return MergeAnswer(merge=merge, message=message, sources=[merge.into_page] if not dry_run
                           else [merge.from_page, merge.into_page])

    def focus_proposals(self, access: Access, limit: int) -> FocusProposalsAnswer:
        self.check_upkeep(access)
        found = db.read(self.driver(), list_focus_proposals, access.owner, limit)
        if not found:
            message = ("No focus areas to propose: no group of pages is named together apart from the rest, or "
                       "each group is a focus area already (proposals are worked out nightly).")
        else:
            message = (f"{len(found)} group{'s' if len(found) != 1 else ''} of pages that documents keep naming together, "
                       "largest first. Show them to the person; accept_focus_area makes one a focus area.")
        return FocusProposalsAnswer(proposals=found, message=message,
                                    sources=list({p.slug: p for f in found for p in f.pages}.values()))

    def accept_focus_area(self, access: Access, proposal: str, title: str | None, dry_run: bool) -> FocusAreaAnswer:
        self.check_upkeep(access)
        if not dry_run:
            self.check_can_write(access)
        run = db.read if dry_run else db.write
        done = run(self.driver(), accept_focus_proposal, access.owner, proposal, title, not dry_run)
        pages = f"{len(done.pages)} page{'s' if len(done.pages) != 1 else ''}"
        if dry_run:
            message = (f"Would make the focus area {done.focus.title!r} ({done.focus.slug}) and file {pages} under it. "
                       "Nothing changed: ask the person, then call again with dry_run false (a title of theirs if "
                       "they want another name).")
        else:
            message = (f"Made the focus area {done.focus.title!r} ({done.focus.slug}) and filed {pages} under it; "
                       "they stay filed whatever later documents say.")
        return FocusAreaAnswer(accepted=done, message=message, sources=[done.focus, *done.pages] if done.applied else done.pages)

    def dismiss_focus_area(self, access: Access, proposal: str) -> FocusAreaAnswer:
        self.check_upkeep(access)
        self.check_can_write(access)
        db.write(self.driver(), dismiss_focus_proposal, access.owner, proposal, f"key {access.key_name}")
        return FocusAreaAnswer(message=f"Dismissed {proposal!r}: neither it nor a group much like it is proposed again.")

    def _exists(self, access: Access, slug: str, visible: list[str] | None) -> bool:
        return bool(db.read(self.driver(), page_refs, access.owner, [slug], visible))

    def edit_page_body(self, access: Access, body: str, slug: str | None, new_project: str | None) -> EditAnswer:
        self.check_can_write(access, needs_full_context=True)
        if (slug is None) == (new_project is None):
            raise InvalidRequest("Pass exactly one of slug (an existing page to anchor the text) or new_project.")
        if not body.strip():
            raise InvalidRequest("body is empty; send the new information as prose.")
        if len(body) > self.settings.max_submission_chars:
            raise InvalidRequest(
                f"body is {len(body):,} characters, over the {self.settings.max_submission_chars:,} limit; "
                "send it in several calls."
            )
        if new_project is not None:
            new_project = plain_name(new_project)
            if not new_project:
                raise InvalidRequest("new_project must name the project.")
        visible = self.visible(access)
        if slug is not None:
            slug = self._ref(access, slug, visible).slug
        else:
            refuse_new_project(access)
        driver = self.driver()
        # A limited key: filed under its focus area, and refused if it would write outside its scope
        # (see mcp_server.scoped_writes).
        home = home_focus(driver, access)
        project = new_project if new_project else home["title"] if home else None
        if visible is not None:
            check_submission_in_scope(driver, access, visible, body, slug, project, self.settings)
        from pipeline.run import submit_text  # the pipeline's public way in; loads its models on first use

        outcome = submit_text(body, owner=access.owner, anchor_slug=slug, new_project=project, author=access.author,
                              author_key=access.key_id)
        if outcome.status == "failed":
            raise InvalidRequest(f"The text could not be ingested: {outcome.reason}")
        # Only pages the key can see now (new members of its focus area included) are named.
        visible = self.visible(access)
        if visible is not None:
            visible = [*visible, "you"]
        created = db.read(driver, page_refs, access.owner, outcome.pages_created, visible)
        updated = db.read(driver, page_refs, access.owner, outcome.pages_updated, visible)
        focus = next((p for p in created if p.slug == outcome.focus_created), None)
        message = (
            f"Recorded {outcome.facts_added} new fact{'s' if outcome.facts_added != 1 else ''}; "
            f"created {len(created)} page{'s' if len(created) != 1 else ''}, updated {len(updated)}."
        )
        return EditAnswer(pages_created=created, pages_updated=updated, facts_added=outcome.facts_added,
                          focus_created=focus, message=message, sources=[*created, *updated])

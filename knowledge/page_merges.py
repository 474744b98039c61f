"""Duplicates a person reviews: the pairs resolution was unsure of, 'not the same' answers that are
never asked again, and folding one page into another by hand (dry run first)."""

from __future__ import annotations

from pydantic import Field

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.models import Model, PageRef
from graph_schema.queries import review
from graph_schema.queries.documents import page_embedding_texts, set_page_embeddings
from graph_schema.queries.owners import lock_graph
from graph_schema.settings import Settings
from knowledge.types import Embed


class ReviewPair(Model):
    """Two pages that may be one thing, with why resolution thought so."""

    page: PageRef
    facts: int
    other: PageRef
    other_facts: int
    score: float = Field(description="The context similarity that put the pair in the review band (0: a shared name).")
    evidence: str
    llm_verdict: str | None = Field(default=None, description="'unsure' when a configured LLM was asked and could not tell.")
    llm_reason: str | None = None


class PageMerge(Model):
    """What folding `from_page` into `into_page` moves; `applied` says whether it was done."""

    from_page: PageRef
    into_page: PageRef
    facts: int
    sources: int
    links: int
    new_aliases: list[str]
    applied: bool


def list_review_pairs(tx: db.Tx, owner: str, limit: int, unjudged_only: bool = False,
                      max_attempts: int = 0) -> list[ReviewPair]:
    """The pairs to review, strongest first; `unjudged_only` leaves out those an LLM was unsure of
    or was asked `max_attempts` times without a valid answer."""
    return [
        ReviewPair(
            page=PageRef(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"])), facts=r["facts"],
            other=PageRef(slug=r["other_slug"], title=r["other_title"], kind=PageKind(r["other_kind"])),
            other_facts=r["other_facts"], score=r["score"], evidence=r["evidence"],
            llm_verdict=r["llm_verdict"], llm_reason=r["llm_reason"],
        )
        for r in review.review_pairs(tx, owner, limit, unjudged_only, max_attempts)
    ]


def mark_not_same(tx: db.Tx, owner: str, slug: str, other_slug: str, by: str = "person") -> int:
    """Two pages are different things: their review pair closes and is never proposed again.
    `by` records who said so (the person, or an LLM model). Returns how many review pairs it closed."""
    if slug == other_slug:
        raise InvalidRequest("Name two different pages.")
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    closed = review.mark_not_same(tx, owner, slug, other_slug, by)
    if closed is None:
        raise InvalidRequest(f"There is no page {slug!r} or no page {other_slug!r}; `subtext review` lists the pairs.")
    return closed


def merge_pages(tx: db.Tx, owner: str, from_slug: str, into_slug: str, apply: bool,
                evidence: str | None = None) -> PageMerge:
    """Fold `from_slug` into `into_slug` (with `apply`; otherwise only say what would move). Its
    facts, mentions, links and names move over and its slug keeps reading the merged page.
    `evidence` says why on the fold's record (default: merged by hand)."""
    if from_slug == into_slug:
        raise InvalidRequest("Name two different pages: the one to fold away, then the one to keep.")
    if apply:  # the lock before the first read: what the preview saw is what the fold moves
        lock_graph(tx, owner)
    preview = review.merge_preview(tx, owner, from_slug, into_slug)
    if preview is None:
        raise InvalidRequest(f"There is no page {from_slug!r} or no page {into_slug!r}; "
                             "`subtext review` lists likely duplicates with their slugs.")
    kinds = {PageKind(preview["from_kind"]), PageKind(preview["into_kind"])}
    if not kinds <= set(ENTITY_KINDS):
        raise InvalidRequest("Your own page and focus areas are never merged; name two pages of people, "
                             "organisations, projects, tools or topics.")
    if apply:
        review.merge_pages(tx, owner, from_slug, into_slug,
                           evidence or f"merged by hand: {preview['from_title']!r} is {preview['into_title']!r}")
    return PageMerge(
        from_page=PageRef(slug=from_slug, title=preview["from_title"], kind=PageKind(preview["from_kind"])),
        into_page=PageRef(slug=into_slug, title=preview["into_title"], kind=PageKind(preview["into_kind"])),
        facts=preview["facts"], sources=preview["sources"], links=preview["links"],
        new_aliases=preview["new_aliases"], applied=apply,
    )


def refresh_merged_vector(graph: db.GraphSession, owner: str, slug: str, settings: Settings, embed: Embed) -> None:
    """A merged page is found by what both pages said: its vector is made again from the facts it
    has now, as the pipeline makes it (read, embedded outside any transaction, then written)."""
    texts = graph.read(page_embedding_texts, owner, [slug], settings.facts_embedded_per_page, settings.entity_context_chars)
    if texts:
        vectors = {s: [float(x) for x in v] for s, v in zip(texts, embed(list(texts.values())), strict=True)}
        graph.write(set_page_embeddings, owner, vectors)

"""Stage 4: turn resolved documents into write plans and write them, the batch in one transaction."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import combinations

import neo4j

from graph_schema.errors import RunFailed
from graph_schema.kinds import ENTITY_KINDS, FactKind, PageKind, SourceKind, SourceStatus
from graph_schema.models import (
    ChunkWrite,
    DocumentWrite,
    FactWrite,
    MentionWrite,
    MergeOutcome,
    PageUpsert,
    ParsedDocument,
    ResolvedDocument,
    SourceWrite,
)
from graph_schema.plain_text import plain_name
from graph_schema.queries.documents import (
    kinds_read,
    page_embedding_texts,
    page_kinds,
    record_failure,
    retire_source,
    retype_pages,
    set_page_embeddings,
    write_document,
)
from graph_schema.settings import get_settings
from graph_schema.slugs import fact_id, normalise_name
from knowledge.types import Embed
from pipeline.embedding import embed_texts




def _source_write(
    parsed: ParsedDocument, status: SourceStatus, reason: str | None = None, focus: str | None = None,
    authors: list[str] | None = None,
) -> SourceWrite:
    submitted = parsed.kind is SourceKind.SUBMISSION
    author = parsed.author if submitted else ", ".join(authors or []) or None
    return SourceWrite(
        id=parsed.source_id,
        key=parsed.key,
        kind=parsed.kind,
        title=parsed.title,
        format=parsed.format,
        content_hash=parsed.content_hash,
        status=status.value,
        reason=reason,
        truncated_reason=parsed.truncated_reason,
        author=author,
        author_kind=("assistant" if submitted else "document") if author else None,
        author_key=parsed.author_key if submitted else None,
        focus_slug=focus,
    )


def plan_document_write(owner: str, resolved: ResolvedDocument) -> DocumentWrite:
    extracted = resolved.extracted
    parsed = extracted.parsed
    source = _source_write(parsed, SourceStatus.INGESTED, focus=resolved.focus_slug, authors=extracted.authors)
    slug_of = {r.entity: r.slug for r in resolved.resolutions}

    pages: dict[str, PageUpsert] = {}
    mention_rows: dict[str, dict] = {}
    for resolution in resolved.resolutions:
        entity = extracted.entities[resolution.entity]
        page = pages.get(resolution.slug)
        if page is None:
            page = pages[resolution.slug] = PageUpsert(
                slug=resolution.slug,
                title=resolution.title,
                kind=resolution.kind,
                embedding=resolution.embedding if resolution.method == "new" else None,
                is_new=resolution.method == "new",
            )
        if resolution.method != "you":
            for name in (entity.name, *entity.aliases):
                name = plain_name(name)  # appended after the model checked its fields: cleaned here
                if name and name not in page.aliases:
                    page.aliases.append(name)
            page.name_keys += [k for k in resolution.name_keys if k not in page.name_keys]
        row = mention_rows.setdefault(
            resolution.slug,
            {"starts": [], "ends": [], "surfaces": [], "method": resolution.method,
             "score": resolution.score, "evidence": resolution.evidence,
             "kind_read": entity.kind.value if entity.kind in ENTITY_KINDS else None,
             "kind_read_by_rule": entity.kind_certain and entity.kind in ENTITY_KINDS},
        )
        for mention in entity.mentions:
            row["starts"].append(mention.start)
            row["ends"].append(mention.end)
            row["surfaces"].append(mention.surface)

    # A submission is filed near its anchor page (or under the focus area it starts): every
    # sentence of it is also a fact about that page.
    home = resolved.anchor.slug if resolved.anchor else (resolved.focus_slug if parsed.kind is SourceKind.SUBMISSION else None)
    if resolved.anchor and resolved.anchor.slug not in pages:
        pages[resolved.anchor.slug] = PageUpsert(slug=resolved.anchor.slug, title=resolved.anchor.title, kind=resolved.anchor.kind)

    facts: list[FactWrite] = []
    relations: set[tuple[str, str]] = set()
    seen_fact_ids: set[str] = set()
    for fact in extracted.facts:
        slugs = sorted({slug_of[e] for e in fact.entities} | ({home} if home else set()))
        if not slugs and (fact.kind is not FactKind.STATEMENT or fact.done) and resolved.focus_slug:
            slugs = [resolved.focus_slug]  # a decision, open item or report of work done naming no one belongs to its focus area
        if not slugs:
            continue
        fid = fact_id(owner, fact.text)
        if fid in seen_fact_ids:
            continue
        seen_fact_ids.add(fid)
        facts.append(FactWrite(id=fid, text=fact.text, start=fact.start, end=fact.end, slugs=slugs,
                               kind=fact.kind, owner=fact.owner, due=fact.due, due_on=fact.due_on,
                               stated_on=fact.stated_on, done=fact.done,
                               document_status=fact.document_status))
        # Pages sharing a fact relate; a focus area is joined by IN_CONTEXT instead.
        related = sorted({slug_of[e] for e in fact.entities} | ({resolved.anchor.slug} if resolved.anchor else set()))
        relations.update(combinations(related, 2))

    # A typed relation rides on the pair's RELATES_TO (which it implies), as the sources that state it.
    works_at = sorted({(slug_of[r.subject], slug_of[r.object]) for r in extracted.relations
                       if r.type == "works_at" and slug_of[r.subject] != slug_of[r.object]})
    relations.update(tuple(sorted(pair)) for pair in works_at)

    in_context: list[str] = []
    if source.focus_slug:
        pages.setdefault(
            source.focus_slug,
            PageUpsert(slug=source.focus_slug, title=parsed.focus or source.focus_slug, kind=PageKind.FOCUS,
                       name_keys=[normalise_name(parsed.focus or "")], is_new=True),
        )
        in_context = [s for s in pages if s not in (source.focus_slug, "you")]

    return DocumentWrite(
        source=source,
        chunks=[
            ChunkWrite(id=f"{parsed.source_id}-{c.index}", index=c.index, start=c.start, end=c.end,
                       text=parsed.text[c.start : c.end])
            for c in parsed.chunks
        ],
        pages=list(pages.values()),
        mentions=[MentionWrite(slug=slug, **row) for slug, row in mention_rows.items()],
        facts=facts,
        relations=sorted(relations),
        works_at=works_at,
        in_context=in_context,
        review_pairs=resolved.review_pairs,
        page_merges=resolved.page_merges,
    )




def refresh_page_vectors(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], embed: Embed) -> None:
    """Re-embed pages that lost a fact from the facts they still have: a vector made from a deleted
    sentence would go on finding the page by what no live source says any more."""
    if not slugs:
        return
    settings = get_settings()
    texts = page_embedding_texts(tx, owner, slugs, settings.facts_embedded_per_page, settings.entity_context_chars)
    if texts:
        set_page_embeddings(tx, owner, dict(zip(texts, embed(list(texts.values())), strict=True)))


def merge_document(
    tx: neo4j.ManagedTransaction, owner: str, resolved: ResolvedDocument, previous_hash: str | None,
    embed: Embed = embed_texts,
) -> MergeOutcome:
    """Write one document (or record why it failed) inside the batch's transaction."""
    parsed = resolved.extracted.parsed
    if parsed.failure is not None:
        # filed under its folder's focus area like any other file of it (recent activity of the area)
        record_failure(tx, owner, _source_write(parsed, SourceStatus.FAILED, parsed.failure, focus=resolved.focus_slug))
        return MergeOutcome(source_id=parsed.source_id, key=parsed.key, status="failed", reason=parsed.failure)
    if parsed.unchanged:
        return MergeOutcome(source_id=parsed.source_id, key=parsed.key, status="unchanged")
    if parsed.deleted:
        if previous_hash is None:  # recorded, so `subtext status` can say what became of it
            reason = "the file no longer exists (deleted before it was read)"
            record_failure(tx, owner, _source_write(parsed, SourceStatus.FAILED, reason, focus=resolved.focus_slug))
            return MergeOutcome(source_id=parsed.source_id, key=parsed.key, status="failed", reason=reason)
        retired = retire_source(tx, owner, parsed.source_id)
        refresh_page_vectors(tx, owner, retired.pages_losing_facts, embed)
        return MergeOutcome(source_id=parsed.source_id, key=parsed.key, status="retired", pages_updated=retired.pages_updated)
    plan = plan_document_write(owner, resolved)
    counts = write_document(tx, owner, plan, previous_hash is not None)
    # a page another was folded into is found by what both said from now on
    folded_into = [m.into_slug for m in plan.page_merges if m.into_slug not in counts.pages_losing_facts]
    refresh_page_vectors(tx, owner, [*counts.pages_losing_facts, *folded_into], embed)
    focus_created = plan.source.focus_slug if plan.source.focus_slug in counts.pages_created else None
    return MergeOutcome(
        source_id=parsed.source_id,
        key=parsed.key,
        status="ingested",
        pages_created=counts.pages_created,
        pages_updated=counts.pages_updated,
        facts_added=counts.facts_added,
        mentions=sum(len(m.starts) for m in plan.mentions),
        focus_created=focus_created,
    )


def merge_batch(
    tx: neo4j.ManagedTransaction, owner: str, batch: list[ResolvedDocument], embed: Embed = embed_texts,
    retyped_in_run: Mapping[str, set[PageKind]] | None = None,
) -> tuple[list[MergeOutcome], dict[str, tuple[PageKind, PageKind]]]:
    """A batch of documents in one transaction. They were resolved together (each against the
    others' new pages), so they are written together: a crash or SIGKILL midway leaves none of
    them in the graph, and running again gives the graph an uninterrupted run gives, instead of
    re-resolving the rest without the context of those already written.

    The caller holds the person's write lock and resolved the batch at the current graph version
    (`pipeline.stages.merge_documents`). A page the plan names by a slug that is a page of another
    kind would fold two different things into one page: refused, before anything is written. A page
    an earlier transaction of the same run gave another kind (`retyped_in_run`: slug -> the kinds
    it had, see `retype_by_sources`) is still the page resolution chose.

    Returns the outcomes and the pages this transaction retyped ({slug: (kind it had, kind it has)})."""
    retyped_in_run = retyped_in_run or {}
    wanted = {(r.slug, r.kind) for d in batch for r in d.resolutions}
    wanted |= {(d.anchor.slug, d.anchor.kind) for d in batch if d.anchor}
    wanted |= {(d.focus_slug, PageKind.FOCUS) for d in batch if d.focus_slug}
    existing = page_kinds(tx, owner, sorted({slug for slug, _ in wanted}))
    clashes = sorted(f"{slug!r} is the page of {_with_article(existing[slug].value)}, not of {_with_article(kind.value)}"
                     for slug, kind in wanted
                     if existing.get(slug, kind) is not kind and kind not in retyped_in_run.get(slug, ()))
    if clashes:
        raise RunFailed(f"Nothing was written: {'; '.join(clashes)} (the documents were resolved against pages "
                        "that have changed since). Run them again (the same command, or re-execute the run in `subtext dagster`); "
                        "they are resolved afresh.")
    outcomes = [merge_document(tx, owner, document, document.extracted.parsed.previous_hash, embed) for document in batch]
    touched = {r.slug for d in batch for r in d.resolutions} | {s for o in outcomes for s in o.pages_updated}
    return outcomes, retype_by_sources(tx, owner, sorted(touched))


def _with_article(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def kind_by_sources(kind: PageKind, read: list[PageKind], min_sources: int,
                    ruled: list[PageKind] = (), rule_weight: int = 1) -> PageKind | None:
    """The kind a page should change to by what its live sources read it as, or None to keep its own:
    the kind most of them read, once at least `min_sources` read it so and more than read the page's
    own kind, or whatever they read once none reads its own kind. A first note's guess ('Quillsoft' an
    organisation) gives way when later notes use it as a tool; one source against one keeps the first.
    A reading a rule gave (an attendee list, a projects field; `ruled`, also in `read`) counts
    `rule_weight` times: it outweighs two guesses, not a page nine sources read otherwise."""
    counts = Counter(read)
    for ruled_kind in ruled:
        counts[ruled_kind] += rule_weight - 1
    if not counts:
        return None
    top, n = max(counts.items(), key=lambda item: (item[1], item[0] is kind, item[0].value))  # ties: keep, then by name
    held = counts.get(kind, 0)
    if top is kind or n <= held or (held and n < min_sources):
        return None
    return top  # (no live source reads the page's own kind any more: what they read, from one on)


def retype_by_sources(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str]) -> dict[str, tuple[PageKind, PageKind]]:
    """Give the pages among `slugs` the kind their sources read them as (see `kind_by_sources`), or
    the kind an LLM answered while the sources still read the page as the kinds it was shown
    (knowledge.kind_verdicts); {slug: (kind it had, kind it has)} of those that changed."""
    settings = get_settings()
    changes = {}
    for slug, (kind, read, ruled, answered) in kinds_read(tx, owner, slugs).items():
        if answered is not None:
            new = answered if answered is not kind else None
        else:
            new = kind_by_sources(kind, read, settings.page_retype_min_sources, ruled, settings.page_retype_rule_weight)
        if new is not None:
            changes[slug] = (kind, new)
    retype_pages(tx, owner, changes)
    return changes

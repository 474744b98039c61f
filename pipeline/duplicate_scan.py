"""The periodic near-duplicate scan (issue 19): pages that may be one thing, found after the fact.

Resolution compares a mention with the pages there are when its document is read. Pages change
later (new aliases, facts, vectors), and two pages made in one batch never met a stored vector.
The scan looks again at each page changed since its last run: the nearest pages of a compatible
kind by stored vector, and among those the ones whose names are alike in a way that can mean one
thing (the same name, forms of one person's name, an abbreviation, a short form, a near
spelling). Such a pair is recorded for review (POSSIBLY_SAME) with its evidence, never merged: a
person decides with `subtext review` / `subtext merge`. Names alone never pair: two pages must
also be described alike (at least `review_band_low`), so 'Mark Chen' and 'Lily Chen' or two
firms called 'Acme …' in unrelated contexts stay apart.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

import neo4j
from pydantic import BaseModel
from rapidfuzz import fuzz

from graph_schema import db
from graph_schema.kinds import PageKind
from graph_schema.models import KnownPage, ReviewPair
from graph_schema.queries import review
from graph_schema.queries.documents import known_pages
from graph_schema.queries.search import vector_candidates
from graph_schema.settings import Settings
from pipeline import names
from pipeline.resolve import compatible_kinds


class DuplicateScan(BaseModel):
    """What one scan of one person's graph did."""

    owner: str
    pages_scanned: int
    pairs_found: int  # pairs alike by name and context, before those already recorded or answered
    pairs_recorded: int  # new POSSIBLY_SAME pairs


def _numbers(title: str) -> set[str]:
    """'Python 3.11' and 'Python 3.12' are spelled alike and are two things."""
    return set(re.findall(r"\d+", title))


def names_alike(a: KnownPage, b: KnownPage, settings: Settings) -> str | None:
    """How two pages' names could name one thing, in words for the evidence; None if they cannot."""
    if a.kind is PageKind.PERSON and b.kind is PageKind.PERSON:
        words_a, words_b = (names.name_key(p.title, True).split() for p in (a, b))
        if words_a == words_b:
            return f"both are called {a.title!r}"
        if names.same_person_name(words_a, words_b) or names.same_name_misspelt(words_a, words_b):
            return f"{a.title!r} and {b.title!r} can be forms of one person's name"
        return None  # a shared surname or given name alone says nothing about two people
    shared = sorted(set(a.name_keys) & set(b.name_keys))
    if shared:
        return f"both are called {shared[0]!r}"
    short, long = sorted((a, b), key=lambda p: len(p.title))
    if names.abbreviates(short.title, long.title):
        return f"{short.title!r} can abbreviate {long.title!r}"
    short_words, long_words = (names.name_key(p.title, False).split() for p in (short, long))
    if (a.kind is PageKind.ORGANISATION and b.kind is PageKind.ORGANISATION
            and names.short_org_form(short_words, long_words)):
        return f"{short.title!r} can be short for {long.title!r}"
    similarity = fuzz.ratio(" ".join(short_words), " ".join(long_words))
    if similarity >= settings.duplicate_scan_min_name_similarity and _numbers(a.title) == _numbers(b.title):
        return f"{a.title!r} and {b.title!r} are spelled alike ({similarity:.0f}/100)"
    return None


def _nearest(tx: neo4j.ManagedTransaction, owner: str, candidates: list[dict], pages: dict[str, KnownPage],
             limit: int) -> list[tuple[str, list[tuple[str, float]]]]:
    """Each candidate's nearest pages of a compatible kind: (slug, [(other slug, cosine)])."""
    found = []
    for candidate in candidates:
        page = pages.get(candidate["slug"])
        if page is None:
            continue
        hits = vector_candidates(tx, owner, candidate["embedding"], sorted(compatible_kinds(page.kind), key=lambda k: k.value),
                                 limit + 1)
        found.append((page.slug, [(slug, score) for slug, _, _, score in hits
                                  if slug != page.slug and slug not in candidate["settled"]]))
    return found


def scan_for_duplicates(driver: neo4j.Driver, owner: str, settings: Settings) -> DuplicateScan:
    """Look at the pages changed since the last scan and record the likely duplicates among their
    nearest pages for review."""
    started = datetime.now(timezone.utc)  # before the reads: a page changed meanwhile is looked at next time
    with db.session(driver) as graph:
        candidates = graph.read(review.pages_to_scan, owner, settings.duplicate_scan_max_pages)
        pages = {p.slug: p for p in graph.read(known_pages, owner)}
        nearest = graph.read(_nearest, owner, candidates, pages, settings.duplicate_scan_neighbours)
        pairs: dict[tuple[str, str], ReviewPair] = {}
        for slug, hits in nearest:
            for other, score in hits:
                key = tuple(sorted((slug, other)))
                if score < settings.review_band_low or key in pairs or other not in pages:
                    continue
                alike = names_alike(pages[slug], pages[other], settings)
                if alike is not None:
                    pairs[key] = ReviewPair(slug=key[0], other_slug=key[1], score=round(score, 4),
                                            evidence=f"{alike}, and they are described alike (cosine {score:.2f})")
        recorded = graph.write(review.record_scan, owner, list(pairs.values()), started)
    return DuplicateScan(owner=owner, pages_scanned=len(candidates), pairs_found=len(pairs), pairs_recorded=recorded)

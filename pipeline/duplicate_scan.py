"""The periodic near-duplicate scan (issue 19): pages that may be one thing, found after the fact.

Resolution compares a mention with the pages there are when its document is read. Pages change
later (new aliases, facts, links), and two pages made in one batch never met each other's stored
vector. The scan looks again at each page changed since its last run, against the pages near it
by stored vector and the pages that share a rare word of its names, and keeps a pair when:

- its names can name one thing: the same name, forms of one person's name ('William Ortega' /
  'Bill Ortega'), a lone name and a full one ('Obama' / 'Barack Obama'), an abbreviation, a firm's
  short form, or a near spelling; a part of a name that fits several pages pairs with none;
- and something besides the name agrees: they are described alike (cosine at least
  `review_band_low`), or they are linked to `duplicate_scan_min_shared_links` same things. Pages
  named in one document are described alike and linked alike by that document alone, so there
  only a whole name (the same, a person's other form, a near spelling) counts.

A pair is recorded for review (POSSIBLY_SAME) with its evidence, never merged: the person decides
with `subtext review` and `subtext merge` (or the upkeep tools).
"""

from __future__ import annotations

import re
from collections import Counter

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
from graph_schema.slugs import normalise_name
from pipeline import names
from pipeline.resolve import compatible_kinds, numbers_differ


class DuplicateScan(BaseModel):
    """What one scan of one person's graph did."""

    owner: str
    pages_scanned: int
    pairs_recorded: int  # new POSSIBLY_SAME pairs


class NameLikeness(BaseModel):
    """Why two names may name one thing. `same`: one name, as the pages' names or in its singular
    and plural ('webhook' / 'webhooks'), the only likeness that counts between pages of one
    document (there, resolution saw both names and kept them apart). `part` is the slug of the page
    whose name is a part of the other's ('Obama' / 'Barack Obama', 'Celtics' / 'Boston Celtics'):
    it may fit several pages. `spelling`: only spelled alike, which related tools are too
    ('pip' / 'pipx'): the context must agree, shared links are not enough."""

    evidence: str
    same: bool = False
    part: str | None = None
    spelling: bool = False


def _singular(key: str) -> str:
    """'webhooks' -> 'webhook'; a stem under four letters is left alone ('bus', 'gas')."""
    return key[:-1] if key.endswith("s") and not key.endswith("ss") and len(key) > 4 else key


def names_alike(a: KnownPage, b: KnownPage, settings: Settings) -> NameLikeness | None:
    """How two pages' names could name one thing; None if they cannot."""
    if a.kind is PageKind.PERSON and b.kind is PageKind.PERSON:
        words_a, words_b = (names.name_key(p.title, True).split() for p in (a, b))
        if words_a == words_b:
            return NameLikeness(evidence=f"both are called {a.title!r}", same=True)
        if names.same_person_name(words_a, words_b) or names.same_name_misspelt(words_a, words_b):
            return NameLikeness(evidence=f"{a.title!r} and {b.title!r} can be forms of one person's name")
        (short, short_words), (long, long_words) = sorted(((a, words_a), (b, words_b)), key=lambda x: len(x[1]))
        if len(short_words) == 1 and len(long_words) >= 2 and short_words[0] in (long_words[0], long_words[-1]):
            return NameLikeness(evidence=f"{short.title!r} can be {long.title!r}", part=short.slug)
        return None  # two full names that share a surname or a given name are two people
    shared = sorted(set(a.name_keys) & set(b.name_keys))
    if shared:
        return NameLikeness(evidence=f"both are called {shared[0]!r}", same=True)
    key_a, key_b = normalise_name(a.title), normalise_name(b.title)
    if key_a and key_a == key_b:
        return NameLikeness(evidence=f"both are called {a.title!r}", same=True)
    if key_a and not (a.title.isupper() or b.title.isupper()) and _singular(key_a) == _singular(key_b):
        # 'HTTP' / 'HTTPS' are two protocols, not a singular and a plural
        return NameLikeness(evidence=f"{a.title!r} and {b.title!r} are one name, singular and plural", same=True)
    short, long = sorted((a, b), key=lambda p: (len(p.title), p.slug))
    # 'NOAA' / 'National Oceanic and Atmospheric Administration'; not 'BDFL' / 'BDFL-Delegate', which names more
    if (names.is_acronym(short.title, settings.acronym_min_letters, settings.acronym_max_letters)
            and short.title.lower() not in re.split(r"[^a-z0-9]+", long.title.lower())
            and names.abbreviates(short.title, long.title)):
        return NameLikeness(evidence=f"{short.title!r} can abbreviate {long.title!r}", part=short.slug)
    short_words, long_words = (names.name_key(p.title, False).split() for p in (short, long))
    generic = len(short_words) == 1 and names.is_common_word(short.title.strip())  # 'Church', 'Court'
    if (a.kind is PageKind.ORGANISATION and b.kind is PageKind.ORGANISATION and not generic
            and names.short_org_form(short_words, long_words)):
        return NameLikeness(evidence=f"{short.title!r} can be short for {long.title!r}", part=short.slug)
    similarity = fuzz.ratio(" ".join(short_words), " ".join(long_words))
    if similarity >= settings.duplicate_scan_min_name_similarity and not numbers_differ(key_a, key_b):
        return NameLikeness(evidence=f"{a.title!r} and {b.title!r} are spelled alike ({similarity:.0f}/100)",
                            spelling=True)
    return None


def _name_words(page: KnownPage) -> set[str]:
    return {w for key in [normalise_name(page.title), *page.name_keys] for w in key.split() if len(w) > 2}


def _word_index(pages: dict[str, KnownPage], settings: Settings) -> dict[str, list[str]]:
    """Rare name word -> the pages with it. Everyday words ('court', 'john') and words of many
    pages join nothing."""
    index: dict[str, list[str]] = {}
    for page in pages.values():
        for word in _name_words(page):
            index.setdefault(word, []).append(page.slug)
    return {w: slugs for w, slugs in index.items()
            if 1 < len(slugs) <= settings.duplicate_scan_max_pages_per_word and not names.is_common_word(w)}


def _candidates(tx: neo4j.ManagedTransaction, owner: str, scanned: list[dict], pages: dict[str, KnownPage],
                settings: Settings) -> set[tuple[str, str]]:
    """Pairs (in slug order) of each scanned page and the pages near it by vector or sharing a rare
    name word, of a compatible kind."""
    words = _word_index(pages, settings)
    found: set[tuple[str, str]] = set()
    for row in scanned:
        page = pages.get(row["slug"])
        if page is None:
            continue
        kinds = compatible_kinds(page.kind)
        hits = vector_candidates(tx, owner, row["embedding"], sorted(kinds, key=lambda k: k.value),
                                 settings.duplicate_scan_neighbours + 1)
        others = {slug for slug, _, _, _ in hits} | {s for w in _name_words(page) for s in words.get(w, ())}
        found.update(tuple(sorted((page.slug, other))) for other in others
                     if other != page.slug and other in pages and pages[other].kind in kinds)
    return found


def _full_names_by_word(pages: dict[str, KnownPage]) -> Counter:
    """How many people's full names start or end with each word: a lone name fits them all."""
    counts: Counter = Counter()
    for page in pages.values():
        words = names.name_key(page.title, True).split() if page.kind is PageKind.PERSON else []
        if len(words) >= 2:
            counts.update({words[0], words[-1]})
    return counts


def _ambiguous(likeness: NameLikeness, pages: dict[str, KnownPage], full_names: Counter, parts: Counter) -> bool:
    """A part of a name that fits several pages ('Chen' beside 'Mark Chen' and 'Lily Chen') points
    at none of them: a lone person's name is counted against every person of the graph, other parts
    against the pairs this scan found."""
    if likeness.part is None:
        return False
    page = pages[likeness.part]
    if page.kind is PageKind.PERSON:
        return full_names[normalise_name(page.title)] > 1
    return parts[likeness.part] > 1


def scan_for_duplicates(driver: neo4j.Driver, owner: str, settings: Settings) -> DuplicateScan:
    """Look at the pages changed since the last scan and record the likely duplicates among the
    pages near them for review."""
    with db.session(driver) as graph:
        since, mark = graph.read(review.scan_marks, owner, settings.duplicate_scan_overlap_seconds)
        scanned = graph.read(review.pages_to_scan, owner, since, settings.duplicate_scan_max_pages)
        last = scanned[-1] if len(scanned) == settings.duplicate_scan_max_pages else None
        if last is not None and (mark.at is None or last["updated_at"] < mark.at):
            # the rest, changed later, is the next scan's (from the clock's mark when that is earlier:
            # a write under way then is seen)
            mark = review.ScanMark(last["updated_at"], last["slug"])
        pages = {p.slug: p for p in graph.read(known_pages, owner)}
        answered = {(row["slug"], other) for row in scanned for other in row["answered"]}
        alike: dict[tuple[str, str], NameLikeness] = {}
        for a, b in graph.read(_candidates, owner, scanned, pages, settings):
            if (a, b) in answered or (b, a) in answered:
                continue
            likeness = names_alike(pages[a], pages[b], settings)
            if likeness is not None:
                alike[(a, b)] = likeness
        evidence = graph.read(review.pair_evidence, owner, list(alike))

        full_names = _full_names_by_word(pages)
        parts = Counter(likeness.part for likeness in alike.values() if likeness.part)
        pairs = []
        for pair, likeness in alike.items():
            seen = evidence.get(pair)
            if seen is None or _ambiguous(likeness, pages, full_names, parts):
                continue
            score, shared = seen["cosine"], seen["shared"]
            if seen["one_document"]:  # the context agrees by itself there: only one name counts
                if not likeness.same:
                    continue
                why = f"{likeness.evidence}, in one document"
            elif score >= settings.review_band_low:
                why = f"{likeness.evidence}, and they are described alike (cosine {score:.2f})"
            elif not likeness.spelling and len(shared) >= settings.duplicate_scan_min_shared_links:
                why = f"{likeness.evidence}, and both are linked to " + ", ".join(repr(t) for t in shared[:3])
            else:
                continue
            pairs.append(ReviewPair(slug=pair[0], other_slug=pair[1], score=round(max(score, 0.0), 4), evidence=why))
        recorded = graph.write(review.record_scan, owner, pairs, mark)
    return DuplicateScan(owner=owner, pages_scanned=len(scanned), pairs_recorded=recorded)

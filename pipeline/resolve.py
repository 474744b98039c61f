"""Stage 3: decide, for each entity of each document, which page it is.

Deterministic and explainable, in this order, always between compatible kinds:
  1. exact: the normalised name or one of its aliases is a name the page is already known by;
  2. fuzzy: the name is nearly the same as a page's *title* (never an alias another fuzzy merge
     added, so matches cannot chain from one variant to the next);
  3. embedding: the entity's context sentences are close to the page (vector index) and the
     names share a word;
otherwise a new page. Pairs in the band just below the merge thresholds are neither merged nor
silently split: they are returned as review pairs (POSSIBLY_SAME in the graph).

Entities of several documents in one batch resolve against each other too, so two documents
naming the same new person create one page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from graph_schema.kinds import PageKind
from graph_schema.models import (
    DocumentEntity,
    EntityResolution,
    ExtractedDocument,
    KnownPage,
    ResolvedDocument,
    ReviewPair,
)
from graph_schema.settings import Settings
from graph_schema.slugs import normalise_name, slugify, unique_slug

# Kinds that may be the same thing under either label (spaCy often calls software both).
_COMPATIBLE = {
    PageKind.PROJECT: {PageKind.PROJECT, PageKind.TOOL},
    PageKind.TOOL: {PageKind.TOOL, PageKind.PROJECT},
}

# vector_candidates(embedding, kinds, k) -> [(slug, title, kind, cosine score)]
VectorLookup = Callable[[list[float], list[PageKind], int], list[tuple[str, str, PageKind, float]]]


def compatible_kinds(kind: PageKind) -> set[PageKind]:
    return _COMPATIBLE.get(kind, {kind})


@dataclass
class PageIndex:
    """The pages resolution can land on: existing ones plus those this batch creates."""

    pages: dict[str, KnownPage] = field(default_factory=dict)
    by_name: dict[str, list[str]] = field(default_factory=dict)  # name key -> slugs
    by_title: dict[PageKind, dict[str, str]] = field(default_factory=dict)  # kind -> title key -> slug

    @classmethod
    def build(cls, known: list[KnownPage]) -> PageIndex:
        index = cls()
        for page in known:
            index.add(page)
        return index

    def add(self, page: KnownPage) -> None:
        self.pages[page.slug] = page
        for key in {*page.name_keys, normalise_name(page.title)}:
            slugs = self.by_name.setdefault(key, [])
            if page.slug not in slugs:
                slugs.append(page.slug)
        self.by_title.setdefault(page.kind, {})[normalise_name(page.title)] = page.slug

    def add_names(self, slug: str, keys: list[str]) -> None:
        page = self.pages[slug]
        new = [k for k in keys if k not in page.name_keys]
        page.name_keys.extend(new)
        for key in new:
            self.by_name.setdefault(key, []).append(slug)

    def exact(self, keys: list[str], kinds: set[PageKind]) -> tuple[str, str] | None:
        """(slug, matched key) of a compatible page known by one of `keys`, first key first."""
        for key in keys:
            candidates = [s for s in self.by_name.get(key, []) if self.pages[s].kind in kinds]
            if candidates:
                return sorted(candidates)[0], key
        return None

    def fuzzy(self, key: str, kinds: set[PageKind], threshold: float) -> tuple[str, float] | None:
        best: tuple[str, float] | None = None
        for kind in kinds:
            for title_key, slug in self.by_title.get(kind, {}).items():
                if abs(len(title_key) - len(key)) > max(3, len(key) // 4):
                    continue
                score = fuzz.ratio(key, title_key)
                if score >= threshold and (best is None or score > best[1]):
                    best = (slug, score)
        return best


def _names_share_a_word(a: str, b: str) -> bool:
    return bool(set(normalise_name(a).split()) & set(normalise_name(b).split()))


def _resolve_entity(
    entity: DocumentEntity,
    index: int,
    pages: PageIndex,
    settings: Settings,
    embedding: list[float] | None,
    vector_lookup: VectorLookup | None,
    review: list[ReviewPair],
) -> EntityResolution:
    if entity.kind is PageKind.YOU:
        return EntityResolution(entity=index, slug="you", title="you", kind=PageKind.YOU, method="you",
                                evidence="first-person words in the person's own submission")
    kinds = compatible_kinds(entity.kind)
    name_key = normalise_name(entity.name)
    alias_keys = [normalise_name(a) for a in entity.aliases]

    found = pages.exact([name_key, *alias_keys], kinds)
    if found:
        slug, key = found
        page = pages.pages[slug]
        method = "slug" if slugify(entity.name) == slug else "alias"
        return EntityResolution(
            entity=index, slug=slug, title=page.title, kind=page.kind, method=method,
            evidence=f"the name {key!r} is already a name of {page.title!r}",
            new_alias=entity.name if normalise_name(entity.name) not in page.name_keys else None,
        )

    near = pages.fuzzy(name_key, kinds, settings.fuzzy_merge_threshold)
    if near:
        slug, score = near
        page = pages.pages[slug]
        return EntityResolution(
            entity=index, slug=slug, title=page.title, kind=page.kind, method="fuzzy", score=round(score / 100, 4),
            evidence=f"{entity.name!r} is spelled almost like {page.title!r} ({score:.0f}/100)",
            new_alias=entity.name,
        )

    if embedding is not None and vector_lookup is not None:
        for slug, title, kind, score in vector_lookup(embedding, sorted(kinds, key=lambda k: k.value), 5):
            if slug not in pages.pages or not _names_share_a_word(entity.name, title):
                continue
            if score >= settings.embedding_merge_threshold:
                return EntityResolution(
                    entity=index, slug=slug, title=title, kind=kind, method="embedding", score=round(score, 4),
                    evidence=f"{entity.name!r} is described like {title!r} (cosine {score:.2f}) and shares a name with it",
                    new_alias=entity.name,
                )
            if score >= settings.review_band_low:
                review.append(ReviewPair(slug="", other_slug=slug, score=round(score, 4),
                                         evidence=f"{entity.name!r} may be {title!r} (cosine {score:.2f})"))
            break

    return EntityResolution(entity=index, slug="", title=entity.name, kind=entity.kind, method="new",
                            evidence="no page of a compatible kind has this name or one close to it",
                            embedding=embedding)


def _focus_slug(title: str | None, pages: PageIndex, taken: set[str]) -> str | None:
    """The focus page of this title: the existing one, or a new slug no other page has."""
    if not title:
        return None
    key = normalise_name(title) or slugify(title)
    found = pages.exact([key], {PageKind.FOCUS})
    if found:
        return found[0]
    slug = unique_slug(slugify(title), taken)
    taken.add(slug)
    pages.add(KnownPage(slug=slug, title=title, kind=PageKind.FOCUS, name_keys=[key]))
    return slug


def resolve_documents(
    documents: list[ExtractedDocument],
    known: list[KnownPage],
    settings: Settings,
    embed: Callable[[list[str]], list[list[float]]],
    vector_lookup: VectorLookup | None = None,
) -> list[ResolvedDocument]:
    """Resolve every entity of every document; pure apart from the two callbacks it is given."""
    pages = PageIndex.build(known)
    taken = set(pages.pages)

    # Only entities no name matches need an embedding (for the vector step and for their new page).
    unmatched = [
        (d, e)
        for d, doc in enumerate(documents)
        for e, entity in enumerate(doc.entities)
        if entity.kind is not PageKind.YOU
        and pages.exact([normalise_name(entity.name), *map(normalise_name, entity.aliases)], compatible_kinds(entity.kind)) is None
    ]
    vectors = dict(zip(unmatched, embed([documents[d].entities[e].context for d, e in unmatched]), strict=True))

    results = []
    for d, doc in enumerate(documents):
        resolutions: list[EntityResolution] = []
        review: list[ReviewPair] = []
        for e, entity in enumerate(doc.entities):
            pending = len(review)
            resolution = _resolve_entity(entity, e, pages, settings, vectors.get((d, e)), vector_lookup, review)
            if resolution.method == "new":
                slug = unique_slug(slugify(entity.name), taken)
                taken.add(slug)
                resolution = resolution.model_copy(update={"slug": slug})
                pages.add(KnownPage(slug=slug, title=entity.name, kind=entity.kind,
                                    name_keys=[normalise_name(entity.name)]))
            # Review pairs found for this entity name its page now that it has a slug.
            for pair in review[pending:]:
                pair.slug = resolution.slug
            if resolution.method != "you":
                # The entity's names become names of the page (exact matches from now on). Fuzzy
                # matching only ever compares with titles, so variants of variants never chain.
                keys = [normalise_name(entity.name), *map(normalise_name, entity.aliases)]
                pages.add_names(resolution.slug, keys)
            resolutions.append(resolution)
        review = [p for p in review if p.slug and p.slug != p.other_slug]
        results.append(
            ResolvedDocument(
                extracted=doc,
                resolutions=resolutions,
                review_pairs=review,
                focus_slug=_focus_slug(doc.parsed.focus, pages, taken),
                anchor=pages.pages.get(doc.parsed.anchor_slug) if doc.parsed.anchor_slug else None,
            )
        )
    return results

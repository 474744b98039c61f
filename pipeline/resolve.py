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

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from graph_schema.kinds import PageKind
from graph_schema.models import (
    DocumentEntity,
    EntityResolution,
    ExtractedDocument,
    KnownPage,
    PageMerge,
    ResolvedDocument,
    ReviewPair,
)
from graph_schema.settings import Settings, get_settings
from graph_schema.slugs import normalise_name, slugify, unique_slug
from knowledge.types import Embed
from pipeline import names
from pipeline.gazetteer import recognise_known_names
from pipeline.kind_model import read_lone_words_as_the_graph_does
from pipeline.known_names import product_short_name

# Kinds that may be the same thing under either label (spaCy often calls software both).
_COMPATIBLE = {
    PageKind.PROJECT: {PageKind.PROJECT, PageKind.TOOL},
    PageKind.TOOL: {PageKind.TOOL, PageKind.PROJECT},
}

# vector_candidates(embedding, kinds, k) -> [(slug, title, kind, cosine score)]
VectorLookup = Callable[[list[float], list[PageKind], int], list[tuple[str, str, PageKind, float]]]
# pages_named_with(slug) -> the slugs of the pages named in the same stored documents as this one
NeighbourLookup = Callable[[str], set[str]]


# The kinds the language model assigns (and can get wrong); `you` and focus pages come from rules.
NAMED_KINDS = {PageKind.PERSON, PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.TOPIC}
# Named things that are no one: the kinds the model confuses most with each other.
_THINGS = {PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL}


def compatible_kinds(kind: PageKind) -> set[PageKind]:
    return _COMPATIBLE.get(kind, {kind})


@dataclass
class PageIndex:
    """The pages resolution can land on: existing ones plus those this batch creates."""

    pages: dict[str, KnownPage] = field(default_factory=dict)
    by_name: dict[str, list[str]] = field(default_factory=dict)  # name key -> slugs
    by_title: dict[PageKind, dict[str, str]] = field(default_factory=dict)  # kind -> title key -> slug

    stored: set[str] = field(default_factory=set)  # slugs of the pages already in the graph
    stored_words: dict[str, set[str]] = field(default_factory=dict)  # name word -> slugs of stored pages
    by_surname: dict[str, set[str]] = field(default_factory=dict)  # last word of a person's full title -> slugs
    by_initials: dict[str, set[str]] = field(default_factory=dict)  # initials of an organisation's title -> slugs
    by_given: dict[str, set[str]] = field(default_factory=dict)  # first word of a person's title -> slugs
    by_person_initials: dict[str, set[str]] = field(default_factory=dict)  # 'JF' of 'Joaquín Ferreyra' -> slugs

    @classmethod
    def build(cls, known: list[KnownPage]) -> PageIndex:
        index = cls()
        for page in known:
            index.add(page)
            index.stored.add(page.slug)
            for word in {w for key in [normalise_name(page.title), *page.name_keys] for w in key.split()}:
                index.stored_words.setdefault(word, set()).add(page.slug)
        return index

    def stored_shares_a_word(self, key: str, kinds: set[PageKind]) -> bool:
        """Whether a page already in the graph (so in the vector index) of these kinds shares a name word."""
        return any(
            slug in self.pages and self.pages[slug].kind in kinds
            for word in key.split()
            for slug in self.stored_words.get(word, ())
        )

    def add(self, page: KnownPage) -> None:
        self.pages[page.slug] = page
        # A page known by no name (a document's own 'the Court') is never found by its title either.
        for key in {*page.name_keys, normalise_name(page.title)} if page.name_keys else ():
            slugs = self.by_name.setdefault(key, [])
            if page.slug not in slugs:
                slugs.append(page.slug)
        self.by_title.setdefault(page.kind, {})[normalise_name(page.title)] = page.slug
        words = names.name_key(page.title, page.kind is PageKind.PERSON).split()
        if page.kind is PageKind.PERSON and len(words) >= 2:
            self.by_surname.setdefault(words[-1], set()).add(page.slug)
        if page.kind is PageKind.PERSON and words:
            self.by_given.setdefault(words[0], set()).add(page.slug)
        if page.kind is PageKind.PERSON and len(words) >= 2:
            for initials in _person_initials(words):
                self.by_person_initials.setdefault(initials, set()).add(page.slug)
        if page.kind is PageKind.ORGANISATION and len(words) >= 2:
            self.by_initials.setdefault(names.initials_of(words), set()).add(page.slug)

    def name_variant(self, words: list[str]) -> str | None:
        """The one person page whose title is another form of this full name ('Bill Ortega' / 'William J. Ortega').
        A surname's initial ('Tom K') is no full name: across notes it joins only where they share context."""
        if len(words[-1]) == 1:
            return None
        fits = [
            slug for slug in sorted(self.by_surname.get(words[-1], ()))
            if slug in self.pages and self.pages[slug].kind is PageKind.PERSON
            and names.same_person_name(names.name_key(self.pages[slug].title, True).split(), words)
        ]
        return fits[0] if len(fits) == 1 else None

    def only_person_with_initial(self, short: list[str], besides: str = "") -> str | None:
        """The one person page named in full whose name 'Tom K' (key words) is short for: 'Tom Kowalski'."""
        fits = {slug for slug in self.by_given.get(short[0], ()) if slug != besides and slug in self.pages
                and self.pages[slug].kind is PageKind.PERSON
                and names.initial_for_surname(short, names.name_key(self.pages[slug].title, True).split())}
        return next(iter(fits)) if len(fits) == 1 else None

    def only_person_called(self, given: str, besides: str) -> str | None:
        """The one person page other than `besides` whose name starts with this given name ('Maya'
        -> 'Maya Lindqvist', or another note's 'Maya'); None when two people share it, or when the
        page is a titled surname ('Justice Thomas'). Nicknames are not enough here: 'Cathy' alone
        may be any Catherine."""
        if len(given) < 2:
            return None  # an initial is no given name
        fits = {slug for slug in self.by_given.get(given, ())
                if slug != besides and slug in self.pages and self.pages[slug].kind is PageKind.PERSON}
        if len(fits) != 1:
            return None
        slug = next(iter(fits))
        words = names.name_key(self.pages[slug].title, True).split()
        # 'Elizabeth' is not 'Elizabeth II': a numbered name is a ruler's own
        return None if names.is_regnal_number(words[-1].upper()) or _titled_surname(self.pages[slug]) else slug

    def only_person_with_initials(self, initials: str, besides: str) -> str | None:
        """The one person page other than `besides` whose full name has these initials ('TW' ->
        'Tomasz Wierzbicki'); None when two people share them."""
        fits = {slug for slug in self.by_person_initials.get(normalise_name(initials).upper(), ())
                if slug != besides and slug in self.pages and self.pages[slug].kind is PageKind.PERSON}
        return next(iter(fits)) if len(fits) == 1 else None

    def acronym_of(self, acronym: str) -> str | None:
        """The one organisation page whose title has these initials ('NOAA')."""
        fits = [s for s in sorted(self.by_initials.get(acronym, ())) if s in self.pages]
        return fits[0] if len(fits) == 1 else None

    def kept_apart(self, slug: str, other_slug: str) -> bool:
        """Whether the person said the two pages are different things: no rule folds one into the other."""
        return any(b in self.pages[a].not_same for a, b in ((slug, other_slug), (other_slug, slug)) if a in self.pages)

    def fold(self, from_slug: str, into_slug: str) -> None:
        """`from_slug` is now part of `into_slug`: its names lead there from now on."""
        page = self.pages.pop(from_slug)
        for key, slugs in self.by_name.items():
            if from_slug in slugs:
                self.by_name[key] = [s for s in slugs if s != from_slug]
        titles = self.by_title.get(page.kind, {})
        for key in [k for k, s in titles.items() if s == from_slug]:
            del titles[key]
        self.add_names(into_slug, [*page.name_keys, normalise_name(page.title)])
        # what the person said of the folded page holds for the page it joined (as FOLD_NOT_SAME does)
        into = self.pages[into_slug]
        for other in page.not_same:
            if other != into_slug and other not in into.not_same:
                into.not_same.append(other)
            if other in self.pages and into_slug not in self.pages[other].not_same:
                self.pages[other].not_same.append(into_slug)

    def add_names(self, slug: str, keys: list[str]) -> None:
        page = self.pages[slug]
        new = [k for k in keys if k not in page.name_keys]
        page.name_keys.extend(new)
        for key in new:
            slugs = self.by_name.setdefault(key, [])
            if slug not in slugs:  # a title's key may be listed already without being a name key
                slugs.append(slug)

    def exact(self, keys: list[str], kinds: set[PageKind], by_hand_only: bool = False) -> tuple[str, str] | None:
        """(slug, matched key) of the one compatible page known by one of `keys`, first key first
        (with `by_hand_only`, of the pages whose kind the person set).

        A key several pages share (a surname two people have) decides nothing unless it is one
        page's own title; see `holders`.
        """
        for key in keys:
            candidates = [s for s in self._candidates(key, kinds) if self.pages[s].kind_by_hand or not by_hand_only]
            if len(candidates) == 1:
                return candidates[0], key
            titled = [s for s in candidates if normalise_name(self.pages[s].title) == key]
            if len(titled) == 1:
                return titled[0], key
        return None

    def holders(self, keys: list[str], kinds: set[PageKind]) -> list[str]:
        """Every page of these kinds known by one of `keys` (several when `exact` could not pick)."""
        return sorted({s for key in keys for s in self._candidates(key, kinds)})

    def _candidates(self, key: str, kinds: set[PageKind]) -> list[str]:
        return sorted(s for s in self.by_name.get(key, []) if self.pages[s].kind in kinds)

    def fuzzy(self, key: str, kinds: set[PageKind], threshold: float) -> tuple[str, float] | None:
        best: tuple[str, float] | None = None
        for kind in kinds:
            for title_key, slug in self.by_title.get(kind, {}).items():
                if abs(len(title_key) - len(key)) > max(3, len(key) // 4):
                    continue
                score = fuzz.ratio(key, title_key)
                if score >= threshold and (best is None or score > best[1]) and not numbers_differ(key, title_key):
                    best = (slug, score)
        return best


_ROMAN = frozenset({"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii"})


def numbers_differ(a: str, b: str) -> bool:
    """'Shah Abbas I' / 'Shah Abbas II', 'Apollo 11' / 'Apollo 13': spelled alike, numbered apart."""
    def numbers(key: str) -> set[str]:
        return {w for w in key.split() if w.isdigit() or w in _ROMAN}
    return numbers(a) != numbers(b)


def _name_keys(entity: DocumentEntity) -> list[str]:
    """The entity's name, then its aliases, in the form names are compared in.

    Each name also gives its key without honorifics (a person) or legal form (an organisation):
    'Dr. Okafor' -> 'okafor', 'Initech Corp.' -> 'initech'. Names that only mean the entity
    inside its document (`local_names`: 'the Court', a lone 'Guido' beside 'Guido van Rossum')
    are left out, so no other document's page is matched by them.
    """
    person = entity.kind is PageKind.PERSON
    keys: list[str] = []
    for name in (entity.name, *entity.aliases):
        if name in entity.local_names:
            continue
        for key in (normalise_name(name), names.name_key(name, person)):
            if key and key not in keys:
                keys.append(key)
    keys += [k for k in _short_form_keys(entity) if k not in keys]
    return keys or [normalise_name(entity.name)]


def _short_form_keys(entity: DocumentEntity) -> list[str]:
    """'tidewater' for an organisation named 'Tidewater Freight' (see names.distinctive_short_form),
    'heron' for the project 'Project Heron', 'kafka' for the tool 'Apache Kafka': it finds the page in the next note, but never a page
    of another kind ('Navarro College' is not the person Navarro)."""
    if entity.kind is PageKind.PROJECT:  # 'Heron' for 'Project Heron'
        shorts = (names.project_short_form(n) for n in (entity.name, *entity.aliases) if n not in entity.local_names)
        return [normalise_name(short) for short in shorts if short]
    if entity.kind is PageKind.TOOL:  # 'kafka' for 'Apache Kafka'
        shorts = (product_short_name(n) for n in (entity.name, *entity.aliases) if n not in entity.local_names)
        return [normalise_name(short) for short in shorts if short]
    if entity.kind is not PageKind.ORGANISATION:
        return []
    shorts = (names.distinctive_short_form(names.org_base(n)) for n in (entity.name, *entity.aliases)
              if n not in entity.local_names)
    return [normalise_name(short) for short in shorts if short]


def _page_keys(entity: DocumentEntity) -> list[str]:
    """The keys the entity's page is known by from now on: its matching keys, and the parts of a
    person's name the document used alone ('Guido'), so that a later document's lone 'Guido' lands
    on 'Guido van Rossum' (it never lands on a page named by one word only: `_lone_name_lands`)."""
    if _is_local(entity):
        return []  # it names something only inside its document: no other document finds it by name
    keys = _name_keys(entity)
    if entity.kind is PageKind.PERSON:
        full = names.name_key(entity.name, True).split()
        for name in entity.local_names:
            words = names.name_key(name, True).split()
            key = " ".join(words)
            if words and key not in keys and words in (full[: len(words)], full[-len(words):]):
                keys.append(key)
    return keys


def _is_local(entity: DocumentEntity) -> bool:
    """A generic head ('the Court') or titles alone: a page of its own document, never matched by name."""
    return entity.name in entity.local_names


def _lone_name_lands(entity: DocumentEntity, page: KnownPage) -> bool:
    """A one-word person name ('Adam') from another document joins a page named in full ('Guido' ->
    'Guido van Rossum'), never another page named by one word only: nothing says they are one person."""
    words = names.name_key(entity.name, True).split()
    title_words = names.name_key(page.title, True).split()
    if len(words) != 1 or page.kind is not PageKind.PERSON:
        return True
    if len(title_words) <= 1:
        return False
    # 'Justice Thomas' is a surname: it never lands on 'Thomas Sam'.
    titled = any(names.has_title(n) for n in (entity.name, *entity.aliases))
    return not titled or title_words[-1] == words[0]


def _titled_surname(page: KnownPage) -> bool:
    """Whether a page named by one word was written with a title ('Justice Thomas'): a surname."""
    title_key = normalise_name(page.title)
    return any(names.has_title(key) and normalise_name(names.strip_honorifics(key)) == title_key
               for key in page.name_keys)


def _person_initials(words: list[str]) -> set[str]:
    """'JF' for 'joaquin ferreyra'; 'NM' and 'NTM' for 'nguyen thi mai' (name keys have no hyphens:
    'kwame asante boateng' gives 'KB' and 'KAB')."""
    return {(words[0][0] + words[-1][0]).upper(), names.initials_of(words)}


def _vouches(entity: DocumentEntity) -> bool:
    """A first name read as a person: its guessed colleague may count for another first name's."""
    return entity.kind is PageKind.PERSON and not _is_speaker_initials(entity.name)


def _misread_given_name(entity: DocumentEntity) -> bool:
    """'Farah's renewal due Dec 1' typed a tool: one word, by the model's guess, that no list knows as software."""
    from pipeline.known_names import is_known_name

    return (entity.kind in (PageKind.ORGANISATION, PageKind.TOOL) and not entity.kind_certain
            and not is_known_name(entity.name) and not _is_speaker_initials(entity.name))  # 'BHP' is no colleague


def _is_speaker_initials(name: str) -> bool:
    """'TW', 'JF': a person read by rule as two or three capitals (a speaker label, an attendee)."""
    return name.isalpha() and name.isupper() and 2 <= len(name) <= 3


def _is_initials(alias: str) -> bool:
    """'AP', 'JdS': a short label made of a name's initials (meeting notes define them per document)."""
    return (" " not in alias and len(alias) <= get_settings().initials_max_chars and alias[:1].isupper()
            and sum(c.isupper() for c in alias) >= 2)


def _matching_keys(entity: DocumentEntity) -> list[str]:
    """The keys an entity is looked up by. A person's initials ('AP' for Ada Park) stay names of
    their page, but a full name is not matched by them: two people of two notes share initials."""
    keys = _name_keys(entity)  # never the names that only mean it inside its document ('Guido' alone)
    if entity.kind is PageKind.PERSON and len(entity.name.split()) > 1:
        initials = {normalise_name(a) for a in entity.aliases if _is_initials(a)}
        keys = [k for k in keys if k not in initials] or keys
    return keys


def _exact_resolution(entity: DocumentEntity, index: int, page: KnownPage, method: str, evidence: str) -> EntityResolution:
    return EntityResolution(
        entity=index, slug=page.slug, title=page.title, kind=page.kind, method=method, evidence=evidence,
        new_alias=entity.name if normalise_name(entity.name) not in page.name_keys else None,
    )


def _names_share_a_word(a: str, b: str) -> bool:
    return bool(set(normalise_name(a).split()) & set(normalise_name(b).split()))


def _resolve_entity(
    entity: DocumentEntity,
    index: int,
    pages: PageIndex,
    settings: Settings,
    embedding_of: Callable[[], list[float] | None],
    vector_lookup: VectorLookup | None,
    review: list[ReviewPair],
) -> EntityResolution:
    if entity.kind is PageKind.YOU:
        return EntityResolution(entity=index, slug="you", title="you", kind=PageKind.YOU, method="you",
                                evidence="first-person words in the person's own submission")
    kinds = compatible_kinds(entity.kind)
    keys = _matching_keys(entity)
    name_key = keys[0]
    if _is_local(entity):
        return EntityResolution(entity=index, slug="", title=entity.name, kind=entity.kind, method="new",
                                evidence=f"{entity.name!r} names something only inside this document",
                                embedding=embedding_of())

    found = pages.exact(keys, kinds)
    if found and not _lone_name_lands(entity, pages.pages[found[0]]):
        found = None
    if (found and entity.kind is PageKind.ORGANISATION and found[1] in _short_form_keys(entity)
            and pages.pages[found[0]].kind is PageKind.ORGANISATION
            and normalise_name(pages.pages[found[0]].title) != found[1]):
        # 'Acme Freight' by its short form 'acme' finds a firm called 'Acme', never 'Acme Logistics'
        # (known by 'acme' too): two firms' full names that differ are two firms. (A project's
        # names, 'Project Kestrel' and 'the Kestrel Wind Farm', are one project.)
        found = None
    if found:
        page = pages.pages[found[0]]
        return _exact_resolution(entity, index, page, "slug" if slugify(entity.name) == page.slug else "alias",
                                 f"the name {found[1]!r} is already a name of {page.title!r}")

    # The model's label is a guess ('Guido' tagged as an organisation): a name that is already
    # exactly one page's name, of another kind, is that page. Rule-given kinds are never overridden,
    # except by the person: a page whose kind they set is the thing a rule names by its own name.
    other_kind_keys = [k for k in keys if k not in _short_form_keys(entity)] or keys[:1]
    found = pages.exact(other_kind_keys[:1] if entity.kind_certain else other_kind_keys, NAMED_KINDS - kinds,
                        by_hand_only=entity.kind_certain)
    if found and not _lone_name_lands(entity, pages.pages[found[0]]):
        found = None
    if found and entity.name.islower() and pages.pages[found[0]].kind is PageKind.PERSON:
        found = None  # 'node 10' is no one's surname: people's names are written capitalised
    if found:
        page = pages.pages[found[0]]
        labelled = "a rule" if entity.kind_certain else "the language model"
        return _exact_resolution(
            entity, index, page, "alias",
            f"the name {found[1]!r} is already a name of the {page.kind.value} page {page.title!r} "
            f"({labelled} had labelled it {entity.kind.value}"
            + ("; the person set the page's kind)" if page.kind_by_hand else ")"),
        )

    variant = _variant_resolution(entity, index, name_key, pages, settings)
    if variant is not None:
        return variant

    near = pages.fuzzy(name_key, kinds, settings.fuzzy_merge_threshold) if len(name_key.split()) >= settings.fuzzy_min_words else None
    if near:
        slug, score = near
        page = pages.pages[slug]
        return EntityResolution(
            entity=index, slug=slug, title=page.title, kind=page.kind, method="fuzzy", score=round(score / 100, 4),
            evidence=f"{entity.name!r} is spelled almost like {page.title!r} ({score:.0f}/100)",
            new_alias=entity.name,
        )

    # A name several pages share: only the context can say which one it is, if any.
    shared = pages.holders(keys, kinds)
    # The vector index only holds stored pages, and a match must share a word of its name, so
    # the lookup is skipped when no stored page of these kinds shares one.
    embedding = embedding_of() if vector_lookup is not None and pages.stored_shares_a_word(name_key, kinds) else None
    if embedding is not None and vector_lookup is not None:
        for slug, title, kind, score in vector_lookup(embedding, sorted(kinds, key=lambda k: k.value), 5):
            if slug not in pages.pages or not _names_share_a_word(entity.name, title):
                continue
            if shared and slug not in shared:
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

    if shared:
        known = {p.other_slug for p in review}
        review.extend(
            ReviewPair(slug="", other_slug=slug, score=0.0,
                       evidence=f"{entity.name!r} and {pages.pages[slug].title!r} share a name"
                                + (", as other pages do" if len(shared) > 1 else ""))
            for slug in shared if slug not in known
        )
        evidence = (f"the name {entity.name!r} is shared with {len(shared)} page{'s' if len(shared) > 1 else ''} "
                    "and the context matched none of them")
    else:
        evidence = "no page of a compatible kind has this name or one close to it"
    return EntityResolution(entity=index, slug="", title=entity.name, kind=entity.kind, method="new",
                            evidence=evidence, embedding=embedding_of())


def _variant_resolution(
    entity: DocumentEntity, index: int, name_key: str, pages: PageIndex, settings: Settings
) -> EntityResolution | None:
    """Another written form of a page's name: a person's nickname or dropped middle name, an acronym
    of an organisation's title ('NOAA' / 'National Oceanic and Atmospheric Administration')."""
    words = name_key.split()
    slug, evidence, method = None, "", ""
    if entity.kind is PageKind.PERSON and len(words) >= 2:
        slug = pages.name_variant(words)
        if slug:
            method = "name-variant"
            evidence = f"{entity.name!r} is another form of the name {pages.pages[slug].title!r} (nickname, initial or middle name)"
    elif entity.kind is PageKind.ORGANISATION and names.is_acronym(
        entity.name, settings.acronym_min_letters_across_documents, settings.acronym_max_letters
    ):
        acronym = entity.name.replace(".", "").replace("&", "").upper()
        slug = pages.acronym_of(acronym)
        if slug:
            method = "acronym"
            evidence = f"{entity.name!r} is the initials of {pages.pages[slug].title!r}"
    if not slug:
        return None
    page = pages.pages[slug]
    return EntityResolution(entity=index, slug=slug, title=page.title, kind=page.kind, method=method,
                            evidence=evidence, new_alias=entity.name)


def _known_with(slug: str, pages: PageIndex, named_with: dict[str, set[str]], neighbours_of: NeighbourLookup | None) -> set[str]:
    """The pages named with this one before: in this batch's documents, and in the stored ones."""
    return named_with.get(slug, set()) | (neighbours_of(slug) if neighbours_of and slug in pages.stored else set())


def _earlier_short_names(words: list[str], slug: str, pages: PageIndex) -> dict[str, str]:
    """The pages that may be this person ('tomasz wierzbicki') under a short name, each with what
    the short name is: the one page named by the first name alone, the one named by the surname
    alone, and the one named by the initials ('TW:' as a speaker label), when no other person's
    full name fits them."""
    found: dict[str, str] = {}
    lone = [s for s in pages.by_given.get(words[0], ()) if s != slug and s in pages.pages
            and pages.pages[s].kind is PageKind.PERSON and len(names.name_key(pages.pages[s].title, True).split()) == 1]
    if len(lone) == 1 and pages.only_person_called(words[0], besides=lone[0]) == slug:
        found[lone[0]] = "given name"
    # the page named by the surname alone ('Obama' of an interview, before an article's 'Barack Obama')
    people = pages.by_title.get(PageKind.PERSON, {})
    surname = people.get(words[-1])
    if (surname is not None and surname != slug and surname not in found and not names.is_given_name(words[-1])
            and {s for s in pages.by_surname.get(words[-1], ()) if s in pages.pages} == {slug}):
        found[surname] = "surname"
    # the page named by the first name and the surname's initial ('Tom K' of a chat, before 'Tom Kowalski')
    initial = people.get(f"{words[0]} {words[-1][0]}") if len(words) == 2 else None
    if (initial is not None and initial != slug and initial not in found and initial in pages.pages
            and pages.only_person_with_initial([words[0], words[-1][0]], besides=initial) == slug):
        found[initial] = "first name and initial"
    labels = [people[key] for key in (i.lower() for i in _person_initials(words)) if key in people]
    labels = [s for s in labels if s != slug and s in pages.pages and _is_speaker_initials(pages.pages[s].title)]
    if (len(labels) == 1 and labels[0] not in found  # 'AJ' may be both for 'AJ Jackson'
            and pages.only_person_with_initials(pages.pages[labels[0]].title, besides=labels[0]) == slug):
        found[labels[0]] = "initials"
    return found


def _fold_earlier_given_names(
    doc: ExtractedDocument,
    resolutions: list[EntityResolution],
    pages: PageIndex,
    named_with: dict[str, set[str]],
    neighbours_of: NeighbourLookup | None,
) -> list[PageMerge]:
    """The other order of `_join_given_names`: an earlier note's page named by a first name alone
    ('Hi Omar,'), a surname alone or initials is folded into the person this note names in full
    ('Omar Haddad'), when that is the only person of that name and the two notes name
    `given_name_fold_min_shared` things in common."""
    here = {r.slug for r in resolutions if r.method != "you"}
    min_shared = get_settings().given_name_fold_min_shared
    merges = []
    for resolution in resolutions:
        entity = doc.entities[resolution.entity]
        words = names.name_key(entity.name, True).split()
        if entity.kind is not PageKind.PERSON or len(words) < 2 or resolution.slug not in pages.pages:
            continue
        for other_slug, short_name in _earlier_short_names(words, resolution.slug, pages).items():
            other = pages.pages.get(other_slug)
            if other is None or other.kind_by_hand:  # folded into another page already, or the person's own
                continue
            if short_name == "given name" and (_titled_surname(other) or names.has_title(other.title)):
                continue  # 'Justice Thomas' is a surname, not Thomas Sam's given name
            known_with = _known_with(other.slug, pages, named_with, neighbours_of)
            shared = sorted((here - {resolution.slug, other.slug}) & known_with)
            if len(shared) < min_shared or pages.kept_apart(other.slug, resolution.slug):  # a fold asks for more than a join
                continue
            pages.fold(other.slug, resolution.slug)
            merges.append(PageMerge(
                from_slug=other.slug, into_slug=resolution.slug,
                evidence=f"{other.title!r} is the {short_name} of "
                         f"{entity.name!r}, the only person of that name, and both "
                         f"documents name {pages.pages[shared[0]].title if shared[0] in pages.pages else shared[0]!r}",
            ))
    return merges


def _name_part_merges(entity: DocumentEntity, slug: str, pages: PageIndex) -> list[PageMerge]:
    """Pages named only by a part of this entity's name are folded into its page.

    Which page a bare name gets depends on what came first: 'PSF' may have a page of its own
    from documents that only ever say 'PSF', and 'Guido' one from a document the model misread.
    The first document that writes 'Python Software Foundation (PSF)', or 'Guido van Rossum' and
    later 'Guido', settles it: the bare page is folded in. Only when that page is the one other
    holder of the name ('Smith', shared by two people, is never folded anywhere).
    """
    name_words = normalise_name(entity.name).split()
    parts = [(a, compatible_kinds(entity.kind), "is defined as") for a in entity.acronyms]
    if entity.kind is PageKind.PROJECT and (code := names.project_short_form(entity.name)):
        # 'the Heron beta' of an earlier note became a firm's page: 'Project Heron' settles it
        parts.append((code, {PageKind.ORGANISATION, PageKind.TOOL, PageKind.PROJECT}, "is the project called"))
    elif entity.kind is PageKind.PROJECT and entity.kind_certain:
        # 'PROGRAMMES: DRIFTWOOD, …' settles what an earlier note's 'the Driftwood cutover' was
        parts.append((entity.name, {PageKind.ORGANISATION, PageKind.TOOL}, "is listed as a project, and so is"))
    if entity.kind is PageKind.PERSON:
        for alias in entity.aliases:
            words = normalise_name(alias).split()
            if len(words) == 1 and words == name_words[:1] and names.is_given_name(words[0]):
                continue  # 'Matthew' of another text may be anyone called Matthew: _fold_earlier_given_names asks for shared context
            if words and len(words) < len(name_words) and words in (name_words[: len(words)], name_words[-len(words) :]):
                parts.append((alias, NAMED_KINDS, "is also called"))
    elif entity.kind in _THINGS:
        # 'Microsoft Teams … the Teams channel': the document calls it by part of its name, so an
        # earlier note's page for that part alone ('Teams', typed by a guess) was this thing too.
        # Never a generic head ('the Court', local_names) and never a person's page.
        for alias in entity.aliases:
            words = normalise_name(alias).split()
            if (alias not in entity.local_names and words and len(words) < len(name_words)
                    and words in (name_words[: len(words)], name_words[-len(words):])):
                parts.append((alias, _THINGS, "is also called"))
    merges = []
    for part, kinds, relation in parts:
        key = normalise_name(part)
        others = [s for s in pages.holders([key], NAMED_KINDS) if s != slug]
        if len(others) != 1 or others[0] not in pages.pages:
            continue
        other = pages.pages[others[0]]
        if (names.has_title(other.title) or _titled_surname(other)) and names.name_key(other.title, True) != name_words[-1]:
            continue  # 'Justice Thomas' was a surname: never folded into 'Thomas Sam'
        if other.kind_by_hand and other.kind not in compatible_kinds(entity.kind):
            continue  # the person said what it is: never folded into a thing of another kind
        if other.kind in kinds and normalise_name(other.title) == key and not pages.kept_apart(other.slug, slug):
            pages.fold(other.slug, slug)
            merges.append(PageMerge(
                from_slug=other.slug, into_slug=slug,
                evidence=f"{entity.name!r} {relation} {part!r} in the text, and {other.slug!r} was a page for {part!r}",
            ))
    return merges


def _fold_guessed_person(entity: DocumentEntity, slug: str, pages: PageIndex) -> list[PageMerge]:
    """An earlier note's person page for one word ('Kestrel'), where this note reads the word as a
    project, a firm or a tool: the earlier reading was the news model's guess at a code name, when
    the word is no given name and no person of the graph has it in their name. So too a firm's
    name of several words a rule reads here ('Calloway Brandt, their implementation partner'), that
    opens with no given name. A person a rule read (an attendee list) or an LLM chose among its
    readings was no guess, and stays."""
    key = normalise_name(entity.name)
    words = key.split()
    ruled_firm = (entity.kind is PageKind.ORGANISATION and entity.kind_certain and len(words) > 1
                  and not names.is_given_name(words[0]))
    if entity.kind not in (PageKind.ORGANISATION, PageKind.TOOL, PageKind.PROJECT) or not (
            ruled_firm or (len(words) == 1 and not names.is_given_name(key) and not pages.by_surname.get(key))):
        return []
    guesses = [s for s in pages.holders([key], {PageKind.PERSON}) if s != slug]
    if len(guesses) != 1 or slug not in pages.pages:
        return []
    guess = pages.pages[guesses[0]]
    if (guess.kind_by_hand or guess.kind_by_rule or guess.kind_by_model or normalise_name(guess.title) != key or _titled_surname(guess)
            or pages.kept_apart(guess.slug, slug)):
        return []
    pages.fold(guess.slug, slug)
    return [PageMerge(from_slug=guess.slug, into_slug=slug,
                      evidence=f"{entity.name!r} is read as a {entity.kind.value} here; the person page {guess.title!r} "
                               "was an earlier guess at the same word, which is no one's name")]


def _join_given_names(
    doc: ExtractedDocument,
    resolutions: list[EntityResolution],
    pages: PageIndex,
    named_with: dict[str, set[str]],
    neighbours_of: NeighbourLookup | None,
) -> list[EntityResolution]:
    """A first name alone that became a page of its own ('Maya walked through the plan') is the one
    person the graph knows in full by that first name ('Maya Lindqvist'), when the document also
    names something that person was named with before (a colleague, a project, a tool).

    Notes call colleagues by their first name; a biography's 'Eve' is not the linguist Eve Sweetser
    of another text, and nothing around it says so. Other lone first names of the same document
    count as their candidates ('Maya' and 'Tomás' in one email, named together before).
    """
    min_shared = get_settings().given_name_fold_min_shared
    candidates: dict[int, str] = {}
    for position, resolution in enumerate(resolutions):
        entity = doc.entities[resolution.entity]
        words = names.name_key(entity.name, True).split()
        with_initial = len(words) == 2 and len(words[1]) == 1 and entity.kind is PageKind.PERSON  # a chat's 'Tom K'
        if (resolution.method != "new" or not (entity.kind is PageKind.PERSON or _misread_given_name(entity))
                or not (len(words) == 1 or with_initial) or _is_local(entity)
                or any(names.has_title(n) for n in (entity.name, *entity.aliases))):  # 'Justice Thomas' is a surname
            continue
        if with_initial:
            slug = pages.only_person_with_initial(words, besides=resolution.slug)
        elif _is_speaker_initials(entity.name):
            slug = pages.only_person_with_initials(entity.name, besides=resolution.slug)
        else:
            slug = pages.only_person_called(words[0], besides=resolution.slug)
        if slug:
            candidates[position] = slug
    if not candidates:
        return resolutions
    settled = {r.slug for r in resolutions if r.method != "new"}
    result = list(resolutions)
    for position, slug in candidates.items():
        known_with = _known_with(slug, pages, named_with, neighbours_of)
        resolution = resolutions[position]
        entity = doc.entities[resolution.entity]
        # other first names' people count ('Maya' and 'Tomás' named together before); other labels'
        # guesses do not: 'AN' and 'JF' would vouch for each other
        vouching = {c for p, c in candidates.items() if _vouches(doc.entities[resolutions[p].entity])}
        around = settled | vouching if _vouches(entity) else settled
        shared = sorted((around - {slug}) & known_with)
        # initials, and a first name read as a firm or a tool, are weaker than a first name read as a
        # person: they ask for as much as a fold
        if len(shared) < (1 if _vouches(entity) else min_shared):
            continue
        pages.fold(resolution.slug, slug)
        page = pages.pages[slug]
        result[position] = resolution.model_copy(update={
            "slug": slug, "title": page.title, "kind": page.kind, "method": "name-variant", "embedding": None,
            "new_alias": entity.name,
            "evidence": f"{entity.name!r} is the {'initials' if _is_speaker_initials(entity.name) else 'given name'} of "
                        f"{page.title!r}, the only person of that name, and the document also names {pages.pages[shared[0]].title if shared[0] in pages.pages else shared[0]!r}, "
                        f"named with them before",
        })
    return result


_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|our|their|this|that)\s+$", re.IGNORECASE)


def _named_with_context(text: str, entity: DocumentEntity, pages: PageIndex, besides: str) -> tuple[str, str] | None:
    """The one page a name may be another form of, when only shared context can say it is: a short
    acronym ('WMI' / 'Wawel Materials Institute': three letters name too many things), or a person's
    name without a second surname ('Javier Ortega' / 'Javier Ortega Ruiz': 'Juan Carlos' is as often
    the given names of 'Juan Carlos Ferrero'). Returns (slug, what the name is of it)."""
    settings = get_settings()
    if entity.kind is PageKind.ORGANISATION and names.is_acronym(
            entity.name, settings.acronym_min_letters_with_context, settings.acronym_max_letters):
        if any(_DETERMINER_BEFORE.search(text, max(0, m.start - 8), m.start) for m in entity.mentions):
            return None  # 'the RFP', 'an NDA': a kind of document, not a body's initials
        slug = pages.acronym_of(entity.name.replace(".", "").replace("&", "").upper())
        return (slug, "the initials") if slug and slug != besides else None
    words = names.name_key(entity.name, True).split()
    if entity.kind is not PageKind.PERSON or len(words) not in (2, 3):
        return None
    fits = [slug for slug in sorted(pages.by_given.get(words[0], ())) if slug != besides and slug in pages.pages
            and pages.pages[slug].kind is PageKind.PERSON
            and (names.with_second_surname(words, other := names.name_key(pages.pages[slug].title, True).split())
                 or names.with_second_surname(other, words))
            # 'Javier Ortega Ruiz' is not the 'Javier Ortega' page that already holds 'Javier Ortega Gómez'
            and not (len(words) == 3 and any(len(k.split()) == 3 and k.split()[:2] == words[:2] and k.split() != words
                                             for k in pages.pages[slug].name_keys))]
    return (fits[0], "another form of the name") if len(fits) == 1 else None


def _join_with_shared_context(
    doc: ExtractedDocument,
    resolutions: list[EntityResolution],
    pages: PageIndex,
    named_with: dict[str, set[str]],
    neighbours_of: NeighbourLookup | None,
) -> tuple[list[EntityResolution], dict[str, str]]:
    """A name that became a page of its own joins the one page it may be another form of (see
    _named_with_context) when the document also names pages named with that page before. Returns the
    resolutions and each folded slug with the page it joined. One page takes one name of a document."""
    min_shared = get_settings().given_name_fold_min_shared
    result = list(resolutions)
    settled = {r.slug for r in resolutions if r.method != "new"}
    found = {position: _named_with_context(doc.parsed.text, doc.entities[r.entity], pages, r.slug)
             for position, r in enumerate(resolutions) if r.method == "new"}
    targets = Counter(f[0] for f in found.values() if f)
    folded: dict[str, str] = {}
    for position, match in found.items():
        resolution = resolutions[position]
        if (match is None or targets[match[0]] > 1 or resolution.slug not in pages.pages
                or pages.kept_apart(resolution.slug, match[0])):
            continue
        slug, relation = match
        shared = sorted((settled - {slug}) & _known_with(slug, pages, named_with, neighbours_of))
        if len(shared) < min_shared:
            continue
        entity = doc.entities[resolution.entity]
        pages.fold(resolution.slug, slug)
        folded[resolution.slug] = slug
        page = pages.pages[slug]
        result[position] = resolution.model_copy(update={
            "slug": slug, "title": page.title, "kind": page.kind, "embedding": None, "new_alias": entity.name,
            "method": "acronym" if relation == "the initials" else "name-variant",
            "evidence": f"{entity.name!r} is {relation} {page.title!r}, and the document also names "
                        f"{', '.join(repr(pages.pages[s].title) for s in shared[:2] if s in pages.pages)}, named with it before",
        })
    # the document's other names that landed on a folded page, and the merges into it, follow it
    result = [r.model_copy(update={"slug": folded[r.slug], "title": pages.pages[folded[r.slug]].title})
              if r.slug in folded else r for r in result]
    return result, folded


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
    embed: Embed,
    vector_lookup: VectorLookup | None = None,
    neighbours_of: NeighbourLookup | None = None,
) -> list[ResolvedDocument]:
    """Resolve every entity of every document; pure apart from the callbacks it is given."""
    read_lone_words_as_the_graph_does(documents, known)  # 'Kestrel', a project page, is no one's name
    if settings.gazetteer:  # names the graph and the batch know, found where the model missed them
        documents = recognise_known_names(documents, known, settings, embed)
    pages = PageIndex.build(known)
    # A folded page's slug still reads the page it joined (get_page, traverse): no new page takes it.
    taken = set(pages.pages) | {slug for page in known for slug in page.former_slugs}
    named_with: dict[str, set[str]] = {}  # slug -> the pages this batch's documents named with it

    results = []
    for doc in documents:
        resolutions: list[EntityResolution] = []
        review: list[ReviewPair] = []
        merges: list[PageMerge] = []
        for e, entity in enumerate(doc.entities):
            pending = len(review)

            # Extraction embedded the first entity of each name; any other is embedded only if needed.
            def embedding_of(entity: DocumentEntity = entity) -> list[float]:
                if entity.embedding is None:
                    entity.embedding = embed([entity.context])[0]
                return entity.embedding

            resolution = _resolve_entity(entity, e, pages, settings, embedding_of, vector_lookup, review)
            if resolution.method == "new":
                slug = unique_slug(slugify(entity.name), taken)
                taken.add(slug)
                resolution = resolution.model_copy(update={"slug": slug})
                pages.add(KnownPage(slug=slug, title=entity.name, kind=entity.kind, name_keys=_page_keys(entity),
                                    kind_by_rule=entity.kind_certain))
            # Review pairs found for this entity name its page now that it has a slug.
            for pair in review[pending:]:
                pair.slug = resolution.slug
            merges.extend(_name_part_merges(entity, resolution.slug, pages))
            merges.extend(_fold_guessed_person(entity, resolution.slug, pages))
            if resolution.method != "you":
                # The entity's names become names of the page (exact matches from now on). Fuzzy
                # matching only ever compares with titles, so variants of variants never chain.
                keys = _page_keys(entity)
                pages.add_names(resolution.slug, keys)
                resolution = resolution.model_copy(update={"name_keys": keys})
            resolutions.append(resolution)
        if settings.given_name_joins_only_person:
            resolutions = _join_given_names(doc, resolutions, pages, named_with, neighbours_of)
            merges.extend(_fold_earlier_given_names(doc, resolutions, pages, named_with, neighbours_of))
        resolutions, folded = _join_with_shared_context(doc, resolutions, pages, named_with, neighbours_of)
        merges = [m.model_copy(update={"into_slug": folded[m.into_slug]}) if m.into_slug in folded else m for m in merges]
        slugs = {r.slug for r in resolutions if r.method != "you"}
        for slug in slugs:
            named_with.setdefault(slug, set()).update(slugs - {slug})
        review = [p for p in review if p.slug and p.slug != p.other_slug and p.slug in pages.pages]
        results.append(
            ResolvedDocument(
                extracted=doc,
                resolutions=resolutions,
                review_pairs=review,
                page_merges=merges,
                focus_slug=_focus_slug(doc.parsed.focus, pages, taken),
                anchor=pages.pages.get(doc.parsed.anchor_slug) if doc.parsed.anchor_slug else None,
            )
        )
    return results

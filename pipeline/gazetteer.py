"""Names already known, recognised in every document of a batch even where the model missed them.

The person's own graph is the best gazetteer: a page's title and names are names this person's
documents use. And within one batch, a name the model found in one document is a name in the
others too (spaCy reads the same name differently in different sentences). Before resolution,
every further occurrence of such a name becomes a mention, and its sentence a fact.

What is never looked for outside the document that uses it, because a chance match would put a
mention on the wrong page:
- a name two things share (a key held by two pages, or by a page and another name of the batch):
  it names neither;
- a single word that names a person (a lone first name or surname: many people share one);
- a single word the batch also writes in lower case, or an English stop word ('Will', 'Apple'
  in a batch that talks of apples);
- names shorter than `gazetteer_min_chars` or longer than `gazetteer_max_words`.

Matching is on name keys (case, accents and punctuation ignored, see slugs.normalise_name), word
by word, so 'Smith-Barney' finds 'Smith Barney'; a match must be written like a name (each word
capitalised) unless it is a spelling already seen ('van Rossum', 'iPhone'), and must not be the
start of a longer capitalised name ('Harvard' in 'Harvard Law School').
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import accumulate

from spacy.lang.en.stop_words import STOP_WORDS

from graph_schema.kinds import PageKind
from graph_schema.models import CandidateFact, DocumentEntity, EntityMention, ExtractedDocument, KnownPage
from graph_schema.settings import Settings
from graph_schema.slugs import normalise_name
from knowledge.types import Embed
from pipeline import names
from pipeline.extract import _one_line
from pipeline.fact_kinds import type_facts
from pipeline.header_facts import non_name_spans
from pipeline.units import starts_a_sentence

# The kinds whose names are looked for (the same as resolution's named kinds; `you` and focus
# pages are not names in text).
LOOKED_FOR_KINDS = {PageKind.PERSON, PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.TOPIC}

_TOKEN = re.compile(r"[^\W_]+")
_LOWER_WORD = re.compile(r"\b[a-z]+\b")
_NAME_GAP = re.compile(r"[ \-.&'’]{1,3}")  # what may stand between two words of one name
_NOT_BEFORE = set("@#/.-_\\")  # a name inside an address, path or identifier is not a mention
_NOT_AFTER = set("@/-_\\")


@dataclass(frozen=True)
class KnownName:
    identity: str  # "page:<slug>" for a page of the graph, "name:<key>" for a name of this batch
    kind: PageKind


@dataclass
class Gazetteer:
    names: dict[str, KnownName] = field(default_factory=dict)  # name key -> the one thing it names
    longest: dict[str, int] = field(default_factory=dict)  # first word of a key -> most words of a key it starts
    spellings: set[str] = field(default_factory=set)  # exact spellings seen, accepted whatever their casing
    page_keys: dict[str, set[str]] = field(default_factory=dict)  # name key -> slugs of pages known by it


def _active(document: ExtractedDocument) -> bool:
    parsed = document.parsed
    return parsed.failure is None and not parsed.unchanged and not parsed.deleted


def _entity_identity(entity: DocumentEntity, page_keys: dict[str, set[str]]) -> str:
    """The page an entity's own name already names, if exactly one; else its name."""
    key = normalise_name(entity.name)
    pages = page_keys.get(key, set())
    return f"page:{next(iter(pages))}" if len(pages) == 1 else f"name:{key}"


def _short_forms(entity: DocumentEntity) -> list[str]:
    """'Tidewater' for the organisation 'Tidewater Freight' (names.distinctive_short_form)."""
    if entity.kind is not PageKind.ORGANISATION:
        return []
    return [short for name in (entity.name, *entity.aliases) if (short := names.distinctive_short_form(names.org_base(name)))]


def _worth_looking_for(key: str, kind: PageKind, lower_words: set[str], settings: Settings) -> bool:
    words = key.split()
    if len(key) < settings.gazetteer_min_chars or not words or len(words) > settings.gazetteer_max_words:
        return False
    if all(w.isdigit() for w in words):
        return False
    if len(words) == 1:
        return kind is not PageKind.PERSON and key not in lower_words and key not in STOP_WORDS
    return True


def build_gazetteer(documents: list[ExtractedDocument], known: list[KnownPage], settings: Settings) -> Gazetteer:
    """Every name of the graph's pages and of the batch's entities that names exactly one thing."""
    holders: dict[str, dict[str, Counter[PageKind]]] = defaultdict(lambda: defaultdict(Counter))
    page_kind: dict[str, PageKind] = {}
    gazetteer = Gazetteer()
    for page in known:
        if page.kind not in LOOKED_FOR_KINDS:
            continue
        if not page.name_keys:
            continue  # known by no name: a document's own 'the Court' is not looked for in others
        identity = f"page:{page.slug}"
        page_kind[identity] = page.kind
        gazetteer.spellings.add(page.title)
        for key in {normalise_name(page.title), *page.name_keys}:
            holders[key][identity][page.kind] += 1
            gazetteer.page_keys.setdefault(key, set()).add(page.slug)
    lower_words: set[str] = set()
    other_keys: set[str] = set()  # names the model read as a place, a nationality, a date… somewhere
    for document in filter(_active, documents):
        lower_words.update(_LOWER_WORD.findall(document.parsed.text))
        other_keys.update(normalise_name(document.parsed.text[s:e]) for s, e in document.other_names)
        for entity in document.entities:
            if entity.kind not in LOOKED_FOR_KINDS:
                continue
            identity = _entity_identity(entity, gazetteer.page_keys)
            for spelling in {entity.name, *entity.aliases, *entity.acronyms, *_short_forms(entity)}:
                gazetteer.spellings.add(spelling)
                holders[normalise_name(spelling)][identity][entity.kind] += 1
    for key, named in holders.items():
        if len(named) != 1 or key in other_keys:
            continue  # a name two things share names neither
        identity, kinds = next(iter(named.items()))
        kind = page_kind.get(identity) or kinds.most_common(1)[0][0]  # a page keeps its kind
        if _worth_looking_for(key, kind, lower_words, settings):
            gazetteer.names[key] = KnownName(identity, kind)
            first, count = key.split()[0], len(key.split())
            gazetteer.longest[first] = max(gazetteer.longest.get(first, 0), count)
    return gazetteer


def _word_key(token: str) -> str:
    return token.lower() if token.isascii() else normalise_name(token)


def _capitalised(token: str) -> bool:
    return token[0].isupper() or token[0].isdigit()


def find_known_names(text: str, gazetteer: Gazetteer) -> list[tuple[int, int, str]]:
    """(start, end, name key) of each occurrence of a known name, longest first at each position."""
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    words = [_word_key(t[2]) for t in tokens]
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        longest = gazetteer.longest.get(words[i], 0)
        last = i  # the furthest token still joined to this one as one name could be
        while last + 1 < len(tokens) and last + 1 - i < longest and _NAME_GAP.fullmatch(text[tokens[last][1] : tokens[last + 1][0]]):
            last += 1
        match = None
        for j in range(min(last, i + longest - 1), i - 1, -1):
            key = " ".join(words[i : j + 1])
            if key in gazetteer.names:
                match = (j, key)
                break
        if match is None or not _acceptable(text, tokens, i, match[0], gazetteer.spellings, gazetteer.names[match[1]].kind):
            i += 1
            continue
        j, key = match
        found.append((tokens[i][0], tokens[j][1], key))
        i = j + 1
    return found


def _acceptable(
    text: str, tokens: list[tuple[int, int, str]], i: int, j: int, spellings: set[str], kind: PageKind
) -> bool:
    start, end = tokens[i][0], tokens[j][1]
    if start and text[start - 1] in _NOT_BEFORE:
        return False
    if end < len(text) and (text[end] in _NOT_AFTER or (text[end] == "." and text[end + 1 : end + 2].isalnum())):
        return False
    if not all(_capitalised(t[2]) for t in tokens[i : j + 1]) and text[start:end] not in spellings:
        return False
    # 'Harvard' in 'Harvard Law School' is part of another name.
    if j + 1 < len(tokens) and text[end : tokens[j + 1][0]] == " ":
        following = tokens[j + 1][2]
        if following[0].isupper() and not following.isupper():
            return False
    if i == 0:
        return True
    before, gap = tokens[i - 1][2], text[tokens[i - 1][1] : start]
    if kind is PageKind.PERSON:
        # 'the Chief Justice' is a role; people's names take no article.
        return not (before.lower() == "the" and gap == " ")
    # 'Air Force' in 'the U.S. Air Force', 'Olympics' in 'Robot Olympics': a capitalised word just
    # before it (not a sentence's first word, nor 'The') is part of a longer name.
    if not _capitalised(before):
        return True
    if gap == ". ":
        return len(before) > 2  # 'U.S. Air Force'; after a longer word the period ends a sentence
    return gap != " " or before == "The" or starts_a_sentence(text, tokens[i - 1][0])


def _unit_of(document: ExtractedDocument, position: int) -> tuple[int, int]:
    """The unit (sentence, list item, table row) a position is in; its line if units are unknown."""
    starts = [u[0] for u in document.units]
    at = bisect.bisect_right(starts, position) - 1
    if at >= 0 and document.units[at][0] <= position < document.units[at][1]:
        return document.units[at]
    text = document.parsed.text
    return text.rfind("\n", 0, position) + 1, (text.find("\n", position) + 1 or len(text) + 1) - 1


def _with_fact(facts: list[CandidateFact], document: ExtractedDocument, start: int, index: int, settings: Settings) -> None:
    """The fact of the unit `start` is in names entity `index`; a unit without one becomes a fact."""
    starts = [f.start for f in facts]
    at = bisect.bisect_right(starts, start) - 1
    if at >= 0 and facts[at].start <= start < facts[at].end:
        if index not in facts[at].entities:
            facts[at] = facts[at].model_copy(update={"entities": sorted({*facts[at].entities, index})})
        return
    unit_start, unit_end = _unit_of(document, start)
    text = document.parsed.text[unit_start:unit_end]
    facts.insert(at + 1, CandidateFact(text=_one_line(text, settings.max_fact_chars), start=unit_start, end=unit_end,
                                       entities=[index]))


def _owners(document: ExtractedDocument, gazetteer: Gazetteer) -> tuple[dict[str, int], dict[str, int]]:
    """Which of the document's entities holds each of its name keys, and each identity."""
    by_key: dict[str, int] = {}
    by_identity: dict[str, int] = {}
    for index, entity in enumerate(document.entities):
        if entity.kind not in LOOKED_FOR_KINDS:
            continue
        by_identity.setdefault(_entity_identity(entity, gazetteer.page_keys), index)
        for spelling in (entity.name, *entity.aliases, *entity.acronyms):
            by_key.setdefault(normalise_name(spelling), index)
    return by_key, by_identity


def add_known_mentions(document: ExtractedDocument, gazetteer: Gazetteer, settings: Settings) -> tuple[ExtractedDocument, list[DocumentEntity]]:
    """The document with every known name it uses as a mention (and its unit as a fact); the new entities."""
    text = document.parsed.text
    held = sorted([*((m.start, m.end) for e in document.entities for m in e.mentions), *document.other_names,
                   *non_name_spans(text),  # 'Post-History:' in every PEP header is no mention of a page
                   # 'an API', 'the APIs': a page of that name (from an earlier batch) is not what this means
                   *names.countable_acronym_spans(text, names.countable_acronyms(text))])
    held_starts = [s for s, _ in held]
    reach = list(accumulate((e for _, e in held), max))  # the furthest end of the spans up to each
    found = []
    for start, end, key in find_known_names(text, gazetteer):
        at = bisect.bisect_left(held_starts, end)  # the spans starting before `end`
        if at and reach[at - 1] > start:  # it overlaps a mention the document has
            continue
        found.append((start, end, key))
    if not found:
        return document, []
    entities = list(document.entities)
    facts = list(document.facts)
    by_key, by_identity = _owners(document, gazetteer)
    added: dict[int, list[EntityMention]] = defaultdict(list)
    new: list[int] = []
    for start, end, key in found:
        known = gazetteer.names[key]
        index = by_key.get(key, by_identity.get(known.identity))
        surface = text[start:end]
        if index is None:
            index = len(entities)
            entities.append(DocumentEntity(name=surface, kind=known.kind))
            by_identity[known.identity] = by_key[key] = index
            new.append(index)
        added[index].append(EntityMention(start=start, end=end, surface=surface))
        _with_fact(facts, document, start, index, settings)
    for index, mentions in added.items():
        entity = entities[index]
        spellings = {m.surface for m in mentions} - {entity.name}
        entities[index] = entity.model_copy(update={
            "mentions": sorted([*entity.mentions, *mentions], key=lambda m: m.start),
            "aliases": sorted({*entity.aliases, *spellings}),
        })
    # The units that became facts here are typed like every other fact (decision, action, question
    # or statement, with owner and due date), now that their entities hold the new mentions.
    before = {(f.start, f.end) for f in document.facts}
    facts = [f if (f.start, f.end) in before else type_facts([f], text, entities)[0] for f in facts]
    for index in new:
        entity = entities[index]
        about = [f.text for f in facts if index in f.entities][:2]
        entities[index] = entity.model_copy(
            update={"context": _one_line(f"{entity.name}. " + " ".join(about), settings.entity_context_chars)}
        )
    updated = document.model_copy(update={"entities": entities, "facts": facts})
    return updated, [entities[i] for i in new]


def recognise_known_names(
    documents: list[ExtractedDocument],
    known: list[KnownPage],
    settings: Settings,
    embed: Embed | None = None,
) -> list[ExtractedDocument]:
    """Each document with the names the graph and the batch know added as mentions and facts.

    With `embed`, the contexts of the entities this adds are embedded in one call.
    """
    gazetteer = build_gazetteer(documents, known, settings)
    if not gazetteer.names:
        return documents
    result: list[ExtractedDocument] = []
    new: list[DocumentEntity] = []
    for document in documents:
        if _active(document):
            document, added = add_known_mentions(document, gazetteer, settings)
            new.extend(added)
        result.append(document)
    if embed is not None and new:
        for entity, vector in zip(new, embed([e.context for e in new]), strict=True):
            entity.embedding = vector
    return result

"""Stage 2: find what each document talks about (spaCy, no LLM) and the sentences that say it.

Entity labels map to page kinds as follows (a design decision, documented in the README):
PERSON -> person; ORG -> organisation; PRODUCT -> tool; WORK_OF_ART -> project;
EVENT and LAW -> topic. Places (GPE, LOC, FAC), nationalities and groups (NORP), dates and
numbers are not pages: they stay in the fact text, where they still count for search.

People named in a header block (`Author:`, `Sponsor:`, `Attendees:`…) are read by rule with exact
spans (see header_people.py); they are people whatever the model says, and the model's own
entities inside those header fields are dropped.

In-document coreference: the mentions of one name (case, accents, "the" and "'s" ignored) are one
entity; a lone first or last name ("Guido", "Rossum") joins the only full name in the document
it fits; an acronym defined in parentheses ("Python Software Foundation (PSF)") is an alias of its
organisation, and later bare uses of it are mentions too. In an assistant's submission,
first-person words ("I", "we") are the person themself: the `you` page.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache

from graph_schema.kinds import PageKind, SourceKind
from graph_schema.models import CandidateFact, DocumentEntity, EntityMention, ExtractedDocument, ParsedDocument
from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name
from pipeline.fact_kinds import type_facts
from pipeline.header_people import read_header
from pipeline.units import split_into_units, unit_breaks

LABEL_KINDS = {
    "PERSON": PageKind.PERSON,
    "ORG": PageKind.ORGANISATION,
    "PRODUCT": PageKind.TOOL,
    "WORK_OF_ART": PageKind.PROJECT,
    "EVENT": PageKind.TOPIC,
    "LAW": PageKind.TOPIC,
}
FIRST_PERSON = {"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"}
YOU_NAME = "you"

_MAX_MENTION_CHARS = 60
_MAX_MENTION_WORDS = 6
_ACRONYM_AFTER = re.compile(r"\s*\(\s*([A-Z][A-Za-z&]{1,9})\s*\)")
_ACRONYM_SKIP = {"of", "the", "and", "for", "in", "on", "a", "an", "&"}
_WHITESPACE = re.compile(r"\s+")
_JUNK = re.compile(r"[<>@{}\[\]|=_*#`\\/]|https?:|www\.")
_EDGE = " \t\n\"'`()[]{}<>,.;:!?-–—*_"


# Only entities and sentence bounds are used: the fast statistical sentence splitter replaces the
# dependency parser, and the tagger, attribute ruler and lemmatizer are left out (about 1.4x faster).
_UNUSED_COMPONENTS = ["parser", "tagger", "attribute_ruler", "lemmatizer"]


@lru_cache(maxsize=1)
def load_nlp():
    """The spaCy pipeline, loaded once per process, with only the components extraction uses."""
    import spacy

    nlp = spacy.load(get_settings().spacy_model, exclude=_UNUSED_COMPONENTS, disable=[])
    if "senter" in nlp.disabled:
        nlp.enable_pipe("senter")
    return nlp


def _is_first_person(token) -> bool:
    """'I', 'we', 'our'… but not the acronym 'US' (no tagger runs, so this goes by spelling)."""
    return token.lower_ in FIRST_PERSON and (token.text == "I" or not token.text.isupper())


def clean_mention(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    """Trim an entity span to the name itself, or None when it is not a usable name."""
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    surface = text[start:end]
    lowered = surface.lower()
    if lowered.startswith("the "):
        start += 4
        surface = text[start:end]
    for suffix in ("'s", "’s"):
        if surface.endswith(suffix):
            end -= len(suffix)
            surface = text[start:end]
    if (
        len(surface) < 2
        or len(surface) > _MAX_MENTION_CHARS
        or "\n" in surface
        or len(surface.split()) > _MAX_MENTION_WORDS
        or not any(ch.isalpha() for ch in surface)
        or not any(ch.isupper() for ch in surface)
        or _JUNK.search(surface)
    ):
        return None
    return surface, start, end


def _initials(name: str) -> str:
    return "".join(w[0] for w in name.split() if w.lower() not in _ACRONYM_SKIP and w[0].isalpha()).upper()


class _Group:
    """The mentions of one entity inside one document, while coreference is worked out."""

    def __init__(self) -> None:
        self.mentions: list[EntityMention] = []
        self.kinds: Counter[PageKind] = Counter()
        self.extra_aliases: set[str] = set()
        self.certain_kind: PageKind | None = None  # set by a rule (a header field), not by the model

    def add(self, surface: str, start: int, end: int, kind: PageKind) -> None:
        self.mentions.append(EntityMention(start=start, end=end, surface=surface))
        self.kinds[kind] += 1

    def absorb(self, other: _Group) -> None:
        self.mentions.extend(other.mentions)
        self.kinds.update(other.kinds)
        self.extra_aliases |= other.extra_aliases
        self.certain_kind = self.certain_kind or other.certain_kind

    @property
    def kind(self) -> PageKind:
        return self.certain_kind or self.kinds.most_common(1)[0][0]

    @property
    def name(self) -> str:
        counts = Counter(m.surface for m in self.mentions)
        return max(counts, key=lambda s: (len(s.split()), counts[s], len(s)))


def _group_mentions(
    text: str, raw: list[tuple[int, int, PageKind]], header_people: list[tuple[int, int]]
) -> dict[str, _Group]:
    groups: dict[str, _Group] = defaultdict(_Group)
    for start, end in header_people:
        key = normalise_name(text[start:end])
        if key:
            groups[key].add(text[start:end], start, end, PageKind.PERSON)
            groups[key].certain_kind = PageKind.PERSON
    for start, end, kind in raw:
        cleaned = clean_mention(text, start, end)
        if cleaned is None:
            continue
        surface, s, e = cleaned
        key = normalise_name(surface)
        if key:
            groups[key].add(surface, s, e, kind)
    return dict(groups)


def _merge_short_person_names(groups: dict[str, _Group]) -> None:
    """'Guido' or 'van Rossum' joins the one full person name in the document it is part of.

    A short name the model labelled otherwise ('Guido' as an organisation happens) joins too,
    when it is a single word: the full name in the same document is the better evidence.
    """
    short = sorted(
        (k for k, g in groups.items() if g.kind is PageKind.PERSON or (len(k.split()) == 1 and g.certain_kind is None)),
        key=lambda k: -len(k.split()),  # 'van Rossum' joins 'Guido van Rossum' before 'Rossum' looks for a home
    )
    for key in short:
        words = key.split()
        fits = [
            fk
            for fk, g in groups.items()
            if g.kind is PageKind.PERSON
            and len(fk.split()) > len(words)
            and (fk.split()[: len(words)] == words or fk.split()[-len(words) :] == words)
        ]
        if len(fits) == 1:
            part = groups.pop(key)
            part.kinds = Counter({PageKind.PERSON: sum(part.kinds.values())})  # it is a part of a person's name
            groups[fits[0]].absorb(part)


def _merge_acronyms(text: str, groups: dict[str, _Group]) -> list[tuple[str, str]]:
    """'Python Software Foundation (PSF)': PSF becomes an alias; returns (acronym, group key) pairs."""
    defined: list[tuple[str, str]] = []
    for key, group in list(groups.items()):
        if key not in groups or group.kind not in (PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL):
            continue
        for mention in group.mentions:
            match = _ACRONYM_AFTER.match(text, mention.end)
            if not match:
                continue
            acronym = match.group(1)
            if acronym.upper() != _initials(mention.surface) or len(acronym) < 2:
                continue
            group.extra_aliases.add(acronym)
            defined.append((acronym, key))
            acronym_key = normalise_name(acronym)
            if acronym_key in groups and acronym_key != key:
                group.absorb(groups.pop(acronym_key))
            break
    return defined


def _acronym_mentions(text: str, defined: list[tuple[str, str]], groups: dict[str, _Group]) -> None:
    """Bare later uses of a defined acronym are mentions of its organisation."""
    for acronym, key in defined:
        group = groups.get(key)
        if group is None:
            continue
        taken = {(m.start, m.end) for g in groups.values() for m in g.mentions}
        for match in re.finditer(rf"(?<![\w(]){re.escape(acronym)}(?![\w)])", text):
            if (match.start(), match.end()) not in taken:
                group.add(acronym, match.start(), match.end(), group.kind)


def _repeated_mentions(text: str, groups: dict[str, _Group]) -> None:
    """Every further occurrence of a name the document already uses is a mention of it too.

    The model misses names it found elsewhere in the same document (in a list item, a table
    cell, a sentence it reads differently); the name, written the same way, is the better evidence.
    Case-sensitive and on word boundaries, so 'Will Smith' never claims the verb 'will'. One pass
    over the text with every name at once; longer names are tried first at each position.
    """
    group_of = {m.surface: g for g in groups.values() for m in g.mentions}
    if not group_of:
        return
    names = "|".join(re.escape(s) for s in sorted(group_of, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w@#/.-])(?:{names})(?![\w@/-]|\.\w)")
    taken = _SpanSet((m.start, m.end) for g in groups.values() for m in g.mentions)
    for match in pattern.finditer(text):
        if taken.add(match.start(), match.end()):
            group_of[match.group()].add(match.group(), match.start(), match.end(), group_of[match.group()].kinds.most_common(1)[0][0])


class _SpanSet:
    """Disjoint spans, sorted; `add` keeps a span only if it overlaps none already held."""

    def __init__(self, spans) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted(spans):
            if self.ends and start < self.ends[-1]:  # overlapping spans are held as their union
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def add(self, start: int, end: int) -> bool:
        at = bisect.bisect_left(self.starts, end)  # the spans starting before `end`
        if at and self.ends[at - 1] > start:  # disjoint and sorted: only the last of them can reach in
            return False
        self.starts.insert(at, start)
        self.ends.insert(at, end)
        return True


def _overlaps_any(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


def _one_line(text: str, limit: int) -> str:
    line = _WHITESPACE.sub(" ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def build_extracted(
    parsed: ParsedDocument,
    raw_entities: list[tuple[int, int, PageKind]],
    sentences: list[tuple[int, int]],
    first_person: list[tuple[int, int]],
) -> ExtractedDocument:
    """Entities, coreference and facts of one document from spaCy's raw spans (absolute offsets)."""
    text = parsed.text
    header = read_header(text)
    raw_entities = [r for r in raw_entities if not _overlaps_any(r[0], r[1], header.person_fields)]
    groups = _group_mentions(text, raw_entities, header.people)
    _merge_short_person_names(groups)
    defined = _merge_acronyms(text, groups)
    _acronym_mentions(text, defined, groups)
    _repeated_mentions(text, groups)

    entities: list[DocumentEntity] = []
    spans: list[tuple[int, int, int]] = []  # (start, end, entity index)
    for group in sorted(groups.values(), key=lambda g: min(m.start for m in g.mentions)):
        name = group.name
        aliases = sorted({m.surface for m in group.mentions if m.surface != name} | group.extra_aliases)
        index = len(entities)
        mentions = sorted(group.mentions, key=lambda m: m.start)
        entities.append(
            DocumentEntity(name=name, kind=group.kind, kind_certain=group.certain_kind is not None,
                           aliases=aliases, acronyms=sorted(group.extra_aliases), mentions=mentions)
        )
        spans.extend((m.start, m.end, index) for m in mentions)
    if first_person:
        index = len(entities)
        entities.append(
            DocumentEntity(
                name=YOU_NAME,
                kind=PageKind.YOU,
                kind_certain=True,
                mentions=[EntityMention(start=s, end=e, surface=text[s:e]) for s, e in first_person],
            )
        )
        spans.extend((s, e, index) for s, e in first_person)

    spans.sort()
    sentences = split_into_units(text, sentences, unit_breaks(text))
    facts: list[CandidateFact] = []
    max_chars = get_settings().max_fact_chars
    position = 0
    for sent_start, sent_end in sentences:
        while position < len(spans) and spans[position][0] < sent_start:
            position += 1
        inside = []
        cursor = position
        while cursor < len(spans) and spans[cursor][0] < sent_end:
            inside.append(spans[cursor][2])
            cursor += 1
        if inside or (parsed.kind is SourceKind.SUBMISSION and text[sent_start:sent_end].strip()):
            facts.append(
                CandidateFact(
                    text=_one_line(text[sent_start:sent_end], max_chars),
                    start=sent_start,
                    end=sent_end,
                    entities=sorted(set(inside)),
                )
            )

    facts = type_facts(facts, text, entities, sentences, max_chars)  # decision, action, question or statement
    for index, entity in enumerate(entities):
        about = [f.text for f in facts if index in f.entities][:2]
        entity.context = _one_line(f"{entity.name}. " + " ".join(about), get_settings().entity_context_chars)
    return ExtractedDocument(parsed=parsed, entities=entities, facts=facts)


class _ContextEmbedder:
    """Embeds entity contexts on a second thread while spaCy keeps the first core busy.

    spaCy runs on one core; the embedder would otherwise wait for it and then run alone. Run
    side by side on two cores, extraction costs about as much as spaCy alone. Of several
    entities in the batch with the same name and kind only the first is embedded: resolution
    lands the rest on the page that one creates (and embeds any exception itself).
    """

    def __init__(self, embed: Callable[[list[str]], list[list[float]]], batch_size: int) -> None:
        self.embed = embed
        self.batch_size = batch_size
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="subtext-embed")
        self.pending: list[DocumentEntity] = []
        self.futures: list[tuple[list[DocumentEntity], Future]] = []
        self.seen: set[tuple[str, PageKind]] = set()

    def add(self, extracted: ExtractedDocument) -> None:
        for entity in extracted.entities:
            key = (normalise_name(entity.name), entity.kind)
            if entity.kind is PageKind.YOU or key in self.seen:
                continue
            self.seen.add(key)
            self.pending.append(entity)
        if len(self.pending) >= self.batch_size:
            self._submit()

    def _submit(self) -> None:
        if self.pending:
            batch, self.pending = self.pending, []
            self.futures.append((batch, self.pool.submit(self.embed, [e.context for e in batch])))

    def finish(self) -> None:
        self._submit()
        try:
            for batch, future in self.futures:
                for entity, vector in zip(batch, future.result(), strict=True):
                    entity.embedding = vector
        finally:
            self.pool.shutdown(wait=True)


def extract_documents(
    documents: list[ParsedDocument],
    nlp=None,
    embed: Callable[[list[str]], list[list[float]]] | None = None,
) -> list[ExtractedDocument]:
    """Run spaCy over every chunk of every readable document in one batched `nlp.pipe`.

    With `embed`, each entity's context is embedded as soon as its document is done, beside spaCy.
    """
    settings = get_settings()
    nlp = nlp or load_nlp()
    todo = [i for i, d in enumerate(documents) if d.failure is None and not d.unchanged and not d.deleted]
    work = [
        (documents[i].text[c.start : c.end], (i, c.start)) for i in todo for c in documents[i].chunks
    ]
    raw: dict[int, list[tuple[int, int, PageKind]]] = defaultdict(list)
    sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
    first_person: dict[int, list[tuple[int, int]]] = defaultdict(list)
    built: dict[int, ExtractedDocument] = {}
    embedder = _ContextEmbedder(embed, settings.embed_batch_size) if embed else None

    def complete(i: int) -> None:
        built[i] = build_extracted(documents[i], raw.pop(i, []), sentences.pop(i, []), first_person.pop(i, []))
        if embedder:
            embedder.add(built[i])

    current = None
    try:
        for doc, (i, offset) in nlp.pipe(work, as_tuples=True, batch_size=settings.spacy_batch_size):
            if current is not None and i != current:
                complete(current)  # chunks come in order: the previous document is whole
            current = i
            sentences[i].extend((offset + s.start_char, offset + s.end_char) for s in doc.sents)
            for ent in doc.ents:
                kind = LABEL_KINDS.get(ent.label_)
                if kind is not None:
                    raw[i].append((offset + ent.start_char, offset + ent.end_char, kind))
            if documents[i].kind is SourceKind.SUBMISSION:
                first_person[i].extend(
                    (offset + t.idx, offset + t.idx + len(t.text)) for t in doc if _is_first_person(t)
                )
        for i in todo:
            if i not in built:
                complete(i)
    finally:
        if embedder:
            embedder.finish()
    return [built[i] if i in built else ExtractedDocument(parsed=parsed) for i, parsed in enumerate(documents)]

"""Stage 2: find what each document talks about (spaCy, no LLM) and the sentences that say it.

Entity labels map to page kinds as follows (a design decision, documented in the README):
PERSON -> person; ORG -> organisation; PRODUCT -> tool; WORK_OF_ART -> project;
EVENT and LAW -> topic. Places (GPE, LOC, FAC), nationalities and groups (NORP), dates and
numbers are not pages: they stay in the fact text, where they still count for search.

In-document coreference: the mentions of one name (case, accents, "the" and "'s" ignored) are one
entity; a lone first or last name ("Guido", "Rossum") joins the only full name in the document
it fits; an acronym defined in parentheses ("Python Software Foundation (PSF)") is an alias of its
organisation, and later bare uses of it are mentions too. In an assistant's submission,
first-person words ("I", "we") are the person themself: the `you` page.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache

from graph_schema.kinds import PageKind, SourceKind
from graph_schema.models import CandidateFact, DocumentEntity, EntityMention, ExtractedDocument, ParsedDocument
from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name

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


@lru_cache(maxsize=1)
def load_nlp():
    """The spaCy pipeline, loaded once per process (the lemmatizer is not needed)."""
    import spacy

    return spacy.load(get_settings().spacy_model, exclude=["lemmatizer"])


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

    def add(self, surface: str, start: int, end: int, kind: PageKind) -> None:
        self.mentions.append(EntityMention(start=start, end=end, surface=surface))
        self.kinds[kind] += 1

    def absorb(self, other: _Group) -> None:
        self.mentions.extend(other.mentions)
        self.kinds.update(other.kinds)
        self.extra_aliases |= other.extra_aliases

    @property
    def kind(self) -> PageKind:
        return self.kinds.most_common(1)[0][0]

    @property
    def name(self) -> str:
        counts = Counter(m.surface for m in self.mentions)
        return max(counts, key=lambda s: (len(s.split()), counts[s], len(s)))


def _group_mentions(text: str, raw: list[tuple[int, int, PageKind]]) -> dict[str, _Group]:
    groups: dict[str, _Group] = defaultdict(_Group)
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
    """'Guido' or 'van Rossum' joins the one full person name in the document it is part of."""
    full = {k: g for k, g in groups.items() if g.kind is PageKind.PERSON and len(k.split()) >= 2}
    for key in [k for k, g in groups.items() if g.kind is PageKind.PERSON and k not in full]:
        words = key.split()
        fits = [
            fk
            for fk in full
            if len(words) < len(fk.split()) and (fk.split()[: len(words)] == words or fk.split()[-len(words) :] == words)
        ]
        if len(fits) == 1:
            groups[fits[0]].absorb(groups.pop(key))


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
    groups = _group_mentions(text, raw_entities)
    _merge_short_person_names(groups)
    defined = _merge_acronyms(text, groups)
    _acronym_mentions(text, defined, groups)

    entities: list[DocumentEntity] = []
    spans: list[tuple[int, int, int]] = []  # (start, end, entity index)
    for group in sorted(groups.values(), key=lambda g: min(m.start for m in g.mentions)):
        name = group.name
        aliases = sorted({m.surface for m in group.mentions if m.surface != name} | group.extra_aliases)
        index = len(entities)
        mentions = sorted(group.mentions, key=lambda m: m.start)
        entities.append(DocumentEntity(name=name, kind=group.kind, aliases=aliases, mentions=mentions))
        spans.extend((m.start, m.end, index) for m in mentions)
    if first_person:
        index = len(entities)
        entities.append(
            DocumentEntity(
                name=YOU_NAME,
                kind=PageKind.YOU,
                mentions=[EntityMention(start=s, end=e, surface=text[s:e]) for s, e in first_person],
            )
        )
        spans.extend((s, e, index) for s, e in first_person)

    spans.sort()
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

    for index, entity in enumerate(entities):
        about = [f.text for f in facts if index in f.entities][:2]
        entity.context = _one_line(f"{entity.name}. " + " ".join(about), 500)
    return ExtractedDocument(parsed=parsed, entities=entities, facts=facts)


def extract_documents(documents: list[ParsedDocument], nlp=None) -> list[ExtractedDocument]:
    """Run spaCy over every chunk of every readable document in one batched `nlp.pipe`."""
    nlp = nlp or load_nlp()
    todo = [i for i, d in enumerate(documents) if d.failure is None and not d.unchanged and not d.deleted]
    work = [
        (documents[i].text[c.start : c.end], (i, c.start)) for i in todo for c in documents[i].chunks
    ]
    raw: dict[int, list[tuple[int, int, PageKind]]] = defaultdict(list)
    sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
    first_person: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for doc, (i, offset) in nlp.pipe(work, as_tuples=True, batch_size=get_settings().spacy_batch_size):
        sentences[i].extend((offset + s.start_char, offset + s.end_char) for s in doc.sents)
        for ent in doc.ents:
            kind = LABEL_KINDS.get(ent.label_)
            if kind is not None:
                raw[i].append((offset + ent.start_char, offset + ent.end_char, kind))
        if documents[i].kind is SourceKind.SUBMISSION:
            first_person[i].extend(
                (offset + t.idx, offset + t.idx + len(t.text))
                for t in doc
                if t.lower_ in FIRST_PERSON and t.pos_ == "PRON"
            )

    results = []
    for i, parsed in enumerate(documents):
        if i in todo:
            results.append(build_extracted(parsed, raw[i], sentences[i], first_person[i]))
        else:
            results.append(ExtractedDocument(parsed=parsed))
    return results

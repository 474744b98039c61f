"""Stage 2: find what each document talks about (spaCy, no LLM) and the sentences that say it.

Entity labels map to page kinds as follows (a design decision, documented in the README):
PERSON -> person; ORG -> organisation; PRODUCT -> tool; WORK_OF_ART -> project;
EVENT and LAW -> topic. Places (GPE, LOC, FAC), nationalities and groups (NORP), dates and
numbers are not pages: they stay in the fact text, where they still count for search.
These labels are a first guess: news-trained, they miss or mislabel software. Names spaCy leaves
untagged are added as shape candidates (tool_candidates.py), and once the contexts are embedded the
kind classifier (kind_model.py) types every entity whose kind no rule fixed, dropping candidates
that are not pages.

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
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from functools import lru_cache

from graph_schema.kinds import PageKind, SourceKind
from graph_schema.models import (
    CandidateFact,
    DocumentEntity,
    EntityMention,
    EntityRelation,
    ExtractedDocument,
    ParsedDocument,
)
from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name
from knowledge.types import Embed
from pipeline import names
from pipeline.also_known_as import alias_pairs
from pipeline.fact_kinds import type_facts
from pipeline.header_facts import dated_facts, non_name_spans
from pipeline.header_people import read_header
from pipeline.coreference import (
    join_office_to_holder,
    join_organisation_names,
    join_person_names,
    join_second_names,
    join_tool_editions,
    second_names_defined,
    title_words,
)
from pipeline.kind_model import _drop_entities, type_entities
from pipeline.not_names import names_nothing
from pipeline.note_sections import section_breaks
from pipeline.speakers import attach_labels, read_meeting_notes, resolved_label_spans, works_at_pairs
from pipeline.tool_candidates import is_currency_amount, shape_candidates
from pipeline.units import is_salutation, split_into_units, starts_a_sentence, unit_breaks

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
_WORD_BEFORE = re.compile(r"(\w+)\W*$")


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


_NAME_PARTICLES = frozenset({"of", "the", "and", "de", "da", "di", "del", "van", "von", "der", "la", "le", "du", "bin", "al"})


def _lone_word_after_a_break(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The one capitalised word a span that runs over a line break ends with, as (start, end).

    spaCy reads a title and the body's first word as one person's span ('Antonín Dvořák', blank
    line, 'Antonín') and the rest of the body's name as the next ('Leopold Dvořák'): that word is
    the first word of the next name, not a name of its own. An everyday word is no such first word."""
    newline = text.rfind("\n", start, end)
    if newline < 0:
        return None
    word = text[newline + 1:end]
    if not (word[:1].isupper() and word.isalpha()) or (names.is_common_word(word.lower()) and not names.is_given_name(word.lower())):
        return None  # 'Omar' + newline + 'Attendees' runs a heading into a list's label, no first name
    return newline + 1, end


def _line_parts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A span cut at its line breaks: no name runs from a heading into the next line ('# Debrief:
    Aarav Kulkarni' then 'Aarav Kulkarni did well' came back from spaCy as one span). Of a span
    that ran over lines only parts of two words or more stay: a heading's one word ('Enjambment')
    is a topic more often than a name."""
    lines = text[start:end].split("\n")
    if len(lines) == 1:
        return [(start, end)]
    parts, position = [], start
    for line in lines:
        words = line.split()
        # written like a name: 'Sat 12 Sep' (a heading's date) is none
        if len(words) >= 2 and not any(ch.isdigit() for ch in line) and all(w[:1].isupper() or w in _NAME_PARTICLES for w in words):
            parts.append((position, position + len(line)))
        position += len(line) + 1
    return parts


# A stance adjective before a name or alone: 'pro-Beijing', 'anti-Trump', 'non-NATO'. Written with a
# capital ('Pro-Beijing camp' opening a sentence, 'Anti-Defamation League') it is one only where the
# document also writes it in lower case: otherwise it is the first word of a name.
_STANCE = re.compile(r"(?P<prefix>pro|anti|non)-(?P<rest>\S+)(?:\s+|$)", re.IGNORECASE)


def _is_stance(text: str, match: re.Match) -> bool:
    prefix = match.group("prefix")
    if prefix.islower():
        return True
    return re.search(rf"(?<![\w-]){prefix.lower()}-{re.escape(match.group('rest'))}", text) is not None


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
    stance = _STANCE.match(surface)
    if stance and _is_stance(text, stance):  # 'pro-Beijing DAB' names the DAB; 'pro-Beijing' alone names nothing
        start += stance.end()
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
        self.candidate = False  # every mention found by shape (tool_candidates.py), none by spaCy

    def add(self, surface: str, start: int, end: int, kind: PageKind) -> None:
        self.mentions.append(EntityMention(start=start, end=end, surface=surface))
        self.kinds[kind] += 1

    def absorb(self, other: _Group) -> None:
        self.mentions.extend(other.mentions)
        self.kinds.update(other.kinds)
        self.extra_aliases |= other.extra_aliases
        self.certain_kind = self.certain_kind or other.certain_kind
        self.candidate = self.candidate and other.candidate

    @property
    def kind(self) -> PageKind:
        return self.certain_kind or self.kinds.most_common(1)[0][0]

    @property
    def name(self) -> str:
        counts = Counter(m.surface for m in self.mentions)
        if self.kind is PageKind.PERSON:  # 'Dana Ruiz' names the page, not 'Sheriff Dana Ruiz'
            plain = {s: n for s, n in counts.items() if names.strip_honorifics(s) == s}
            counts = Counter(plain) or counts
        return max(counts, key=lambda s: (len(s.split()), counts[s], len(s)))


def _mention_key(surface: str, kind: PageKind) -> str:
    """The key mentions are grouped by: honorifics off a person's name, legal forms off an organisation's."""
    if kind in (PageKind.PERSON, PageKind.ORGANISATION):
        return names.name_key(surface, kind is PageKind.PERSON) or normalise_name(surface)
    return normalise_name(surface)


def _group_mentions(
    text: str, raw: list[tuple[int, int, PageKind]], header_people: list[tuple[int, int]]
) -> dict[str, _Group]:
    groups: dict[str, _Group] = defaultdict(_Group)
    for start, end in header_people:
        key = names.name_key(names.uninverted(text[start:end]), True) or normalise_name(text[start:end])  # 'Sethi, Priyanka' too
        if key:
            groups[key].add(text[start:end], start, end, PageKind.PERSON)
            groups[key].certain_kind = PageKind.PERSON
    for start, end, kind in raw:
        cleaned = clean_mention(text, start, end)
        if cleaned is None:
            continue
        surface, s, e = cleaned
        key = _mention_key(surface, kind)
        if key:
            groups[key].add(surface, s, e, kind)
    return dict(groups)


def _add_candidates(text: str, groups: dict[str, _Group], candidates: list[tuple[int, int]]) -> None:
    """Names spaCy left untagged join the document's groups; a new name is a candidate (typed later)."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(candidates):  # '[Johann] [II]' is Johann II: the number joins, and is no name itself
        if not kept or start >= kept[-1][1]:
            kept.append((start, names.end_with_number(text, end)))
    for start, end in kept:
        start += names.sentence_opener(text[start:end], starts_a_sentence(text, start))  # 'With Wikinews'
        if text[start:end].lower().startswith("the project "):
            start += 4  # 'The Project Harbour budget …': the article opens the sentence, 'Project Harbour' is the name
            # ('The Onion', 'The Independent' keep theirs: a title's article is part of it)
        key = normalise_name(text[start:end])
        if not key:
            continue
        if key not in groups:
            groups[key] = _Group()
            groups[key].candidate = True
        group = groups[key]
        group.add(text[start:end], start, end, group.kinds.most_common(1)[0][0] if group.kinds else PageKind.TOOL)


def _firms_by_legal_form(text: str, groups: dict[str, _Group]) -> None:
    """'Brisk Metrics Inc.', 'Quarry Lane Software Ltd': a name written with a legal form is a
    company by rule, whether spaCy read it as a person or the shape rules found it. An abbreviated
    form keeps its full stop ('Inc.'), which the spans leave out where it also ends a sentence."""
    for key, group in list(groups.items()):
        if key not in groups:
            continue
        if group.certain_kind is None and any(
                names.has_legal_form(m.surface) or (text[m.end:m.end + 1] == "." and names.takes_a_full_stop(m.surface))
                for m in group.mentions):
            group.certain_kind, group.candidate = PageKind.ORGANISATION, False
            base = names.name_key(group.name, False)  # 'Brisk Metrics' in a table, found apart
            if base != key and base in groups and groups[base].certain_kind in (None, PageKind.ORGANISATION):
                group.absorb(groups.pop(base))
            own = names.firms_own_word(group.name)  # a lone 'Corvid' the model read as a person
            own_key = normalise_name(own) if own else ""
            # the model's reading of it (a place or a surname the shape rules found stays apart), never
            # the surname of a person the document names in full ('Whitfield' of 'Tom Whitfield')
            if (own_key in groups and own_key != key and groups[own_key].certain_kind is None
                    and not groups[own_key].candidate
                    and all(_POSSESSIVE.sub("", m.surface) == own for m in groups[own_key].mentions)
                    and sum(k.split()[0] == own_key for k in groups) == 2
                    and not any(len(k.split()) > 1 and k.split()[-1] == own_key for k in groups)):
                group.absorb(groups.pop(own_key))
        if group.certain_kind is PageKind.ORGANISATION:
            group.mentions = [
                EntityMention(start=m.start, end=m.end + 1, surface=text[m.start:m.end + 1])
                if text[m.end:m.end + 1] == "." and names.takes_a_full_stop(m.surface) else m
                for m in group.mentions
            ]


_POSSESSIVE = re.compile(r"['’]s?$")


def _merge_short_person_names(groups: dict[str, _Group], text: str = "") -> None:
    """'Guido' or 'van Rossum' joins the one full person name in the document it is part of.

    A short name the model labelled otherwise ('Guido' as an organisation happens) joins too,
    when it is a single word: the full name in the same document is the better evidence.
    A full name only the shape rules found (a candidate, typed later) counts as a full name the
    short one may mean: 'Hadid' beside 'Mohammed Hadid' and an untagged 'Zaha Mohammad Hadid' is
    not bound to the father for want of a rival.
    """
    title = (_title_end(text), title_words(text))
    short = sorted(
        # one written word: a hyphenated given name ('Sun-hee', keyed 'sun hee') is one word too
        (k for k, g in groups.items() if g.kind is PageKind.PERSON or (len(g.name.split()) == 1 and g.certain_kind is None)),
        key=lambda k: -len(k.split()),  # 'van Rossum' joins 'Guido van Rossum' before 'Rossum' looks for a home
    )
    # keys by their first and by their last word, in the document's order: a long document has
    # thousands of keys, and keys only leave `groups` below
    by_first: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    by_last: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    for k in groups:
        words = k.split()
        by_first[words[0]].append((k, words))
        by_last[words[-1]].append((k, words))
    ambiguous: list[tuple[str, list[str]]] = []
    for key in short:
        if key not in groups:
            continue
        words = key.split()
        opened_by = [fk for fk, full in by_first[words[0]]
                     if len(full) > len(words) and full[: len(words)] == words and fk in groups and _may_be_person(groups[fk])]
        fits = (_with_a_person(groups, _full_names_ending_with(groups, words, by_last[words[-1]]))
                or _with_a_person(groups, opened_by))
        if not fits and len(words) == 1 and _read_by_the_model_not_as_software(groups[key], text):
            fits = [fk for fk in opened_by if _shaped_like_a_person(groups[fk])]  # 'Sofía' of 'Sofía Mendoza'
            for fk in fits:
                groups[fk].kinds = Counter({PageKind.PERSON: sum(groups[fk].kinds.values())})

        if len(fits) > 1:
            ambiguous.append((key, fits))
        elif len(fits) == 1 and key in groups:
            part = groups.pop(key)
            part.kinds = Counter({PageKind.PERSON: sum(part.kinds.values())})  # it is a part of a person's name
            groups[fits[0]].absorb(part)
    # Then a lone name several full names fit, once the unambiguous ones have joined and counted.
    for key, fits in ambiguous:
        fits = _dominant(groups, [fk for fk in fits if fk in groups], title)
        if len(fits) == 1 and key in groups:
            part = groups.pop(key)
            part.kinds = Counter({PageKind.PERSON: sum(part.kinds.values())})  # it is a part of a person's name
            groups[fits[0]].absorb(part)
    _merge_clipped_given_names(groups, text)


def _merge_clipped_given_names(groups: dict[str, _Group], text: str) -> None:
    """'Seun' joins 'Oluwaseun Adeyemi': a lone name the model read as a person that is the end of
    the given name of exactly one person named in full here (or a nickname of it), begins no other
    name of the document, and is no software or brand Simple Icons knows or the text uses as software
    ('built the pipeline in Luigi' beside 'Pierluigi Bianchi'). A name's start is no such clipping:
    'Yuki' beside 'Yukiko Tanaka' or 'Jiří' beside 'Jiřina' are as often another person."""
    from pipeline.known_names import is_known_name
    from pipeline.tool_candidates import in_strong_tool_cue

    people = [k for k, g in groups.items() if len(k.split()) >= 2 and g.kind is PageKind.PERSON and not g.candidate]
    # the model's person, or a name it left untyped or read as a place ('Seun builds …' came back a place)
    lone = [k for k, g in groups.items() if " " not in k and g.certain_kind is None
            and (g.kind is PageKind.PERSON or g.candidate or g.kind not in (PageKind.ORGANISATION, PageKind.TOOL, PageKind.PROJECT))
            and k.isalpha() and not names.is_common_word(k) and not is_known_name(g.name)
            and not any(in_strong_tool_cue(text, m.start, m.end) for m in g.mentions)]
    # 'Miro' beside 'Miro Summit': a word another name begins with (counted once, before any join)
    begins_another = {k.split()[0] for k in groups if " " in k}
    for key in lone:
        if key not in groups or key in begins_another:
            continue
        fits = [k for k in people if k in groups and names.clipped_given_name(key, k.split()[0])]
        if len(fits) == 1:
            part = groups.pop(key)
            groups[fits[0]].absorb(part)


def _title_end(text: str) -> int:
    """Where the document's first line ends: a title or heading, when the document has one."""
    end = text.find("\n")
    return end if end >= 0 else 0


def _full_names_ending_with(groups: dict[str, _Group], words: list[str], keys: list[tuple[str, list[str]]]) -> list[str]:
    """Person names in the document that end with these words: 'Warhol' is Andy Warhol's surname
    before it is the first word of a span such as 'Warhol Polaroid'. `keys`: the split keys to try."""
    return [
        fk for fk, full in keys
        if len(full) > len(words) and full[-len(words):] == words and fk in groups and _may_be_person(groups[fk])
    ]


def _with_a_person(groups: dict[str, _Group], fits: list[str]) -> list[str]:
    """The fits, when one of them is a person by the model's label: untyped names alone are only
    rivals ('Daniel' is not bound to a shape-found 'Despite Daniel', nor 'Google' to 'Google Science Fair')."""
    return fits if any(groups[fk].kind is PageKind.PERSON and not groups[fk].candidate for fk in fits) else []


def _read_by_the_model_not_as_software(group: _Group, text: str) -> bool:
    """A name the model found (not only the shape rules) that no mention uses as software ('Hapi Joi validates')."""
    from pipeline.tool_candidates import in_strong_tool_cue

    return not group.candidate and not any(in_strong_tool_cue(text, m.start, m.end) for m in group.mentions)


def _shaped_like_a_person(group: _Group) -> bool:
    """A name only the shape rules found, of two or three rare capitalised words ('Sofía Mendoza',
    which a news model trained on English names misses): the lone 'Sofía' of the document is hers.
    Not 'Google Science Fair' nor 'Despite Daniel' (everyday words), nor a product's name."""
    from pipeline.known_names import is_known_name

    words = group.name.split()
    return (group.candidate and group.certain_kind is None and 2 <= len(words) <= 3
            and all(_TITLE_CASE_WORD.fullmatch(w) and not names.is_common_word(w) and not is_known_name(w) for w in words))


_TITLE_CASE_WORD = re.compile(r"[^\W\d_][^\W\d_A-Z]*(?:[-'’][^\W\d_][^\W\d_A-Z]*)*")  # 'Ilić', 'Ji-woo', not 'NodeJS'


def _may_be_person(group: _Group) -> bool:
    """A person by the model's label, or a name only the shape rules found (typed later); never a
    name made only of known products and acronyms ('PyPI JSON API' of a link target 'PyPI JSON API
    responses', which the model read as a person: 'PyPI' and 'JSON' are no given name and surname)."""
    if _only_known_names(group.name):
        return False
    return group.kind is PageKind.PERSON or (group.candidate and group.certain_kind is None)


def _only_known_names(name: str) -> bool:
    from pipeline.known_names import is_known_name

    words = name.split()
    if len(words) < 2 or all(w.isupper() for w in words):  # 'JOHN SMITH' in a signature block is a person
        return False
    # written unlike a name somewhere ('PyPI', 'JSON'): 'Jordan Castro' and 'Ruby Dell' are people
    unlike_a_name = any(any(c.isupper() for c in w[1:]) for w in words)
    return unlike_a_name and all(is_known_name(w) or (len(w) > 1 and w.isupper()) for w in words)


def _dominant(groups: dict[str, _Group], fits: list[str], title: tuple[int, set[str]] = (0, set())) -> list[str]:
    """Of several full names a lone name fits, the one the document is about, if one stands out.

    A biography names the subject's parents once and the subject throughout: 'Moreau' is Jeanne
    Moreau. The one full name its title (first line) names is the subject too, however often
    the family is named ('Padalecki' after the title 'Jared Padalecki'). 'Mark Chen' and 'Lily
    Chen' named about as often, neither in the title, leave a lone 'Chen' unbound.
    """
    if len(fits) < 2:
        return fits
    title_end, words = title
    titled = [k for k in fits if any(m.start < title_end for m in groups[k].mentions)
              or (k.split()[0] in words and k.split()[-1] in words)]
    if len(titled) == 1:
        return titled
    ratio = get_settings().surname_dominance_ratio
    counted = sorted(fits, key=lambda k: -len(groups[k].mentions))
    top, second = len(groups[counted[0]].mentions), len(groups[counted[1]].mentions)
    return [counted[0]] if top >= 2 and top >= ratio * second else fits


def _merge_person_variants(groups: dict[str, _Group]) -> None:
    """'Matthew Goode' and 'Matthew William Goode', 'Larry Lessig' and 'Lawrence Lessig' are one person.

    Forms of one full name join the one mentioned most, so that a lone surname then has one full
    name to join.
    """
    people = sorted(
        (k for k, g in groups.items() if g.kind is PageKind.PERSON and len(k.split()) >= 2),
        key=lambda k: (-len(groups[k].mentions), -len(k.split()), k),
    )
    for i, key in enumerate(people):
        if key not in groups:
            continue
        for other in people[i + 1:]:
            short, full = sorted((key.split(), other.split()), key=len)
            # in one document 'Javier Ortega' is 'Javier Ortega Ruiz' (across documents only with shared context)
            if other in groups and (names.same_person_name(short, full) or names.with_second_surname(short, full)):
                groups[key].absorb(groups.pop(other))
    # 'Daniel F.' is the one Daniel F-something of the document ('Daniel Fischer', not 'Daniel Reyes')
    for key in [k for k in people if k in groups]:
        fits = [k for k in people if k in groups and k != key and names.initial_for_surname(key.split(), k.split())]
        if len(fits) == 1:
            groups[fits[0]].absorb(groups.pop(key))


# 'CPython' and 'Cython', 'PyObject' and 'PyGObject', 'MSVCRT': identifiers and acronyms one letter
# apart are different things, not a slip of the pen
_CODE_CASE = re.compile(r"[a-z][A-Z]|[A-Z]{2}")


def _merge_misspelt_names(groups: dict[str, _Group]) -> None:
    """'Kristin Wilkins' and 'Kristen Wilkins' in one text: one person's name whose given name the
    writer slipped on (names.same_name_misspelt) joins the form written most. The model's label
    for a rare name wavers, so a person's name joins one read as an organisation (or takes it in).
    Two names a rule listed each on its own ('Attendees: Li Xiang, Li Xiong') stay two."""
    # a slip keeps the surname and every other word's first and last letters: only names alike in
    # those are compared (a long document has thousands of names)
    alike: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for key in sorted(groups, key=lambda k: (-len(groups[k].mentions), k)):
        words = key.split()
        group = groups[key]
        if (len(words) >= 2 and group.kind in (PageKind.PERSON, PageKind.ORGANISATION) and not group.candidate
                and group.name[:1].isupper() and not _CODE_CASE.search(group.name)):
            alike[(*(w[0] + w[-1] for w in words[:-1]), words[-1])].append(key)
    for named in alike.values():
        for i, key in enumerate(named):
            if key not in groups:
                continue
            for other in named[i + 1:]:
                if (other in groups and names.same_name_misspelt(key.split(), other.split())
                        and PageKind.PERSON in (groups[key].kind, groups[other].kind)
                        and not (groups[key].certain_kind and groups[other].certain_kind)):
                    groups[key].absorb(groups.pop(other))


def _merge_bare_acronyms(groups: dict[str, _Group]) -> list[tuple[str, str]]:
    """'KPA' and 'Korean People's Army' in one document, no parentheses needed: one organisation.
    'HFL' beside 'Halden Freight Logistics Inc.' too (a legal form has no initial), also where only
    the shape rules found the capitals.

    Only when exactly one organisation of the document has those initials.
    """
    settings = get_settings()
    merged: list[tuple[str, str]] = []
    for key, group in list(groups.items()):
        surface = group.name
        if key not in groups or (group.kind is not PageKind.ORGANISATION and not group.candidate) or not names.is_acronym(
            surface, settings.acronym_min_letters, settings.acronym_max_letters
        ):
            continue
        if group.candidate and (len(surface.replace(".", "")) < 3 or names.is_common_word(surface.lower())):
            continue  # only spaCy's firm may be 'US' or 'PR': capitals the shape rules found must be rarer ('HFL')
        letters = surface.replace(".", "").replace("&", "").upper()
        owners = [
            k for k, g in groups.items()
            if k != key and g.kind is PageKind.ORGANISATION and len(words := names.name_key(g.name, False).split()) >= 2
            and names.initials_of(words) == letters
        ]
        if len(owners) == 1:
            owner = groups[owners[0]]
            owner.absorb(groups.pop(key))
            owner.extra_aliases.add(surface)
            merged.append((surface, owners[0]))
    return merged


def _merge_short_org_names(groups: dict[str, _Group], text: str) -> None:
    """'Celtics' after 'Boston Celtics', 'the Bureau' after 'Federal Bureau of Investigation':
    a short form joins the one organisation of the document it is a short form of."""
    orgs = sorted((k for k, g in groups.items() if g.kind is PageKind.ORGANISATION), key=lambda k: len(k.split()))
    body_start = _headline_end(text)
    joined = True
    while joined:  # again once a join leaves one fit: 'Court' after 'Supreme Court' joined its court of cassation
        joined = False
        for key in orgs:
            if key not in groups or groups[key].certain_kind not in (None, PageKind.ORGANISATION):
                continue  # an attendee's employer ('…, Tidewell') is an organisation by rule, and may be a short form
            fits = [
                fk for fk in orgs
                if fk != key and fk in groups and names.short_org_form(key.split(), fk.split())
                and not _common_words_used_first(key.split(), groups[key], groups[fk], body_start)
            ]
            if len(fits) == 1:
                groups[fits[0]].absorb(groups.pop(key))
                joined = True
    _merge_trade_short_forms(groups, orgs)


_CLOSERS = "\"'”’)]»*_"


def _headline_end(text: str) -> int:
    """Where the body starts: after the first line when that line is a headline, else at the start.
    A headline is a few words without sentence punctuation at the end (quotes and brackets aside)
    that stands apart: a Markdown heading, a line in Title Case, or one a blank line follows (a
    first line wrapped in the middle of a sentence is none)."""
    end = _title_end(text)
    line = text[:end].rstrip().rstrip(_CLOSERS)
    words = line.lstrip("#").split()
    if not 0 < len(words) <= get_settings().headline_max_words or line.endswith((".", "!", "?", ":", ";", ",")):
        return 0
    capitalised = sum(word[:1].isupper() for word in words)
    stands_apart = line.startswith("#") or 2 * capitalised > len(words) or not text[end + 1:].split("\n", 1)[0].strip()
    return end if stands_apart else 0


def _common_words_used_first(words: list[str], short: _Group, full: _Group, body_start: int) -> bool:
    """An everyday-word short form ('the Court', 'the Bureau') points back to a body the text has
    already named. Used in the body before the full name ('may it please the Court' in a hearing
    that later cites 'the United States Court of Appeals'), it names another body."""
    if not all(names.is_common_word(w) for w in words):
        return False
    first_full = min(m.start for m in full.mentions)
    return any(body_start <= m.start < first_full for m in short.mentions)


def _merge_other_names(text: str, groups: dict[str, _Group]) -> None:
    """'Jenna Nicole Mourey, better known as Jenna Marbles': a name the text calls another name of
    the one before it joins that one's group (after the short forms joined their full names, so
    that a lone 'Marbles' has come along)."""
    owner = sorted(((m.start, m.end), key) for key, g in groups.items() for m in g.mentions)
    moved: dict[str, str] = {}

    def now(key: str) -> str:
        while key in moved:
            key = moved[key]
        return key

    for i, j in alias_pairs(text, [span for span, _ in owner]):
        first, other = now(owner[i][1]), now(owner[j][1])
        if first == other:
            continue
        if {groups[first].certain_kind, groups[other].certain_kind} - {None} and groups[first].certain_kind != groups[other].certain_kind:
            continue  # a rule typed them apart
        groups[first].absorb(groups.pop(other))
        moved[other] = first


def _merge_trade_short_forms(groups: dict[str, _Group], orgs: list[str]) -> None:
    """'Cobalt Ridge' beside 'Cobalt Ridge Analytics': a firm's name without its trade words, read
    as anything but a person's name ('the Cobalt Ridge connector' came out a place, 'we keep
    Cobalt Ridge' a person), joins the one organisation of the document it is that short form of.
    A name that starts with a given name stays apart ('Ada Park' beside 'Ada Park Consulting'), and
    so does one everyday word ('Boston' beside 'Boston University')."""
    for key in [k for k, g in groups.items() if g.kind is not PageKind.ORGANISATION and g.certain_kind is None]:
        words = key.split()
        if not words or names.is_given_name(words[0]) or (len(words) == 1 and names.is_common_word(words[0])):
            continue  # one everyday word ('Boston' beside 'Boston University') names more than the firm
        fits = [
            fk for fk in orgs
            if fk in groups and len(base := names.name_key(groups[fk].name, False).split()) > len(words)
            and base[: len(words)] == words and all(w in names.ORGANISATION_HEADS for w in base[len(words):])
        ]
        if len(fits) == 1:
            groups[fits[0]].absorb(groups.pop(key))


def _preceding_word(text: str, start: int) -> str:
    match = _WORD_BEFORE.search(text, max(0, start - 30), start)
    return match.group(1) if match else ""


def _local_names(text: str, group: _Group, name: str) -> list[str]:
    """The names of this entity that only mean it inside this document (see DocumentEntity.local_names)."""
    surfaces = sorted({m.surface for m in group.mentions} | group.extra_aliases)
    local = [s for s in surfaces if names.is_titles_only(s)]  # 'my Lords', 'the Prime Minister', whatever the model said
    if group.kind is PageKind.PERSON:
        full = _mention_key(name, PageKind.PERSON).split()
        for surface in surfaces:
            words = _mention_key(surface, PageKind.PERSON).split()
            if surface not in local and surface != name and len(words) < len(full) and len(full) >= 2:
                local.append(surface)  # 'Guido' alone, 'Mr. Roberts', 'Mr. Chief Justice'
    elif group.kind is PageKind.ORGANISATION:
        by_surface: dict[str, list[str]] = defaultdict(list)
        for m in group.mentions:
            by_surface[m.surface].append(_preceding_word(text, m.start))
        for surface, preceding in by_surface.items():
            if names.is_generic_head(surface, preceding) or names.is_descriptive_short_form(surface, name):
                local.append(surface)  # 'the Court', 'the Church', the Italian court's 'Supreme Court'
    # The same word in lower case ('the high court') is the common noun of a local name, local too.
    local_keys = {normalise_name(s) for s in local}
    local += [s for s in surfaces if s not in local and s.islower() and normalise_name(s) in local_keys]
    return local


def _spans_after_labels(text: str, raw: list[tuple[int, int, PageKind]], labels: list[tuple[int, int]]) -> list[tuple[int, int, PageKind]]:
    """Spans cut at the speaker labels they run over: a chat's '09:05 Tomás' is a time and the label
    'Tomás', '09:42 Lan: Statuspage' a label and the name 'Statuspage'. A span inside a label stays."""
    labels = sorted(labels)
    label_starts = [start for start, _ in labels]
    out = []
    for start, end, kind in raw:
        at = bisect.bisect_right(label_starts, end) - 1  # the last label that opens before the span ends
        if at >= 0 and start < labels[at][1] and (start < labels[at][0] or end > labels[at][1]):
            label_start, label_end = labels[at]
            if end > label_end:  # past the label's colon: the name after it
                after = label_end + 1 + text[label_end:end].find(":")
                start = max(start, after + len(text[after:end]) - len(text[after:end].lstrip()))
            else:
                start = label_start
        if start < end:
            out.append((start, end, kind))
    return out


_JOINED_IN_A_FIRMS_NAME = re.compile(r"[ \t]*(?:&[ \t]*)?")  # 'Harrow' + '&' + 'Vale LLC'; never 'of', 'and'
# a word of a firm's own name: capitalised, not in capitals ('Arkwright', 'Nakamura'; not 'GDPR')
_OWN_WORD = re.compile(r"[A-Z][^\W_A-Z][\w'’-]*")


def _own_words_before(text: str, start: int, position: int, keep: int | None = None) -> int | None:
    """Where a firm's name opens, walking back from `position` to `start` word by word over rare
    capitalised words joined by one space or '&': not over 'Today', 'Thanks', 'Systems', 'GDPR', a
    heading's 'Notes On' or a tab. `keep` when no word before `position` is the firm's."""
    opening = None
    cursor = position
    while cursor > start:
        segment = text[start:cursor]
        stripped = segment.rstrip(" ")
        if len(segment) - len(stripped) > 1:
            break
        word_start = max(stripped.rfind(" "), stripped.rfind("\t"), stripped.rfind("\n")) + 1
        word = stripped[word_start:]
        if word != "&":
            if not _OWN_WORD.fullmatch(word) or names.is_common_word(word):
                break
            opening = start + word_start
        elif text[start + word_start - 1: start + word_start] != " ":
            break
        cursor = start + word_start
    return opening if opening is not None else keep


def _in_a_headline(text: str, position: int) -> bool:
    """Whether the line the position is on is a headline (see names.is_headline)."""
    line_start = text.rfind("\n", 0, position) + 1
    line_end = text.find("\n", position)
    settings = get_settings()
    return names.is_headline(text[line_start: line_end if line_end >= 0 else len(text)],
                             settings.headline_min_words, settings.headline_capital_share)


def _spans_with_legal_forms(text: str, raw: list[tuple[int, int, PageKind]]) -> list[tuple[int, int, PageKind]]:
    """A firm's name and its legal form as one span, which the model splits or cuts short ('Harrow &
    Vale' and 'LLC', 'Dunmore Precision Components' without its 'plc', 'Structures LLP' without its
    'Arkwright', 'the Quillmetric Inc. MSA'). Only the spans right before the form join it, across a
    space or '&': 'Jane Smith of Acme Ltd' and 'Microsoft and Apple Inc.' stay apart, and a person's
    span never joins. One sweep over the sorted spans."""
    spans = sorted(raw)
    out: list[tuple[int, int, PageKind]] = []
    index = 0
    for start, form_start, end in names.firms_with_legal_forms(text):
        while index < len(spans) and spans[index][0] < start:
            out.append(spans[index])
            index += 1
        inside_end = index
        while inside_end < len(spans) and spans[inside_end][0] < end:
            inside_end += 1
        drawn = spans[index:inside_end]  # the model's spans in the name, as it drew them
        index = inside_end
        if out and out[-1][1] > start and out[-1][2] is not PageKind.PERSON:
            drawn.insert(0, out.pop())  # 'the Harrow & Vale': a span that opens before the name
        if out and out[-1][1] > start:
            out.extend(drawn)
            continue
        if not drawn:  # the model missed the name whole ('Nakamura Seiki Co., Ltd.'): its own words before the form
            opening = _own_words_before(text, start, form_start)
            if opening is not None and not _in_a_headline(text, start):
                out.append((opening, end, PageKind.ORGANISATION))
            continue
        # each span from where the name opens to where its form ends, at most (a person's as drawn)
        inside = [r if r[2] is PageKind.PERSON else
                  (max(r[0], start), end if r[1] > end and text[end:end + 1].isspace() else r[1], r[2]) for r in drawn]
        tail = [r for r in inside if r[1] > form_start]
        chain, position = tail[-1:], tail[-1][0] if tail else form_start
        for r in reversed([r for r in inside if r[1] <= form_start]):
            if r[2] is PageKind.PERSON or not _JOINED_IN_A_FIRMS_NAME.fullmatch(text, r[1], position):
                break
            chain.append(r)
            position = r[0]
        if chain and text[position:position + 1].isupper():
            position = _own_words_before(text, start, position, keep=position)  # 'Arkwright' before the model's 'Structures LLP'
        if (not chain or any(r[1] > end for r in inside) or any(r[2] is PageKind.PERSON for r in chain[1:])
                or not names.has_legal_form(text[position:end])):
            out.extend(drawn)  # a span runs past the name, or a person's joins it: the model drew it otherwise
            continue
        out.extend(r for r, kept in zip(drawn, inside, strict=True) if kept not in chain)
        out.append((position, end, PageKind.ORGANISATION))
    out.extend(spans[index:])
    return sorted(out)


_TRAILING_VERSION = re.compile(r"\s+v?\d+(?:\.\d+)+$")


def _refine_spans(text: str, raw: list[tuple[int, int, PageKind]],
                  people: list[tuple[int, int]] = ()) -> list[tuple[int, int, PageKind]]:
    """Spans cut down to the names in them: inside a Title Case or capitals headline only a name
    the prose also uses is kept ('Celtics Sign Star Guard' -> 'Celtics'), and 'Reuters and
    Bloomberg' is two names when the prose names each alone; the authors of a citation
    ('Marsden & Mackey, 2014') are people, one each."""
    headline_of: dict[int, bool] = {}

    def in_headline(start: int) -> bool:
        line_start = text.rfind("\n", 0, start) + 1
        if line_start not in headline_of:
            headline_of[line_start] = _in_a_headline(text, start)
        return headline_of[line_start]

    headline = [in_headline(s) for s, _, _ in raw]
    known = {normalise_name(text[s:e]): k for (s, e, k), h in zip(raw, headline, strict=True) if not h}
    # first names of the people the document names in full ('Kwame' of the panel's 'Kwame Mensah')
    full_names = [normalise_name(text[s:e]).split() for s, e, k in raw if k is PageKind.PERSON]
    full_names += [normalise_name(text[s:e]).split() for s, e in people]
    first_names = frozenset(words[0] for words in full_names if len(words) > 1)
    out: list[tuple[int, int, PageKind]] = []
    for (start, end, kind), in_head in zip(raw, headline, strict=True):
        if kind in (PageKind.PERSON, PageKind.ORGANISATION) and names.in_lower_case_only(text[start:end]):
            continue  # 'the Secretary [deemed essential]': the model's person, but no one's name
        if is_currency_amount(text, start, start + len((text[start:end].split() or [""])[0])):
            continue  # 'USD 1.2' read as a product: an amount of money
        # a firm's registered name keeps its legal form, lower-case ('Dunmore Precision Components plc')
        # or on a signature's Title Case line beside a short name the prose uses ('Fernlight')
        registered = kind is PageKind.ORGANISATION and names.has_legal_form(text[start:end])
        if kind in (PageKind.PERSON, PageKind.ORGANISATION):
            part = names.name_part(text[start:end], kind is PageKind.PERSON)
            if part is not None and registered and not names.has_legal_form(text[start + part[0]:start + part[1]]) \
                    and "(" not in text[start:end]:
                start += part[0]
            elif part is not None:
                start, end = start + part[0], start + part[1]
        if kind in (PageKind.PERSON, PageKind.ORGANISATION):  # 'With Wikinews, Sarvis discusses…'
            start += names.sentence_opener(text[start:end], starts_a_sentence(text, start), kind is PageKind.PERSON)
        if kind is PageKind.ORGANISATION:  # 'Critics of Scientology at the newsgroup …'
            start += names.group_of_a_body(text[start:end], starts_a_sentence(text, start), known)
        if kind is PageKind.PERSON:
            start = names.start_with_titles(text, start)
            end = names.end_with_number(text, end)
        elif (product_end := names.product_before_its_part(text[start:end], known)) is not None:
            end = start + product_end  # 'the Airflow DAG' is Airflow, used
        elif (version := _TRAILING_VERSION.search(text, start, end)) is not None:
            end = version.start()  # 'RouteMax 3.2' is RouteMax, in a release ('Office 365' keeps its number)
        surface = text[start:end]
        authors = names.cited_authors(surface, text[end:end + 80]) if kind in (PageKind.PERSON, PageKind.ORGANISATION) else None
        if authors:  # 'Marsden & Mackey, 2014': the authors of a citation, each a person
            out.extend((start + s, start + e, PageKind.PERSON) for s, e in authors)
            continue
        # first names only where spaCy read a title of a work ('Lars and Ilse'), not a firm ('Simon and Schuster')
        parts = names.conjoined_parts(surface, set(known), kind is PageKind.PERSON,
                                      first_names if kind is PageKind.PROJECT else frozenset())
        if parts:  # 'Niklaus and Johann' [II]: the last part takes the number the model left outside
            people_named = names.are_first_names([surface[s:e] for s, e in parts], first_names)
            out.extend((start + s, names.end_with_number(text, start + e) if kind is PageKind.PERSON else start + e,
                        PageKind.PERSON if people_named else known.get(normalise_name(surface[s:e]), kind))
                       for s, e in parts)
            continue
        if in_head and normalise_name(surface) not in known and not registered:
            part = names.known_part(surface, known)
            if part is None or (kind is PageKind.PERSON and normalise_name(surface[part[0]:part[1]]) not in known
                                and names.given_names_before(surface, part)):
                # nothing better is known, or the span is a relative of a person the prose names in full
                # ('Children Jérôme Richard' beside 'Jean-Louis Richard'): the headline's span stays
                out.append((start, end, kind))
            else:
                if kind is PageKind.PERSON:
                    part = names.with_given_names_before(surface, part)
                out.append((start + part[0], start + part[1], kind))
            continue
        out.append((start, end, kind))
    return out


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
            if len(acronym) < 2 or (acronym.upper() != _initials(mention.surface)
                                    and not names.abbreviates(acronym, mention.surface)):
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
    # a firm's name without its legal form or its trade words ('Brisk Metrics' of 'Brisk Metrics
    # Inc.', 'Tidewater' of 'Tidewater Analytics GmbH'), where no other name of the document has it
    firms_by_short: dict[str, list[_Group]] = defaultdict(list)
    for group in groups.values():
        if group.kind is PageKind.ORGANISATION:
            for short in names.short_names_of_a_firm(group.name):
                firms_by_short[short].append(group)
    group_of.update({short: firms[0] for short, firms in firms_by_short.items() if len(firms) == 1 and short not in group_of})
    alternatives = "|".join(re.escape(s) for s in sorted(group_of, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w@#/.-])(?:{alternatives})(?![\w@/-]|\.\w)")
    taken = _SpanSet((m.start, m.end) for g in groups.values() for m in g.mentions)
    for match in pattern.finditer(text):
        if names.end_with_number(text, match.end()) != match.end():
            continue  # 'Johann II' is another Johann than Johann Bernoulli
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


def _name_start(ent) -> int:
    """Where an organisation's name starts: the model often leaves out a proper noun before the
    head it found ('the 2nd XoveTIC Congress' -> 'Congress'), which then stands for every congress.
    A capitalised word right before the span, in no other entity and not a sentence's
    everyday first word ('Yesterday Congress…'), belongs to the name; a title before one word
    is a person's ('Emperor Norton'), not part of an organisation's name."""
    doc, first = ent.doc, ent.start
    while first > 0:
        token = doc[first - 1]
        if (token.ent_type_ or not token.text[:1].isupper() or not token.is_alpha or token.is_stop
                or (len(ent) == 1 and names.is_title_word(token.text))  # 'Emperor Norton': a person's title
                or token.whitespace_ != " "
                or ((token.is_sent_start or starts_a_sentence(doc.text, token.idx)) and names.is_common_word(token.text))):
            break
        first -= 1
    return doc[first].idx


def _campus_after(ent):
    """The place that ends a university's name, when the model cut it off: 'the University of
    California, Berkeley' and 'the University of North Carolina at Greensboro' are campuses, not
    the university system the first words name (which another document may name alone).
    Only a 'University of …' takes one, and after a comma only a place that ends the clause:
    'the University of Chicago, Boston and Yale' is a list, '…, Paris became her home' a new
    clause, and a country is where the university is ('…, United Kingdom', '…, England')."""
    doc = ent.doc
    name = ent.text.rstrip(", ")
    if "University of" not in name or "," in name or ent.end >= len(doc):
        return None
    following = [e for e in doc.ents if e.start >= ent.end][:1]
    if not following or following[0].label_ not in ("GPE", "LOC") or len(following[0]) > 3:
        return None
    place = following[0]
    if len(name.removeprefix("the ").split()) + len(place) + 1 > _MAX_MENTION_WORDS:
        return None  # longer than any name is kept: the university alone beats no name
    between = ent.text[len(name):] + doc.text[ent.end_char : place.start_char]  # 'California,' + ' '
    if between == " at ":
        return place
    clause_ends = _CLAUSE_END.match(doc.text, place.end_char) is not None
    return place if between == ", " and clause_ends and not names.is_country(place.text) else None


_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;:)!?\n]|$)(?![ \t]*and\b)")


def _name_alone(text: str, start: int, end: int, spans: list[tuple[int, int, int]]) -> bool:
    """Whether a unit is one mention and nothing else ('Jonas Weber' on a signature's line)."""
    stripped = text[start:end].strip(" \t,.;:*_")
    return len(spans) == 1 and text[spans[0][0] : spans[0][1]].strip(" ,.") == stripped


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
    # acronyms this document uses as common nouns ("an API", "APIs") name nothing in it, whatever spaCy reads
    countable = names.countable_acronyms(text)
    header = read_header(text)
    notes = read_meeting_notes(text)  # attendee lists, tables and speaker labels, read by rule
    # a header's field names ('Post-History:', 'Python-Version:') are labels, never names of things
    listed_people = names.inverted_name_lines(text)  # 'London, Jack.' in a reading list
    ruled = (header.person_fields + notes.ruled + resolved_label_spans(text, notes) + non_name_spans(text)
             + listed_people)
    raw_entities = [r for r in raw_entities if not _overlaps_any(r[0], r[1], ruled)
                    and not names.is_countable_acronym(text[r[0]:r[1]], countable)]
    people = sorted(set(header.people) | set(notes.people) | set(listed_people))
    raw_entities = _spans_after_labels(text, _spans_with_legal_forms(text, raw_entities), [lb.span for lb in notes.labels])
    raw_entities = [r for r in _refine_spans(text, raw_entities, people) if not names_nothing(text, r[0], r[1])]  # '20 MW', 'AMBER'
    groups = _group_mentions(text, raw_entities, people)
    candidates = shape_candidates(text, [r[:2] for r in raw_entities] + ruled, sentences)
    _add_candidates(text, groups, [c for c in candidates if not names.is_countable_acronym(text[c[0]:c[1]], countable)
                                   and not names_nothing(text, c[0], c[1])])
    _firms_by_legal_form(text, groups)
    _merge_misspelt_names(groups)
    _merge_person_variants(groups)
    _merge_short_person_names(groups, text)
    attach_labels(text, notes, groups, _Group)
    defined = _merge_acronyms(text, groups)
    _merge_bare_acronyms(groups)
    _merge_short_org_names(groups, text)
    _merge_other_names(text, groups)
    _acronym_mentions(text, defined, groups)
    _repeated_mentions(text, groups)

    entities: list[DocumentEntity] = []
    spans: list[tuple[int, int, int]] = []  # (start, end, entity index)
    for group in sorted(groups.values(), key=lambda g: min(m.start for m in g.mentions)):
        name = group.name
        if group.kind is PageKind.PERSON and names.strip_honorifics(name):
            name = names.strip_honorifics(name)  # the page is 'Dana Ruiz'; 'Sheriff Dana Ruiz' stays an alias
        if group.kind is PageKind.PERSON and group.certain_kind is PageKind.PERSON:
            name = names.uninverted(name)  # 'Priyanka Sethi'; a mail header's 'Sethi, Priyanka' stays an alias
        aliases = sorted({m.surface for m in group.mentions if m.surface != name} | group.extra_aliases)
        index = len(entities)
        mentions = sorted(group.mentions, key=lambda m: m.start)
        entities.append(
            DocumentEntity(name=name, kind=group.kind, kind_certain=group.certain_kind is not None, candidate=group.candidate,
                           aliases=aliases, acronyms=sorted(group.extra_aliases), mentions=mentions,
                           local_names=_local_names(text, group, name))
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
    sentences = split_into_units(text, sentences, sorted({*unit_breaks(text), *section_breaks(text)}))
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
        if is_salutation(text[sent_start:sent_end]) or _name_alone(text, sent_start, sent_end, spans[position:cursor]):
            continue  # 'Hi Maya,', a signature's 'Jonas Weber': they name someone and say nothing of them
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
    # the header's own status as a decision or open item; dates as the document states them
    facts = dated_facts(text, parsed.title, facts, entities, datetime.now(), parsed.key)
    for index, entity in enumerate(entities):
        about = [f.text for f in facts if index in f.entities][:2]
        entity.context = _one_line(f"{entity.name}. " + " ".join(about), get_settings().entity_context_chars)
    relations = [EntityRelation(subject=p, object=o, type="works_at") for p, o in works_at_pairs(notes, spans)]
    return ExtractedDocument(parsed=parsed, entities=entities, facts=facts, units=sentences, relations=relations,
                             authors=_authors(text, header.authors + notes.authors))


def _authors(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The names of the document's authors, each once, in order ('Sethi, Priyanka' as 'Priyanka Sethi')."""
    found: list[str] = []
    for start, end in sorted(set(spans)):
        name = names.uninverted(" ".join(text[start:end].split()))
        if name and name not in found:
            found.append(name)
    return found[: get_settings().source_max_authors]


class _ContextEmbedder:
    """Embeds entity contexts on a second thread while spaCy keeps the first core busy.

    spaCy runs on one core; the embedder would otherwise wait for it and then run alone. Run
    side by side on two cores, extraction costs about as much as spaCy alone. Of several
    entities in the batch with the same name and kind only the first is embedded: resolution
    lands the rest on the page that one creates (and embeds any exception itself).
    """

    def __init__(self, embed: Embed, batch_size: int) -> None:
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
    embed: Embed | None = None,
    classify_kinds: bool = True,
) -> list[ExtractedDocument]:
    """Run spaCy over every chunk of every readable document in one batched `nlp.pipe`.

    With `embed`, each entity's context is embedded as soon as its document is done, beside spaCy,
    and then every entity is typed by the kind classifier (kind_model.py); `classify_kinds=False`
    keeps spaCy's kinds and the untyped shape candidates (the classifier's training script reads them).
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
    other_names: dict[int, list[tuple[int, int]]] = defaultdict(list)
    built: dict[int, ExtractedDocument] = {}
    embedder = _ContextEmbedder(embed, settings.embed_batch_size) if embed else None

    def complete(i: int) -> None:
        built[i] = build_extracted(documents[i], raw.pop(i, []), sentences.pop(i, []), first_person.pop(i, []))
        built[i].other_names = other_names.pop(i, [])
        if embedder:
            embedder.add(built[i])

    current = None
    try:
        for doc, (i, offset) in nlp.pipe(work, as_tuples=True, batch_size=settings.spacy_batch_size):
            if current is not None and i != current:
                complete(current)  # chunks come in order: the previous document is whole
            current = i
            sentences[i].extend((offset + s.start_char, offset + s.end_char) for s in doc.sents)
            tail: tuple[int, int] | None = None  # the previous span's lone word after a line break
            for ent in doc.ents:
                kind = LABEL_KINDS.get(ent.label_)
                if kind is not None:
                    start = _name_start(ent) if kind is PageKind.ORGANISATION else ent.start_char
                    end = ent.end_char
                    if kind is PageKind.ORGANISATION and (campus := _campus_after(ent)) is not None:
                        end = campus.end_char  # the place also stays among the other names, as before
                    if kind is PageKind.PERSON and tail is not None and doc.text[tail[1]:start] == " ":
                        start = tail[0]  # 'Antonín Dvořák\n\nAntonín' + 'Leopold Dvořák': the first word joins
                    raw[i].extend((offset + s, offset + e, kind) for s, e in _line_parts(doc.text, start, end))
                else:
                    other_names[i].append((offset + ent.start_char, offset + ent.end_char))
                tail = _lone_word_after_a_break(doc.text, ent.start_char, ent.end_char) if kind is PageKind.PERSON else None
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
    if classify_kinds:
        type_entities([built[i] for i in sorted(built)], embed)
        for i in sorted(built):  # names the classifier made people join their full names
            _drop_entities(built[i], join_person_names(built[i], settings.surname_dominance_ratio))
            _drop_entities(built[i], join_office_to_holder(built[i], settings.surname_dominance_ratio))
        second_names = second_names_defined([built[i] for i in sorted(built)])  # 'the BDFL refers to Guido van Rossum'
        for own, i in zip(second_names.own, sorted(built), strict=True):
            _drop_entities(built[i], join_second_names(built[i], own, second_names.shared))
            _drop_entities(built[i], join_organisation_names(built[i], settings.surname_dominance_ratio))
            _drop_entities(built[i], join_tool_editions(built[i]))
    return [built[i] if i in built else ExtractedDocument(parsed=parsed) for i, parsed in enumerate(documents)]

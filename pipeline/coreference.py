"""In-document coreference of people once every entity has its final kind (issue 13).

Extraction joins the forms of a person's name while the kinds are still the news model's
guesses, so a name the model called an organisation or a work ("L'Enfant", "Hadid") or one it
missed and the shape rules found ("Jared Tristan Padalecki") stays an entity of its own even
after the kind classifier calls it a person. This pass runs after the classifier, on the typed
entities, with the same rules extraction uses on spaCy's people:

- two full names that are forms of one name ("Jared Padalecki" / "Jared Tristan Padalecki") are
  one person, the one named more often keeping the page;
- a shorter name that ends (a surname: "Hadid", "L'Enfant") or starts (a given name: "Bonosus")
  one full name of the document joins it; of several, the one the document's title names (a
  biography's subject), else one named far more often than each other; else none, so that a
  lone "Chen" beside "Mark Chen" and "Lily Chen" stays unbound;
- a short form of an organisation's name ("Pirates", "Red Sox") joins the one organisation of the
  document it is a short form of, or the one named far more often than each other ("Boston Red
  Sox" six times, a farm team "Pawtucket Red Sox" once);
- an office alone ("the Secretary", "Prime Minister's", "Mr. President") is the one person the
  document names with that title ("Secretary Cardona"), or the one named far more often than each
  other; with no holder, or several alike, it stays a page of its own document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from graph_schema.kinds import PageKind
from graph_schema.models import DocumentEntity, ExtractedDocument
from graph_schema.slugs import normalise_name
from pipeline import names
from pipeline.known_names import is_known_name
from pipeline.speakers import is_a_role_alone, is_job_title
from pipeline.units import starts_a_sentence


def _key_words(entity: DocumentEntity) -> list[str]:
    return names.name_key(entity.name, True).split()


def title_words(text: str) -> set[str]:
    """The name words of the document's first line (its title or heading, when it has one)."""
    end = text.find("\n")
    return set(names.name_key(text[:end], True).split()) if end > 0 else set()


def _named_in_title(entity: DocumentEntity, title: set[str], title_end: int) -> bool:
    """Whether the title names this person: a mention there, or its first and last name words."""
    words = _key_words(entity)
    return any(m.start < title_end for m in entity.mentions) or (words[0] in title and words[-1] in title)


def pick_full_name(fits: list[int], entities: list[DocumentEntity], title: set[str], title_end: int,
                   dominance_ratio: float) -> int | None:
    """Of the full names a shorter name fits, the one it means, or None when nothing says which."""
    if len(fits) == 1:
        return fits[0]
    titled = [i for i in fits if _named_in_title(entities[i], title, title_end)]
    if len(titled) == 1:
        return titled[0]
    return _dominant(fits, entities, dominance_ratio) if fits else None


def _absorb(into: DocumentEntity, part: DocumentEntity, shorter: bool) -> None:
    into.mentions = sorted(into.mentions + part.mentions, key=lambda m: m.start)
    forms = {part.name, *part.aliases}
    into.aliases = sorted((set(into.aliases) | forms) - {into.name})
    into.acronyms = sorted(set(into.acronyms) | set(part.acronyms))
    local = set(into.local_names) | set(part.local_names)
    if shorter:  # a lone 'Hadid' means Zaha Hadid only inside this document
        local |= forms
    into.local_names = sorted(local - {into.name})


def _join_equal_keys(entities: list[DocumentEntity], indexes: list[int], key) -> dict[int, int]:
    """Entities of one kind whose names have one key ('Saint Jerome' and 'Jerome' once the title is
    off; 'Initech Corp.' and 'Initech') are one: each joins the one named most often."""
    by_key: dict[str, list[int]] = {}
    for i in indexes:
        if key(entities[i]) and not entities[i].kind_certain:
            by_key.setdefault(key(entities[i]), []).append(i)
    folded: dict[int, int] = {}
    for same in by_key.values():
        keep = max(same, key=lambda i: (len(entities[i].mentions), -i))
        for i in same:
            if i != keep:
                _absorb(entities[keep], entities[i], shorter=False)
                folded[i] = keep
    return folded


def _dominant(fits: list[int], entities: list[DocumentEntity], ratio: float) -> int | None:
    """The one of several fits named at least `ratio` times as often as each other (and twice at least)."""
    counted = sorted(fits, key=lambda i: -len(entities[i].mentions))
    top, second = len(entities[counted[0]].mentions), len(entities[counted[1]].mentions)
    return counted[0] if top >= 2 and top >= ratio * second else None


def join_organisation_names(document: ExtractedDocument, dominance_ratio: float) -> dict[int, int]:
    """Fold each typed organisation's short form into its full name (in place); {folded index: kept index}."""
    entities = document.entities
    orgs = [i for i, e in enumerate(entities) if e.kind is PageKind.ORGANISATION]
    words = {i: names.name_key(entities[i].name, False).split() for i in orgs}
    folded = _join_equal_keys(entities, [i for i in orgs if entities[i].name not in entities[i].local_names],
                              lambda e: names.name_key(e.name, False))
    orgs = [i for i in orgs if i not in folded]
    for i in sorted(orgs, key=lambda i: len(words[i])):
        if entities[i].kind_certain or i in folded.values() or entities[i].name in entities[i].local_names:
            continue  # a generic head ('the Court') stays its own document's body
        fits = [j for j in orgs if j != i and j not in folded
                and (names.short_org_form(words[i], words[j]) or names.abbreviated_lead(entities[i].name, entities[j].name))]
        chosen = fits[0] if len(fits) == 1 else _dominant(fits, entities, dominance_ratio) if fits else None
        if chosen is not None:
            _absorb(entities[chosen], entities[i], shorter=False)
            folded[i] = chosen
    _join_firms_short_forms(entities, [i for i in orgs if i not in folded], folded)
    return folded


# Words that name an edition or a hosting of a product, not another product: 'Metabase Cloud',
# 'Slack Enterprise', 'Office Online' ('SQL Server' and 'GitHub Desktop' are products of their own).
_EDITION_WORDS = frozenset({"cloud", "pro", "enterprise", "premium", "plus", "online", "community",
                            "edition", "standard", "business", "starter", "lite", "free", "hosted", "self-hosted", "saas"})


def join_tool_editions(document: ExtractedDocument) -> dict[int, int]:
    """Fold 'Metabase Cloud' and 'Metabase Pro' into the tool 'Metabase' the document also names (in
    place): an edition of a product is the product. {folded index: kept index}."""
    entities = document.entities
    by_key = {normalise_name(e.name): i for i, e in enumerate(entities) if e.kind is PageKind.TOOL}
    folded: dict[int, int] = {}
    for i, entity in enumerate(entities):
        words = normalise_name(entity.name).split()
        if entity.kind is not PageKind.TOOL or len(words) < 2 or not all(w in _EDITION_WORDS for w in words[1:]):
            continue
        kept = by_key.get(words[0])
        if kept is not None and kept != i and kept not in folded:
            _absorb(entities[kept], entity, shorter=False)
            folded[i] = kept
    return folded


def _join_firms_short_forms(entities: list, orgs: list[int], folded: dict[int, int]) -> None:
    """'Sunbeck' read as a person or a tool beside 'Sunbeck Labs': the coined word of a firm named
    for its trade is that firm, when it is of exactly one firm of the document and no given name
    ('Jordan' beside 'Jordan Logistics' may be a person)."""
    short = {}
    for j in orgs:
        form = names.distinctive_short_form(entities[j].name)
        if form:
            short.setdefault(normalise_name(form), []).append(j)
    surnames = {normalise_name(e.name).split()[-1] for e in entities if e.kind is PageKind.PERSON and len(e.name.split()) > 1}
    for i, entity in enumerate(entities):
        key = normalise_name(entity.name)
        if (i in folded or entity.kind in (PageKind.ORGANISATION, PageKind.YOU) or entity.kind_certain
                or len(short.get(key, ())) != 1 or names.is_given_name(key) or key in surnames):
            continue  # 'Adani' beside 'Gautam Adani' and 'Adani Group' may be either
        chosen = short[key][0]
        _absorb(entities[chosen], entity, shorter=False)
        folded[i] = chosen


def _held_titles(surface: str) -> set[tuple[str, ...]]:
    """The titles a person is named with in one mention, each with its shorter endings:
    'Prime Minister Rishi Sunak' -> {('prime', 'minister'), ('minister',)}."""
    words = names.title_run(surface)
    return {words[k:] for k in range(len(words))}


# Only a comma (and an article) between a name and an office: 'John Kerry, the Secretary of State,'
# and 'Malaysia's Prime Minister, Najib Razak' say who holds the office.
_APPOSITION_GAP = re.compile(r"[ \t]*,[ \t]*(?:(?:the|a|an)[ \t]+)?", re.IGNORECASE)
# A list goes on after the pair ('Smith, the mayor, and Jones'; 'the Chair, Ana Ruiz, Ben Cole').
_LIST_GOES_ON = re.compile(r"[ \t]*,[ \t]*(?:and[ \t]+)?[A-Z]")
# What may open the clause before an office that comes first: a possessive and an article
# ('Malaysia's Prime Minister, …'), not 'According to the Secretary, Jones was late'.
_OFFICE_OPENS_CLAUSE = re.compile(r"[ \t]*(?:(?:[A-Z][\w.-]*[ \t]+)*[A-Z][\w.-]*(?:'s|’s)[ \t]+)?(?:the[ \t]+)?",
                                  re.IGNORECASE)
_CLAUSE_BOUNDARY = re.compile(r"[.,;:!?(\n][^.,;:!?(\n]*$")
_CLAUSE_LOOKBACK = 80


def _in_apposition(document: ExtractedDocument, office: int, people: Iterable[int]) -> list[int]:
    """The person a mention of the office stands in apposition to, when exactly one does."""
    text, entities = document.parsed.text, document.entities

    def office_first(m, n) -> bool:  # 'Malaysia's Prime Minister, Najib Razak said'
        window = max(0, m.start - _CLAUSE_LOOKBACK)
        boundary = _CLAUSE_BOUNDARY.search(text, window, m.start)
        clause_start = boundary.start() + 1 if boundary else window
        return (m.end <= n.start and bool(_APPOSITION_GAP.fullmatch(text, m.end, n.start))
                and bool(_OFFICE_OPENS_CLAUSE.fullmatch(text, clause_start, m.start))
                and not _LIST_GOES_ON.match(text, n.end))

    def name_first(m, n) -> bool:  # 'John Kerry, the Secretary of State, contacted'
        return (n.end <= m.start and bool(_APPOSITION_GAP.fullmatch(text, n.end, m.start))
                and not _LIST_GOES_ON.match(text, m.end))

    found = {j for j in people for m in entities[office].mentions for n in entities[j].mentions
             if office_first(m, n) or name_first(m, n)}
    return list(found) if len(found) == 1 else []


def join_office_to_holder(document: ExtractedDocument, dominance_ratio: float) -> dict[int, int]:
    """Fold each person named by an office alone into the one person the document names with that
    title (in place); {folded index: kept index}. The office stays a local name of the holder."""
    entities = document.entities
    person = [i for i, e in enumerate(entities) if e.kind is PageKind.PERSON]
    office = {i: names.office_of(entities[i].name) for i in person}
    holders = {i: set().union(*(_held_titles(m.surface) for m in entities[i].mentions)) for i in person if not office[i]}
    folded: dict[int, int] = {}
    for i in person:
        if not office[i] or entities[i].kind_certain:
            continue
        fits = [j for j, held in holders.items() if office[i] in held] or _in_apposition(document, i, holders)
        chosen = fits[0] if len(fits) == 1 else _dominant(fits, entities, dominance_ratio) if fits else None
        if chosen is not None:
            _absorb(entities[chosen], entities[i], shorter=True)
            folded[i] = chosen
    return folded


# 'Note: the BDFL refers to Guido van Rossum', 'the CEO is Dana Ruiz.': the text says who a name is.
_REFERS_TO = re.compile(r"[ \t]+(?:refers[ \t]+to|stands[ \t]+for)[ \t]+", re.IGNORECASE)
_IS = re.compile(r"[ \t]+(?:is|means)[ \t]+", re.IGNORECASE)
# 'Guido the BDFL': a name and then what it is also called ('Alexander the Great').
_CALLED_AFTER = re.compile(r"[ \t]+the[ \t]+")
# The defined name opens its clause ('Note: the BDFL refers to …'), never 'the founder of Acme is …'.
_DEFINED_OPENS_CLAUSE = re.compile(r"(?:^|[.!?:;(\n])[ \t\"'“‘*_]*(?:(?:the|our|their|his|her|its)[ \t]+)?$", re.IGNORECASE)
# After 'refers to Guido van Rossum' a clause ends ('…, Python's Benevolent Dictator'), never 'Dana Ruiz's firm'.
_PERSON_ENDS_CLAUSE = re.compile(r"[ \t]*(?:[.,;:)!?\n]|$)")
# After 'X is P' the sentence ends or says more of P ('…, who wrote Python', '(GvR)'): 'Zendesk is
# Tom Lee, Slack is Maria Lopez' assigns, it does not define.
_PERSON_ENDS_SENTENCE = re.compile(r"[ \t]*(?:[.!?\n(]|$|,[ \t]+who\b)")
# 'The BDFL is …', 'our DRI is …': a term the text introduces, not a bare product name ('Kestrel is Tom Lee').
_A_TERM_BEFORE = re.compile(r"\b(?:the|our|their|his|her|its)[ \t]+$", re.IGNORECASE)
# 'Guido the BDFL' opens its clause or follows a comma ('i.e. Guido the BDFL,'), never an object:
# 'Send Dana Ruiz the NDA', 'handed Jurgen Klopp the Premier League'.
_CALLED_OPENS = re.compile(r"(?:[,(;:]|\bi\.e\.|\be\.g\.)[ \t]*$")
# After 'Guido the BDFL' the clause ends: 'Rathbun the Scientology property' names a property.
_CALLED_ENDS = re.compile(r"[ \t]*(?:[.,;:)!?\n]|$)")


@dataclass
class SecondNames:
    """Names the batch's documents define as a person: each document's own, and those that hold in
    every document (an acronym defined one way only, and no role that each project gives someone else)."""

    own: list[dict[str, str]]  # per document: name key -> the person's full name
    shared: dict[str, str]


def _may_be_a_second_name(entity: DocumentEntity) -> bool:
    """A name that may stand for a person the text names in full: not a full name of its own, not
    a given name, not a kind a rule set, not a known tool's or firm's name."""
    words = _key_words(entity) if entity.kind is PageKind.PERSON else normalise_name(entity.name).split()
    return (not entity.kind_certain and bool(words) and not (entity.kind is PageKind.PERSON and len(words) >= 2)
            and not (len(words) == 1 and names.is_given_name(words[0])) and not is_known_name(entity.name))


def _defines(text: str, name, person) -> bool:
    """Whether two mentions say that a name is a person: 'the BDFL refers to Guido van Rossum',
    'the DRI is Dana Ruiz.', 'i.e. Guido the BDFL,'."""
    if name.end <= person.start:
        if not _DEFINED_OPENS_CLAUSE.search(text[max(0, name.start - _CLAUSE_LOOKBACK):name.start]):
            return False
        if _REFERS_TO.fullmatch(text, name.end, person.start):
            return bool(_PERSON_ENDS_CLAUSE.match(text, person.end))
        return (bool(_IS.fullmatch(text, name.end, person.start)) and bool(_PERSON_ENDS_SENTENCE.match(text, person.end))
                and (_an_acronym(name.surface) or bool(_A_TERM_BEFORE.search(text, max(0, name.start - 8), name.start))))
    # 'Guido the BDFL' calls him by an acronym; 'Tom Lee the Kestrel, Dana Ruiz the Osprey' hands out work
    return (_an_acronym(name.surface) and person.end <= name.start and bool(_CALLED_AFTER.fullmatch(text, person.end, name.start))
            and bool(_CALLED_ENDS.match(text, name.end))
            and (starts_a_sentence(text, person.start) or bool(_CALLED_OPENS.search(text, max(0, person.start - 10), person.start))))


def _an_acronym(name: str) -> bool:
    """'BDFL', 'DRI': capitals only, the way a title people are called by is shortened."""
    letters = [ch for ch in name if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def _a_role(name: str) -> bool:
    """'the DRI', 'our CTO', 'the Chair': each project's or firm's own holder, never carried to other documents."""
    return is_job_title(name) or is_a_role_alone(name) or bool(names.office_of(name))


_THE_BEFORE = re.compile(r"[ \t]+the[ \t]+$")


def _people_defined_as(text: str, entity: DocumentEntity, starting: dict[int, list], ending: dict[int, list]) -> list:
    """The people the text says this entity's name is, looking right after each mention ('… refers
    to P', '… is P') and right before it ('P the X')."""
    found = []
    for m in entity.mentions:
        gap = _REFERS_TO.match(text, m.end) or _IS.match(text, m.end)
        before = _THE_BEFORE.search(text, max(0, m.start - 12), m.start)
        near = (starting.get(gap.end(), []) if gap else []) + (ending.get(before.start(), []) if before else [])
        found += [person for person, n in near if all(person is not f for f in found) and _defines(text, m, n)]
    return found


def second_names_defined(documents: list[ExtractedDocument]) -> SecondNames:
    """The names each document defines as one person named in full ('the BDFL refers to Guido van
    Rossum'), and those that hold in every document of the batch: an acronym defined as one person
    only, no role, and nowhere a kind a rule set (a table's organisation column)."""
    own: list[dict[str, str]] = []
    found: dict[str, dict[str, str]] = {}
    roles: set[str] = set()
    acronyms: set[str] = set()  # only a term's acronym ('BDFL') reaches other documents: a word may name other things there
    for document in documents:
        text = document.parsed.text
        # each person's mentions by where they start and end: a definition's two mentions are
        # neighbours, so each name mention looks at one place on each side (a long document names
        # its people thousands of times)
        starting: dict[int, list] = {}
        ending: dict[int, list] = {}
        for person in document.entities:
            if person.kind is PageKind.PERSON and len(_key_words(person)) >= 2:
                for n in person.mentions:
                    starting.setdefault(n.start, []).append((person, n))
                    ending.setdefault(n.end, []).append((person, n))
        defined: dict[str, dict[str, str]] = {}
        for entity in document.entities:
            if not _may_be_a_second_name(entity):
                continue
            for person in _people_defined_as(text, entity, starting, ending):
                defined.setdefault(normalise_name(entity.name), {})[" ".join(_key_words(person))] = person.name
                roles |= {normalise_name(entity.name)} if _a_role(entity.name) else set()
                acronyms |= {normalise_name(entity.name)} if _an_acronym(entity.name) else set()
        own.append({key: next(iter(held.values())) for key, held in defined.items() if len(held) == 1})
        for key, held in defined.items():
            found.setdefault(key, {}).update(held)
    ruled = {normalise_name(e.name) for document in documents for e in document.entities
             if e.kind_certain and e.kind is not PageKind.PERSON}
    shared = {key: next(iter(held.values())) for key, held in found.items()
              if len(held) == 1 and key not in ruled and key not in roles and key in acronyms}
    return SecondNames(own=own, shared=shared)


def join_second_names(document: ExtractedDocument, own: dict[str, str], shared: dict[str, str]) -> dict[int, int]:
    """Each name this document or the batch defines as a person is that person here (in place);
    {folded index: kept index}. Where this document names the person in full, the name joins that
    entity; elsewhere the entity becomes the person, named in full, so that every document's 'BDFL'
    finds one page. The name stays one of the person's names for later documents."""
    entities = document.entities
    folded: dict[int, int] = {}
    for i, entity in enumerate(entities):
        key = normalise_name(entity.name)
        full = own.get(key) or shared.get(key)
        if full is None or not _may_be_a_second_name(entity):
            continue
        person_key = names.name_key(full, True)
        holders = [j for j, e in enumerate(entities) if j != i and e.kind is PageKind.PERSON
                   and " ".join(_key_words(e)) == person_key and j not in folded]
        if holders:
            _absorb(entities[holders[0]], entity, shorter=False)
            folded[i] = holders[0]
        else:
            entity.aliases = sorted((set(entity.aliases) | {entity.name}) - {full})
            entity.name, entity.kind = full, PageKind.PERSON
    return folded


def join_person_names(document: ExtractedDocument, dominance_ratio: float) -> dict[int, int]:
    """Fold the typed people's name forms into one entity each (in place); {folded index: kept index}.

    The caller removes the folded entities and renumbers facts and relations.
    """
    entities = document.entities
    text = document.parsed.text
    title_end = max(text.find("\n"), 0)
    title = title_words(text)
    person = [i for i, e in enumerate(entities) if e.kind is PageKind.PERSON and _key_words(e)]
    folded = _join_equal_keys(entities, person, lambda e: " ".join(_key_words(e)))
    person = [i for i in person if i not in folded]
    full = sorted((i for i in person if len(_key_words(entities[i])) >= 2),
                  key=lambda i: (-len(entities[i].mentions), i))
    for n, i in enumerate(full):
        if i in folded or i in folded.values():
            continue
        for j in full[n + 1:]:
            if j not in folded and not entities[j].kind_certain and names.same_person_name(
                _key_words(entities[i]), _key_words(entities[j])
            ):
                _absorb(entities[i], entities[j], shorter=False)
                folded[j] = i
    full = [i for i in full if i not in folded]
    for i in person:
        words = _key_words(entities[i])
        # a rule's person by a given name alone ('- Marcus: approve …') may still be one named in full
        by_rule = entities[i].kind_certain and not (len(words) == 1 and names.is_given_name(words[0]))
        if i in folded or by_rule or i in folded.values():
            continue  # a name others joined keeps them: folds never chain
        longer = [j for j in full if j != i and j not in folded and len(_key_words(entities[j])) > len(words)]
        fits = [j for j in longer if _key_words(entities[j])[-len(words):] == words] or [
            j for j in longer if _key_words(entities[j])[: len(words)] == words
        ] or [j for j in full if j != i and j not in folded and names.initial_for_surname(words, _key_words(entities[j]))]
        chosen = pick_full_name(fits, entities, title, title_end, dominance_ratio)
        if chosen is not None:
            _absorb(entities[chosen], entities[i], shorter=True)
            folded[i] = chosen
    return folded

"""Meeting notes: who attended, by which short labels, at which organisation, and who is speaking.

Meeting notes define their people once and then name them by short labels:

    Attendees: Ada Park (AP), Ben Ito (BI)

    | Name     | Abbreviation | Organisation   |
    | Ada Park | AP           | Greenleaf Retail |

    AP: I think we should ship on Friday.
    Ben: Agreed.

An attendee list or a Name | Abbreviation | Organisation table names people by rule (they are
people whatever the model says, like header people). A speaker label at the start of a line is
that person: a mention of them (so the label becomes an alias of their page), and the line is
something they said. It is never an entity of its own: a small news-trained model reads "AP" or
"Ben" before a colon as an organisation, and such label pages end up holding every line the
person spoke. A table's organisation column says where each person works (`Affiliation`).

Everything here is read from the text alone (character spans); `attach_labels` applies it to
extraction's in-document groups.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel

from graph_schema.kinds import PageKind
from graph_schema.models import EntityMention
from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name
from pipeline.header_people import EMAIL_FIELDS, PERSON_FIELDS, addressed_names, plausible_name
from pipeline.known_names import is_known_name
from pipeline.names import (CLOCK_TIME, clipped_given_name, ends_in_organisation_head, first_names_match, has_legal_form,
                            is_common_word, is_given_name, is_list_of_names, start_after_titles)
from pipeline.units import is_closing

Span = tuple[int, int]

# "Attendees: …", "- **Present**: …", "## Attendees" (then list items).
_FIELD_LINE = re.compile(r"[ \t]*(?:[-*+•][ \t]+)?(?:\*\*)?([A-Za-z][A-Za-z -]{0,30}?)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]*")
# A heading: "## Attendees", or a label set in bold alone on its line ("**Attendees**", "__Present:__").
_HEADING = re.compile(r"[ \t]*(?:#{1,6}[ \t]+(?:\*\*)?|\*\*|__)([A-Za-z][A-Za-z -]{0,30}?)(?:\*\*|__)?[ \t]*:?(?:\*\*|__)?[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
# A short label defined in parentheses after a name: "Ada Park (AP)", "(AdP)", "(SØ)" (length: see `_is_short_label`).
_SHORT_LABEL = re.compile(r"[^\W\d_]+")
_PAREN = re.compile(r"\(([^()]*)\)")
_SEPARATORS = re.compile(r",|;|\band\b|&")
# What ends a name in an attendee list item: "Ada Park (AP) – Greenleaf Retail", "Ada Park, host".
_ITEM_NAME_END = re.compile(r"\(|,|;|\s[-–—]\s|:")
# A speaker label opens a line: "AP: …", "- **Ben Ito:** …", "Ada: …", a chat's "09:04 Tomás: …" or
# "[9:04 AM] Tomás: …" (the label is checked later).
SPEAKER_LINE = re.compile(
    r"[ \t]*(?:[-*+•>][ \t]+)?(?:" + CLOCK_TIME + r"[ \t]+)?(?:\*\*|__)?([A-Z][\w.'’-]*(?:[ \t][A-Z][\w.'’-]*){0,3})(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]+\S"
)
_TABLE_SEPARATOR = re.compile(r"^[\s|:-]+$")
# Where an attendee entry says where the person works: "Rina Shah from Cobalt Ridge", "… at Initech",
# "Ada Park – Greenleaf Retail"; the organisation ends at a parenthesis, a comma or the entry's end.
_AFFILIATION = re.compile(r"\s(?:from|at|of)\s+(?=[A-Z])")
_DASH = re.compile(r"\s[-–—]\s+(?=[A-Z])")
# A lower-case word that joins one more person to a list: 'Ada Park, with Ben Ito', '… plus Cy Dee'.
_JOINING_WORD = re.compile(r"[ \t]*(?:with|and|plus|also|incl\.?|including)[ \t]+(?=[A-Z])")
# A short label before the name it stands for: 'MK — Maya Kowalczyk, Head of IT' (see `_is_short_label`).
_LABEL_BEFORE_NAME = re.compile(r"[ \t]*([A-Z][A-Za-z]{1,5})[ \t]+[-–—=:][ \t]+(?=[A-Z])")
_ORGANISATION_END = re.compile(r"\(|,|;|\s[-–—]\s")
_MAX_ORGANISATION_WORDS = 6
_SIGNATURE_MAX_LINES = 4  # a name or two and a role line under an email's closing
# Words of a job or a part in the meeting, which an entry may give where an employer could stand
# (nameparser's title list is no help here: it holds 'Analytics' too). Not 'CRO' or 'CMO': in many
# trades a contract research or manufacturing organisation, a firm.
_JOBS = frozenset({
    "manager", "director", "engineer", "designer", "developer", "architect", "scientist",
    "analyst", "consultant", "adviser", "advisor", "counsel", "officer", "president", "chair", "chairman",
    "chairwoman", "chairperson", "secretary", "treasurer", "founder", "cofounder", "co-founder", "ceo", "cto",
    "cfo", "coo", "cio", "ciso", "vp", "svp", "evp", "pm", "dri", "intern",
})
_ROLE_WORDS = _JOBS | frozenset({
    "head", "lead", "owner", "member", "guest", "observer", "host",
    "facilitator", "sponsor", "note-taker", "notes", "minutes", "scribe", "speaker", "presenter",
})
# A department alone in parentheses is no employer: 'Kwame Asante-Boateng (Support)', '(Design)';
# inside a longer name it may be one ('Fenwick Engineering', 'Product Hunt').
_DEPARTMENTS = frozenset({"support", "engineering", "eng", "design", "sales", "marketing", "ops", "legal", "hr", "qa", "product",
                          "procurement", "purchasing", "finance", "operations", "planning", "research", "compliance",
                          "security", "it", "data", "analytics", "accounts", "accounting", "partnerships", "platform"})
# A byline names the people who wrote a document: '*Prepared by Mireille Dufresne (Planning) and Sage
# Whitcombe (Procurement), 10 Nov 2026*', 'Minutes taken by Ada Park'.
_BYLINE = re.compile(r"[ \t>*_#-]*(?:prepared|written|compiled|drafted|authored|minuted|notes|minutes)(?:[ \t]+taken)?[ \t]+by[ \t]+",
                     re.IGNORECASE)

# Table header cells, lower-cased, and the role of their column.
NAME_COLUMNS = {"name", "names", "attendee", "attendees", "person", "people", "participant", "participants",
                "who", "member", "members", "full name"}
SHORT_COLUMNS = {"abbreviation", "abbr", "abbr.", "abbrev", "abbrev.", "initials", "short", "short name",
                 "label", "handle", "alias", "code", "id"}
ORGANISATION_COLUMNS = {"organisation", "organization", "org", "company", "affiliation", "employer", "firm",
                        "institution", "agency"}


class Attendee(BaseModel):
    """One person the notes define: the span of their name, of their short labels, of their organisation."""

    name: Span
    short: list[Span] = []
    organisation: Span | None = None
    wrote_it: bool = False  # named by the document's byline ('Prepared by …'): one of its authors


class SpeakerLabel(BaseModel):
    """A label opening a line; `person` is the span of the attendee's name it stands for, when the
    notes define that person."""

    span: Span
    person: Span | None = None


class MeetingNotes(BaseModel):
    attendees: list[Attendee] = []
    labels: list[SpeakerLabel] = []
    # Spans the model's own entities are ignored in: attendee list values and table cells read by rule.
    ruled: list[Span] = []

    @property
    def people(self) -> list[Span]:
        return [a.name for a in self.attendees]

    @property
    def authors(self) -> list[Span]:
        """The people its byline names as having written it."""
        return [a.name for a in self.attendees if a.wrote_it]


def lines_with_offsets(text: str) -> list[tuple[int, str]]:
    """(start offset, line without its line break) of every line."""
    out: list[tuple[int, str]] = []
    position = 0
    for line in text.splitlines(keepends=True):
        out.append((position, line.rstrip("\r\n")))
        position += len(line)
    return out


def _trimmed(text: str, start: int, end: int, strip: str = " \t*_\"'.") -> Span | None:
    while start < end and text[start] in strip:
        start += 1
    while end > start and text[end - 1] in strip:
        end -= 1
    return (start, end) if end > start else None


def _is_short_label(label: str) -> bool:
    return len(label) <= get_settings().initials_max_chars and bool(_SHORT_LABEL.fullmatch(label)) and label[0].isupper()


def _short_labels(text: str, start: int, end: int) -> list[Span]:
    """The short labels among the parenthesised parts of an entry: 'Ada Park (AP)' -> [AP]."""
    labels: list[Span] = []
    for paren in _PAREN.finditer(text, start, end):
        for piece in re.finditer(r"[^,;/]+", paren.group(1)):
            span = _trimmed(text, paren.start(1) + piece.start(), paren.start(1) + piece.end())
            if span and _is_short_label(text[span[0] : span[1]]) and sum(c.isupper() for c in text[span[0] : span[1]]) >= 2:
                labels.append(span)
    return labels


def _labels_of(text: str, name: Span, labels: list[Span]) -> list[Span]:
    """The labels that are the name's initials: 'Ada Park (AP)', not the department of 'Tolu Bakare (HR)'."""
    return [s for s in labels if _initials_in_either_order(text[s[0] : s[1]], text[name[0] : name[1]])]


def _capitals_label(label: str) -> bool:
    """'PMO', 'HR': a short label in capitals, a team's or a person's, not a firm's name ('Acme')."""
    return _is_short_label(label) and sum(c.isupper() for c in label) >= 2


def _initials_in_either_order(label: str, name: str) -> bool:
    """'AP' of 'Ada Park', and 'WZ' of 'Zhang Wei', whose given name is written last."""
    return _initials_of(label, name) or _initials_of(label, " ".join(reversed(name.split())))


def _entry(text: str, start: int, end: int) -> Attendee | None:
    """One attendee entry, 'Ada Park (AP)', 'Ada Park – Greenleaf Retail', 'Rina Shah from Cobalt
    Ridge Analytics', 'Ben Ito (Larkspur Systems)', 'AP — Ada Park, Head of IT, Greenleaf Retail':
    the name, its labels and where the person works."""
    joined = _JOINING_WORD.match(text, start, end)
    if joined:  # 'Author: Chidi Okonkwo-Bello, with Oluwaseun Adeyemi'
        start = joined.end()
    label_first = _LABEL_BEFORE_NAME.match(text, start, end)
    if label_first and _is_short_label(label_first.group(1)) and sum(c.isupper() for c in label_first.group(1)) >= 2:
        entry = _entry(text, label_first.end(), end)  # 'MK — Maya Kowalczyk, Head of IT, …'
        if entry and _initials_of(label_first.group(1), text[entry.name[0] : entry.name[1]]):
            return entry.model_copy(update={"short": [label_first.span(1), *entry.short]})
        return entry  # 'QA — Ben Ito': a team, not Ben's label
    cut = _ITEM_NAME_END.search(text, start, end)
    name_end = cut.start() if cut else end
    link = _AFFILIATION.search(text, start, name_end) or _DASH.match(text, name_end)
    name = _trimmed(text, start, link.start() if link and link.start() < name_end else name_end)
    if name is None or not plausible_name(text[name[0] : name[1]]):
        return None
    name = (start_after_titles(text, *name), name[1])  # 'Dr. Camila Restrepo' is Camila Restrepo's entry
    organisation = _affiliation(text, link, name[1], end, name)
    if organisation is None and link is None and cut is not None and text[cut.start()] == ",":
        organisation = _employer_after_role(text, cut.end(), end)
    return Attendee(name=name, short=_labels_of(text, name, _short_labels(text, name[1], end)), organisation=organisation)


def _initials_of(label: str, name: str) -> bool:
    """'MK' of Maya Kowalczyk, 'JOR' of Javier Ortega-Ruiz, 'AdP' of Ada Park: the label's first
    letter opens the name and its capitals are the initials of the name's words, in order."""
    initials = "".join(w[0] for w in re.split(r"[\s-]+", name) if w[:1].isalpha()).upper()
    capitals = "".join(c for c in label if c.isupper())
    if not capitals or capitals[0] != initials[:1]:
        return False
    position = 0
    for c in capitals:
        position = initials.find(c, position) + 1
        if position == 0:
            return False
    return True


def _employer_after_role(text: str, start: int, end: int) -> Span | None:
    """'…, Head of IT, Greenleaf Retail' after a name: the employer, when a role stands before it
    (without one, 'Ada Park, Ben Ito' is two people, not a person and a firm; 'Ben Ito (host)'
    is a second attendee with a role)."""
    pieces = [_trimmed(text, start + m.start(), start + m.end()) for m in re.finditer(r"[^,;]+", text[start:end])]
    pieces = [p for p in pieces if p]
    roles = [i for i, p in enumerate(pieces) if any(_is_role_word(w.strip("()")) for w in text[p[0] : p[1]].split())]
    others = [i for i in range(len(pieces)) if i not in roles]
    if not roles or len(others) != 1 or others[0] < roles[0] or "(" in text[pieces[others[0]][0] : pieces[others[0]][1]]:
        return None
    span = pieces[others[0]]
    words = text[span[0] : span[1]].split()
    return span if text[span[0]].isupper() and len(words) <= _MAX_ORGANISATION_WORDS else None


def _affiliation(text: str, link: re.Match | None, after_name: int, end: int, name: Span | None = None) -> Span | None:
    """The organisation an entry gives after the name: after 'from', 'at' or a dash, or in
    parentheses when they hold a name rather than a short label ('(Larkspur Systems)', not '(AP)')."""
    if link is not None:
        stop = _ORGANISATION_END.search(text, link.end(), end)
        span = _trimmed(text, link.end(), stop.start() if stop else end)
    else:
        paren = _PAREN.search(text, after_name, end)
        inner = paren.group(1).strip() if paren else ""
        if not inner or _is_short_label(inner) or _is_department(inner):
            return None
        # '(Head of Operations, Brightwater Foods)': the part that is no role is the employer
        parts = [_trimmed(text, paren.start(1) + m.start(), paren.start(1) + m.end()) for m in re.finditer(r"[^,;]+", inner)]
        parts = [p for p in parts if p and not any(_is_role_word(w) for w in text[p[0] : p[1]].split())
                 and not (name and _initials_in_either_order(text[p[0] : p[1]], text[name[0] : name[1]]))
                 and not _capitals_label(text[p[0] : p[1]])]  # '(CR, medical director)', '(TB, PMO)': a label, a role
        if len(parts) != 1:
            return None
        span = parts[0]
    if span is None or not text[span[0]].isupper():
        return None
    words = text[span[0] : span[1]].split()
    if len(words) > _MAX_ORGANISATION_WORDS or any(_is_role_word(w) for w in words):
        return None  # 'Ben Ito (Product Manager)', 'Ada Park – Head of Sales': a role, not an employer
    return span


def _employer_part(text: str, start: int, end: int) -> Span | None:
    """'Head of People, Fjordline Systems', 'Engineer at Initech', 'Fjordline Systems | Oslo' … the
    one part of a role line that holds no role word and is written as a name."""
    pieces = re.split(r",|;|\||\s[-–—]\s|\s(?:at|@)\s", text[start:end])
    parts, position = [], start
    for piece in pieces:
        offset = text.index(piece, position) if piece else position
        span = _trimmed(text, offset, offset + len(piece))
        position = offset + len(piece)
        if span and not any(_is_role_word(w) for w in text[span[0] : span[1]].split()):
            parts.append(span)
    parts = [p for p in parts if text[p[0]].isupper() and len(text[p[0] : p[1]].split()) <= _MAX_ORGANISATION_WORDS]
    return parts[0] if len(parts) == 1 and len(pieces) > 1 else None


_SIGNATURE_DELIMITER = re.compile(r"--|__+|—")


def _signatures(text: str, lines: list[tuple[int, str]]) -> tuple[list[Attendee], list[Span]]:
    """An email's signature: the name on the lines after 'Best,' and the employer on the role line
    under it ('Jonas Weber' / 'Head of People, Fjordline Systems'): the person works there. A
    first name alone above the full one ('Grace' / 'Grace Okafor') is the same person."""
    attendees: list[Attendee] = []
    ruled: list[Span] = []
    # the '-- ' line an email client puts above a signature divides nothing a reader sees
    filled = [(start, line) for start, line in lines if line.strip() and not _SIGNATURE_DELIMITER.fullmatch(line.strip())]
    for index, (_, line) in enumerate(filled):
        if not is_closing(line):
            continue
        block = filled[index + 1 : index + 1 + _SIGNATURE_MAX_LINES]
        name_lines = []
        for position, (line_start, block_line) in enumerate(block[:2]):
            span = _trimmed(text, line_start, line_start + len(block_line))
            if span is None or len(block_line.split()) > 4 or not plausible_name(text[span[0] : span[1]]):
                break
            # a second name line only when it is the first one in full ('Grace' / 'Grace Okafor');
            # 'Jonas Weber' / 'Fjordline Systems' is a name and an employer
            if name_lines and not text[span[0] : span[1]].startswith(text[slice(*name_lines[0][1])] + " "):
                break
            name_lines.append((position, span))
        if not name_lines:
            continue
        name = name_lines[-1][1]
        employer = None
        after = name_lines[-1][0] + 1
        if after < len(block):
            role_start, role_line = block[after]
            employer = _employer_part(text, role_start, role_start + len(role_line))
            if employer is None and ends_in_organisation_head(role_line.split()) and len(role_line.split()) <= _MAX_ORGANISATION_WORDS:
                employer = _trimmed(text, role_start, role_start + len(role_line))  # 'Fjordline Systems' alone
            if employer:
                ruled.append((role_start, role_start + len(role_line)))
        attendees.append(Attendee(name=name, organisation=employer))
        ruled.extend(span for _, span in name_lines)
    return attendees, ruled


def is_job_title(name: str) -> bool:
    """'Ops Manager', 'Senior Account Manager': a role, with everyday words before it, and no name."""
    from pipeline.names import is_common_word

    words = name.split()
    return (len(words) >= 2 and _is_role_word(words[-1])
            and all(_is_role_word(w) or w.lower() in _DEPARTMENTS or is_common_word(w.lower()) for w in words[:-1]))


def is_a_role_alone(name: str) -> bool:
    """'CTO', 'the CTO', 'our VP': one word of a job, with no one's name; not a part in a meeting
    ('Notes', 'Owner'), which is as often a field's label."""
    words = name.split()
    if len(words) == 2 and words[0].lower() in ("the", "our", "their", "your", "my", "his", "her"):
        words = words[1:]
    return len(words) == 1 and words[0].removesuffix("'s").removesuffix("’s").lower() in _JOBS


def _a_persons_name(name: str) -> bool:
    """A byline's entry that is a person's name: not a date, a brand or a firm ('Reuters', 'Acme Freight')."""
    from pipeline.known_names import is_known_name

    return (not any(c.isdigit() for c in name) and not is_known_name(name)
            and not ends_in_organisation_head(name.lower().split()))


def _is_department(words: str) -> bool:
    """'Procurement', 'Transport Planning': a team, not an employer; 'Fenwick Engineering' is a firm."""
    from pipeline.names import is_common_word

    *before, last = words.lower().split()
    return last in _DEPARTMENTS and all(w in _DEPARTMENTS or is_common_word(w) for w in before)


def _is_role_word(word: str) -> bool:
    return word.strip(".,").lower() in _ROLE_WORDS


def _entries(text: str, start: int, end: int) -> list[Attendee]:
    """The entries of an attendee field's value, split at commas, 'and' and '&' outside parentheses."""
    masked = _PAREN.sub(lambda m: "(" + "x" * (len(m.group()) - 2) + ")", text[start:end])
    attendees: list[Attendee] = []
    position = 0
    for piece in [*_SEPARATORS.finditer(masked), None]:
        piece_end = piece.start() if piece else len(masked)
        entry = _entry(text, start + position, start + piece_end)
        if entry:
            attendees.append(entry)
        position = piece.end() if piece else len(masked)
    return attendees


# '- Halvorsen Bygg: Knut Aasland (KA), Ragnhild Berg (RB)', '**Fernhill:** Javier Ortega Ruiz, Nguyễn Thị Lan':
# a firm, then the people it sent
_FIRM_KEY_LINE = re.compile(r"[ \t]*(?:[-*+•][ \t]+)?(?:\*\*|__)?([^\W\d_][^:*_\n·|•]{0,60}?)(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]+\S")


_BOLD_KEY = re.compile(r"[ \t]*(?:[-*+•][ \t]+)?(?:\*\*|__)")


def _firms_people(text: str, start: int, line: str, in_list: bool, in_header: bool) -> list[Attendee]:
    """The people of an attendee line grouped by firm, each working at the firm its key names ('Client,
    Fjellheim Eiendom: Solveig Haugen (SH)' gives Fjellheim Eiendom): in an attendee list, in the
    header lines of a call's notes ('Hanbit Pay: Kim Min-seo (CTO), …'), or elsewhere where the key is
    written as a firm's name or in bold ('**Fernhill:** …'). Never a field or a role
    ('Date:', 'Chair:'), a person's label ('Priya: Sounds Good', 'Ben Ito: Product Lead') or a value
    that is no list of full names ('Kestrel: we will think about it')."""
    from pipeline.known_names import is_known_name

    match = _FIRM_KEY_LINE.match(line)
    if match is None or _is_person_field(match.group(1)) or match.group(1).lower() in EMAIL_FIELDS:
        return []
    key = (start + match.start(1), start + match.end(1))
    written = text[key[0] : key[1]]
    comma = text.rfind(",", *key)  # 'Client, Fjellheim Eiendom': what the firm is to us, then its name
    if has_legal_form(written):
        comma = -1  # 'Acme, Inc.' is one name
    firm = _trimmed(text, comma + 1 if comma >= 0 else key[0], key[1])
    value = (start + match.end() - 1, start + len(line))
    if firm is None or "(" in written or not is_list_of_names(text[value[0] : value[1]]):
        return []
    name = text[firm[0] : firm[1]]
    words = name.split()
    if (not name[0].isupper() or name.isupper() or is_job_title(name) or all(is_common_word(w.lower()) for w in words)
            or (len(words) == 1 and is_given_name(words[0].lower()))):
        return []  # a person's label ('Tom:'), a note's word ('Shortlist:', 'NB:')
    firm_shaped = has_legal_form(name) or ends_in_organisation_head(name.lower().split()) or is_known_name(name)
    # a header's one word is a firm's when no dictionary has it ('Fernhill', not 'Shortlist' or 'Mentees')
    header_firm = in_header and (len(words) > 1 or not is_common_word(words[0].lower(), get_settings().header_firm_key_max_zipf))
    if not (in_list or header_firm or firm_shaped or _BOLD_KEY.match(line)):
        return []
    people = _entries(text, *value)
    if not people or not all(_full_name_of_a_person(text[p.name[0] : p.name[1]]) for p in people):
        return []
    return [p.model_copy(update={"organisation": firm}) for p in people]


def _full_name_of_a_person(name: str) -> bool:
    """'Knut Aasland', not 'Sounds Good', 'Product Lead' or 'Revenue Growth'."""
    words = name.split()
    return (len(words) >= 2 and _a_persons_name(name) and not any(_is_role_word(w) for w in words)
            and not all(is_common_word(w.lower()) and not is_given_name(w.lower()) for w in words))


def _is_person_field(name: str) -> bool:
    """'Attendees', and one of a few roles with a qualifier before it ('Eng on-call', 'Tech lead');
    not 'Integrates with' or 'Powered by'."""
    words = name.strip().lower().split()
    if not words or " ".join(words) in PERSON_FIELDS:
        return bool(words)
    if len(words) > 3:
        return False
    if words[-1] in _MANAGING_ROLES:  # 'Project manager: Léa Dubois', not 'Package manager: Poetry'
        return words[-2] in _PEOPLE_QUALIFIERS
    return words[-1] in _QUALIFIED_ROLES


_QUALIFIED_ROLES = frozenset({"on-call", "owner", "lead", "contact", "chair", "host", "dri", "approver", "assignee"})
# Roles that are also the names of software or of bodies ('Package manager', 'Funding director'): a
# person's field only after a word that qualifies a person's job.
_MANAGING_ROLES = frozenset({"manager", "sponsor", "coordinator", "director"})
_PEOPLE_QUALIFIERS = frozenset({"project", "programme", "program", "product", "account", "engineering", "delivery",
                                "executive", "managing", "general", "technical", "site", "office", "operations",
                                "client", "team", "hiring", "release", "event", "study", "commercial", "finance"})


_FIELD_DIVIDER = re.compile(r"\s[·|•]\s")


def _field_segments(start: int, line: str) -> list[tuple[int, str]]:
    """'Owner: Kwame Asante-Boateng (Support) · Eng on-call: Aroha Ngata': fields side by side on one
    line, each with its offset in the text."""
    segments, position = [], 0
    for divider in [*_FIELD_DIVIDER.finditer(line), None]:
        end = divider.start() if divider else len(line)
        segments.append((start + position, line[position:end]))
        position = divider.end() if divider else len(line)
    return segments


def _attendee_lists(text: str, lines: list[tuple[int, str]]) -> tuple[list[Attendee], list[Span]]:
    """'Attendees: …' lines anywhere in the notes, and list items under an 'Attendees' heading or field."""
    attendees: list[Attendee] = []
    ruled: list[Span] = []
    in_list = False
    byline_lines = get_settings().byline_max_line
    for number, (start, line) in enumerate(lines):
        field = _FIELD_LINE.match(line)
        heading = _HEADING.match(line)
        if field and field.group(1).lower() in EMAIL_FIELDS:  # a forwarded mail's 'From: Sethi, Priyanka <…>'
            value = (start + field.end(), start + len(line))
            found = addressed_names(text, *value)
            attendees.extend(Attendee(name=span) for span in found)
            if found:
                ruled.append(value)
            in_list = False
            continue
        segments = _field_segments(start, line) if field and not _LIST_ITEM.match(line) else []
        if any((f := _FIELD_LINE.match(segment)) and _is_person_field(f.group(1)) for _, segment in segments):
            for segment_start, segment in segments:  # 'Date: 2 April · Reviewers: Søren Kjær (SK), …' 
                field = _FIELD_LINE.match(segment)
                if not field or not _is_person_field(field.group(1)):
                    continue
                ruled.append((segment_start + field.start(1), segment_start + field.end(1)))  # 'Attendees' is no organisation
                value = (segment_start + field.end(), segment_start + len(segment))
                found = _entries(text, *value)
                attendees.extend(found)
                if found:
                    ruled.append(value)
            in_list = not line[_FIELD_LINE.match(line).end() :].strip()
            continue
        listed = in_list and bool(_LIST_ITEM.match(line))
        grouped = _firms_people(text, start, line, listed, number < byline_lines)
        if grouped:  # '- Lund & Aas Arkitekter: Henrik Lund (HL), Maja Aas (MA)' under 'Attendees', or alone
            attendees.extend(grouped)
            ruled.append((grouped[0].name[0], start + len(line)))
            continue
        byline = _BYLINE.match(line) if number < byline_lines else None
        if byline and is_list_of_names(line[byline.end() : len(line.rstrip(" \t*_"))]):
            value = (start + byline.end(), start + len(line.rstrip(" \t*_")))
            found = [a.model_copy(update={"wrote_it": True}) for a in _entries(text, *value)
                     if _a_persons_name(text[a.name[0] : a.name[1]])]
            attendees.extend(found)
            if found:
                ruled.append(value)
            continue
        if heading and _is_person_field(heading.group(1)):
            ruled.append((start + heading.start(1), start + heading.end(1)))
            in_list = True
            continue
        if line.strip().lower() in PERSON_FIELDS:  # 'Attendees' alone on its line, a plain-text note's list
            ruled.append((start + line.index(line.strip()), start + len(line.rstrip())))
            in_list = True
            continue
        item = _LIST_ITEM.match(line)
        if in_list and item:
            entry = _entry(text, start + item.end(), start + len(line))
            if entry:
                attendees.append(entry)
                ruled.append((start + item.end(), start + len(line)))
            continue
        if in_list and line.strip():
            in_list = False
    return attendees, ruled


def table_cells(line_start: int, line: str) -> list[Span]:
    """The spans of a table row's cells (between the pipes), untrimmed."""
    pipes = [i for i, ch in enumerate(line) if ch == "|"]
    if line.strip() and not line.strip().startswith("|"):
        pipes = [-1, *pipes]
    if line.strip() and not line.strip().endswith("|"):
        pipes.append(len(line))
    return [(line_start + a + 1, line_start + b) for a, b in zip(pipes, pipes[1:])]


def _tables(text: str, lines: list[tuple[int, str]]) -> tuple[list[Attendee], list[Span]]:
    """People (and their labels and organisations) from tables whose header names a name column."""
    attendees: list[Attendee] = []
    ruled: list[Span] = []
    index = 0
    while index < len(lines):
        start, line = lines[index]
        if not line.lstrip().startswith("|"):
            index += 1
            continue
        rows: list[tuple[int, str]] = []
        while index < len(lines) and lines[index][1].lstrip().startswith("|"):
            rows.append(lines[index])
            index += 1
        header = [text[s:e].strip(" \t*_").lower() for s, e in table_cells(*rows[0])]
        roles = {column: i for i, cell in enumerate(header)
                 for column, names in (("name", NAME_COLUMNS), ("short", SHORT_COLUMNS), ("organisation", ORGANISATION_COLUMNS))
                 if cell in names}
        if "name" not in roles:
            continue
        ruled.extend(span for span in (_trimmed(text, *cell) for cell in table_cells(*rows[0])) if span)  # header cells
        for row_start, row in rows[1:]:
            if _TABLE_SEPARATOR.match(row):
                continue
            cells = table_cells(row_start, row)
            if len(cells) <= roles["name"]:
                continue
            name = _trimmed(text, *cells[roles["name"]])
            if name is None or not plausible_name(text[name[0] : name[1]]):
                continue
            attendee = Attendee(name=name)
            ruled.append(name)
            if "short" in roles and roles["short"] < len(cells):
                short = _trimmed(text, *cells[roles["short"]])
                if short and _is_short_label(text[short[0] : short[1]]):
                    attendee.short.append(short)
                    ruled.append(short)
            if "organisation" in roles and roles["organisation"] < len(cells):
                organisation = _trimmed(text, *cells[roles["organisation"]])
                if organisation and any(c.isupper() for c in text[organisation[0] : organisation[1]]):
                    attendee.organisation = organisation
                    ruled.append(organisation)
            attendees.append(attendee)
    return attendees, ruled


def _initials(name: str) -> str:
    return "".join(word[0] for word in name.split() if word[:1].isalpha()).upper()


def label_lookup(text: str, attendees: list[Attendee]) -> dict[str, int]:
    """Normalised label -> attendee: defined short labels, full names, and (when only one attendee
    has it) a first name, a last name or the initials."""
    lookup: dict[str, int] = {}
    shared: dict[str, set[int]] = {}
    for i, attendee in enumerate(attendees):
        name = text[attendee.name[0] : attendee.name[1]]
        lookup[normalise_name(name)] = i
        for s, e in attendee.short:
            lookup[normalise_name(text[s:e])] = i
        words = name.split()
        for key in {normalise_name(words[0]), normalise_name(words[-1]), normalise_name(_initials(name))}:
            shared.setdefault(key, set()).add(i)
    for key, holders in shared.items():
        if key and len(holders) == 1 and key not in lookup:
            lookup[key] = next(iter(holders))
    return lookup


def _merge_attendees(text: str, attendees: list[Attendee]) -> list[Attendee]:
    """One entry per person: the same name listed twice (an attendee line and a table) is one attendee."""
    merged: dict[str, Attendee] = {}
    for attendee in attendees:
        key = normalise_name(text[attendee.name[0] : attendee.name[1]])
        if key not in merged:
            merged[key] = attendee.model_copy(deep=True)
            continue
        kept = merged[key]
        kept.short.extend(attendee.short)
        kept.organisation = kept.organisation or attendee.organisation
    return list(merged.values())


def _clipped_name_of(text: str, key: str, people: list[Attendee]) -> int | None:
    """The one attendee whose given name a label clips: '**Seun:**' of 'Panel: Oluwaseun Adeyemi'."""
    fits = [i for i, person in enumerate(people)
            if len(words := normalise_name(text[person.name[0] : person.name[1]]).split()) >= 2
            and clipped_given_name(key, words[0])
            # a nickname ('Tom:' of Thomas Berg), or a clipped end that is no everyday word ('Seun', not 'Ward')
            and (first_names_match(key, words[0]) or not is_common_word(key))]
    return fits[0] if len(fits) == 1 else None


def read_meeting_notes(text: str) -> MeetingNotes:
    """The attendees the notes define and the speaker labels that open their lines."""
    lines = lines_with_offsets(text)
    listed, ruled = _attendee_lists(text, lines)
    tabled, table_ruled = _tables(text, lines)
    signed, signature_ruled = _signatures(text, lines)
    attendees = listed + tabled + signed  # each occurrence of a name is a mention; labels look up one per person
    people = _merge_attendees(text, attendees)
    lookup = label_lookup(text, people)
    firms = {normalise_name(text[a.organisation[0] : a.organisation[1]]) for a in attendees if a.organisation}
    labels: list[SpeakerLabel] = []
    for start, line in lines:
        match = SPEAKER_LINE.match(line)
        if not match or _is_person_field(match.group(1)) or normalise_name(match.group(1)) in firms:
            continue  # '**Fernhill:** Javier Ortega Ruiz, …' lists the firm's people; the firm says nothing
        found = lookup.get(normalise_name(match.group(1)))
        if found is None:
            found = _clipped_name_of(text, normalise_name(match.group(1)), people)
        labels.append(SpeakerLabel(span=(start + match.start(1), start + match.end(1)),
                                   person=people[found].name if found is not None else None))
    return MeetingNotes(attendees=attendees, labels=labels, ruled=ruled + table_ruled + signature_ruled)


class Group(Protocol):
    """The part of extraction's in-document group that labels are attached to."""

    certain_kind: PageKind | None
    candidate: bool
    mentions: list[EntityMention]
    kinds: Counter[PageKind]  # how often the model read each kind

    def add(self, surface: str, start: int, end: int, kind: PageKind) -> None: ...
    def absorb(self, other: Group) -> None: ...
    @property
    def kind(self) -> PageKind: ...


def _person_by_label(key: str, groups: dict[str, Group]) -> str | None:
    """The one person group a label names when the notes define no attendee by it: its first
    name, its last name or its initials."""
    fits = [
        k for k, g in groups.items()
        if g.kind is PageKind.PERSON and len(k.split()) > 1
        and (key in (k.split()[0], k.split()[-1]) or key == _initials(k).lower())
    ]
    return fits[0] if len(fits) == 1 else None


def attach_labels(text: str, notes: MeetingNotes, groups: dict[str, Group], new_group: Callable[[], Group]) -> None:
    """Apply the notes to extraction's groups (keyed by normalised name): short labels and speaker
    labels become mentions of their person, table organisations are organisations by rule, and a
    group the model made of a label alone joins the person it names."""
    def person_key(attendee: Attendee) -> str:
        return normalise_name(text[attendee.name[0] : attendee.name[1]])

    def join(span: Span, key: str) -> None:
        if key not in groups:
            return
        surface = text[span[0] : span[1]]
        label_key = normalise_name(surface)
        if label_key != key and label_key in groups and groups[label_key].certain_kind is None:
            groups[key].absorb(groups.pop(label_key))
        if not any(m.start == span[0] and m.end == span[1] for m in groups[key].mentions):
            groups[key].add(surface, span[0], span[1], PageKind.PERSON)

    for attendee in notes.attendees:
        for span in attendee.short:
            join(span, person_key(attendee))
        if attendee.organisation:
            s, e = attendee.organisation
            key = normalise_name(text[s:e])
            if key and (key not in groups or groups[key].certain_kind in (None, PageKind.ORGANISATION)):
                group = groups.setdefault(key, new_group())
                group.add(text[s:e], s, e, PageKind.ORGANISATION)
                group.certain_kind = PageKind.ORGANISATION
                group.candidate = False  # a firm by rule ('- Brattvik Bygg: Knut Aasland, …'), kept without a classifier too
    speakers = _undefined_speakers(text, notes, lambda key: _read_as_a_thing(key, groups))
    for label in notes.labels:
        label_key = normalise_name(text[label.span[0] : label.span[1]])
        if label.person is not None:
            key = normalise_name(text[label.person[0] : label.person[1]])
        else:
            key = _person_by_label(label_key, groups)
        if key is not None:
            join(label.span, key)
        elif label_key in speakers:  # 'Priya: fixed the flaky tests' in a standup no attendee list opens
            group = groups.setdefault(label_key, new_group())
            if group.certain_kind in (None, PageKind.PERSON):
                group.add(text[label.span[0] : label.span[1]], label.span[0], label.span[1], PageKind.PERSON)
                group.certain_kind = PageKind.PERSON
                group.candidate = False  # a person by rule, not a shape the classifier may drop


def _named_inside_a_line(text: str, word: str) -> bool:
    """Whether the word is also written inside a line ('… Priya asked finance'), where a capital
    says name, not only where labels stand ('Blocker:')."""
    for match in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        label = SPEAKER_LINE.match(text, line_start)
        if label is not None and label.start(1) == match.start():
            continue  # the label of a chat's line, after its time ('09:02 PagerDuty: Triggered …')
        if text[line_start : match.start()].strip(" \t-*+•>"):
            return True
    return False


def _read_as_a_thing(key: str, groups: dict[str, Group]) -> bool:
    """Whether the model read a one-word label as a firm or a tool where the notes write it ('What
    Halyard does'), or the word opens a longer name of one ('Tovar' of 'Tovar Partners')."""
    group = groups.get(key)
    if group is not None and not group.candidate and not group.kinds[PageKind.PERSON]:
        return True
    return any(k.split()[0] == key and len(k.split()) > 1 and g.kind is not PageKind.PERSON and not g.candidate
               for k, g in groups.items())


def _undefined_speakers(text: str, notes: MeetingNotes, read_as_a_thing: Callable[[str], bool]) -> set[str]:
    """Keys of the labels that are people though no attendee list defines them: one word, a
    given name the nickname data knows, or a rarer word the notes also write as a name inside a
    line and the model did not read as a thing ('Sam:', 'Priya:' beside '… Priya asked finance';
    not 'Blocker:', 'Update:', nor a slide's 'Halyard: onboarding in a day' beside 'What Halyard
    does', a product), in notes where at least two such labels speak, as in a standup or a transcript."""
    keys = set()
    for label in notes.labels:
        if label.person is not None:
            continue
        surface = text[label.span[0] : label.span[1]]
        key = normalise_name(surface)
        if " " not in surface and surface[:1].isupper() and not surface.isupper() and (
            is_given_name(key)  # 'Max:', 'Julia:', though software is called so too
            # not a bot's label, 'PagerDuty: Triggered …'
            or (not is_common_word(surface) and not is_known_name(surface) and _named_inside_a_line(text, surface)
                and not read_as_a_thing(key))
        ):
            keys.add(key)
    return keys if len(keys) >= get_settings().undefined_speakers_min else set()


def resolved_label_spans(text: str, notes: MeetingNotes) -> list[Span]:
    """Spans of the speaker labels that name a defined attendee: the model's reading of them is ignored."""
    return [label.span for label in notes.labels if label.person is not None]


def works_at_pairs(notes: MeetingNotes, mentions: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """(person entity, organisation entity) of each table row with an organisation, from the
    (start, end, entity index) of every mention."""
    entity_at = {(start, end): index for start, end, index in mentions}
    pairs: set[tuple[int, int]] = set()
    for attendee in notes.attendees:
        if attendee.organisation is None:
            continue
        person, organisation = entity_at.get(attendee.name), entity_at.get(attendee.organisation)
        if person is not None and organisation is not None and person != organisation:
            pairs.add((person, organisation))
    return sorted(pairs)

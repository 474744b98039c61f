"""People named in a document's header block: `Author:`, `Sponsor:`, `Attendees:` and the like.

Many working documents open with a block of `Field: value` lines (PEPs and RFCs, meeting notes,
YAML front matter in Markdown). The people in those fields are the most certain person mentions a
document has, and a small statistical NER model often mislabels them (an address next to a name
reads like an organisation). They are read here by rule, with exact character spans, and the
model's own entities inside the header block are ignored.

    Author: Guido van Rossum <guido@python.org>,
            Barry Warsaw <barry@python.org>
    Attendees: Priya Raman, Sam Okafor and Lee
"""

from __future__ import annotations

import re

from pydantic import BaseModel

# Header fields whose values are people (lower-cased field names).
PERSON_FIELDS = {
    "author", "authors", "by", "sponsor", "delegate", "bdfl-delegate", "pep-delegate", "editor", "editors",
    "owner", "owners", "maintainer", "maintainers", "contributor", "contributors", "reviewer", "reviewers",
    "attendee", "attendees", "participants", "present", "with", "invitees", "guests", "speakers", "panel",
    # the people a meeting or a piece of work is run by: 'Recruiter: Nadia Petrova (Talentmoor)'
    "recruiter", "recruiters", "interviewer", "interviewers", "candidate", "host", "hosts", "facilitator",
    "chair", "lead", "leads", "dri", "approver", "approvers", "assignee", "assignees", "contact", "contacts",
    "organiser", "organizer", "presenter", "presenters", "note-taker", "scribe", "on-call",
    # who else was there, or sent word they could not be: minutes of boards and committees
    "in attendance", "also present", "also attending", "apologies", "absent", "regrets",
}
# The fields that say who wrote the document (its authors, a mail's sender).
AUTHOR_FIELDS = {"author", "authors", "by", "from"}
# Mail header fields: their values are people only where an address says so ('To: All staff' is no one).
EMAIL_FIELDS = {"from", "to", "cc", "bcc", "reply-to", "sender"}
_ADDRESS = re.compile(r"<[^<>\s]+@[^<>\s]+>|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_FIELD_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9-]{0,40}):(?:[ \t]+|$)")
_CONTINUATION = re.compile(r"^[ \t]+\S")
_FRONT_MATTER_FENCE = "---"
_EMAIL = re.compile(r"<[^<>]*>|\([^()]*@[^()]*\)|\S+@\S+|\S+ at \S+\.\w+")
_PAREN_NAME = re.compile(r"^\s*\S+@\S+\s*\(([^()@]+)\)\s*$")
_SEPARATORS = re.compile(r",|;|\band\b|&")
_NAME_CHARS = re.compile(r"^[^\W\d_][\w .'’-]*$")
_MAX_HEADER_LINES = 60
_MAX_NAME_WORDS = 5


class HeaderBlock(BaseModel):
    """Where the header ends, and the people it names as (start, end) spans of the text."""

    end: int = 0
    people: list[tuple[int, int]] = []
    person_fields: list[tuple[int, int]] = []  # the value spans of the person fields
    authors: list[tuple[int, int]] = []  # the people of the author fields, as spans


# what a field says when it names no one: 'Apologies: None', 'Absent: Nil', 'Owner: TBC'
_NO_ONE = frozenset({"none", "nil", "n/a", "na", "nobody", "no one", "noone", "tbc", "tbd", "tba", "all", "everyone", "none received"})


def plausible_name(name: str) -> bool:
    """Whether a field value's piece reads as a person's name: letters, a few words, one line, a
    capital, and not a word for no one."""
    return bool(
        name.strip(" .").lower() not in _NO_ONE
        and _NAME_CHARS.match(name)
        and len(name.split()) <= _MAX_NAME_WORDS
        and "\n" not in name
        and any(ch.isupper() for ch in name)
    )


def _name_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split one field value into the spans of the names in it, addresses left out."""
    value = text[start:end]
    paren = _PAREN_NAME.match(value)
    if paren:  # "guido@python.org (Guido van Rossum)"
        return [(start + paren.start(1), start + paren.end(1))]
    spans: list[tuple[int, int]] = []
    masked = _EMAIL.sub(lambda m: " " * len(m.group()), value)
    position = 0
    for piece in [*_SEPARATORS.finditer(masked), None]:
        piece_end = piece.start() if piece else len(masked)
        raw = masked[position:piece_end]
        stripped = raw.strip(" \t\n\"'.")
        if stripped:
            offset = raw.index(stripped)
            s = start + position + offset
            e = s + len(stripped)
            name = text[s:e]
            if plausible_name(name):
                spans.append((s, e))
        position = piece.end() if piece else len(masked)
    return spans


# Words of a mailbox that is no one: 'GitHub <noreply@github.com>', 'Ops Team <ops@…>', 'All Staff <…>'.
_MAILBOX_WORDS = frozenset({"team", "staff", "all", "everyone", "support", "billing", "notifications", "notification",
                            "noreply", "no-reply", "info", "admin", "sales", "service", "services", "desk", "bot",
                            "alerts", "office", "accounts", "hr", "it", "ops", "helpdesk", "newsletter", "digest"})


def _a_persons_display_name(name: str) -> bool:
    """A display name a person has: name-like, no mailbox word, no firm's trade, no brand."""
    from pipeline.known_names import is_known_name
    from pipeline.names import ORGANISATION_HEADS, is_inverted_name

    words = [w.lower() for w in re.split(r"[\s,]+", name) if w]
    return ((plausible_name(name) or is_inverted_name(name)) and not is_known_name(name)
            and not any(w in _MAILBOX_WORDS or w in ORGANISATION_HEADS for w in words))


def addressed_names(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The people in a mail header value, each named by the text before their address: 'Sethi,
    Priyanka <priyanka@kestrava.example>; Ada Park <ada@x.example>'. The addresses divide the
    people, since a comma may be inside an inverted name; a comma between two full names ('Ada
    Park, Sam Lee <sam@…>') still divides them. Mailboxes of no one ('GitHub <noreply@…>') are left out."""
    from pipeline.names import is_inverted_name, org_base

    spans: list[tuple[int, int]] = []
    position = start
    for address in _ADDRESS.finditer(text, start, end):
        raw = text[position : address.start()]
        whole = raw.strip(" \t,;\"'")
        if whole and org_base(whole) != whole:
            position = address.end()
            continue  # 'Acme, Inc <billing@…>': a firm's legal name
        pieces = [raw] if is_inverted_name(whole) else raw.split(",")
        offset = position
        for piece in pieces:
            stripped = piece.strip(" \t,;\"'")
            if stripped and _a_persons_display_name(stripped):
                s = offset + piece.index(stripped)
                spans.append((s, s + len(stripped)))
            offset += len(piece) + 1
        position = address.end()
    return spans


def read_header(text: str) -> HeaderBlock:
    """The header block at the top of `text` (optionally inside `---` front matter), if it has one."""
    lines = text.splitlines(keepends=True)
    position = 0
    index = 0
    if lines and lines[0].strip() == _FRONT_MATTER_FENCE:
        position += len(lines[0])
        index = 1
    fields: list[tuple[str, int, int]] = []  # (field name, value start, value end)
    seen_field = False
    for line in lines[index : index + _MAX_HEADER_LINES]:
        match = _FIELD_LINE.match(line)
        if match:
            seen_field = True
            value_start = position + match.end()
            fields.append((match.group(1).lower(), value_start, position + len(line.rstrip("\r\n"))))
        elif seen_field and _CONTINUATION.match(line) and fields:
            name, value_start, _ = fields[-1]
            fields[-1] = (name, value_start, position + len(line.rstrip("\r\n")))
        else:
            break
        position += len(line)
    if len(fields) < 2:  # one "Note: ..." line is prose, not a header
        return HeaderBlock()
    person_fields = [(s, e) for name, s, e in fields if name in PERSON_FIELDS]
    people = [span for s, e in person_fields for span in _name_spans(text, s, e)]
    authors = [span for name, s, e in fields if name in AUTHOR_FIELDS and name in PERSON_FIELDS
               for span in _name_spans(text, s, e)]
    for name, s, e in fields:
        if name in EMAIL_FIELDS and (addressed := addressed_names(text, s, e)):
            person_fields.append((s, e))
            people += addressed
            authors += addressed if name in AUTHOR_FIELDS else []
    return HeaderBlock(end=position, people=people, person_fields=person_fields, authors=authors)

"""What a document's header says about its own state: `Status: Accepted`, `Decision: …`, `Owner:`,
`Due:`, `Date:` — a decision or an open item of the document itself, dated, with its source.

Many working documents open with `Field: value` lines (standards proposals and RFCs, design docs,
tickets, meeting notes, YAML front matter). Their status line is the most certain statement a
document makes about what was decided ("Status: Rejected", "Decision: go with Grafana") or what
is still open ("Status: Draft", "Status: In progress" with an `Owner:` and a `Due:`). It is read
here by rule, for any document with such a header; nothing in it is specific to one corpus.

The fact's text names the document (its `Title:` field, else its first line) and the status; it
is about the people the header names as deciders (a delegate, an approver) or, for open work,
owners; its date is the latest date the header states (when the status was last set, as near as
the header tells).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime

from pydantic import BaseModel

from graph_schema.kinds import FactKind, PageKind
from graph_schema.models import CandidateFact, DocumentEntity
from graph_schema.settings import get_settings
from pipeline.stated_dates import (
    CALENDAR_DATE, DATE_FIELDS, date_at, dated_headings, file_name_date, nearest_calendar_date, opening_date,
    parse_calendar_date, resolve_due,
)

_FIELD_LINE = re.compile(r"^(?P<name>[A-Za-z][A-Za-z0-9 _-]{0,30}?)[ \t]*:(?:[ \t]+(?P<value>\S.*?))?\s*$")
_CONTINUATION = re.compile(r"^[ \t]+\S")
_MAX_TITLE_LINES = 3  # a title (and blank lines) may stand above the fields
_MAX_HEADER_LINES = 60

# Fields whose value is the document's state, and those that name who decides or who owns the work.
STATUS_FIELDS = {"status", "state", "decision", "outcome", "resolution", "verdict"}
DECIDER_FIELDS = {"delegate", "bdfl-delegate", "pep-delegate", "decider", "deciders", "decided-by", "approver",
                  "approvers", "approved-by", "accountable"}
OWNER_FIELDS = {"owner", "owners", "assignee", "assignees", "assigned-to", "driver", "responsible"}
AUTHOR_FIELDS = {"author", "authors", "by", "written-by", "proposer", "proposers", "champion"}
DUE_FIELDS = {"due", "due-date", "deadline", "target-date", "target"}
TITLE_FIELDS = {"title", "subject", "name"}
# Fields that describe the document itself ('Type: Standards Track', 'Version: 2'): their values
# name no person, firm, tool or project.
METADATA_FIELDS = {"type", "content-type", "category", "version", "python-version", "created", "date",
                   "post-history", "status", "state", "language", "format", "requires", "replaces",
                   "superseded-by", "topic", "tags", "keywords", "license", "licence"}


def non_name_spans(text: str) -> list[tuple[int, int]]:
    """Spans of a header that name nothing: every field's name, and the values of metadata fields."""
    spans = []
    for field in header_fields(text):
        spans.append((field.start, field.value_start))
        if field.name in METADATA_FIELDS:
            spans.append((field.value_start, field.end))
    return spans
# Status words: the work is settled one way or the other, or still open. "Active" is neither: a
# standing process document, or work under way, depending on who writes it.
DECIDED = re.compile(
    r"^(?:accepted|approved|final|rejected|declined|withdrawn|superseded|replaced|obsolete|done|"
    r"closed|complete|completed|resolved|adopted|agreed|decided|signed(?:\s+off)?|shipped|released|"
    r"implemented|merged|provisional|won'?t\s+(?:do|fix)|cancell?ed|abandoned)\b",
    re.IGNORECASE,
)
OPEN = re.compile(
    r"^(?:draft|deferred|proposed|proposal|open|pending|under\s+(?:consideration|review|discussion)|"
    r"in\s+(?:progress|review|discussion)|on\s+hold|blocked|planned|todo|to\s+do|wip|new|triage|"
    r"awaiting\s+\w+|not\s+started|postponed)\b",
    re.IGNORECASE,
)
_URL = re.compile(r"^\S*https?://\S+$|^`?[^`]*<https?://[^>]+>`?_*$")


class HeaderField(BaseModel):
    name: str  # lower-cased, spaces as dashes
    value: str
    start: int  # the field line's start in the text
    value_start: int
    end: int


def _is_prose(value: str) -> bool:
    """A header value is a label, a date, a list of names; a sentence of several words ending in
    a full stop is what someone said."""
    value = value.strip()
    return value.endswith((".", "!", "?")) and len(value.split()) >= get_settings().header_prose_min_words


def header_fields(text: str) -> list[HeaderField]:
    """The `Field: value` lines at the top of the text (after a title line or `---`, if any).
    A single field counts only when it is one this module reads (one 'Note: …' line is prose)."""
    lines = text.splitlines(keepends=True)
    position, index = 0, 0
    while index < min(len(lines), _MAX_TITLE_LINES) and not _FIELD_LINE.match(lines[index]):
        position += len(lines[index])
        index += 1
    fields: list[HeaderField] = []
    for line in lines[index : index + _MAX_HEADER_LINES]:
        bare = line.rstrip("\r\n")
        match = _FIELD_LINE.match(bare)
        if match and _is_prose(match.group("value") or ""):
            break  # 'Priya: fixed the flaky tests, CI is green again.': a speaker's line, no header field
        if match and "://" not in match.group("name"):
            name = "-".join(match.group("name").lower().split())
            value = match.group("value") or ""
            value_start = position + (match.start("value") if value else len(bare))
            fields.append(HeaderField(name=name, value=value, start=position, value_start=value_start,
                                      end=position + len(bare)))
        elif fields and _CONTINUATION.match(line):
            last = fields[-1]
            fields[-1] = last.model_copy(update={"value": f"{last.value} {bare.strip()}", "end": position + len(bare)})
        else:
            break
        position += len(line)
    known = STATUS_FIELDS | DECIDER_FIELDS | OWNER_FIELDS | DUE_FIELDS | set(DATE_FIELDS)
    if len(fields) < 2 and not any(f.name in known for f in fields):
        return []
    return fields


def _field(fields: list[HeaderField], names: set[str] | tuple[str, ...]) -> HeaderField | None:
    return next((f for f in fields if f.name in names), None)


def header_dates(fields: list[HeaderField], base: datetime) -> list[date]:
    """Every calendar date the header states ('Created: 07-Feb-2003', 'Post-History: 07-Feb-2003, 11-Feb-2003')."""
    found = []
    for field in fields:
        for match in CALENDAR_DATE.finditer(field.value):
            when = parse_calendar_date(match.group(0), base)
            if when:
                found.append(when)
    return found


def document_date(fields: list[HeaderField], base: datetime) -> date | None:
    """The document's own date: its `Date:` field (or the nearest like it), parsed."""
    for name in DATE_FIELDS:
        field = _field(fields, (name,))
        if field:
            dates = [parse_calendar_date(m.group(0), base) for m in CALENDAR_DATE.finditer(field.value)]
            dates = [d for d in dates if d]
            if dates:
                return max(dates)
    return None


def _entities_in(field: HeaderField | None, entities: list[DocumentEntity]) -> list[int]:
    if field is None:
        return []
    return [i for i, e in enumerate(entities)
            if any(field.value_start <= m.start < field.end for m in e.mentions)]


def _title(fields: list[HeaderField], text: str, fallback: str) -> str:
    """'PEP 308: Conditional Expressions' — a numbering field first ('PEP: 308', 'RFC: 9110'), then the title."""
    title = _field(fields, TITLE_FIELDS)
    number = next((f for f in fields[:2] if f.value.isdigit() and len(f.name) <= 6), None)
    name = title.value if title else next((line.strip("#=-* ") for line in text.splitlines()[:_MAX_TITLE_LINES]
                                           if line.strip("#=-* ") and not _FIELD_LINE.match(line)), fallback)
    prefix = f"{number.name.upper()} {number.value}" if number else ""
    return f"{prefix}: {name}" if prefix and name else (prefix or name)


def status_fact(
    text: str, fields: list[HeaderField], entities: list[DocumentEntity], base: datetime, fallback_title: str,
) -> CandidateFact | None:
    """The header's status line as a decision (settled) or an open item (still open), or None."""
    status = _field(fields, STATUS_FIELDS)
    if status is None or _URL.match(status.value):
        status = next((f for f in fields if f.name in STATUS_FIELDS and not _URL.match(f.value)), None)
    if status is None:
        return None
    decided, still_open = DECIDED.match(status.value), OPEN.match(status.value)
    free_decision = status.name in ("decision", "outcome", "verdict") and not (decided or still_open)
    if not (decided or still_open or free_decision):
        return None
    deciders = _field(fields, DECIDER_FIELDS)
    owners = _field(fields, OWNER_FIELDS)
    due = _field(fields, DUE_FIELDS)
    decider_ids, owner_ids = _entities_in(deciders, entities), _entities_in(owners, entities)
    title = _title(fields, text, fallback_title)
    value = " ".join(status.value.split())
    if decided or free_decision:
        kind = FactKind.DECISION
        by = f", decided by {_names_of(decider_ids, entities) or deciders.value}" if deciders else ""
        said = f"{title}: {value}{by}." if decided else f"{title}: decided: {value}."
        owner = entities[decider_ids[0]].name if decider_ids else None
    else:
        kind = FactKind.ACTION if owners else FactKind.QUESTION
        who = f", owned by {_names_of(owner_ids, entities) or owners.value}" if owners else ""
        waits = f", to be decided by {_names_of(decider_ids, entities) or deciders.value}" if deciders else ""
        said = f"{title}: {value}{who}{waits}."
        owner = entities[(owner_ids or decider_ids)[0]].name if (owner_ids or decider_ids) else None
    dates = header_dates(fields, base)
    return CandidateFact(
        text=said, start=status.start, end=status.end, entities=sorted(set(decider_ids + owner_ids)),
        kind=kind, owner=owner, due=due.value if due else None, stated_on=max(dates) if dates else None,
        document_status=True,
    )


def _names_of(indexes: list[int], entities: list[DocumentEntity]) -> str:
    names = [entities[i].name for i in indexes]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


# Rulings on a proposal, by the status they give: 'Guido pronounced on this PEP', 'accepted by the
# BDFL-Delegate' for an accepted one, 'rejected by the BDFL' for a rejected one.
_RULING_FOR = {
    "accepted": re.compile(r"\b(?:accept|approv|pronounc|adopt)", re.IGNORECASE),
    "rejected": re.compile(r"\b(?:reject|declin|pronounc)", re.IGNORECASE),
}
_SETTLED_AS = {"accepted": "accepted", "approved": "accepted", "final": "accepted", "adopted": "accepted",
               "provisional": "accepted", "rejected": "rejected", "declined": "rejected"}
# The ruling is on the document itself: 'this PEP', 'the proposal', or its number ('PEP 362 was accepted').
_THE_DOCUMENT = re.compile(r"\b(?:this|the)\s+(?:PEP|RFC|proposal|spec|specification|design|document|change|request)\b",
                           re.IGNORECASE)


def _decided_by_the_body(status: CandidateFact, facts: list[CandidateFact], entities: list[DocumentEntity],
                         value: str, number: str | None) -> CandidateFact:
    """A settled status whose header names no decider, with whom the body says ruled on the
    document ('PEP 362 was accepted by Guido', 'Guido pronounced on this PEP'): the one named most
    often as a ruling's owner, where the ruling gives the status the header states ('Guido rejected
    an earlier draft' decides nothing about an accepted PEP). Unchanged when the body names none,
    or several equally, or the status is no acceptance or rejection ('Done')."""
    settled = _SETTLED_AS.get(value.split()[0].lower()) if value.split() else None
    if settled is None or "decided by" in status.text:
        return status
    ruling = _RULING_FOR[settled]
    # kinds are the model's still (typing comes later): a person or a body ('the Steering Council')
    people = {e.name: i for i, e in enumerate(entities) if e.kind in (PageKind.PERSON, PageKind.ORGANISATION)}
    rulers = Counter(f.owner for f in facts if f.kind is FactKind.DECISION and not f.document_status
                     and f.owner in people and ruling.search(f.text)
                     and (_THE_DOCUMENT.search(f.text) or (number and re.search(rf"\b{number}\b", f.text))))
    ranked = rulers.most_common(2)
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return status
    decider = ranked[0][0]
    return status.model_copy(update={
        "text": f"{status.text.removesuffix('.')}, decided by {decider}.", "owner": decider,
        "entities": sorted({*status.entities, people[decider]}),
    })


def decision_date(sentence: str, due: str | None, base: datetime) -> date | None:
    """The calendar date a decision's own sentence gives ('approved on 12 March'), not its due date
    ('agreed to ship by 14 April') nor a date it plans for ('approved, starts 2 Nov'): a date without
    a year is read as the such day nearest to `base`, and one after `base` is still to come."""
    for match in CALENDAR_DATE.finditer(sentence):
        if due and match.group(0) in due:
            continue
        found = nearest_calendar_date(match.group(0), base)
        if found and (found <= base.date() or _reported_on(sentence, match)):
            return found  # a living document's later entry: 'PEP 362 was accepted by Guido, Friday, June 22, 2012'
    return None


def _reported_on(sentence: str, date_match: re.Match) -> bool:
    """Whether a date with its year is the day a decision told as done was taken: it follows the
    decision in the same clause ('was accepted by Guido, Friday, June 22, 2012'), not a plan after
    it ('was approved; the new office opens on 1 April 2028')."""
    if not _YEAR.search(date_match.group(0)):
        return False
    reported = None
    for reported in _REPORTED_DECISION.finditer(sentence, 0, date_match.start()):
        pass
    if reported is None:
        return False
    between = sentence[reported.end() : date_match.start()]
    return len(between.split()) <= 6 and not _PLAN_WORDS.search(between)


_PLAN_WORDS = re.compile(r"[;:]|\b(?:open|opens|start|starts|begin|begins|launch|launches|scheduled|planned|due|until|"
                         r"from|effective|deadline|for|with|expires?|ends?|runs?|goes?|go-live)\b", re.IGNORECASE)


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
# A decision told as done, in the passive: a date after the document's own is when it was taken, not a plan.
_REPORTED_DECISION = re.compile(
    r"\b(?:was|were|has\s+been|have\s+been|had\s+been)\s+(?:formally\s+|finally\s+|officially\s+|first\s+)?"
    r"(?:accepted|approved|rejected|decided|adopted|signed\s+off|pronounced\s+on|withdrawn|superseded)\b",
    re.IGNORECASE)


_PAST_DATE_LABEL = CALENDAR_DATE  # a bare date as a task's due date; resolve_due gives None for one before the document


def dated_facts(
    text: str, title: str, facts: list[CandidateFact], entities: list[DocumentEntity], now: datetime,
    file_name: str = "",
) -> list[CandidateFact]:
    """The document's facts with the header's status fact in place of the header lines' own
    typing ('Resolution: <link>' is no decision), each dated by the document (the dated heading
    above it, else the document's own date) and its due date resolved from that date.

    The document's own date is its `Date:` field, else the date its file name carries, else the
    first date of its opening lines; a due date such as "16 Nov" is then read in the document's
    year, not the next one counted from the day it was uploaded."""
    fields = header_fields(text)
    settings = get_settings()
    own_date = (document_date(fields, now) or file_name_date(file_name)
                or opening_date(text, now, settings.document_date_lines, settings.document_date_line_words))
    headings = dated_headings(text, now)
    header_end = fields[-1].end if fields else 0
    kept = [f for f in facts if f.start >= header_end or (f.kind is FactKind.STATEMENT and not f.done)]
    status = status_fact(text, fields, entities, now, title)
    if status is not None and status.kind is FactKind.DECISION and status.owner is None:
        settled = _field(fields, STATUS_FIELDS)
        number = next((f.value for f in fields[:2] if f.value.isdigit()), None)  # 'PEP: 362'
        status = _decided_by_the_body(status, kept, entities, settled.value if settled else "", number)
    if status is not None and not status.entities:
        # about its authors' pages when it names no decider or owner: a fact must be about a page
        # to be kept ('PEP 234: Iterators: Final.' on Ka-Ping Yee's page and in the brief)
        status = status.model_copy(update={"entities": _entities_in(_field(fields, AUTHOR_FIELDS), entities)})
    if status is not None:
        kept.append(status)
    out = []
    for fact in kept:
        stated = fact.stated_on or date_at(fact.start, headings, own_date)
        if fact.kind is FactKind.DECISION:  # 'On 12 March the board approved the budget'
            stated = decision_date(fact.text, fact.due, datetime.combine(stated, datetime.min.time()) if stated else now) or stated
        due_on = resolve_due(fact.due, stated or now.date()) if fact.due else None
        if fact.kind is FactKind.ACTION and fact.due and due_on is None and _PAST_DATE_LABEL.fullmatch(fact.due.strip()):
            # '12 March 2004: the company listed on NASDAQ': a dated record of the past, no task
            out.append(fact.model_copy(update={"stated_on": stated, "kind": FactKind.STATEMENT, "owner": None, "due": None}))
            continue
        out.append(fact.model_copy(update={"stated_on": stated, "due_on": due_on}))
    return sorted(out, key=lambda f: f.start)

"""Dates a document states: its own date, the date of the section a sentence sits in, and what a
due date such as "before Friday" or "in two weeks" means counted from the document's date.

A decision taken at a meeting on 3 March is dated 3 March, not the day the notes were uploaded.
Where the document says when it was written (a `Date:` line, a date in its title, a dated heading
above the sentence) that date is the sentence's; relative due dates are read against it. Dates
are parsed by `dateparser` (relative expressions: "Friday", "next week", "in two weeks") and
`python-dateutil` (calendar arithmetic); only explicit calendar dates are looked for in headings,
so a word such as "may" or "now" never dates a section.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

import dateparser

from pipeline.units import is_list_item

# An explicit calendar date: "14 April", "April 14, 2026", "07-Feb-2003", "2026-03-03", "3/14/2026".
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
CALENDAR_DATE = re.compile(
    rf"\b(?:{_ORDINAL}[ -](?:of\s+)?{_MONTH}\.?(?:[ ,-]+\d{{4}})?"
    rf"|{_MONTH}\.?\s+{_ORDINAL}(?:,?\s+\d{{4}})?"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})\b",
    re.IGNORECASE,
)
# Header fields whose value is the document's own date, most telling first.
DATE_FIELDS = ("date", "meeting-date", "dated", "last-modified", "updated", "created")
_UNDERLINE = re.compile(r"^([=\-~^*])\1{2,}$")
_HEADING_MAX_WORDS = 12
_END_OF = re.compile(r"^(?:the\s+)?(?:end|close)\s+of\s+(?:the\s+)?(?P<what>.+)$", re.IGNORECASE)
_DUE_WORDS = re.compile(
    r"^(?:by|before|due(?:\s+(?:on|by))?|until|no\s+later\s+than|ahead\s+of|deadline(?:\s+is)?:?|on(?:\s+the)?)\s+",
    re.IGNORECASE,
)
_WITHIN = re.compile(r"^(?:within|in)\s+", re.IGNORECASE)
_FRIDAY = 4


def _parse(phrase: str, base: datetime, prefer: str) -> date | None:
    parsed = dateparser.parse(
        phrase, languages=["en"],
        settings={"RELATIVE_BASE": base, "PREFER_DATES_FROM": prefer, "RETURN_AS_TIMEZONE_AWARE": False},
    )
    return parsed.date() if parsed else None


def parse_calendar_date(phrase: str, base: datetime) -> date | None:
    """An explicit date as written; a date without a year is the latest such day up to `base`
    (notes dated "3 March" and read in December are of this March)."""
    if not CALENDAR_DATE.search(phrase):
        return None
    return _parse(phrase, base, "past")


def nearest_calendar_date(phrase: str, base: datetime) -> date | None:
    """An explicit date as written; a date without a year is the such day nearest to `base` (in notes
    of 20 October 2026, "starts 2 Nov" is 2 November 2026 and "from 11 Jan" in notes of 1 December is
    next January): what a sentence says happens or happened around the day it was written."""
    if not CALENDAR_DATE.search(phrase):
        return None
    before, after = _parse(phrase, base, "past"), _parse(phrase, base, "future")
    if before is None or after is None:
        return before or after
    return min((before, after), key=lambda when: abs((when - base.date()).days))


def first_calendar_date(text: str, base: datetime) -> date | None:
    """The first explicit calendar date in a line of text."""
    for match in CALENDAR_DATE.finditer(text):
        found = parse_calendar_date(match.group(0), base)
        if found:
            return found
    return None


# A date in a file name, as people name notes: '2026-11-02-weekly-sync.md', 'minutes_20261102.txt'.
_FILE_NAME_DATE = re.compile(r"(?<![\dvV.])((?:19|20)\d\d)([-_.]?)(0[1-9]|1[0-2])\2(0[1-9]|[12]\d|3[01])(?!\d)")
_DATED_SENTENCE_MAX_WORDS = 6
_FIELD_NAME = re.compile(r"^[*_]*([A-Za-z][A-Za-z ()-]{0,30}?)[*_]*\s*:")
# a field naming a date the document looks to, not its own: 'Deadline: 30 Nov', 'Next meeting: 9 Nov'
_OTHER_DATE_FIELDS = re.compile(r"\b(?:deadline|due|next|until|expir\w*|target|follow[- ]?up|review\s+by|launch|go[- ]live)\b",
                                re.IGNORECASE)


def opening_date(text: str, base: datetime, max_lines: int, max_words: int) -> date | None:
    """The first calendar date in the document's opening lines: a dated title ('# Weekly sync —
    Mon 2 Nov 2026'), a date line under it ('Wed 4 Nov 2026, 30 min'), a byline ('Prepared by …,
    10 Nov 2026'). Lines of prose longer than `max_words` are passed over."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][:max_lines]
    for line in lines:
        if is_list_item(line):
            continue  # '- 12 March 2004: the company listed': an item's date, not the document's
        field = _FIELD_NAME.match(line)
        if field and _OTHER_DATE_FIELDS.search(field.group(1)):
            continue  # 'Deadline: 30 Nov', 'Next meeting: 9 Nov': a date the document names, not its own
        if line.endswith(".") and len(line.split()) > _DATED_SENTENCE_MAX_WORDS:
            continue  # 'Next meeting is on 9 Nov in the usual room.': a sentence naming a date, not a date line
        if len(line.split()) <= max_words:
            found = first_calendar_date(line.strip("#*_ "), base)
            if found:
                return found
    return None


def file_name_date(name: str) -> date | None:
    """The date a file's name carries ('2026-11-02-weekly-sync.md'), or None."""
    match = _FILE_NAME_DATE.search(name.rsplit("/", 1)[-1])
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(3)), int(match.group(4)))
    except ValueError:
        return None


def resolve_due(due: str, base: date) -> date | None:
    """What 'before Friday', 'by the end of March' or 'in two weeks' means, counted from `base`."""
    phrase = _DUE_WORDS.sub("", " ".join(due.split()))
    when = datetime.combine(base, datetime.min.time())
    if _WITHIN.match(phrase):
        phrase = "in " + _WITHIN.sub("", phrase)
    end = _END_OF.match(phrase)
    if end:
        what = end.group("what").lower()
        if "week" in what:
            start = _parse(what, when, "future") if what != "week" else base
            start = start or base
            return start + timedelta(days=(_FRIDAY - start.weekday()) % 7)
        if what == "month":
            return base.replace(day=calendar.monthrange(base.year, base.month)[1])  # 'the end of the month'
        for prefer in ("current_period", "future"):  # 'the end of January' in November is next January's
            month = _parse(what, when, prefer)
            end_of_month = month and month.replace(day=calendar.monthrange(month.year, month.month)[1])
            if end_of_month and end_of_month >= base:
                return end_of_month
        return None
    resolved = _parse(phrase, when, "future")
    return resolved if resolved is None or resolved >= base else None


def dated_headings(text: str, base: datetime) -> list[tuple[int, date]]:
    """(offset, date) of the headings that carry a calendar date: '## 14 April', 'Meeting, 3 March 2026'
    over an underline, or a short line standing alone between blank lines. A sentence below one is
    dated by it (the nearest one above it). Wrapped prose lines are not headings, however short."""
    lines = text.splitlines(keepends=True)
    out: list[tuple[int, date]] = []
    position = 0
    for i, line in enumerate(lines):
        bare = line.strip()
        before = lines[i - 1].strip() if i else ""
        after = lines[i + 1].strip() if i + 1 < len(lines) else ""
        heading = (bare.startswith("#") or bool(_UNDERLINE.match(after))
                   or (not before and not after and len(bare.split()) <= _HEADING_MAX_WORDS and not bare.endswith(".")))
        if bare and heading:
            found = first_calendar_date(bare.strip("#* "), base)
            if found:
                out.append((position, found))
        position += len(line)
    return out


def date_at(offset: int, headings: list[tuple[int, date]], document_date: date | None) -> date | None:
    """The date of the section `offset` sits in, else the document's."""
    stated = document_date
    for at, when in headings:
        if at > offset:
            break
        stated = when
    return stated

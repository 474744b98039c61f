"""What a section of notes says its items are, and who owns a listed action.

Minutes rarely write "Sofia will …" in an action list: they write a heading ("## Action items",
"NEXT STEPS", "**Decisions**", "Open questions:") and bullets under it ("[Hunter] Add retries to
the DAG", "Mireille — chase Bluefin", "Share the mock-ups (Grace)"), or a table with Owner and Due
columns. A sentence read alone is then a plain statement; read under its heading it is an action, a
decision or an open question, and the list's markup names its owner.

- `section_kinds`: the spans of the sections whose heading names a kind of item. A heading is a
  Markdown heading, a line over an underline, a bold line, a short line in capitals, or a short
  line ending in a colon; a section runs to the next heading (one opened by a colon line ends at
  the next paragraph of prose). "Decisions requested" or "For decision" hold open questions.
- `listed_owner`: the owner a list item's markup names, with where it stands in the item.
- `action_tables`: each row of a table whose header names an owner column and an action or due
  column, with its owner and due cells.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from graph_schema.kinds import FactKind
from graph_schema.settings import get_settings
from pipeline.speakers import lines_with_offsets, table_cells

Span = tuple[int, int]

_LIST_ITEM = re.compile(r"^\s*(?:[-*+•▪◦]|\d{1,3}[.)]|\[[ xX]\])\s+")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*(?:=+|-+)\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)(?P<title>[^*_]{2,60}?)(?::)?(?:\*\*|__)\s*:?\s*$")
_COLON_LINE = re.compile(r"^\s*(?P<title>[A-Za-z][\w '’&/()-]{1,48}?)\s*:\s*$")

# A heading names a kind when its words are the kind's key words, with at most two modifiers from a
# short list ('Agreed actions', 'Next period actions', 'Key decisions') and an optional tail cut off
# ('Actions (owner, due)', 'Actions for next week', 'Next steps — Q1'). A sentence that ends in a
# key word ('The budget was agreed') or a section of finished work ('Completed actions') names none.
_HEADING_TAIL = re.compile(r"\s*(?:\(.*?\)|\s[-–—]\s.*|[–—:].*|\s(?:for|from|of|until|by|to|in|at)\s.*)$", re.IGNORECASE)
_MODIFIERS = (r"(?:(?:agreed|new|open|key|our|my|the|immediate|proposed|planned|outstanding|remaining|main|final|"
              r"next(?:\s+period|\s+week'?s?|\s+month'?s?)?|this\s+week'?s?|follow[- ]?up|team|board|meeting|sprint)\s+){0,2}")
_ACTION_HEADING = re.compile(
    rf"^{_MODIFIERS}(?:action(?:\s+(?:items?|points?|list|log|register))?|actions|ais|to-?dos?|todo\s+list|"
    r"next\s+steps?|follow[- ]?ups?|tasks|assignments|who(?:'s|’s|\s+is)?\s+doing\s+what|who\s+does\s+what|"
    r"milestones|deadlines|committed|commitments)$",  # a sprint's 'Committed: 21 pts' lists the tasks taken on
    re.IGNORECASE,
)
# 'Next' alone heads a list of tasks only as a notes line ('Next', 'Next:'), not as a document's section title.
_NEXT = re.compile(r"^next$", re.IGNORECASE)
_DECISION_HEADING = re.compile(
    rf"^{_MODIFIERS}(?:decisions?(?:\s+(?:made|taken|log|record))?|decided|agreed)$",
    re.IGNORECASE,
)
_QUESTION_HEADING = re.compile(
    r"^(?:open|open\s+(?:questions?|issues?|points?|items?|decisions?)|(?:outstanding|unresolved|remaining)\s+"
    r"(?:questions?|issues?|points?|decisions?)|(?:open\s+)?questions?|parking\s+lot|tbd|tbc|unknowns|still\s+open|"
    r"decisions?\s+(?:requested|needed|required|pending|sought|to\s+(?:make|take|be\s+made))|for\s+decision)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Section:
    start: int
    end: int
    kind: FactKind
    heading_start: int  # where its heading line starts (the heading is no item of the section)
    items: tuple[Span, ...]  # the lines it types: its list items and table rows (and, under a notes-style
    # heading, the plain lines right below it); a line of prose after them ends the section


@dataclass(frozen=True)
class TableRow:
    span: Span
    owner: Span | None
    due: Span | None
    status: Span | None = None


def _heading_title(line: str, before: str, after: str) -> tuple[str, bool] | None:
    """The title of a heading line and whether it is notes-style (a plain, capitals or colon line,
    whose plain lines below are items), or None for any other line."""
    if _LIST_ITEM.match(line) or line.lstrip().startswith("|") or not line.strip():
        return None
    match = _MARKDOWN_HEADING.match(line)
    if match:
        return match.group("title").strip(" *_:"), False
    match = _BOLD_LINE.match(line)
    if match:
        return match.group("title").strip(" *_:"), True  # '**Next**' in a note
    bare = line.strip()
    max_words = get_settings().section_heading_max_words
    if _UNDERLINE.match(after) and len(bare.split()) <= max_words * 2:
        return bare, False
    words = bare.split()
    letters = [c for c in bare if c.isalpha()]
    if (len(words) <= max_words and letters and all(c.isupper() for c in letters)
            and len(letters) >= 3 and not bare.endswith((".", ",", ";"))):
        return bare.rstrip(":"), True  # 'NEXT STEPS' in a plain-text note
    match = _COLON_LINE.match(line)
    if match and len(match.group("title").split()) <= max_words:
        return match.group("title"), True
    if (not before.strip() and after.strip() and len(words) <= max_words and bare[0].isupper()
            and not bare.endswith((".", ",", ";", "?", "!", ":"))):
        return bare, True  # a plain-text heading: a short line alone above its lines ('Next steps')
    return None


def heading_kind(title: str, notes_style: bool = True) -> FactKind | None:
    """'Action items' → action, 'Decisions' → decision, 'Open questions' or 'Decisions requested' →
    question; a heading naming two kinds ('Decisions and actions') or none → None. 'Next' alone is
    a list of tasks only in `notes_style` (a plain or colon line, not a document's section title)."""
    title = " ".join(title.strip(" #*_:.").split())
    if re.search(r"\s(?:and|&|/|\+)\s", title):
        return None  # 'Decisions and actions', 'Risks & issues': no one kind
    if _QUESTION_HEADING.match(title):
        return FactKind.QUESTION
    title = _HEADING_TAIL.sub("", title) or title
    if _ACTION_HEADING.match(title) or (notes_style and _NEXT.match(title)):
        return FactKind.ACTION
    if _DECISION_HEADING.match(title):
        return FactKind.DECISION
    return None


def _is_list_line(line: str) -> bool:
    return bool(_LIST_ITEM.match(line)) or line.lstrip().startswith("|")


def _section_items(lines: list[tuple[int, str]], first: int, plain_lines: bool) -> tuple[int, list[Span]]:
    """(end offset, item lines) of the section whose first line is `lines[first]`: its list items
    and table rows, whatever blank lines part them, and under a notes-style heading the plain lines
    of the block right below it; the first other line (prose, a closing, a quoted mail) ends it."""
    items: list[Span] = []
    in_first_block, seen = True, False
    for index in range(first, len(lines)):
        start, line = lines[index]
        if not line.strip():
            in_first_block = not seen
            continue
        before = lines[index - 1][1] if index else ""
        after = lines[index + 1][1] if index + 1 < len(lines) else ""
        if _heading_title(line, before, after) and not _is_list_line(line):
            return start, items  # the next heading ('DECISIONS', 'Decisions:', '## Risks') starts its own section
        if _is_list_line(line) or (plain_lines and in_first_block and not line.lstrip().startswith(">")):
            items.append((start, start + len(line)))
            seen = True
            continue
        return start, items
    return (lines[-1][0] + len(lines[-1][1]) if lines else 0), items


def section_kinds(text: str) -> tuple[Section, ...]:
    """The sections whose heading names what their items are, in order (read once per document:
    its units, its facts and their kinds all ask)."""
    return _section_kinds(text, get_settings().section_heading_max_words)


@lru_cache(maxsize=8)
def _section_kinds(text: str, heading_max_words: int) -> tuple[Section, ...]:
    """section_kinds, cached by the text and the setting the headings are read with."""
    lines = lines_with_offsets(text)
    sections: list[Section] = []
    index = 0
    while index < len(lines):
        start, line = lines[index]
        before = lines[index - 1][1] if index else ""
        after = lines[index + 1][1] if index + 1 < len(lines) else ""
        heading = _heading_title(line, before, after)
        kind = heading_kind(heading[0], notes_style=heading[1]) if heading else None
        if kind is None:
            index += 1
            continue
        first = index + (2 if _UNDERLINE.match(after) and not _heading_is_markup(line) else 1)
        if first >= len(lines):
            break
        end, items = _section_items(lines, first, plain_lines=heading[1])
        sections.append(Section(lines[first][0], end, kind, start, tuple(items)))
        while index < len(lines) and lines[index][0] < max(end, lines[first][0]):
            index += 1
        index = max(index, first)
    return tuple(sections)


def _heading_is_markup(line: str) -> bool:
    return bool(_MARKDOWN_HEADING.match(line) or _BOLD_LINE.match(line))


def section_breaks(text: str) -> list[int]:
    """Where no sentence may run on: the edges of a typed section's heading and of each of its item
    lines ('ACTIONS' / 'Hunter - handover by 13 Nov.' / 'Hunter - write up …' are three units,
    however the sentence splitter reads 'Nov.')."""
    breaks: set[int] = set()
    for section in section_kinds(text):
        breaks.update((section.heading_start, section.start))
        for start, end in section.items:
            breaks.update((start, end))
    return sorted(breaks)


def is_section_heading(offset: int, sections: Sequence[Section]) -> bool:
    """Whether `offset` is on the heading line of a typed section ('Agreed in the session:')."""
    return any(s.heading_start <= offset < s.start for s in sections)


def table_header_rows(text: str) -> list[Span]:
    """The first row of every table: column names, no item."""
    out, inside = [], False
    for start, line in lines_with_offsets(text):
        row = line.lstrip().startswith("|")
        if row and not inside:
            out.append((start, start + len(line)))
        inside = row
    return out


def kind_at(offset: int, sections: Sequence[Section]) -> FactKind | None:
    """The kind the section gives the item line `offset` is on, or None (no typed section, or not one of its items)."""
    return next((s.kind for s in sections for a, b in s.items if a <= offset < b), None)


def item_line_at(offset: int, sections: Sequence[Section]) -> Span | None:
    return next(((a, b) for s in sections for a, b in s.items if a <= offset < b), None)


# An owner written by a list's markup: '[Hunter] …', '@ravi …', 'Mireille — chase …', 'Owner: Ana',
# '… (Grace)', '… — Grace', '… [Tomasz]'. A name is one to four capitalised words.
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:(?:van|von|de|der|den|da|di|del|la|le|al|bin)\s+)?[A-Z][\w'’.-]*){0,3}"
_BRACKETED = re.compile(r"^\[(?P<owner>[^\W\d_][^\]\d]{0,40})\](?!\()\s*:?\s*\S")  # not a link: '[Doc](https://…)'
_STATUS_WORDS = {"done", "x", "wip", "todo", "to do", "open", "closed", "blocked", "new", "ok", "na", "n/a", "tbd",
                 "in progress", "pending", "cancelled", "canceled", "dropped"}
_HANDLE = re.compile(r"^@(?P<owner>[\w.-]{2,40})\b")
_DASHED = re.compile(rf"^(?P<owner>{_NAME}(?:\s*(?:&|and|/|,|\+)\s*{_NAME})*|me|I)\s*(?:—|–|-{{1,2}}|:)\s+\S")
_OWNER_FIELD = re.compile(rf"\b(?i:owner|owners|assignee|responsible|who)\s*[:=]\s*(?P<owner>{_NAME})")
_TRAILING = re.compile(
    rf"(?:\((?P<paren>{_NAME})(?:\s*[,;/]\s*[^)]*)?\)|\[(?P<bracket>{_NAME})\]|\s(?:—|–|--|-)\s*(?P<dash>{_NAME}))"
    r"[\s.]*$"
)


@dataclass(frozen=True)
class ListedOwner:
    name: str
    at: int  # offset in the item
    marked: bool  # brackets or a handle: an owner whatever the name is; a dash or a trailing name needs an entity


def listed_owner(item: str) -> ListedOwner | None:
    """Who a list item's markup says owns it."""
    for pattern, marked in ((_BRACKETED, True), (_HANDLE, True), (_OWNER_FIELD, True), (_DASHED, False)):
        match = pattern.search(item) if pattern is _OWNER_FIELD else pattern.match(item)
        if match and match.group("owner").strip().lower() in _STATUS_WORDS:
            return None  # '[DONE] Book the room': a status, nobody's name
        if match and pattern is _DASHED and match.group("owner").lower() in ("owner", "owners", "who"):
            continue
        if match:
            owner = match.group("owner").strip()
            if owner in ("me", "I"):
                return ListedOwner("I", match.start("owner"), True)  # 'me: ask Yusuf about the budget'
            return ListedOwner(owner, match.start("owner"), marked)
    match = _TRAILING.search(item)
    if match:
        group = next(g for g in ("paren", "bracket", "dash") if match.group(g))
        return ListedOwner(match.group(group), match.start(group), False)
    return None


_OWNER_COLUMNS = {"owner", "owners", "who", "assignee", "assigned to", "responsible", "lead", "by whom", "person"}
_DUE_COLUMNS = {"due", "due date", "deadline", "by", "by when", "when", "target", "target date", "date"}
_ACTION_COLUMNS = {"action", "actions", "task", "tasks", "action item", "action items", "next step", "next steps", "todo",
                   "what", "item", "description"}
# a decision log or an agenda has an owner column too; its rows are no tasks
_NOT_ACTION_COLUMNS = {"decision", "decisions", "decided", "outcome", "agenda", "topic", "time"}
_STATUS_COLUMNS = {"status", "state", "done", "progress"}
_SEPARATOR = re.compile(r"^[\s|:-]+$")


def _trim(text: str, span: Span) -> Span | None:
    start, end = span
    while start < end and text[start] in " \t*_":
        start += 1
    while end > start and text[end - 1] in " \t*_":
        end -= 1
    return (start, end) if end > start else None


def action_tables(text: str) -> list[TableRow]:
    """The rows of tables whose header names an owner column and an action column (not a decision
    log's or an agenda's), with their owner, due and status cells."""
    lines = lines_with_offsets(text)
    rows: list[TableRow] = []
    index = 0
    while index < len(lines):
        if not lines[index][1].lstrip().startswith("|"):
            index += 1
            continue
        table = []
        while index < len(lines) and lines[index][1].lstrip().startswith("|"):
            table.append(lines[index])
            index += 1
        header = [text[s:e].strip(" \t*_").lower() for s, e in table_cells(*table[0])]
        owner = next((i for i, cell in enumerate(header) if cell in _OWNER_COLUMNS), None)
        due = next((i for i, cell in enumerate(header) if cell in _DUE_COLUMNS), None)
        status = next((i for i, cell in enumerate(header) if cell in _STATUS_COLUMNS), None)
        if (owner is None or not any(cell in _ACTION_COLUMNS for cell in header)
                or any(cell in _NOT_ACTION_COLUMNS for cell in header)):
            continue
        for start, line in table[1:]:
            if _SEPARATOR.match(line):
                continue
            cells = table_cells(start, line)
            rows.append(TableRow(
                span=(start, start + len(line)),
                owner=_trim(text, cells[owner]) if owner < len(cells) else None,
                due=_trim(text, cells[due]) if due is not None and due < len(cells) else None,
                status=_trim(text, cells[status]) if status is not None and status < len(cells) else None,
            ))
    return rows

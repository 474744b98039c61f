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
from dataclasses import dataclass

from graph_schema.kinds import FactKind
from graph_schema.settings import get_settings
from pipeline.speakers import lines_with_offsets, table_cells

Span = tuple[int, int]

_LIST_ITEM = re.compile(r"^\s*(?:[-*+•▪◦]|\d{1,3}[.)]|\[[ xX]\])\s+")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*(?:=+|-+)\s*$")
_BOLD_LINE = re.compile(r"^\s*(?:\*\*|__)(?P<title>[^*_]{2,60}?)(?::)?(?:\*\*|__)\s*:?\s*$")
_COLON_LINE = re.compile(r"^\s*(?P<title>[A-Za-z][\w '’&/()-]{1,48}?)\s*:\s*$")

# The heading's key words end it ('Actions', 'Next period actions', 'Agreed actions'), once a
# parenthesis or a tail such as 'for next week' is cut off; 'Action plan' or 'Decision criteria'
# name no items of that kind.
_HEADING_TAIL = re.compile(r"\s*(?:\(.*?\)|\s[-–—]\s.*|[–—:].*|\s(?:for|from|of|this|next|until|by|to)\s.*)$", re.IGNORECASE)
_ACTION_HEADING = re.compile(
    r"(?:^|\s)(?:action(?:\s+(?:items?|points?|list|log|register))?|actions|ais|to-?dos?|todo\s+list|"
    r"next|next\s+steps?|follow[- ]?ups?|follow[- ]?up\s+actions?|tasks?|owners?|assignments?|"
    r"who(?:'s|’s|\s+is)?\s+doing\s+what|who\s+does\s+what|what(?:'s|’s|\s+is|\s+happens)?\s+next)$",
    re.IGNORECASE,
)
_DECISION_HEADING = re.compile(
    r"(?:^|\s)(?:decisions?(?:\s+(?:made|taken|log|record))?|decided|agreed|agreements?|resolutions?|resolved|"
    r"outcomes?)(?:\s+(?:in|at)\s+the\s+\w+)?$",
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
    prose_ends_it: bool  # opened by a colon line or a plain line: the next paragraph of prose ends it
    heading_start: int  # where its heading line starts (the heading is no item of the section)


@dataclass(frozen=True)
class TableRow:
    span: Span
    owner: Span | None
    due: Span | None


def _heading_title(line: str, before: str, after: str) -> tuple[str, bool] | None:
    """The title of a heading line (and whether prose ends its section), or None for any other line."""
    if _LIST_ITEM.match(line) or line.lstrip().startswith("|") or not line.strip():
        return None
    for pattern in (_MARKDOWN_HEADING, _BOLD_LINE):
        match = pattern.match(line)
        if match:
            return match.group("title").strip(" *_:"), False
    bare = line.strip()
    max_words = get_settings().section_heading_max_words
    if _UNDERLINE.match(after) and len(bare.split()) <= max_words * 2:
        return bare, False
    words = bare.split()
    letters = [c for c in bare if c.isalpha()]
    if (len(words) <= max_words and letters and all(c.isupper() for c in letters)
            and len(letters) >= 3 and not bare.endswith((".", ",", ";"))):
        return bare.rstrip(":"), False
    match = _COLON_LINE.match(line)
    if match and len(match.group("title").split()) <= max_words:
        return match.group("title"), True
    if (not before.strip() and after.strip() and len(words) <= max_words and bare[0].isupper()
            and not bare.endswith((".", ",", ";", "?", "!", ":"))):
        return bare, True  # a plain-text heading: a short line alone above its lines ('Next steps')
    return None


def heading_kind(title: str) -> FactKind | None:
    """'Action items' → action, 'Decisions' → decision, 'Open questions' or 'Decisions requested' →
    question; a heading naming two kinds ('Decisions and actions') or none → None."""
    title = " ".join(title.strip(" #*_:.").split())
    if re.search(r"\s(?:and|&|/|\+)\s", title):
        return None  # 'Decisions and actions', 'Risks & issues': no one kind
    if _QUESTION_HEADING.match(title):
        return FactKind.QUESTION
    title = _HEADING_TAIL.sub("", title) or title
    kinds = [kind for pattern, kind in ((_ACTION_HEADING, FactKind.ACTION), (_DECISION_HEADING, FactKind.DECISION))
             if pattern.search(title)]
    return kinds[0] if len(kinds) == 1 else None


def section_kinds(text: str) -> list[Section]:
    """The sections whose heading names what their items are, in order."""
    lines = lines_with_offsets(text)
    sections: list[Section] = []
    opened: tuple[int, int, FactKind, bool] | None = None  # (heading start, start, kind, prose ends it)
    blank_before = True
    for index, (start, line) in enumerate(lines):
        before = lines[index - 1][1] if index else ""
        after = lines[index + 1][1] if index + 1 < len(lines) else ""
        heading = _heading_title(line, before, after)
        prose_after_blank = (blank_before and line.strip() and not _LIST_ITEM.match(line)
                             and not line.lstrip().startswith("|"))
        if opened and (heading or (opened[3] and prose_after_blank)):
            sections.append(Section(opened[1], start, opened[2], opened[3], opened[0]))
            opened = None
        if heading:
            kind = heading_kind(heading[0])
            if kind is not None:
                opened = (start, start + len(line), kind, heading[1])
        blank_before = not line.strip()
    if opened:
        sections.append(Section(opened[1], len(text), opened[2], opened[3], opened[0]))
    return sections


def is_section_heading(offset: int, sections: list[Section]) -> bool:
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


def kind_at(offset: int, sections: list[Section]) -> FactKind | None:
    return next((s.kind for s in sections if s.start <= offset < s.end), None)


# An owner written by a list's markup: '[Hunter] …', '@ravi …', 'Mireille — chase …', 'Owner: Ana',
# '… (Grace)', '… — Grace', '… [Tomasz]'. A name is one to four capitalised words.
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:(?:van|von|de|der|den|da|di|del|la|le|al|bin)\s+)?[A-Z][\w'’.-]*){0,3}"
_BRACKETED = re.compile(r"^\[(?P<owner>[^\]\d][^\]]{0,40})\]\s*:?\s*\S")
_HANDLE = re.compile(r"^@(?P<owner>[\w.-]{2,40})\b")
_DASHED = re.compile(rf"^(?P<owner>{_NAME}(?:\s*(?:&|and|/|,|\+)\s*{_NAME})*|me|I)\s*(?:—|–|-{{1,2}}|:)\s+\S")
_OWNER_FIELD = re.compile(rf"\b(?:owner|owners|assignee|responsible|who)\s*[:=]\s*(?P<owner>{_NAME})", re.IGNORECASE)
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
    for pattern, marked in ((_BRACKETED, True), (_HANDLE, True), (_DASHED, False), (_OWNER_FIELD, True)):
        match = pattern.search(item) if pattern is _OWNER_FIELD else pattern.match(item)
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
_DUE_COLUMNS = {"due", "due date", "deadline", "when", "by", "by when", "target", "target date", "date"}
_ACTION_COLUMNS = {"action", "actions", "task", "tasks", "item", "action item", "what", "next step", "description", "todo"}
_SEPARATOR = re.compile(r"^[\s|:-]+$")


def _trim(text: str, span: Span) -> Span | None:
    start, end = span
    while start < end and text[start] in " \t*_":
        start += 1
    while end > start and text[end - 1] in " \t*_":
        end -= 1
    return (start, end) if end > start else None


def action_tables(text: str) -> list[TableRow]:
    """The rows of tables whose header names an owner column and an action or due column."""
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
        if owner is None or (due is None and not any(cell in _ACTION_COLUMNS for cell in header)):
            continue
        for start, line in table[1:]:
            if _SEPARATOR.match(line):
                continue
            cells = table_cells(start, line)
            rows.append(TableRow(
                span=(start, start + len(line)),
                owner=_trim(text, cells[owner]) if owner < len(cells) else None,
                due=_trim(text, cells[due]) if due is not None and due < len(cells) else None,
            ))
    return rows

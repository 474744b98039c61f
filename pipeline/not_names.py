"""Words a news-trained model reads as names in work documents, that name nothing.

Status reports, plans and minutes are full of capitalised words that are not names: a unit after
a number ('20 MW', '61% YoY', 'per MW'), a quarter ('Q3 2029'), an item's label ('R3 | Duplicate records',
'D2: Lantern phase 2 deferred'), a reference number ('ref CO-4471'), a RAG status ('AMBER',
'| Green |') and the first word of a table cell, capitalised by its place as a sentence's first
word is ('| Update landowner access status |', '| Good connector |'). Each is judged per mention:
'MW' after '20' is a unit here, whatever it is elsewhere.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graph_schema.settings import get_settings
from pipeline.known_names import is_known_name
from pipeline.names import ends_in_organisation_head, is_common_word, is_given_name
from pipeline.units import LINE_LOOKBACK, line_start_near

_NUMBER_BEFORE = re.compile(r"(?:(?:^|(?<=[\s(+~≈-]))(?P<number>\d[\d,]*(?:\.\d+)?(?P<percent>%)?)|\bper)[ \t]?$")
# A unit of measure as written after a number: an SI prefix and a base unit ('MW', 'kV', 'MWh', 'GB',
# 'ms', 'kg'); after a percentage any short word is a ratio's name ('61% YoY', '+9% QoQ').
_UNIT = re.compile(r"[kMGTPmµnc]?(?:W|Wh|V|VA|A|Ah|Hz|B|b|bps|g|m|m2|m3|s|l|L|J|Pa|t|Nm)|°[CF]|[kKM]")
_UNIT_MAX_CHARS = 4
_PERIOD = re.compile(r"Q[1-4]|FY\d{2}(?:/\d{2})?")
_CODE = re.compile(r"(?P<letters>[A-Z]{1,3})(?P<number>\d{1,3})")
_REFERENCE = re.compile(r"[A-Z]{2,}-\d{3,}")
# An item's label opens its list item, numbered line or table row and is followed by its text.
_ITEM_OPENING = re.compile(r"[ \t]*(?:[-*•][ \t]+|\|[ \t]*)?(?:\*\*)?")
# a heading's or an item's marker, not a plain line ('C11 supported compiler' is prose)
_MARKER = r"[ \t]*(?:(?:#{1,6}[ \t]+|[-*•][ \t]+|\|[ \t]*)(?:\*\*)?|\*\*)"
_HEADING_OR_ITEM_OPENING = re.compile(_MARKER)
_NUMBERED_LABEL = re.compile(rf"^{_MARKER}{_CODE.pattern}\b", re.MULTILINE)
_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z]+)")
_LABEL_AFTER = re.compile(r"(?:\*\*)?[ \t]*[:|.)]")
_RAG = frozenset({"red", "amber", "green", "rag"})
# a cell's border, bold marks and a status mark before its first word ('| 🟢 Green |', '| ✅ Done |')
_CELL_OPENING = re.compile(r"\|[ \t]*(?:\*\*)?(?:[^\w\s|*]+[ \t]*)?$")
_CELL_ALONE_AFTER = re.compile(r"(?:\*\*)?[ \t]*(?:\||$)", re.MULTILINE)
_CELL_GOES_ON = re.compile(r"[ \t]+[a-z][^|\n]{0,300}\|")
_ROW_START = re.compile(r"[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}|[ \t]*\|[ \t]*:?-+:?[ \t]*\|")  # '|---|', '|-|-|'



def in_a_header_row(text: str, position: int) -> bool:
    """Whether the line at `position` is a Markdown table's header (the next line is its rule)."""
    line_end = text.find("\n", position)
    return line_end >= 0 and bool(_TABLE_RULE.match(text, line_end + 1))


def _a_cells_only_word(text: str, surface: str, start: int, end: int, before: str) -> bool:
    """A one-word cell that is a column's label ('| Owner | Item | Due |') or a rating ('| Medium |'
    in a column of 'High', 'Medium', 'Low'): an everyday word, alone between borders, at least
    `cell_word_min_zipf` frequent. A header may name products or projects ('| Looker | Harbour |'),
    rarer words or ones Simple Icons knows; a column may name people ('| Grace |' beside '| Priya |')
    or products ('| Slack |', '| Teams |'): only a column of everyday words alone is one of values."""
    if " " in surface or not (_CELL_OPENING.search(before) and _CELL_ALONE_AFTER.match(text, end)):
        return False
    if in_a_header_row(text, start):
        return _an_everyday_word(surface) and not is_known_name(surface)
    label, values = _column(text, start)
    return (len(values) >= 2 and label.lower() not in _PEOPLE_COLUMNS and all(_an_everyday_word(v) for v in values)
            and not all(is_known_name(v) for v in values))


def _an_everyday_word(cell: str) -> bool:
    word = cell.lower()
    return (" " not in cell and word.isalpha() and not is_given_name(word)
            and is_common_word(word, get_settings().cell_word_min_zipf))


_CELL_BORDER = re.compile(r"(?<!\\)\|")  # not an escaped '\|' inside a cell


# Header labels of a column of people: '| Grace |' and '| Dean |' under 'Owner' are no ratings.
_PEOPLE_COLUMNS = frozenset({"owner", "owners", "who", "name", "names", "assignee", "assigned", "assigned to", "lead",
                             "responsible", "person", "people", "attendee", "attendees", "dri", "contact", "by"})


def _column(text: str, position: int) -> tuple[str, list[str]]:
    """The header label and the value cells of the table column that holds `position`, stripped of bold marks."""
    line_start = text.rfind("\n", 0, position) + 1
    column = len(_CELL_BORDER.findall(text, line_start, position))
    table_start = line_start
    while table_start > 0 and _ROW_START.match(text, text.rfind("\n", 0, table_start - 1) + 1):
        table_start = text.rfind("\n", 0, table_start - 1) + 1
    cells: list[str] = []
    label = ""
    for line in text[table_start:].split("\n"):
        if not _ROW_START.match(line):
            break
        if _TABLE_RULE.match(line):
            label = cells[-1] if cells else ""
            cells = []  # the header labels the column; its values are below the rule
            continue
        parts = _CELL_BORDER.split(line)
        if column < len(parts):
            cells.append(parts[column].strip(" \t*_"))
    return label, cells


@lru_cache(maxsize=8)
def _numbered_label_letters(text: str) -> frozenset[str]:
    """The letters of labels a document numbers ('O' of '## O1 …' and '## O2 …', 'KR' of '- KR1' and
    '- KR2'): a label with a number of its own among them labels an item ('- GPT4 launch went
    well' alone is a product)."""
    numbers: dict[str, set[str]] = {}
    for match in _NUMBERED_LABEL.finditer(text):
        numbers.setdefault(match.group("letters"), set()).add(match.group("number"))
    return frozenset(letters for letters, seen in numbers.items() if len(seen) >= 2)


def _a_numbered_label(text: str, words: list[str], end: int, before: str) -> bool:
    """A code that opens a heading or an item, is followed by an everyday word and is one of the
    document's numbered labels; not a firm named for its trade ('B2 Retail')."""
    if not words or not _HEADING_OR_ITEM_OPENING.fullmatch(before):
        return False
    code = _CODE.fullmatch(words[0])
    after = _WORD_AFTER.match(text, end)
    following = words[1] if len(words) > 1 else after.group(1) if after else ""
    return (code is not None and bool(following) and not is_known_name(words[0]) and is_common_word(following.lower())
            and not ends_in_organisation_head(words) and code.group("letters") in _numbered_label_letters(text))


def _a_unit_after_a_measure(before: str, surface: str) -> bool:
    """A unit after a measure: '20 MW', 'per MW', '61% YoY'; not a count of things ('3 IBM
    consultants', 'as per John', 'the 2018 FIFA World Cup')."""
    number = _NUMBER_BEFORE.search(before)
    return bool(number) and bool(_UNIT.fullmatch(surface) or number.group("percent"))


def names_nothing(text: str, start: int, end: int) -> bool:
    """Whether the mention text[start:end] is one of the non-names this module describes."""
    surface = text[start:end]
    line_start = line_start_near(text, start)
    before = text[max(0, start - LINE_LOOKBACK) if line_start is None else line_start:start]
    if len(surface) <= _UNIT_MAX_CHARS and " " not in surface and _a_unit_after_a_measure(before, surface):
        return True  # '20 MW', '61% YoY'
    if _PERIOD.fullmatch(surface) or _REFERENCE.fullmatch(surface):
        return True  # 'Q3 2029', 'FY26/27', 'ref CO-4471'
    if (_CODE.fullmatch(surface) and not is_known_name(surface)  # '- S3: bucket policy' is Amazon's
            and line_start is not None and _ITEM_OPENING.fullmatch(before) and _LABEL_AFTER.match(text, end)):
        return True  # 'R3 | …', '- D2: …'
    if line_start is not None and _a_numbered_label(text, surface.split(), end, before):
        return True  # '## O1 Make Dispatch boringly reliable' beside '## O2 …': numbered objectives, no names
    word = surface.lower()
    if word in _RAG and (surface.isupper() or (_CELL_OPENING.search(before) and _CELL_ALONE_AFTER.match(text, end))):
        return True  # 'Overall status: AMBER', '| Green |'
    if line_start is not None and _ROW_START.match(text, line_start) and _a_cells_only_word(text, surface, start, end, before):
        return True  # '| Owner | Item | Due |', '| Medium |'
    return bool(
        " " not in surface and _CELL_OPENING.search(before) and line_start is not None
        and _ROW_START.match(text, line_start) and _CELL_GOES_ON.match(text, end) and is_common_word(surface)
        and not is_known_name(surface) and not is_given_name(surface.lower())  # '| Mark to send the deck |' is Mark
    )  # '| Update landowner access status |': the cell's first word, capitalised by its place

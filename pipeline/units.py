"""Text units: where a fact may begin and end, from the document's own structure.

spaCy's sentence splitter reads a document as prose, so a Markdown heading, a `Date:` line and the
sentence under them come out as one "sentence" ("# Harbour pitch kickoff Date: 3 March Priya
Natarajan is leading…"). A heading, a list item, a table row, a `key: value` line and a paragraph
are units of their own: sentences are cut at their edges, and the markup that opens a line
("# ", "- ", "| ") is not part of the fact's text. Ordinary wrapped prose keeps its sentences
whole across line breaks.
"""

from __future__ import annotations

import re

# A line that is a unit by its shape: a Markdown heading, a list item, a table row, a key: value
# line ("Date: 3 March", "Attendees: Priya, Daniel") or a setext underline.
_HEADING = re.compile(r"#{1,6}\s")
_LIST_ITEM = re.compile(r"(?:[-*+•▪◦]|\d{1,3}[.)])\s+")
_TABLE_ROW = re.compile(r"\|")
_KEY_VALUE = re.compile(r"[A-Z][\w ./&'-]{0,30}:(?:\s|$)")
# a setext or reStructuredText underline (or overline): '=====', '-----', "", '~~~~', '^^^^'
_UNDERLINE = re.compile(r"(?:=+|-+|([`:'\"~^_*+#<>])\1{2,})\s*$")
# An email's greeting or closing line ("Hi Maya,", "Dear Dr. Okafor,", "Best,", "Kind regards,"):
# a unit of its own that says nothing; the lines after a closing are a signature, each its own unit.
_SALUTATION = re.compile(
    r"(?:(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))\b[^.!?\n]{0,40}"
    r"|(?:best|regards|kind regards|best regards|warm regards|many thanks|thanks|thank you|cheers|sincerely|"
    r"yours|yours sincerely|all the best|talk soon)(?:\s[^.!?\n]{0,30})?)[,!.]?\s*$",
    re.IGNORECASE,
)
_CLOSING = re.compile(
    r"(?:best|regards|kind regards|best regards|warm regards|many thanks|thanks|thank you|cheers|sincerely|"
    r"yours|yours sincerely|all the best|talk soon)[,!.]?\s*$",
    re.IGNORECASE,
)
# A reStructuredText simple table's border: runs of '=' for two or more columns ('=====  ====').
_TABLE_BORDER = re.compile(r"[ \t]*=+(?:[ \t]+=+)+[ \t]*$")
# Full-width sentence ends (Chinese, Japanese): the English sentence splitter reads past them.
_FULL_WIDTH_END = re.compile(r"[。！？]+")
_STRAY_OPENING = re.compile(r"[\[(\"'“‘]+")
# Minutes give several people a task each in one sentence ("Next steps: Sofia will send the list,
# Grace will check the share, and Priya will send the definitions"; "Hana to call Aarav tomorrow;
# Nadia to send the comp band today"): where two or more such clauses follow each other, each is a
# unit, with its own owner and date. One such clause alone ("In May, Smith will retire") stays whole.
_TASK_CLAUSE = re.compile(
    r"(?:^|(?<=[:;,] )|(?<=[;,] and ))(?P<actor>[A-Z][\w'’-]+(?: [A-Z][\w'’-]+)?) (?:to|will|shall|must) [a-z]"
)
_CLAUSE_TAIL = re.compile(r"[\s,;]*(?:\band)?[\s,;]*$")
# Markup that opens a unit and is not part of what it says.
_OPENING_MARKUP = re.compile(r"\s*(?:#{1,6}\s+|(?:[-*+•▪◦]|\d{1,3}[.)])\s+|\|\s*)?")


def is_underline(line: str) -> bool:
    """Whether a line underlines (or overlines) a heading."""
    return bool(line.strip()) and bool(_UNDERLINE.match(line.strip()))


def _is_structural(line: str) -> bool:
    stripped = line.strip()
    return bool(
        _HEADING.match(stripped)
        or _LIST_ITEM.match(stripped)
        or _TABLE_ROW.match(stripped)
        or _KEY_VALUE.match(stripped)
        or _UNDERLINE.match(stripped)
    )


LINE_LOOKBACK = 60  # characters before a mention that a rule reads for its line's opening


# A sentence's end, a line's start, a list item's marker ('- ', '2. ', '- [ ] ') or a table cell's border ('| ').
_SENTENCE_END = re.compile(r"(?:^|[.!?:;]['\"’”)]?\s+|\n\s*|\n[ \t>]*(?:[-*•]|\d{1,2}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?:\*\*)?"
                           r"|\|[ \t]*(?:\*\*)?)$")
_SENTENCE_LOOKBACK = 16  # chars: a nested task item's marker and its indent ('\n    - [ ] **')
# What may stand between a sentence's end and its first word: '**HM (Hana):** Hire.', '. "Acme',
# a list-table's '* - ', a dash item with no space after its marker ('-Ping Slack') and the marks
# of a quoted email ('>> Hi Mehmet,').
_OPENING_MARKS = " \t\"'‘“(*_->"
_OPENING_LOOKBACK = 40  # chars: a deeply indented line ('                  Ask Globex …')


def starts_a_sentence(text: str, start: int) -> bool:
    """Whether a sentence, a line, a list item or a table cell starts at `start`: a place where any
    word is written with a capital. A full stop with no space after it is inside a name
    ('collections.Counter'), not the end of a sentence."""
    if start == 0 or _SENTENCE_END.search(text, max(0, start - _SENTENCE_LOOKBACK), start):
        return True
    window = max(0, start - _OPENING_LOOKBACK)
    before = text[window:start].rstrip(_OPENING_MARKS)
    if not before:
        return True  # only spaces and marks since the window's start: a line's indent
    return before[-1] == "\n" or (before[-1] in ".!?:;" and len(before) < start - window)


def line_start_near(text: str, position: int, lookback: int = LINE_LOOKBACK) -> int | None:
    """Where the line holding `position` starts, when that is at most `lookback` characters back.

    Rules that read a mention's line opening read only this far: a document of one very long line
    must not cost a scan of the line per mention. None: the line starts farther back."""
    window = max(0, position - lookback)
    newline = text.rfind("\n", window, position)
    if newline >= 0:
        return newline + 1
    return 0 if window == 0 else None


def is_list_item(line: str) -> bool:
    """'- item', '* item', '1. item', '2) item': a line that is an item of a list."""
    return bool(_LIST_ITEM.match(line.strip()))


def is_salutation(line: str) -> bool:
    """Whether a line is only an email's greeting or closing ('Hi Maya,', 'Best,'): no fact."""
    stripped = line.strip()
    return bool(stripped) and len(stripped.split()) <= 6 and bool(_SALUTATION.fullmatch(stripped))


def is_closing(line: str) -> bool:
    """Whether a line is an email's closing ('Best,', 'Kind regards,'): the lines after it are a signature."""
    return bool(_CLOSING.fullmatch(line.strip()))


def unit_breaks(text: str) -> list[int]:
    """Offsets at which no sentence may continue: the edges of structural lines and blank lines,
    and the end of a full-width sentence mark."""
    breaks: set[int] = set()
    position = 0
    signature = False  # after 'Best,' each line is a unit: 'Jonas Weber', 'Head of People, Fjordline'
    in_table, borders = False, 0  # inside a reStructuredText simple table each row is a unit
    for line in text.splitlines(keepends=True):
        end = position + len(line)
        if not line.strip() or borders == 3:  # a blank line or the closing border (after the header's) ends it
            in_table, borders = False, 0
        if _TABLE_BORDER.match(line):
            in_table, borders = True, borders + 1
        if not line.strip() or _is_structural(line) or signature or is_salutation(line) or in_table:
            breaks.update((position, end))
        signature = signature or is_closing(line)
        position = end
    breaks.update(match.end() for match in _FULL_WIDTH_END.finditer(text))
    return sorted(breaks)


def split_into_units(text: str, sentences: list[tuple[int, int]], breaks: list[int]) -> list[tuple[int, int]]:
    """Cut each sentence at the breaks inside it; drop opening markup and empty pieces."""
    units: list[tuple[int, int]] = []
    cursor = 0
    for start, end in sentences:
        while cursor < len(breaks) and breaks[cursor] <= start:
            cursor += 1
        edges = [start]
        inner = cursor
        while inner < len(breaks) and breaks[inner] < end:
            edges.append(breaks[inner])
            inner += 1
        edges.append(end)
        clauses = _task_clause_starts(text, start, end)
        edges = sorted({*edges, *clauses})
        for piece_start, piece_end in zip(edges, edges[1:]):
            if piece_end in clauses:  # 'Sofia will send the list,' without its joining comma and 'and'
                piece_end = _CLAUSE_TAIL.search(text, piece_start, piece_end).start()
            piece_start = _OPENING_MARKUP.match(text, piece_start, piece_end).end()
            while piece_end > piece_start and text[piece_end - 1].isspace():
                piece_end -= 1
            if text[piece_start:piece_end].strip(" |#-*=+`:'\"~^_<>"):  # a table's border or a heading's underline says nothing
                units.append((piece_start, piece_end))
    return _join_stray_brackets(text, units)


def _leaves_a_bracket_open(unit: str) -> bool:
    return bool(_STRAY_OPENING.fullmatch(unit)) or unit.count("[") > unit.count("]") or unit.count("(") > unit.count(")")


def _task_clause_starts(text: str, start: int, end: int) -> set[int]:
    """Where the second and later of two or more task clauses of one sentence begin."""
    sentence = text[start:end]
    starts = [start + m.start("actor") for m in _TASK_CLAUSE.finditer(sentence)]
    return set(starts[1:]) if len(starts) >= 2 else set()


def _join_stray_brackets(text: str, units: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """spaCy may end a sentence right after an opening bracket ('[' | 'Hunter] Add retries',
    'rename the [' | '/] folder by Friday'): a unit that leaves a bracket open joins the unit
    after it on the same line."""
    out: list[tuple[int, int]] = []
    for start, end in units:
        if out and _leaves_a_bracket_open(text[out[-1][0] : out[-1][1]]) and "\n" not in text[out[-1][1] : start]:
            out[-1] = (out[-1][0], end)
            continue
        out.append((start, end))
    return out

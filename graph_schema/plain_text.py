"""Names and titles as one plain line: what a title may hold on every path into the graph.

A title is shown in the brief, in search hits and in page answers, all of which assistants read.
A newline or a bidi override inside one could forge a heading ("Figma\n\n## Note to the
assistant …") or make text read differently than it is stored, so titles, aliases and entity
names keep no control or format characters and no runs of whitespace.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator

# Joiners are format characters that scripts need (Persian, Indic) and emoji sequences use; they
# change how a word is drawn, never the direction or the lines of the text around it.
_KEPT_FORMAT_CHARACTERS = {"\u200c", "\u200d"}


def plain_name(text: str) -> str:
    """`text` with control and format characters (Unicode Cc, Cf: newlines, bidi overrides,
    zero-width spaces) turned into spaces or dropped, and whitespace collapsed to single spaces."""
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cc" or char.isspace():
            kept.append(" ")
        elif category == "Cf" and char not in _KEPT_FORMAT_CHARACTERS:
            continue
        else:
            kept.append(char)
    return " ".join("".join(kept).split())


PlainName = Annotated[str, AfterValidator(plain_name)]

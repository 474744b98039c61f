"""Names a text itself says are one: "Jenna Nicole Mourey (born 1986), better known by her pseudonym
Jenna Marbles", "Theodorus of Tabennese (c. 314 – 368), also known as Abba Theodorus", "Project
Halyard (a.k.a. Billing v2)", and a peer's title in apposition to a person's full name ("John
FitzGibbon, 2nd Earl of Clare") (issue 13).

Encyclopedic leads, news and notes give a thing's other names this way; each is a mention of the
thing named just before, however little the two names share.
"""

from __future__ import annotations

import re

# Spaces between the parts: a few at most (a bounded run keeps the match linear on long blanks).
_GAP = r"[ \t]{0,3}"
_ASIDE_MAX_CHARS = 200  # the longest parenthesis read past: '(born 15 September 1986 [1] [2])'
# After the first name: an optional parenthesis, then a comma or an opening parenthesis, then the
# phrase: 'better known by her pseudonym', 'also known as', 'aka', 'a.k.a.', 'formerly known as',
# 'née'. Only after a comma or a parenthesis: 'Trump nicknamed DeSantis …' is one person naming another.
# 'known by' only with the kind of name after it: in 'Acme, known by Initech as a rival' Initech is
# someone else.
_NAME_WORD = r"(?:pseudonym|stage[ \t]name|pen[ \t]name|nickname|ring[ \t]name|name)"
_KNOWN_AS = re.compile(
    rf"(?:{_GAP}\([^()\n]{{0,{_ASIDE_MAX_CHARS}}}\))?{_GAP}(?:,|\(){_GAP}"
    rf"(?:(?:(?:also|better|more|commonly|popularly|professionally|widely|simply|otherwise|formerly|later|now){_GAP})?"
    rf"known{_GAP}(?:as{_GAP}|by{_GAP}(?:his|her|their|its|the){_GAP}{_NAME_WORD}{_GAP})"
    rf"|(?:a\.?k\.?a\.?|nicknamed|n[ée]e){_GAP})",
    re.IGNORECASE,
)
# A peerage right after a person's full name and a comma is that person's title: 'Antony
# Armstrong-Jones, 1st Earl of Snowdon'. Not 'the Duke of …' (a list: 'Queen Elizabeth, the Duke of
# Edinburgh and …'), and not one the list goes on after ('…, Duke of York and Earl of …').
_PEERAGE_AFTER = re.compile(
    rf"{_GAP},{_GAP}(?P<title>(?:\d+(?:st|nd|rd|th){_GAP})?"
    rf"(?:Duke|Duchess|Marquess|Marquis|Marchioness|Earl|Countess|Count|Viscount|Viscountess|Baron|Baroness){_GAP}of"
    rf"(?:{_GAP}[A-Z][\w'’-]*(?![\w'’-]))+)(?!{_GAP}(?:and|&)\b)"
)


def alias_pairs(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs (i, j) of indexes into `spans` (name spans, sorted by start) where the text says the
    name at j is another name of the one at i."""
    starting_at = {start: k for k, (start, _) in enumerate(spans)}
    pairs: list[tuple[int, int]] = []
    for i, (_, end) in enumerate(spans):
        peerage = _PEERAGE_AFTER.match(text, end) if len(text[spans[i][0]:end].split()) >= 2 else None
        if peerage:  # every name found inside the title ('Earl', 'Snowdon') is this person's
            pairs.extend((i, k) for k, (s, e) in enumerate(spans) if peerage.start("title") <= s and e <= peerage.end())
            continue
        match = _KNOWN_AS.match(text, end)
        if not match or match.end() == end or match.end() not in starting_at:
            continue
        # one other name: in 'Robert Smith, known as Bob and Alice Jones founded …' the list is not his
        pairs.append((i, starting_at[match.end()]))
    return pairs

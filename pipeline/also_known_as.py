"""Names a text itself says are one: "Jenna Nicole Mourey (born 1986), better known by her pseudonym
Jenna Marbles", "Theodorus of Tabennese, also known as Abba Theodorus and Theodore the Sanctified",
"Project Halyard (a.k.a. Billing v2)", and a peer's title in apposition to a name ("John
FitzGibbon, 2nd Earl of Clare") (issue 13).

Encyclopedic leads, news and notes give a thing's other names this way; each is a mention of the
thing named just before, however little the two names share.
"""

from __future__ import annotations

import re

# After the first name: an optional parenthesis ('(born 15 September 1986 [1])'), a comma, then
# the phrase. 'better known by her pseudonym', 'also known as', 'aka', 'a.k.a.', 'formerly known as'.
# 'known by' only with the kind of name after it: in 'Acme, known by Initech as a rival' Initech is
# someone else.
_NAME_WORD = r"(?:pseudonym|stage[ \t]+name|pen[ \t]+name|nickname|ring[ \t]+name|name)"
_KNOWN_AS = re.compile(
    r"(?:[ \t]*\([^()\n]{0,200}\))?[ \t]*,?[ \t]*\(?"
    r"(?:(?:(?:also|better|more|commonly|popularly|professionally|widely|simply|otherwise|formerly|later|now)[ \t]+)?known[ \t]+"
    rf"(?:as[ \t]+|by[ \t]+(?:his|her|their|its|the)[ \t]+{_NAME_WORD}[ \t]+)|(?:a\.?k\.?a\.?|nicknamed|n[ée]e)[ \t]+)",
    re.IGNORECASE,
)
# A peerage after a comma is the same person's title: 'Antony Armstrong-Jones, 1st Earl of Snowdon'.
_PEERAGE_AFTER = re.compile(
    r"[ \t]*,[ \t]*(?:the[ \t]+)?(?P<title>(?:\d+(?:st|nd|rd|th)[ \t]+)?"
    r"(?:Duke|Duchess|Marquess|Marquis|Marchioness|Earl|Countess|Count|Viscount|Viscountess|Baron|Baroness)[ \t]+of"
    r"(?:[ \t]+[A-Z][\w'’-]*)+)"
)
# Between two other names: 'A and B'. Not after a comma: in 'Mourey, known as Marbles, and Julien
# went' the clause goes on with someone else.
_LIST_JOIN = re.compile(r"[ \t]+(?:and|or)[ \t]+", re.IGNORECASE)


def alias_pairs(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Pairs (i, j) of indexes into `spans` (name spans, sorted by start) where the text says the
    name at j is another name of the one at i."""
    starting_at = {start: k for k, (start, _) in enumerate(spans)}
    pairs: list[tuple[int, int]] = []
    for i, (_, end) in enumerate(spans):
        peerage = _PEERAGE_AFTER.match(text, end)
        if peerage:  # every name found inside the title ('Earl', 'Snowdon') is this person's
            pairs.extend((i, k) for k, (s, e) in enumerate(spans) if peerage.start("title") <= s and e <= peerage.end())
            continue
        match = _KNOWN_AS.match(text, end)
        if not match or match.end() == end or match.end() not in starting_at:
            continue
        j = starting_at[match.end()]
        pairs.append((i, j))
        while True:  # '…, also known as Abba Theodorus and Theodore the Sanctified'
            joined = _LIST_JOIN.match(text, spans[j][1])
            if not joined or joined.end() not in starting_at:
                break
            j = starting_at[joined.end()]
            pairs.append((i, j))
    return pairs

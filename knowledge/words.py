"""The words that say what a sentence is about, as two sentences are compared by them: does a
report of work done close an open item (the brief), do two facts say the same thing of a page
(contradictions). Function words say nothing of that; the rest are compared by their stems, so
'renewed' meets 'renews' and 'volumes' meets 'volume' (the Snowball English stemmer,
`snowballstemmer`, BSD-3-Clause)."""

from __future__ import annotations

from functools import lru_cache

# Shared by any two sentences, so they say nothing of whether two say one thing.
FUNCTION_WORDS = frozenset("""
a an the this that these those it its it's is are was were be been being am has have had having do does did
will would shall should can could may might must to of in on at by for with from as into onto about over under
and or but so if then than also still now just only already yet again very more most less much many some any
all each every both either neither other another such same own there here when where while which who whom whose
what how why we our us you your they their them he his him she her i me my mine up out off per via
after before since until till because during through between among against within upon though although whether
""".split())


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """'renewed', 'renews', 'renewing' -> 'renew'; 'volumes', 'volume' -> 'volum'. Lower-case words only."""
    return _stemmer().stemWord(word)

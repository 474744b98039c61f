"""Slugs: stable, lowercase-hyphenated page identifiers, unique per owner, never changed on rename."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")
MAX_SLUG_CHARS = 80


def slugify(text: str) -> str:
    """'Guido van Rossum' -> 'guido-van-rossum'; accents folded, anything else becomes a hyphen."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = _NON_WORD.sub("-", folded).strip("-")[:MAX_SLUG_CHARS].strip("-")
    return slug or "page"


def normalise_name(text: str) -> str:
    """The form names are compared in: case, accents, punctuation and a leading 'the' ignored."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    folded = re.sub(r"['’]s\b", "", folded)
    words = _NON_WORD.sub(" ", folded).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def unique_slug(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`… whichever is not taken yet."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"

"""Slugs, name keys and fact keys: how text is turned into identifiers and compared, in every script.

- A slug is a stable, lowercase-hyphenated ASCII page identifier, unique per owner and never changed
  on rename. Names in other scripts are transliterated with anyascii (ISC licence) so the slug stays
  readable and typeable: 'Οδυσσέας Ελύτης' -> 'odysseas-elytis', '北京大学' -> 'bei-jing-da-xue'.
- A name key is the form names are compared in. It is not transliterated: 'Ли' and 'Li' are not
  one key, as two people whose names transliterate alike must not become one page. Latin letters
  are folded to ASCII ('José' = 'Jose', 'Søren' = 'Soren'); the optional marks of Greek, Arabic and
  Hebrew (tonos, harakat, niqqud) are dropped, as the same name is written with and without them;
  every other script keeps its letters and marks, casefolded.
- A fact key is a name key of the whole sentence, so a sentence in any script has its own key.
  ASCII text keeps the key it always had, so the ids of facts already in a graph do not change.
- A fact's id is its owner and fact key hashed; a source's id its owner, kind and document key
  hashed: the pipeline, export and import derive the same ids.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from anyascii import anyascii

from graph_schema.kinds import SourceKind

_NON_WORD = re.compile(r"[^a-z0-9]+")
_POSSESSIVE = re.compile(r"['’]s\b")
# CJK ideographs transliterate to one syllable each; spaced out they give 'bei-jing', not 'beijing'.
_IDEOGRAPH = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")
# Scripts whose combining marks are optional in ordinary writing (see the module docstring).
# Latin is among them: its accents are folded away together with its other non-ASCII letters.
_OPTIONAL_MARK_SCRIPTS = frozenset({"LATIN", "GREEK", "ARABIC", "HEBREW"})
_WORD_CATEGORIES = ("L", "N", "M")  # letters, digits and the marks that are part of a word (Devanagari vowel signs)
MAX_SLUG_CHARS = 80
FALLBACK_SLUG = "page"


def slugify(text: str) -> str:
    """'Guido van Rossum' -> 'guido-van-rossum'; other scripts transliterated, anything else a hyphen.

    Never empty: a name anyascii cannot spell keeps its own letters, and one without letters or
    digits at all is 'page' (unique_slug numbers the next ones).
    """
    ascii_text = anyascii(_IDEOGRAPH.sub(r" \g<0> ", unicodedata.normalize("NFKC", text))).lower()
    slug = _clip(_NON_WORD.sub("-", ascii_text))
    return slug or _clip("-".join(normalise_name(text).split())) or FALLBACK_SLUG


def _clip(slug: str) -> str:
    return slug.strip("-")[:MAX_SLUG_CHARS].strip("-")


def normalise_name(text: str) -> str:
    """The form names are compared in: case, Latin accents, punctuation and a leading 'the' ignored."""
    if text.isascii():  # the common case, and the exact key these names always had
        words = _NON_WORD.sub(" ", _POSSESSIVE.sub("", text.lower())).split()
    else:
        folded = _POSSESSIVE.sub("", _fold_letters(text))
        words = "".join(ch if unicodedata.category(ch).startswith(_WORD_CATEGORIES) else " " for ch in folded).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def _fold_letters(text: str) -> str:
    """Casefolded text with Latin letters in ASCII and the optional marks of some scripts dropped."""
    out: list[str] = []
    script = ""
    for ch in unicodedata.normalize("NFKD", text):  # accents become separate marks
        if unicodedata.category(ch) == "Mn":
            if script not in _OPTIONAL_MARK_SCRIPTS:
                out.append(ch)
            continue
        script = unicodedata.name(ch, "").split(" ", 1)[0]
        out.append(anyascii(ch) if script == "LATIN" and not ch.isascii() else ch)  # ø -> o, ß -> ss
    return unicodedata.normalize("NFC", "".join(out)).casefold()


def fact_key(text: str) -> str:
    """The form a sentence is identified by: its name key, every script's words kept.

    A sentence with no letters or digits at all (emoji, a dash) is its casefolded text with
    whitespace collapsed, so two such sentences are still two facts.
    """
    return normalise_name(text) or " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def unique_slug(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3`… whichever is not taken yet."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def fact_id(owner: str, text: str) -> str:
    """Facts are identified by their normalised text: the same sentence in two sources is one fact.

    The key keeps the words of every script (see `fact_key`): two different Russian or Chinese
    sentences are two facts.
    """
    return "fact-" + hashlib.sha256(f"{owner}\0{fact_key(text)}".encode()).hexdigest()[:24]


def source_id_for(owner: str, kind: SourceKind, key: str) -> str:
    digest = hashlib.sha256(f"{owner}\0{kind.value}\0{key}".encode()).hexdigest()[:24]
    return f"{'doc' if kind is SourceKind.DOCUMENT else 'sub'}-{digest}"

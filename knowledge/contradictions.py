"""Contradictions scoped to a page: facts about it that cannot both hold.

Two facts of different documents conflict when they say the same thing of the same page (their content words, the page's
own name left out, mostly shared) and differ where only one can be true:
- numbers or dates in the same place ("the budget is £40,000" / "the budget is £55,000"; "launch on
  3 March" / "the launch moved to 10 March"), where a restatement ("£40k" / "£40,000") and a fact
  that says more ("£40,000, of which £10,000 spent") are no conflict;
- a negation one of them has and the other lacks ("Acme will renew" / "Acme will not renew").
A number that is part of a name ("PEP 572", "Python 3.8") is no quantity. Conflicts are flagged,
never resolved: both facts stay, newest first, with their sources and days, and the person decides.
No LLM: word overlap, read per page when it is asked for, so it always matches the facts as they are.
"""

from __future__ import annotations

import calendar
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from itertools import combinations

from graph_schema import db
from graph_schema.models import ConflictingFact, FactConflict
from graph_schema.queries.conflicts import conflict_judgements, page_facts_newest_first, page_names
from graph_schema.settings import Settings
from knowledge.words import FUNCTION_WORDS, stem

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name} | {"sept": 9}
_TOKEN = re.compile(
    r"(?P<iso>\d{4}-\d{2}-\d{2})"
    r"|(?P<number>[£$€]?\d(?:[\d,]*\d)?(?:\.\d+)?(?:%|k\b|m\b|bn\b)?)(?![\w.-]\w)"
    r"|(?P<word>[A-Za-z][\w'’-]*)"
)
# Addresses, markup and reference marks ('[4]') carry numbers that are no quantities ('…/pipermail/2012-January/115962.html').
_NOT_PROSE = re.compile(r"\b(?:https?://|www\.)\S+|<[^<>\s]*[/:@][^<>]*>|\S+@\S+\.\w+|\[#?\w*\d\w*\]")
# Code, a shell session or a traceback: its numbers are line numbers and arguments, no claims.
_CODE_SHAPE = re.compile(r">>>|==|=>|->|[{}`]|\w\(|<\w+>|\b(?:def|return|import|lambda)\b")
# Words before a year that make it a time ('founded in 2019'); elsewhere a year before a noun says
# which of several it is ('the 2022 Term election', 'the 2021 budget').
_BEFORE_A_TIME = frozenset({"in", "since", "by", "until", "till", "from", "before", "after", "during", "of", "to",
                            "around", "circa", "c", "year", "early", "late", "mid"})
_MULTIPLIERS = {"k": 1e3, "m": 1e6, "bn": 1e9, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_NEGATIONS = frozenset({"not", "no", "never", "cannot", "nor", "without"})


@dataclass
class _Value:
    kind: str  # "numbers" or "dates"
    key: tuple  # what is compared: (amount, unit) or (year, month, day) with None for what is unsaid
    written: str
    before: frozenset[str]  # content words just before it: its place in the sentence
    after: frozenset[str]


@dataclass
class _Reading:
    fact: ConflictingFact
    words: frozenset[str]
    negated: bool
    values: list[_Value] = field(default_factory=list)


def _amount(written: str, next_word: str | None) -> tuple[float, str] | None:
    unit = written[0] if written[0] in "£$€" else ""
    body = written.lstrip("£$€")
    suffix = next((s for s in ("bn", "k", "m", "%") if body.endswith(s)), "")
    body = body[: len(body) - len(suffix)] if suffix else body
    try:
        amount = float(body.replace(",", ""))
    except ValueError:
        return None
    if suffix == "%":
        unit += "%"
    elif suffix:
        amount *= _MULTIPLIERS[suffix]
    elif next_word in _MULTIPLIERS:
        amount *= _MULTIPLIERS[next_word]
    elif next_word == "percent":
        unit += "%"
    return amount, unit


def _year(token: str | None) -> int | None:
    """A year as a date writes it: four plain digits (not '£500', '1.25', '400k')."""
    return int(token) if token and token.isdigit() and len(token) == 4 and 1900 <= int(token) <= 2100 else None


def _month(token: str) -> int | None:
    """A month's name, written with its capital ('may' and 'march' are verbs too)."""
    return _MONTHS.get(token.lower()) if token[:1].isupper() else None


def _day(year: int | None, month: int, day: str) -> tuple | None:
    """(year, month, day) when it is a real day (a year left unsaid may be a leap one), else None."""
    if not day.isdigit():
        return None
    try:
        date(year or 2000, month, int(day))
    except ValueError:
        return None  # '31 February', '0 March'
    return year, month, int(day)


def _a_names_number(before: str, first: bool, number: str, name_words: frozenset[str]) -> bool:
    """'PEP 572', 'Python 3.8', 'pip 19.0': a number that is part of a name, no quantity. A word that
    opens the fact or is everyday ('In 2019', 'Budget: 40') is capitalised by its place; a version
    ('3.8') or a word in capitals ('PEP') is a name's wherever it stands."""
    if before.lower() in name_words:
        return True
    if not before[:1].isupper() or before.lower() in FUNCTION_WORDS or _month(before) or not number.replace(".", "").isdigit():
        return False
    return not first or before.isupper() or bool(re.fullmatch(r"\d+\.\d+", number))


def read_fact(fact: ConflictingFact, name_words: frozenset[str], window: int) -> _Reading:
    """The fact's content words (its page's own name left out), whether it is negated, and its values."""
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(_NOT_PROSE.sub(" ", fact.text))]
    lowered = [t.lower() for _, t in tokens]
    content: list[str] = []  # a name's number ('PEP 572') as one word
    values: list[tuple[int, int, str, tuple, str]] = []  # (first token, last token, kind, key, written)
    taken: set[int] = set()

    def token_at(i: int) -> str | None:
        return tokens[i][1] if 0 <= i < len(tokens) else None

    for i, (group, token) in enumerate(tokens):
        if i in taken:
            continue
        plain = token.replace(",", "")
        if group == "iso":
            year, month, day = (int(x) for x in token.split("-"))
            if (key := _day(_year(str(year)), month, str(day))) and key[0]:
                values.append((i, i, "dates", key, token))
        elif group == "number" and (month := _month(token_at(i + 1) or "")) and (
                key := _day(_year(token_at(i + 2)), month, plain)):  # '3 March 2026'
            last = i + 2 if key[0] else i + 1
            taken.update(range(i, last + 1))
            values.append((i, last, "dates", key, " ".join(t for _, t in tokens[i: last + 1])))
        elif group == "word" and (month := _month(token)) and (day := token_at(i + 1)) and (
                key := _day(_year(token_at(i + 2)), month, day)):  # 'March 3, 2026'
            last = i + 2 if key[0] else i + 1
            taken.update(range(i, last + 1))
            values.append((i, last, "dates", key, " ".join(t for _, t in tokens[i: last + 1])))
        elif group == "number" and _a_names_number(token_at(i - 1) or "", i == 1, plain, name_words):
            content.append(f"{lowered[i - 1]} {plain}")
        elif group == "number" and _year(plain) and i + 1 < len(tokens) and tokens[i + 1][0] == "word" \
                and (token_at(i - 1) or "").lower() not in _BEFORE_A_TIME:
            content.append(f"{plain} {lowered[i + 1]}")  # 'the 2022 Term election', 'the 2021 budget': which one
        elif group == "number" and (year := _year(plain)):
            values.append((i, i, "dates", (year, None, None), token))
        elif group == "number" and (amount := _amount(token, lowered[i + 1] if i + 1 < len(tokens) else None)):
            values.append((i, i, "numbers", amount, token))
    words_at: list[str | None] = []
    for i, (group, token) in enumerate(tokens):
        word = lowered[i].replace("’", "'")
        if group != "word" or i in taken or word in FUNCTION_WORDS or word in _NEGATIONS or word.endswith("n't") \
                or word in name_words or _month(token) or word in _MULTIPLIERS or word == "percent":
            words_at.append(None)
        else:
            words_at.append(stem(word))
    negated = any(t in _NEGATIONS or t.replace("’", "'").endswith("n't") for t in lowered)
    reading = _Reading(fact=fact, words=frozenset(w for w in [*words_at, *content] if w), negated=negated)
    if _CODE_SHAPE.search(fact.text):
        values = []
    for first, last, kind, key, written in values:
        before = frozenset(w for w in words_at[max(0, first - window): first] if w)
        after = frozenset(w for w in words_at[last + 1: last + 1 + window] if w)
        reading.values.append(_Value(kind=kind, key=key, written=written, before=before, after=after))
    return reading


def _same_day(a: tuple, b: tuple) -> bool:
    """'3 March' and '3 March 2026' are one day: what one of them leaves unsaid does not differ."""
    return all(x is None or y is None or x == y for x, y in zip(a, b, strict=True))


def _differing_values(a: _Reading, b: _Reading, kind: str, settings: Settings) -> tuple[_Value, _Value] | None:
    """A value of `kind` each fact has and the other lacks, in the same place of the sentence."""
    mine = [v for v in a.values if v.kind == kind]
    theirs = [v for v in b.values if v.kind == kind]
    if kind == "dates":
        only_mine = [v for v in mine if not any(_same_day(v.key, w.key) for w in theirs)]
        only_theirs = [w for w in theirs if not any(_same_day(v.key, w.key) for v in mine)]
    else:
        only_mine = [v for v in mine if all(v.key != w.key for w in theirs)]
        only_theirs = [w for w in theirs if all(v.key != w.key for v in mine)]
    for v in only_mine:
        for w in only_theirs:
            if not (v.before & w.before or v.after & w.after):
                continue
            if kind == "numbers" and v.key[1] == w.key[1]:
                return v, w
            if kind == "dates" and not _shifted_with_their_documents(a.fact.day, v.key, b.fact.day, w.key, settings):
                return v, w
    return None


def _shifted_with_their_documents(day_a: date | None, key_a: tuple, day_b: date | None, key_b: tuple,
                                  settings: Settings) -> bool:
    """Two documents months apart, each naming a date as far from the other's as they are from
    each other ('Voting starts on 1 December 2020' / '… 1 December 2021'): each speaks of its own
    occurrence of a recurring thing, and neither contradicts the other."""
    if day_a is None or day_b is None or None in key_a or None in key_b:
        return False  # a year alone ('founded in 2019') is no recurring day
    apart = abs((day_a - day_b).days)
    if apart < settings.contradiction_recurring_min_days:
        return False
    value_a, value_b = date(*key_a), date(*key_b)
    shift = (value_a - value_b).days * (1 if day_a >= day_b else -1)
    return abs(shift - apart) <= apart / 4 + 31


def _conflict(a: _Reading, b: _Reading, settings: Settings) -> FactConflict | None:
    # One document is one statement: its table rows and examples differ from each other by design,
    # and when it changes its mind it is edited, which retires its old facts.
    if a.fact.text.strip() == b.fact.text.strip() or set(a.fact.sources) & set(b.fact.sources):
        return None
    shared, union = a.words & b.words, a.words | b.words
    # Of the shorter fact's words, how many the other has: 'Daniel confirmed the budget is £40k'
    # says of the budget what 'the budget is £55,000 after the review' does, whoever else it names.
    overlap = len(shared) / min(len(a.words), len(b.words)) if shared else 0.0
    if len(shared) < settings.contradiction_min_shared_words or overlap < settings.contradiction_min_overlap:
        return None
    if {w for w in a.words ^ b.words if " " in w}:
        return None  # 'PEP 8103' in one, 'PEP 8102' in the other: about two numbered things
    newer, older = (a, b) if (a.fact.day or date.min) >= (b.fact.day or date.min) else (b, a)
    pair = [newer.fact, older.fact]
    for kind in ("dates", "numbers"):
        differing = _differing_values(newer, older, kind, settings)
        if differing:
            new, old = differing
            return FactConflict(kind=kind, facts=pair,
                                reason=f"The {kind} differ: {new.written!r} in the newer fact, {old.written!r} in the older.")
    same_values = {(v.kind, v.key) for v in a.values} == {(v.kind, v.key) for v in b.values}
    if a.negated != b.negated and same_values and len(shared) / len(union) >= settings.contradiction_negation_min_overlap:
        which = "newer" if newer.negated else "older"
        return FactConflict(kind="negation", facts=pair,
                            reason=f"The {which} fact says the same with a negation ('not', 'no', 'never').")
    return None


def find_conflicts(facts: list[ConflictingFact], page_name_words: set[str], settings: Settings) -> list[FactConflict]:
    """The conflicting pairs among `facts` (about one page), the newest conflict first. Only facts
    that share a content word are compared, so a page's hundreds of facts cost little."""
    name_words = frozenset(w.lower() for w in page_name_words)
    readings = [read_fact(f, name_words, settings.contradiction_slot_words) for f in facts]
    by_word: dict[str, list[int]] = defaultdict(list)
    for index, reading in enumerate(readings):
        for word in reading.words:
            by_word[word].append(index)
    # Only two facts with values, or one negated and one not, can conflict.
    pairs = {(i, j) for indexes in by_word.values() for i, j in combinations(indexes, 2)
             if (readings[i].values and readings[j].values) or readings[i].negated != readings[j].negated}
    # the newest facts' pairs first (facts come newest first), at most so many: a page of 300 weekly
    # figures would otherwise be compared 44,850 times on every read
    conflicts = [c for i, j in sorted(pairs)[: settings.contradiction_max_pairs]
                 if (c := _conflict(readings[i], readings[j], settings))]
    conflicts.sort(key=lambda c: (c.facts[0].day or date.min, c.facts[1].day or date.min), reverse=True)
    return conflicts


def _name_words(names: list[str]) -> set[str]:
    return {w.lower() for name in names for w in re.findall(r"[A-Za-z][A-Za-z'’-]*", name)}


def page_conflicts(tx: db.Tx, owner: str, slug: str, settings: Settings, visible: list[str] | None = None,
                   areas: list[str] | None = None) -> list[FactConflict]:
    """The conflicts among the page's newest `contradiction_max_facts` facts the caller may read."""
    rows = page_facts_newest_first(tx, owner, slug, settings.contradiction_max_facts, visible, areas)
    facts = [ConflictingFact(id=r["id"], text=r["text"], day=r["day"], sources=r["sources"]) for r in rows]
    found = find_conflicts(facts, _name_words(page_names(tx, owner, slug)), settings)
    return with_judgements(found, conflict_judgements(tx, owner, [(c.facts[0].id, c.facts[1].id) for c in found]))


def with_judgements(conflicts: list[FactConflict], judgements: dict[frozenset, dict]) -> list[FactConflict]:
    """Leave out the pairs an LLM judged able to both hold, and give the others its strength and
    explanation (knowledge.conflict_verdicts); pairs no model judged stay as the rules found them."""
    kept = []
    for conflict in conflicts:
        judged = judgements.get(frozenset((conflict.facts[0].id, conflict.facts[1].id)))
        if judged is None or judged["exclusive"] is None:  # no model judged it, or none gave a valid answer
            kept.append(conflict)
        elif judged["exclusive"]:
            kept.append(conflict.model_copy(update={"strength": judged["strength"], "explanation": judged["explanation"]}))
    return kept

"""Scoring the facts read from work notes: are the decisions, actions and open questions a careful
reader finds there found, of the right kind, with their owner and date?

The gold file (`facts_gold.jsonl` beside a notes set's `gold.jsonl`) lists each item once: its
file, kind, a verbatim quote that identifies it, the owner's name (a gold entity) and the date a
decision was taken or an action is due. A fact found matches an item when it comes from the same
file and its text holds the quote. A fact typed decision, action or question that matches no item
is a false find (a plain statement typed as something it is not).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from graph_schema.models import CandidateFact

KINDS = ("decision", "action", "question")
_MARKUP = re.compile(r"[*_`]+")


class FactItem(BaseModel):
    file: str
    kind: str
    quote: str
    owner: str | None = None
    due: str | None = None  # YYYY-MM-DD
    date: str | None = None  # YYYY-MM-DD


class FactsScore(BaseModel):
    items: dict[str, int]  # kind -> gold items
    found: dict[str, int]  # kind -> items found with that kind
    wrong_kind: int  # items found, typed as another kind than the gold's
    false_finds: int  # decision/action/question facts that match no item
    typed: int  # decision/action/question facts in all
    owners: tuple[int, int]  # (right, items with an owner that were found)
    dates: tuple[int, int]  # (right, decisions with a date and actions with a due date that were found)
    problems: list[str]


def load_items(path: Path) -> list[FactItem]:
    return [FactItem.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split()).lower()


def _matches(item: FactItem, fact: CandidateFact) -> bool:
    return _plain(item.quote) in _plain(fact.text)


def score_facts(items: list[FactItem], facts_by_file: dict[str, list[CandidateFact]],
                forms_of: dict[str, set[str]]) -> FactsScore:
    """`forms_of`: each gold entity's name and forms, so an owner written 'Hunter' counts for 'Hunter Okonkwo'."""
    found = dict.fromkeys(KINDS, 0)
    wrong_kind, owners, dates, problems = 0, [0, 0], [0, 0], []
    matched: set[int] = set()
    for item in items:
        facts = facts_by_file.get(item.file, [])
        hits = [f for f in facts if _matches(item, f)]
        same = [f for f in hits if f.kind.value == item.kind]
        matched |= {id(f) for f in hits}
        if not same:
            kinds = sorted({f.kind.value for f in hits})
            wrong_kind += bool(hits)
            problems.append(f"{item.kind} {'typed ' + '/'.join(kinds) if hits else 'not found'}: {item.file}: {item.quote}")
            continue
        found[item.kind] += 1
        fact = same[0]
        if item.owner:
            owners[1] += 1
            if fact.owner and fact.owner in forms_of.get(item.owner, {item.owner}):
                owners[0] += 1
            else:
                problems.append(f"owner {fact.owner!r}, not {item.owner!r}: {item.file}: {item.quote}")
        wanted, got = (item.date, fact.stated_on) if item.kind == "decision" else (item.due, fact.due_on)
        if wanted:
            dates[1] += 1
            if got and got.isoformat() == wanted:
                dates[0] += 1
            else:
                problems.append(f"date {got}, not {wanted}: {item.file}: {item.quote}")
    typed = [f for facts in facts_by_file.values() for f in facts if f.kind.value in KINDS]
    false = [f for f in typed if id(f) not in matched]
    problems += [f"false {f.kind.value}: {f.text[:120]}" for f in false]
    return FactsScore(items={k: sum(i.kind == k for i in items) for k in KINDS}, found=found,
                      wrong_kind=wrong_kind, false_finds=len(false), typed=len(typed),
                      owners=(owners[0], owners[1]), dates=(dates[0], dates[1]), problems=problems)


def format_facts_score(score: FactsScore) -> str:
    kinds = "  ".join(f"{k} {score.found[k]}/{score.items[k]}" for k in KINDS)
    total, right = sum(score.items.values()), sum(score.found.values())
    lines = [f"facts found {right}/{total}  ({kinds})  wrong kind {score.wrong_kind}  "
             f"false finds {score.false_finds}/{score.typed}  owners {score.owners[0]}/{score.owners[1]}  "
             f"dates {score.dates[0]}/{score.dates[1]}"]
    return "\n".join(lines + [f"  - {p}" for p in score.problems])

"""Scoring work notes: how many named things sit on exactly one page, of the right kind.

The gold file (`tests/data/worknotes/gold.jsonl`) lists each named thing once with its kind and
every surface form the notes name it by. A thing counts as right when exactly one page goes by
one of its forms (title, alias or a mention's surface), that page has the thing's kind, and it
goes by no form of another named thing (two things on one page are a wrong merge, not a success).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

PageNames = tuple[str, str, set[str]]  # (slug, kind, names it goes by)


class NamedThing(BaseModel):
    name: str
    kind: str
    forms: list[str]


class NotesScore(BaseModel):
    things: int
    right: int
    problems: dict[str, str]  # name -> what is wrong with it

    @property
    def share(self) -> float:
        return self.right / self.things if self.things else 0.0


def load_gold(path: Path) -> list[NamedThing]:
    return [NamedThing.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _problem(thing: NamedThing, pages: list[PageNames], owner_of_form: dict[str, str]) -> str | None:
    """Why `thing` is not on exactly one page of its own of the right kind, or None when it is."""
    holders = [(slug, kind, names) for slug, kind, names in pages if names & set(thing.forms)]
    if not holders:
        return "no page"
    if len(holders) > 1:
        return "split over " + ", ".join(f"{slug} ({kind})" for slug, kind, _ in holders)
    slug, kind, names = holders[0]
    others = sorted({owner_of_form[n] for n in names if n in owner_of_form and owner_of_form[n] != thing.name})
    if others:
        return f"{slug} also holds " + ", ".join(others)
    if kind != thing.kind:
        return f"{slug} is a {kind}, not a {thing.kind}"
    return None


def score_notes(gold: list[NamedThing], pages: list[PageNames]) -> NotesScore:
    owner_of_form = {form: thing.name for thing in gold for form in thing.forms}
    problems = {t.name: p for t in gold if (p := _problem(t, pages, owner_of_form)) is not None}
    return NotesScore(things=len(gold), right=len(gold) - len(problems), problems=problems)


def format_score(score: NotesScore) -> str:
    lines = [f"named things on exactly one page of the right kind: {score.right}/{score.things} ({score.share:.0%})"]
    lines += [f"  {name}: {problem}" for name, problem in sorted(score.problems.items())]
    return "\n".join(lines)

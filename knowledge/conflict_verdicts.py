"""An LLM's judgement of the contradictions the rules find, when an LLM is configured (issue 18 use 4).

The rules (knowledge.contradictions) flag two facts of a page whose numbers, dates or negation
differ where they say the same thing; some of those can both hold ("12 clinics in phase 1" /
"20 clinics by the end of the year"). After a run, the candidates on the most recently updated
pages that no model has judged are shown to it, each as the page's name and the two facts with
their days, and it answers whether they really cannot both hold, how strongly (0-1) and why. The
answer is kept on the pair of facts: a pair it judged compatible is no longer listed, and one it
judged exclusive is listed with its strength and explanation. Without a model, every candidate
is listed as the rules found it. Nothing is deleted either way: the person decides.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph_schema import db
from graph_schema.kinds import ENTITY_KINDS
from graph_schema.models import FactConflict, Model
from graph_schema.queries.conflicts import conflict_judgements, mark_conflict_judged, page_names, recent_pages
from graph_schema.queries.owners import bump_version, lock_graph
from graph_schema.settings import Settings
from knowledge.contradictions import page_conflicts
from knowledge.llm import LlmClient

_TASK = ("You keep a personal knowledge graph of someone's work notes. Two facts about one thing may contradict "
         "each other. Decide whether they genuinely cannot both be true at the same time: a changed figure or date "
         "for the same thing is exclusive; different things, different times, a part and a whole, or a plan and "
         "its outcome are not. Give how strongly they exclude each other (0 to 1) and a short explanation.")
_EXPLANATION_CHARS = 200


class ConflictVerdict(BaseModel):
    """The model's answer, as it must write it (a JSON object of exactly these fields)."""

    model_config = ConfigDict(extra="forbid")

    exclusive: bool
    strength: float = Field(ge=0, le=1)
    explanation: str = Field(min_length=1, max_length=_EXPLANATION_CHARS)


class JudgedConflict(Model):
    slug: str
    facts: tuple[str, str]
    exclusive: bool | None  # None: no valid answer, the pair stays as the rules found it
    explanation: str


class ConflictVerdicts(Model):
    """What the LLM answered about candidate contradictions."""

    judged: list[JudgedConflict] = Field(default_factory=list)

    def count(self, exclusive: bool | None) -> int:
        return sum(1 for j in self.judged if j.exclusive is exclusive)


def describe_conflict(title: str, conflict: FactConflict) -> str:
    """The pair as the model reads it: the page's name and the two facts with their days."""
    lines = [f"About: {title}"]
    for label, fact in zip(("Fact A", "Fact B"), conflict.facts):
        lines.append(f"{label}" + (f" ({fact.day:%d %b %Y})" if fact.day else "") + f": {fact.text}")
    return "\n".join(lines)


def _keep_judgement(tx: db.Tx, owner: str, conflict: FactConflict, answer: ConflictVerdict | None, model: str) -> bool:
    lock_graph(tx, owner)
    kept = mark_conflict_judged(
        tx, owner, conflict.facts[0].id, conflict.facts[1].id, answer.exclusive if answer else None,
        answer.strength if answer else None, answer.explanation if answer else "the model gave no valid answer", model)
    if kept and answer is not None:
        bump_version(tx, owner)  # get_page, compile and find_contradictions now list the pair otherwise
    return kept


def judge_conflicts(graph: db.GraphSession, owner: str, settings: Settings, client: LlmClient) -> ConflictVerdicts:
    """Ask the model about the candidate contradictions no model has been asked about on the
    `llm_conflict_max_pages` most recently updated pages (at most `llm_conflict_max_pairs`), and
    keep each answer, a missing one too, so a pair is asked about once (two calls when the first
    answer is not valid); the calls are counted on `client.usage`."""
    verdicts = ConflictVerdicts()
    kinds = [k.value for k in ENTITY_KINDS]
    for slug in graph.read(recent_pages, owner, kinds, settings.llm_conflict_max_pages):
        if len(verdicts.judged) >= settings.llm_conflict_max_pairs:
            break
        found = graph.read(page_conflicts, owner, slug, settings)
        asked = graph.read(conflict_judgements, owner, [(c.facts[0].id, c.facts[1].id) for c in found])
        unasked = [c for c in found if frozenset((c.facts[0].id, c.facts[1].id)) not in asked]
        if not unasked:
            continue
        names = graph.read(page_names, owner, slug)
        for conflict in unasked[: settings.llm_conflict_max_pairs - len(verdicts.judged)]:
            if why := client.unavailable():
                client.fall_back(why)
                return verdicts
            answer = client.ask(_TASK, describe_conflict(names[0] if names else slug, conflict), ConflictVerdict)
            if answer is None and client.unavailable():  # a failed call or the cap: asked again next run
                return verdicts
            graph.write(_keep_judgement, owner, conflict, answer, settings.llm_model or "")
            verdicts.judged.append(JudgedConflict(
                slug=slug, facts=(conflict.facts[0].id, conflict.facts[1].id),
                exclusive=answer.exclusive if answer else None,
                explanation=answer.explanation if answer else "the model gave no valid answer"))
    return verdicts

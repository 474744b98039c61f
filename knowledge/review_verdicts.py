"""An LLM's verdict on the pairs resolution left for review (POSSIBLY_SAME), when one is configured.

Each pair is shown to the model as the two pages' names, kinds and first few facts, and it answers
same, different or unsure with a reason:
- same: the page with fewer facts is folded into the other, as `subtext merge --apply` folds it,
  with the verdict's reason on the fold's record;
- different: remembered as a 'not the same' answer, so the pair is never proposed again;
- unsure, or no valid answer: the pair stays for the person (`subtext review`).
The model only ever answers about the one pair it is shown, so nothing a document says can make
it touch any other page.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graph_schema import db
from graph_schema.models import Model
from graph_schema.errors import InvalidRequest
from graph_schema.kinds import ENTITY_KINDS
from graph_schema.queries import review
from graph_schema.queries.owners import lock_graph
from graph_schema.queries.review import pages_described
from graph_schema.settings import Settings
from knowledge.llm import LlmClient
from knowledge.page_merges import ReviewPair, list_review_pairs, mark_not_same, merge_pages, refresh_merged_vector
from knowledge.types import Embed

_TASK = ("You keep a personal knowledge graph. Two of its pages may describe the same real-world thing under "
         "different names. Decide from their names, kinds and facts whether they are the same thing. Answer "
         "'same' only when the facts make it clear, 'different' when they clearly describe different things, "
         "otherwise 'unsure'. Give a short reason.")
_REASON_CHARS = 200


class PairVerdict(BaseModel):
    """The model's answer, as it must write it (a JSON object of exactly these fields)."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal["same", "different", "unsure"]
    reason: str = Field(min_length=1, max_length=_REASON_CHARS)


class JudgedPair(Model):
    slug: str
    other_slug: str
    verdict: Literal["same", "different", "unsure", "no answer"]
    reason: str
    kept: str | None = None  # the page the pair now is, when it was merged


class ReviewVerdicts(Model):
    """What the LLM answered about the review pairs, and what was done with each answer."""

    judged: list[JudgedPair] = Field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(1 for pair in self.judged if pair.verdict == verdict)


def describe_pair(pair: ReviewPair, pages: dict[str, dict]) -> str:
    """The pair as the model reads it: each page's title, kind, other names and facts."""
    parts = []
    for label, slug in (("Page A", pair.page.slug), ("Page B", pair.other.slug)):
        page = pages[slug]
        lines = [f"{label}: {page['title']} (a {page['kind']})"]
        if page["aliases"]:
            lines.append("Also called: " + ", ".join(page["aliases"][:5]))
        lines += [f"- {fact}" for fact in page["facts"]]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def act_on_verdict(tx: db.Tx, owner: str, pair: ReviewPair, answer: PairVerdict | None, model: str) -> str | None:
    """Do what the answer says, in one transaction under the person's write lock, only if the pair
    is still open (no page of it was folded and nobody answered it since it was read). Returns the
    page kept after a merge, else None."""
    lock_graph(tx, owner)
    if not review.pair_is_open(tx, owner, pair.page.slug, pair.other.slug):
        return None
    if answer is None or answer.verdict == "unsure":
        review.mark_asked(tx, owner, pair.page.slug, pair.other.slug, answer.verdict if answer else None,
                          answer.reason if answer else None)
        return None
    if answer.verdict == "different":
        mark_not_same(tx, owner, pair.page.slug, pair.other.slug, by=model)
        return None
    into, away = (pair.page, pair.other) if pair.facts >= pair.other_facts else (pair.other, pair.page)
    merge_pages(tx, owner, away.slug, into.slug, True, f"merged on {model}'s verdict: {answer.reason}")
    return into.slug


def _mark_unsure(tx: db.Tx, owner: str, pair: ReviewPair, reason: str) -> None:
    lock_graph(tx, owner)
    review.mark_asked(tx, owner, pair.page.slug, pair.other.slug, "unsure", reason)


def judge_review_pairs(graph: db.GraphSession, owner: str, settings: Settings, client: LlmClient,
                       embed: Embed) -> ReviewVerdicts:
    """Ask the model about the strongest open review pairs (at most `llm_review_max_pairs`; a pair
    it gave no valid answer on is asked at most `llm_review_max_attempts` times in all) and act on
    each answer; the calls are counted on `client.usage`."""
    verdicts = ReviewVerdicts()
    merged: set[str] = set()  # pages folded away this round: their pairs moved, the next run asks
    pairs = graph.read(list_review_pairs, owner, settings.llm_review_max_pairs, True, settings.llm_review_max_attempts)
    for pair in pairs:
        if pair.page.slug in merged or pair.other.slug in merged:
            continue
        if not {pair.page.kind, pair.other.kind} <= set(ENTITY_KINDS):
            continue  # your own page and focus areas are never merged: nothing to ask
        if why := client.unavailable():  # the pairs left are not the model's to lose attempts on
            client.fall_back(why)
            break
        pages = graph.read(pages_described, owner, [pair.page.slug, pair.other.slug], settings.llm_review_facts_per_page)
        if len(pages) < 2:
            continue
        answer = client.ask(_TASK, describe_pair(pair, pages), PairVerdict)
        if answer is None and client.broken:  # the call failed: not this pair's attempt
            verdicts.judged.append(JudgedPair(slug=pair.page.slug, other_slug=pair.other.slug, verdict="no answer",
                                              reason=client.broken[:_REASON_CHARS]))
            break
        try:
            kept = graph.write(act_on_verdict, owner, pair, answer, settings.llm_model or "")
        except InvalidRequest as refused:  # a merge the rules refuse: the pair stays for the person
            answer = PairVerdict(verdict="unsure", reason=f"not merged: {refused}"[:_REASON_CHARS])
            graph.write(_mark_unsure, owner, pair, answer.reason)
            kept = None
        if kept:
            refresh_merged_vector(graph, owner, kept, settings, embed)
            merged.add(pair.other.slug if kept == pair.page.slug else pair.page.slug)
        verdicts.judged.append(JudgedPair(
            slug=pair.page.slug, other_slug=pair.other.slug, verdict=answer.verdict if answer else "no answer",
            reason=answer.reason if answer else "the model gave no valid answer; the pair stays for review",
            kept=kept))
    return verdicts

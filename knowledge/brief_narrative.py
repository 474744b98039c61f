"""The brief as prose, written by the optional LLM from the brief's own statements only.

The structured brief (knowledge.brief) is made first, without an LLM, as always. With one
configured, the model is shown those statements, numbered, and writes a few sentences, each citing
the numbers of the statements it rests on. A sentence that cites none of them, or a number that is
not one of them, is dropped whole, so every sentence kept is traceable to its statements and through them
to their pages and documents. When no sentence survives, or the model gives no valid answer, the
brief has no narrative and reads as it does without an LLM.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from graph_schema.settings import Settings
from knowledge.compile import tokens_of
from knowledge.llm import LlmClient
from knowledge.types import BriefView

_TASK = ("You write the opening brief of a person's knowledge graph for their AI assistant: a few plain sentences "
         "on who they are, what they are working on, what was decided, what is open and who matters. Use only the "
         "numbered statements you are given; add nothing they do not say. End each sentence's 'statements' with the "
         "numbers of the statements it rests on.")
_WRITTEN_CITATION = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_MAX_SENTENCES = 8
_SENTENCE_CHARS = 300


class NarrativeSentence(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=_SENTENCE_CHARS)
    statements: list[int] = Field(min_length=1, max_length=6)


class Narrative(BaseModel):
    """The model's answer, as it must write it."""

    model_config = ConfigDict(extra="forbid")

    sentences: list[NarrativeSentence] = Field(min_length=1, max_length=_MAX_SENTENCES)


def narrate_brief(brief: BriefView, client: LlmClient, settings: Settings) -> str | None:
    """The brief's statements as prose, each sentence ending with the statements it cites ('[1, 3]'),
    within the brief's token budget; None when the model gave nothing traceable."""
    if not brief.lines:
        return None
    return narrate(_TASK, [line.text for line in brief.lines], client, settings, settings.brief_token_budget,
                   "no sentence of the narrative cited a statement of the brief")


def narrate(task: str, statements: list[str], client: LlmClient, settings: Settings, budget: int,
            nothing_cited: str) -> str | None:
    """Prose the model writes from `statements` (shown numbered from 1) for `task`: the sentences that
    cite only real statements, within `budget` tokens; None when it gave nothing traceable (counted
    as a fall-back, `nothing_cited` saying why, when it answered)."""
    numbered = "\n".join(f"[{n}] {text}" for n, text in enumerate(statements, start=1))
    # room for the JSON around sentences as long as the brief itself may be
    answer = client.ask(task, numbered, Narrative, max_tokens=settings.llm_max_output_tokens + 2 * settings.brief_token_budget)
    if answer is None:
        return None
    kept = traceable_sentences(answer, len(statements), settings, budget)
    if not kept:
        return client.fall_back(nothing_cited)
    return " ".join(kept)


def traceable_sentences(answer: Narrative, statements: int, settings: Settings, budget: int | None = None) -> list[str]:
    """The sentences that cite only real statements (numbered from 1), each ending with what it
    cites, as many as fit `budget` tokens (the brief's token budget by default). A sentence citing
    a number that is no statement is left out whole: what it says may be invented. Numbers it
    writes in its own text go."""
    budget = settings.brief_token_budget if budget is None else budget
    kept: list[str] = []
    for sentence in answer.sentences:
        cited = sorted(set(sentence.statements))
        text = " ".join(_WRITTEN_CITATION.sub("", sentence.text).split())
        if not text or not all(1 <= n <= statements for n in cited):
            continue  # not traceable to the brief: left out
        written = f"{text} [{', '.join(map(str, cited))}]"
        if tokens_of(" ".join([*kept, written]), settings.chars_per_token) > budget:
            break
        kept.append(written)
    return kept

"""Scoring entity extraction, typing and resolution on body-text gold (GUM, SoftNER).

A corpus in the GUM layout (`docs/*.txt` and `gold.jsonl` with character-offset gold mentions, see
`../shared/corpora/gum/README.md`) is ingested into a graph of its own through the real pipeline.
Every mention the graph keeps (a MENTIONS span of a source, and the page it landed on) becomes one
predicted mention, and the corpus's own scorer (`score_entities.py`, stdlib, nobody here wrote
it) judges them: recall, duplicate pages, wrong merges, by kind.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graph_schema.errors import InvalidRequest

SCORER_NAME = "score_entities.py"


class EntityScore(BaseModel):
    """One scorer run: its kinds, the scorer's JSON report, and the ingest speed it was measured at."""

    corpus: str
    kinds: list[str]
    documents: int
    words: int
    ingest_seconds: float
    report: dict[str, Any]

    @property
    def words_per_second(self) -> float:
        return self.words / self.ingest_seconds if self.ingest_seconds else 0.0


def is_entity_corpus(corpus: Path) -> bool:
    """GUM-layout gold has one mention a line with `doc`, `start` and `end`; PEP gold has one file a line."""
    gold = corpus / "gold.jsonl"
    if not gold.is_file():
        return False
    with gold.open(encoding="utf-8") as lines:
        first = next((line for line in lines if line.strip()), "{}")
    return {"doc", "start", "end"} <= set(json.loads(first))


def find_scorer(corpus: Path) -> Path:
    """The corpus's own scorer, else the GUM corpus's beside it (SoftNER uses that one)."""
    for candidate in (corpus / SCORER_NAME, corpus.parent / "gum" / SCORER_NAME):
        if candidate.is_file():
            return candidate
    raise InvalidRequest(f"No {SCORER_NAME} in {corpus} or {corpus.parent / 'gum'}; copy the GUM corpus's scorer there.")


def predicted_mentions(records: Iterable[dict[str, Any]], key_prefix: str) -> list[dict[str, Any]]:
    """One predicted mention per span the graph keeps: the document, the span, the page and its kind."""
    kinds: dict[str, str] = {}
    mentions = []
    for record in records:
        if record["type"] == "page":
            kinds[record["slug"]] = record["kind"]
        elif record["type"] == "mention" and record["key"].startswith(key_prefix):
            mentions.append(record)
    return [
        {"doc": m["key"][len(key_prefix):], "start": start, "end": end, "page": m["page"], "kind": kinds.get(m["page"])}
        for m in mentions
        for start, end in zip(m["starts"], m["ends"])
        if end > start
    ]


def run_scorer(scorer: Path, corpus: Path, predictions: Path, kinds: list[str]) -> dict[str, Any]:
    """The scorer's JSON report for `predictions` (a JSON Lines file) against the corpus's gold."""
    done = subprocess.run(
        [sys.executable, str(scorer), str(corpus), str(predictions), "--kinds", ",".join(kinds)],
        capture_output=True, text=True, timeout=600,
    )
    if done.returncode != 0:
        raise InvalidRequest(f"The scorer {scorer} failed on {predictions}: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def format_entity_scores(scores: list[EntityScore]) -> str:
    first = scores[0]
    lines = [
        f"corpus                 {first.corpus} ({first.documents} documents, {first.words:,} words)",
        f"ingest                 {first.ingest_seconds:.1f} s ({first.words_per_second:,.0f} words/s, whole pipeline)",
    ]
    for score in scores:
        r = score.report
        by_kind = ", ".join(f"{k} {v:.3f}" for k, v in sorted(r.get("recall_by_kind", {}).items()))
        lines += [
            f"kinds                  {','.join(score.kinds)}",
            f"  recall               {r['recall']:.3f}  ({by_kind})",
            f"  duplicate-page rate  {r['duplicate_page_rate']:.3f}  (entities named in 2+ documents: "
            f"{r.get('multi_doc_duplicate_rate', 0):.3f} of {r.get('multi_doc_entities', 0)})",
            f"  wrongly merged       {r['wrongly_merged_entity_rate']:.3f}  (merge precision {r['merge_precision']:.3f})",
            f"  biggest page         {r.get('biggest_page')}",
        ]
    return "\n".join(lines)

"""search through a limited access key: hits scored and previewed only by what the key may read.

A page's stored embedding and body come from every document that mentions it, so on a page two
focus areas share, a key limited to one of them would otherwise find the page by the other
area's words and read them in the preview. Here the nearest pages the key can see are scored
again by the embedding of what it may read of them (title and facts, `graph_schema.queries.sight`),
and a full-text hit counts only if a word of the query is in that text. Keys that see everything
never come here: their search reads the stored embeddings and bodies as they are.
"""

from __future__ import annotations

import re

from graph_schema import db
from graph_schema.models import SearchHit
from graph_schema.queries import compile as compile_queries
from graph_schema.queries.search import fulltext_search, preview, query_words, vector_search
from graph_schema.settings import Settings
from knowledge.types import Embed

_WORD = re.compile(r"\w+", re.UNICODE)


def _readable_text(tx: db.Tx, owner: str, hits: list[SearchHit], visible: list[str],
                   areas: list[str] | None, settings: Settings) -> dict[str, str]:
    """slug -> what the key may read of the page: its facts in sight, one per line ('- …')."""
    found = compile_queries.facts(tx, owner, [h.slug for h in hits], None, settings.search_scoped_facts_per_page,
                                  visible, areas)
    return {slug: "\n".join(f"- {f['text']}" for f in facts) for slug, (facts, _) in found.items()}


def _seen_as(hit: SearchHit, text: str, score: float, settings: Settings) -> SearchHit:
    return hit.model_copy(update={"preview": preview(text, hit.title, settings.preview_chars), "score": round(score, 4)})


def _nearest_in_sight(tx: db.Tx, owner: str, vector: list[float], wanted: int, visible: list[str],
                      areas: list[str] | None, settings: Settings) -> tuple[list[SearchHit], dict[str, str]]:
    candidates = vector_search(tx, owner, vector, wanted, -1.0, settings.preview_chars, visible)
    return candidates, (_readable_text(tx, owner, candidates, visible, areas, settings) if candidates else {})


def semantic_in_scope(graph: db.GraphSession, owner: str, vector: list[float], limit: int, visible: list[str],
                      areas: list[str] | None, settings: Settings, embed: Embed) -> list[SearchHit]:
    """The nearest pages in sight, scored by the cosine of the query to what the key may read of
    them: one read, then the embedding (outside the transaction: a retried one would repeat it)."""
    wanted = max(limit, settings.search_scoped_candidates)
    candidates, texts = graph.read(_nearest_in_sight, owner, vector, wanted, visible, areas, settings)
    if not candidates:
        return []
    readable = [f"{h.title}\n{texts.get(h.slug, '')}".strip()[: settings.search_scoped_text_chars] for h in candidates]
    scored = []
    for hit, text_vector in zip(candidates, embed(readable), strict=True):
        score = sum(x * y for x, y in zip(vector, text_vector, strict=True))
        if score >= settings.search_min_score:
            scored.append(_seen_as(hit, texts.get(hit.slug, ""), score, settings))
    scored.sort(key=lambda h: -h.score)
    return scored[:limit]


def fulltext_in_scope(tx: db.Tx, owner: str, query: str, limit: int, visible: list[str],
                      areas: list[str] | None, settings: Settings) -> list[SearchHit]:
    """Full-text hits in sight whose title or readable facts hold a word the search looked for,
    scored by the share of those words they hold (Lucene's score weighs the whole page)."""
    candidates = fulltext_search(tx, owner, query, max(limit, settings.search_scoped_candidates), settings.preview_chars,
                                 visible)
    if not candidates:
        return []
    words = {w.casefold() for w in query_words(query)}
    texts = _readable_text(tx, owner, candidates, visible, areas, settings)
    kept = []
    for hit in candidates:
        text = texts.get(hit.slug, "")
        found = words & {w.casefold() for w in _WORD.findall(f"{hit.title} {text}")}
        if found:
            kept.append(_seen_as(hit, text, len(found) / len(words), settings))
    kept.sort(key=lambda h: -h.score)
    return kept[:limit]

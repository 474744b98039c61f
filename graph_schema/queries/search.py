"""Finding pages: by meaning (the vector index) and by words (the full-text index)."""

from __future__ import annotations

import re

import neo4j

from graph_schema.kinds import PageKind
from graph_schema.models import SearchHit
from graph_schema.queries.schema import PAGE_FULLTEXT_INDEX, PAGE_VECTOR_INDEX

# The vector index covers every owner; ask it for more than needed and keep this owner's hits.
VECTOR_OVERSAMPLE = 8

# Neo4j reports cosine similarity rescaled to [0, 1] as (1 + cos) / 2; these statements turn it
# back into the plain cosine that every threshold in the settings is written in.

VECTOR_SEARCH = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
WITH node, 2 * score - 1 AS score
WHERE node.owner = $owner AND score >= $min_score
RETURN node.slug AS slug, node.title AS title, node.kind AS kind, node.body AS body, score
ORDER BY score DESC
LIMIT $limit
"""

FULLTEXT_SEARCH = """
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
WITH node, score
WHERE node.owner = $owner
RETURN node.slug AS slug, node.title AS title, node.kind AS kind, node.body AS body, score
ORDER BY score DESC
LIMIT $limit
"""

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)
_LUCENE_OPERATORS = {"and", "or", "not", "to"}


def lucene_query(text: str) -> str:
    """Words of `text` as an OR query with every Lucene operator escaped (user text never parses as syntax)."""
    words = [w for w in _WORD.findall(text) if w.lower() not in _LUCENE_OPERATORS]
    return " OR ".join(_LUCENE_SPECIAL.sub(r"\\\1", w) for w in words)


def preview(body: str | None, title: str, chars: int) -> str:
    text = (body or "").replace("\n- ", " ").removeprefix("- ").strip() or title
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


def _hits(records, preview_chars: int) -> list[SearchHit]:
    return [
        SearchHit(
            slug=r["slug"],
            title=r["title"],
            kind=PageKind(r["kind"]),
            preview=preview(r["body"], r["title"], preview_chars),
            score=round(float(r["score"]), 4),
        )
        for r in records
    ]


def vector_search(
    tx: neo4j.ManagedTransaction, owner: str, vector: list[float], limit: int, min_score: float, preview_chars: int
) -> list[SearchHit]:
    records = tx.run(
        VECTOR_SEARCH,
        index=PAGE_VECTOR_INDEX,
        k=max(limit * VECTOR_OVERSAMPLE, 50),
        vector=vector,
        owner=owner,
        min_score=min_score,
        limit=limit,
    )
    return _hits(records, preview_chars)


def fulltext_search(tx: neo4j.ManagedTransaction, owner: str, text: str, limit: int, preview_chars: int) -> list[SearchHit]:
    query = lucene_query(text)
    if not query:
        return []
    records = tx.run(FULLTEXT_SEARCH, index=PAGE_FULLTEXT_INDEX, query=query, owner=owner, limit=limit)
    return _hits(records, preview_chars)


VECTOR_CANDIDATES = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
WITH node, 2 * score - 1 AS score
WHERE node.owner = $owner AND node.kind IN $kinds
RETURN node.slug AS slug, node.title AS title, node.kind AS kind, score
ORDER BY score DESC
LIMIT $limit
"""


def vector_candidates(
    tx: neo4j.ManagedTransaction, owner: str, vector: list[float], kinds: list[PageKind], limit: int
) -> list[tuple[str, str, PageKind, float]]:
    """Nearest pages of the given kinds: (slug, title, kind, cosine score)."""
    records = tx.run(
        VECTOR_CANDIDATES,
        index=PAGE_VECTOR_INDEX,
        k=max(limit * VECTOR_OVERSAMPLE, 50),
        vector=vector,
        owner=owner,
        kinds=[k.value for k in kinds],
        limit=limit,
    )
    return [(r["slug"], r["title"], PageKind(r["kind"]), float(r["score"])) for r in records]

"""Finding pages: by meaning (the vector index) and by words (the full-text index)."""

from __future__ import annotations

import re

import neo4j

from graph_schema.kinds import PageKind
from graph_schema.models import SearchHit
from graph_schema.queries.schema import PAGE_FULLTEXT_INDEX, PAGE_VECTOR_INDEX
from graph_schema.settings import get_settings

# The vector index covers every owner, and Neo4j 5 cannot filter inside it: ask for more than
# needed and keep this owner's hits, asking for more (x4) while other people's pages crowd them
# out; past VECTOR_MAX_K, score this owner's pages exactly instead (a scan of one graph).
VECTOR_OVERSAMPLE = 8
VECTOR_MAX_K = 4_000

# Neo4j reports cosine similarity rescaled to [0, 1] as (1 + cos) / 2; these statements turn it
# back into the plain cosine that every threshold in the settings is written in.

VECTOR_NEAREST = """
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
WITH collect({vector: node, score: 2 * score - 1}) AS found
CALL (found) {
  UNWIND found AS x
  WITH x, x.vector AS v WHERE v.owner = $owner
  MATCH (p:Page)-[:HAS_VECTOR]->(v)
  WHERE ($kinds IS NULL OR p.kind IN $kinds) AND ($visible IS NULL OR p.slug IN $visible)
  WITH p, x.score AS score ORDER BY score DESC
  RETURN collect({slug: p.slug, title: p.title, kind: p.kind, body: p.body, score: score})[..$limit] AS hits
}
RETURN size(found) AS returned, hits
"""

VECTOR_EXACT = """
MATCH (p:Page {owner: $owner})-[:HAS_VECTOR]->(v:PageVector)
WHERE ($kinds IS NULL OR p.kind IN $kinds) AND ($visible IS NULL OR p.slug IN $visible)
WITH p, 2 * vector.similarity.cosine(v.embedding, $vector) - 1 AS score
ORDER BY score DESC
LIMIT $limit
RETURN collect({slug: p.slug, title: p.title, kind: p.kind, body: p.body, score: score}) AS hits
"""


def nearest_pages(
    tx: neo4j.ManagedTransaction, owner: str, vector: list[float], limit: int, kinds: list[str] | None = None,
    visible: list[str] | None = None,
) -> list[dict]:
    """This owner's `limit` pages nearest to `vector` (of `kinds`, and in `visible`, if given), best
    first, with cosine scores."""
    k = max(limit * VECTOR_OVERSAMPLE, 50)
    while k <= VECTOR_MAX_K:
        record = tx.run(VECTOR_NEAREST, index=PAGE_VECTOR_INDEX, k=k, vector=vector, owner=owner,
                        kinds=kinds, limit=limit, visible=visible).single()
        if len(record["hits"]) >= limit or record["returned"] < k:
            return record["hits"]
        k *= 4
    return tx.run(VECTOR_EXACT, owner=owner, vector=vector, kinds=kinds, limit=limit, visible=visible).single()["hits"]


FULLTEXT_SEARCH = """
CALL db.index.fulltext.queryNodes($index, $terms) YIELD node, score
WITH node, score
WHERE node.owner = $owner AND ($visible IS NULL OR node.slug IN $visible)
RETURN node.slug AS slug, node.title AS title, node.kind AS kind, node.body AS body, score
ORDER BY score DESC
LIMIT $limit
"""

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)
_LUCENE_OPERATORS = {"and", "or", "not", "to"}


def query_words(text: str, max_words: int | None = None) -> list[str]:
    """The words full-text search looks for: the first `max_words` (default
    `search_max_query_words`) distinct words of `text` that are no Lucene operator. The bound keeps
    a long query under Lucene's clause limit, where it would fail rather than answer."""
    bound = get_settings().search_max_query_words if max_words is None else max_words
    return list(dict.fromkeys(w for w in _WORD.findall(text) if w.lower() not in _LUCENE_OPERATORS))[:bound]


def lucene_query(text: str, max_words: int | None = None) -> str:
    """`query_words` of `text` as an OR query with every Lucene operator escaped (user text never
    parses as syntax)."""
    return " OR ".join(_LUCENE_SPECIAL.sub(r"\\\1", w) for w in query_words(text, max_words))


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
    tx: neo4j.ManagedTransaction, owner: str, vector: list[float], limit: int, min_score: float, preview_chars: int,
    visible: list[str] | None = None,
) -> list[SearchHit]:
    hits = [h for h in nearest_pages(tx, owner, vector, limit, visible=visible) if h["score"] >= min_score]
    return _hits(hits, preview_chars)


def fulltext_search(
    tx: neo4j.ManagedTransaction, owner: str, text: str, limit: int, preview_chars: int, visible: list[str] | None = None,
    max_words: int | None = None,
) -> list[SearchHit]:
    query = lucene_query(text, max_words)
    if not query:
        return []
    records = tx.run(FULLTEXT_SEARCH, index=PAGE_FULLTEXT_INDEX, terms=query, owner=owner, limit=limit, visible=visible)
    return _hits(records, preview_chars)


def vector_candidates(
    tx: neo4j.ManagedTransaction, owner: str, vector: list[float], kinds: list[PageKind], limit: int
) -> list[tuple[str, str, PageKind, float]]:
    """Nearest pages of the given kinds: (slug, title, kind, cosine score)."""
    hits = nearest_pages(tx, owner, vector, limit, [k.value for k in kinds])
    return [(h["slug"], h["title"], PageKind(h["kind"]), float(h["score"])) for h in hits]

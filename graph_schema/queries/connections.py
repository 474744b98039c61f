"""Suggested links (issue 19 item 2): pages that share context but that no document links.

A suggestion is a relationship of its own, `(:Page)-[:SUGGESTED_LINK {score, evidence, created_at}]->(:Page)`
(smaller slug first), not a RELATES_TO: nothing a document said stands behind it, so it never
counts as a link's weight, keeps a page alive or joins the pages the brief and compile gather.
traverse, get_page and graph_snapshot show it marked as suggested; link_pages on the pair turns it
into the person's own RELATES_TO.
"""

from __future__ import annotations

import neo4j

from graph_schema.kinds import ENTITY_KINDS

# Pages named in the same documents as one of `$slugs`, in at least `$min_documents` of them, and
# in few others (`$min_share` of the documents naming either names both): what keeps coming up
# together without a sentence naming both. Never a pair already linked, paired for review or kept
# apart. Documents are counted as sources (many notes share a title such as 'Weekly sync').
SHARED_CONTEXT = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})<-[:MENTIONS]-(s:Source)-[:MENTIONS]->(q:Page {owner: $owner})
WHERE p.kind IN $kinds AND q.kind IN $kinds AND q <> p AND s.status <> 'retired'
  AND NOT EXISTS { (p)-[:RELATES_TO|POSSIBLY_SAME|NOT_SAME]-(q) }
WITH p, q, collect(DISTINCT s) AS shared
WHERE size(shared) >= $min_documents
WITH p, q, shared,
     COUNT { (p)<-[:MENTIONS]-(x:Source) WHERE x.status <> 'retired' } AS p_documents,
     COUNT { (q)<-[:MENTIONS]-(x:Source) WHERE x.status <> 'retired' } AS q_documents
WITH p, q, shared, toFloat(size(shared)) / (p_documents + q_documents - size(shared)) AS share
WHERE share >= $min_share
UNWIND shared AS s
WITH p, q, share, size(shared) AS documents, s.title AS title ORDER BY title
RETURN p.slug AS slug, q.slug AS other_slug, collect(title)[..3] AS shared, documents, share
"""

# A page's suggestions are worked out again whenever a run writes it (see knowledge.connections).
DROP_SUGGESTIONS_OF = """
UNWIND $slugs AS slug
MATCH (:Page {owner: $owner, slug: slug})-[s:SUGGESTED_LINK]-(:Page {owner: $owner})
DELETE s
"""

RECORD_SUGGESTIONS = """
UNWIND $rows AS row
MATCH (a:Page {owner: $owner, slug: row.a}), (b:Page {owner: $owner, slug: row.b})
WHERE NOT EXISTS { (a)-[:RELATES_TO|SUGGESTED_LINK|POSSIBLY_SAME|NOT_SAME]-(b) }
CREATE (a)-[:SUGGESTED_LINK {created_at: datetime(), score: row.score, evidence: row.evidence}]->(b)
"""

# A link made (by a document or by hand) answers the suggestion.
DROP_ANSWERED_SUGGESTIONS = """
UNWIND $pairs AS pair
MATCH (:Page {owner: $owner, slug: pair[0]})-[s:SUGGESTED_LINK]-(:Page {owner: $owner, slug: pair[1]})
DELETE s
"""

SUGGESTIONS_OF = """
MATCH (p:Page {owner: $owner, slug: $slug})-[s:SUGGESTED_LINK]-(q:Page {owner: $owner})
WHERE $visible IS NULL OR q.slug IN $visible
RETURN q.slug AS slug, q.title AS title, q.kind AS kind, s.score AS score, s.evidence AS evidence
ORDER BY s.score DESC, q.title
LIMIT $limit
"""


def shared_context(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], min_documents: int,
                   min_share: float) -> list[dict]:
    kinds = [k.value for k in ENTITY_KINDS]
    return [dict(r) for r in tx.run(SHARED_CONTEXT, owner=owner, slugs=slugs, kinds=kinds,
                                    min_documents=min_documents, min_share=min_share)]


def replace_suggestions(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], rows: list[dict]) -> None:
    """The suggestions of the pages `slugs`, worked out again: theirs dropped, `rows` ({a, b, score,
    evidence}, a < b) recorded."""
    tx.run(DROP_SUGGESTIONS_OF, owner=owner, slugs=slugs).consume()
    tx.run(RECORD_SUGGESTIONS, owner=owner, rows=rows).consume()


def drop_answered_suggestions(tx: neo4j.ManagedTransaction, owner: str, pairs: list[tuple[str, str]]) -> None:
    tx.run(DROP_ANSWERED_SUGGESTIONS, owner=owner, pairs=[list(p) for p in pairs]).consume()


def suggestions_of(tx: neo4j.ManagedTransaction, owner: str, slug: str, limit: int,
                   visible: list[str] | None = None) -> list[dict]:
    return [dict(r) for r in tx.run(SUGGESTIONS_OF, owner=owner, slug=slug, limit=limit, visible=visible)]

"""Pages that may be one thing: the pairs resolution left for review (POSSIBLY_SAME), a person's
answer that two pages are different things (NOT_SAME, never proposed again), and a merge by hand."""

from __future__ import annotations

import neo4j

from graph_schema.queries.documents import RENDER_BODIES, fold_page
from graph_schema.queries.owners import bump_version

REVIEW_PAIRS = """
MATCH (a:Page {owner: $owner})-[r:POSSIBLY_SAME]->(b:Page {owner: $owner})
WHERE NOT (a)-[:NOT_SAME]-(b)
RETURN a.slug AS slug, a.title AS title, a.kind AS kind, coalesce(a.fact_count, 0) AS facts,
       b.slug AS other_slug, b.title AS other_title, b.kind AS other_kind, coalesce(b.fact_count, 0) AS other_facts,
       coalesce(r.score, 0.0) AS score, coalesce(r.evidence, '') AS evidence
ORDER BY score DESC, slug, other_slug
LIMIT $limit
"""

# The review pair goes; the answer stays as a relationship of its own, which the write path checks
# before it records a pair (documents.WRITE_REVIEW_PAIRS).
MARK_NOT_SAME = """
MATCH (a:Page {owner: $owner, slug: $slug}), (b:Page {owner: $owner, slug: $other_slug})
WHERE a <> b
OPTIONAL MATCH (a)-[r:POSSIBLY_SAME]-(b)
WITH a, b, collect(r) AS pairs
FOREACH (pair IN pairs | DELETE pair)
MERGE (a)-[n:NOT_SAME]->(b)
  ON CREATE SET n.created_at = datetime()
RETURN size(pairs) AS pairs
"""

# What folding `from` into `into` moves (documents.fold_page): facts, the sources that name it,
# links, and its names that become aliases.
MERGE_PREVIEW = """
MATCH (y:Page {owner: $owner, slug: $from_slug}), (x:Page {owner: $owner, slug: $into_slug})
RETURN y.title AS from_title, y.kind AS from_kind, x.title AS into_title, x.kind AS into_kind,
       COUNT { MATCH (f:Fact)-[:ABOUT]->(y) WHERE NOT f.retired } AS facts,
       COUNT { (:Source)-[:MENTIONS]->(y) } AS sources,
       COUNT { MATCH (y)-[:RELATES_TO|IN_CONTEXT]-(q:Page) WHERE q <> x } AS links,
       [a IN [y.title] + coalesce(y.aliases, []) WHERE NOT a IN coalesce(x.aliases, []) AND a <> x.title] AS new_aliases
"""


def review_pairs(tx: neo4j.ManagedTransaction, owner: str, limit: int) -> list[dict]:
    return [dict(r) for r in tx.run(REVIEW_PAIRS, owner=owner, limit=limit)]


def mark_not_same(tx: neo4j.ManagedTransaction, owner: str, slug: str, other_slug: str) -> int | None:
    """Record that two pages are different things; the number of review pairs it closed, or None
    when one of the pages does not exist."""
    record = tx.run(MARK_NOT_SAME, owner=owner, slug=slug, other_slug=other_slug).single()
    if record is None:
        return None
    bump_version(tx, owner)  # get_page listed the pair as a link
    return record["pairs"]


def merge_preview(tx: neo4j.ManagedTransaction, owner: str, from_slug: str, into_slug: str) -> dict | None:
    record = tx.run(MERGE_PREVIEW, owner=owner, from_slug=from_slug, into_slug=into_slug).single()
    return None if record is None else dict(record)


def merge_pages(tx: neo4j.ManagedTransaction, owner: str, from_slug: str, into_slug: str, evidence: str) -> None:
    """Fold one page into another as the pipeline folds a duplicate (the old slug is remembered and
    still reads the page), re-render the page's body from its facts, and move the graph version."""
    fold_page(tx, owner, from_slug, into_slug, evidence)
    tx.run(RENDER_BODIES, owner=owner, slugs=[into_slug]).consume()
    bump_version(tx, owner)

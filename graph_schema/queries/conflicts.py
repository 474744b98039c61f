"""Reading a page's facts to compare them with each other (knowledge.contradictions)."""

from __future__ import annotations

import neo4j

from graph_schema.queries.pages import to_native
from graph_schema.queries.sight import FACT_IN_SIGHT, SOURCE_IN_SIGHT

# A page's live facts the caller may read, newest first: the date the document states, else the
# day the fact was first seen.
PAGE_FACTS_NEWEST_FIRST = f"""
MATCH (p:Page {{owner: $owner, slug: $slug}})
WHERE ($visible IS NULL OR p.slug IN $visible)
MATCH (f:Fact)-[:ABOUT]->(p)
WHERE NOT f.retired AND {FACT_IN_SIGHT}
WITH f, coalesce(f.stated_on, date(f.first_seen)) AS day
ORDER BY day DESC, f.first_seen DESC, f.position DESC, f.id
LIMIT $limit
RETURN f.id AS id, f.text AS text, day,
       [(f)-[:FROM]->(s:Source) WHERE s.status <> 'retired' AND {SOURCE_IN_SIGHT} | s.key] AS sources
"""

PAGE_NAMES = """
MATCH (p:Page {owner: $owner, slug: $slug})
RETURN p.title AS title, coalesce(p.aliases, []) AS aliases
"""


def page_facts_newest_first(tx: neo4j.ManagedTransaction, owner: str, slug: str, limit: int,
                            visible: list[str] | None = None, areas: list[str] | None = None) -> list[dict]:
    """At most `limit` of the page's facts the caller may read, newest first: id, text, day, source keys."""
    return [{**dict(r), "day": to_native(r["day"]), "sources": sorted(set(r["sources"]))}
            for r in tx.run(PAGE_FACTS_NEWEST_FIRST, owner=owner, slug=slug, limit=limit, visible=visible, areas=areas)]


def page_names(tx: neo4j.ManagedTransaction, owner: str, slug: str) -> list[str]:
    """The page's title and aliases (none when there is no such page)."""
    record = tx.run(PAGE_NAMES, owner=owner, slug=slug).single()
    return [] if record is None else [record["title"], *record["aliases"]]

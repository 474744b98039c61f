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


# An LLM's judgement of a candidate conflict (knowledge.conflict_verdicts), kept on the pair of facts:
# whether the two really cannot both hold, how strongly, and why. A fact rewritten or retired takes
# its judgements with it.
CONFLICT_JUDGEMENTS = """
UNWIND $pairs AS pair
MATCH (a:Fact {owner: $owner, id: pair[0]})-[j:CONFLICT_JUDGED]-(b:Fact {owner: $owner, id: pair[1]})
RETURN pair[0] AS a, pair[1] AS b, j.exclusive AS exclusive, j.strength AS strength, j.explanation AS explanation,
       j.by AS by
"""
MARK_CONFLICT_JUDGED = """
MATCH (a:Fact {owner: $owner, id: $a}), (b:Fact {owner: $owner, id: $b})
MERGE (a)-[j:CONFLICT_JUDGED]-(b)
SET j.exclusive = $exclusive, j.strength = $strength, j.explanation = $explanation, j.by = $by, j.at = datetime()
RETURN count(j) AS marked
"""
# The pages a run's writes touched last, where new conflicts are likeliest: most recently updated.
RECENT_PAGES = """
MATCH (p:Page {owner: $owner})
WHERE p.kind IN $kinds AND coalesce(p.fact_count, 0) >= 2
RETURN p.slug AS slug ORDER BY p.updated_at DESC, p.slug LIMIT $limit
"""


def conflict_judgements(tx: neo4j.ManagedTransaction, owner: str, pairs: list[tuple[str, str]]) -> dict[frozenset, dict]:
    """{frozenset of the two fact ids: the stored judgement} for those of `pairs` a model judged."""
    rows = tx.run(CONFLICT_JUDGEMENTS, owner=owner, pairs=[list(p) for p in pairs])
    return {frozenset((r["a"], r["b"])): dict(r) for r in rows}


def mark_conflict_judged(tx: neo4j.ManagedTransaction, owner: str, a: str, b: str, exclusive: bool | None,
                         strength: float | None, explanation: str, by: str) -> bool:
    """Keep a model's judgement on the two facts (`exclusive` None: it gave no valid answer, and the
    pair stays as the rules found it); False when either fact is gone."""
    record = tx.run(MARK_CONFLICT_JUDGED, owner=owner, a=a, b=b, exclusive=exclusive, strength=strength,
                    explanation=explanation, by=by).single()
    return bool(record and record["marked"])


def recent_pages(tx: neo4j.ManagedTransaction, owner: str, kinds: list[str], limit: int) -> list[str]:
    return [r["slug"] for r in tx.run(RECENT_PAGES, owner=owner, kinds=kinds, limit=limit)]

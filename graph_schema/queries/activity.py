"""Recent activity (issue 19 item 5): what arrived lately and what it brought, and the focus areas
that share pages with one.

An activity is a source: a document that was added, changed, deleted from the upload folder or
could not be read, or prose an assistant sent. Each comes with the pages it names (most named
first), how many of its facts are decisions and open items, and its newest decision, all within
what the caller may read (`graph_schema.queries.sight`).
"""

from __future__ import annotations

from datetime import datetime

import neo4j

from graph_schema.queries.pages import to_native
from graph_schema.queries.sight import FACT_IN_SIGHT, SOURCE_IN_SIGHT

# A scoped key sees a source only through the pages it may read: one that names none of them (or a
# failed file, which names nothing) is out of its sight.
RECENT_SOURCES = """
MATCH (s:Source {owner: $owner})
WITH s, CASE WHEN s.status = 'retired' THEN s.retired_at ELSE coalesce(s.active_at, s.ingested_at) END AS at
WHERE ($since IS NULL OR at >= $since) AND ($focus IS NULL OR s.focus = $focus) AND """ + SOURCE_IN_SIGHT + """
  AND ($visible IS NULL OR EXISTS { (s)-[:MENTIONS]->(v:Page) WHERE v.slug IN $visible })
WITH s, at ORDER BY at DESC, s.key
WITH collect({s: s, at: at}) AS found
UNWIND found[..$limit] AS row
WITH row.s AS s, row.at AS at, size(found) AS total
CALL (s) {
  OPTIONAL MATCH (s)-[m:MENTIONS]->(p:Page)
  WHERE NOT p:Focus AND ($visible IS NULL OR p.slug IN $visible)
  WITH p, size(coalesce(m.starts, [])) AS times ORDER BY times DESC, p.title
  RETURN collect(p {.slug, .title, .kind})[..$pages_per_source] AS pages, count(p) AS page_count
}
CALL (s) {
  OPTIONAL MATCH (f:Fact)-[:FROM]->(s)
  WHERE NOT f.retired AND """ + FACT_IN_SIGHT + """
  WITH f ORDER BY coalesce(f.stated_on, date(f.first_seen)) DESC, f.position DESC
  RETURN count(f) AS facts,
         count(CASE WHEN f.kind = 'decision' THEN 1 END) AS decisions,
         count(CASE WHEN f.kind IN ['action', 'question'] AND NOT coalesce(f.done, false) THEN 1 END) AS open_items,
         [x IN collect(CASE WHEN f.kind = 'decision' THEN f.text END) WHERE x IS NOT NULL][0] AS latest_decision
}
OPTIONAL MATCH (focus:Page:Focus {owner: $owner, slug: s.focus})
RETURN s.key AS key, s.title AS title, s.kind AS kind, s.status AS status, s.reason AS reason,
       s.author AS author, s.author_kind AS author_kind, s.changed_at AS changed_at, at,
       CASE WHEN focus IS NULL OR ($visible IS NOT NULL AND NOT focus.slug IN $visible) THEN NULL
            ELSE focus {.slug, .title, .kind} END AS focus,
       pages, page_count, facts, decisions, open_items, latest_decision, total
ORDER BY at DESC, key
"""

# Focus areas that share member pages with one (a page IN_CONTEXT of both), most shared first.
RELATED_AREAS = """
MATCH (a:Page:Focus {owner: $owner, slug: $slug})<-[:IN_CONTEXT]-(m:Page)-[:IN_CONTEXT]->(b:Page:Focus)
WHERE b <> a AND ($visible IS NULL OR (m.slug IN $visible AND b.slug IN $visible))
WITH b, m ORDER BY m.title
WITH b, count(DISTINCT m) AS together, collect(DISTINCT m {.slug, .title, .kind})[..$shown] AS shared
RETURN b {.slug, .title, .kind} AS area, together, shared,
       COUNT { (b)<-[:IN_CONTEXT]-(x:Page) WHERE $visible IS NULL OR x.slug IN $visible } AS members
ORDER BY together DESC, b.title
LIMIT $limit
"""


def recent_sources(tx: neo4j.ManagedTransaction, owner: str, since: datetime | None, focus: str | None, limit: int,
                   pages_per_source: int, visible: list[str] | None = None,
                   areas: list[str] | None = None) -> tuple[list[dict], int]:
    """The sources that arrived, changed or went since `since` (all when None), newest first, at
    most `limit` of them, and how many there are in all."""
    rows = [dict(r) for r in tx.run(RECENT_SOURCES, owner=owner, since=since, focus=focus, limit=limit,
                                    pages_per_source=pages_per_source, visible=visible, areas=areas)]
    for row in rows:
        row["at"], row["changed_at"] = to_native(row["at"]), to_native(row["changed_at"])
    return rows, rows[0]["total"] if rows else 0


def related_areas(tx: neo4j.ManagedTransaction, owner: str, slug: str, limit: int, shown: int,
                  visible: list[str] | None = None) -> list[dict]:
    """The focus areas sharing member pages with the area `slug`: area, together, shared (a few), members."""
    return [dict(r) for r in tx.run(RELATED_AREAS, owner=owner, slug=slug, limit=limit, shown=shown, visible=visible)]

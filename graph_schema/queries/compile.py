"""Gathering what `compile` packages: a target's page, what is under or around it, their facts,
and how they relate. Every read is bounded by a limit from settings."""

from __future__ import annotations

from datetime import datetime

import neo4j

from graph_schema.queries.pages import to_native
from graph_schema.queries.sight import FACT_IN_SIGHT, SOURCE_IN_SIGHT, link_sources_in_sight

# What sits under a focus area (its members) or around a thing (RELATES_TO neighbours, and the
# focus areas it is filed under); for "you", the focus areas. Strongest links first. A key limited
# to focus areas weighs a link by the documents it may read, and a link only other areas'
# documents made (not by hand) is no relation it sees; a page's fact count is what it may read.
COMPILE_MEMBERS = f"""
MATCH (t:Page {{owner: $owner, slug: $slug}})
CALL (t) {{
  WITH t WHERE t.kind = 'focus'
  MATCH (m:Page {{owner: $owner}})-[r:IN_CONTEXT]->(t)
  RETURN m, 'member' AS relation, size(coalesce(r.sources, [])) AS weight
  UNION
  WITH t WHERE t.kind = 'you'
  MATCH (m:Page:Focus {{owner: $owner}})
  RETURN m, 'focus area' AS relation,
         COUNT {{ (member:Page)-[:IN_CONTEXT]->(m) WHERE $visible IS NULL OR member.slug IN $visible }} AS weight
  UNION
  WITH t WHERE NOT t.kind IN ['focus', 'you']
  MATCH (t)-[r:RELATES_TO]-(m:Page {{owner: $owner}})
  WITH m, r, {link_sources_in_sight("r")} AS readable
  WHERE $areas IS NULL OR readable > 0 OR coalesce(r.manual, false)
  RETURN m, 'related' AS relation, readable + CASE WHEN r.manual THEN 1 ELSE 0 END AS weight
  UNION
  WITH t WHERE NOT t.kind IN ['focus', 'you']
  MATCH (t)-[r:IN_CONTEXT]->(m:Page:Focus {{owner: $owner}})
  RETURN m, 'filed under' AS relation, size(coalesce(r.sources, [])) AS weight
}}
WITH m, relation, max(weight) AS weight
WHERE ($visible IS NULL OR m.slug IN $visible)
ORDER BY weight DESC, m.updated_at DESC, m.title
LIMIT $limit
RETURN m.slug AS slug, m.title AS title, m.kind AS kind, relation, weight, m.updated_at AS updated_at,
       CASE WHEN $visible IS NULL THEN coalesce(m.fact_count, 0)
            ELSE COUNT {{ (f:Fact)-[:ABOUT]->(m) WHERE NOT f.retired AND {FACT_IN_SIGHT} }} END AS fact_count,
       [(m)-[:HAS_VECTOR]->(v:PageVector) | v.embedding][0] AS embedding
"""

MEMBER_COUNT = """
MATCH (t:Page {owner: $owner, slug: $slug})
RETURN CASE t.kind
  WHEN 'focus' THEN COUNT { (m:Page {owner: $owner})-[:IN_CONTEXT]->(t) WHERE ($visible IS NULL OR m.slug IN $visible) }
  WHEN 'you' THEN COUNT { (m:Page:Focus {owner: $owner}) WHERE ($visible IS NULL OR m.slug IN $visible) }
  ELSE COUNT { (t)-[r:RELATES_TO]-(m:Page {owner: $owner}) WHERE ($visible IS NULL OR m.slug IN $visible)
                 AND ($areas IS NULL OR """ + link_sources_in_sight("r") + """ > 0 OR coalesce(r.manual, false)) }
       + COUNT { (t)-[:IN_CONTEXT]->(m:Page {owner: $owner}) WHERE ($visible IS NULL OR m.slug IN $visible) }
END AS total
"""

# Live facts about each page, oldest first (document order), those seen since the cutoff only.
COMPILE_FACTS = f"""
UNWIND $slugs AS slug
MATCH (p:Page {{owner: $owner, slug: slug}})
CALL (p) {{
  MATCH (f:Fact)-[:ABOUT]->(p)
  WHERE NOT f.retired AND ($since IS NULL OR f.first_seen >= $since) AND {FACT_IN_SIGHT}
  WITH f ORDER BY f.first_seen, f.position, f.id
  LIMIT $per_page
  RETURN collect({{id: f.id, text: f.text, first_seen: f.first_seen,
                  sources: [(f)-[:FROM]->(s:Source) WHERE s.status <> 'retired' AND {SOURCE_IN_SIGHT} | s.key],
                  authors: [(f)-[:FROM]->(s:Source) WHERE s.status <> 'retired' AND {SOURCE_IN_SIGHT}
                                                       AND s.author IS NOT NULL |
                            {{name: s.author, kind: coalesce(s.author_kind, CASE WHEN s.kind = 'submission'
                                                                         THEN 'assistant' END)}}]}}) AS facts
}}
CALL (p) {{
  MATCH (f:Fact)-[:ABOUT]->(p)
  WHERE NOT f.retired AND ($since IS NULL OR f.first_seen >= $since) AND {FACT_IN_SIGHT}
  RETURN count(f) AS total
}}
RETURN p.slug AS slug, facts, total
"""

# How pages of the package relate: links between them, with a sentence both are in.
COMPILE_RELATIONS = f"""
MATCH (a:Page {{owner: $owner}})-[r:RELATES_TO]->(b:Page {{owner: $owner}})
WHERE a.slug IN $slugs AND b.slug IN $slugs
WITH a, b, r, {link_sources_in_sight("r")} AS weight
WHERE weight > 0 OR coalesce(r.manual, false)
CALL (a, b) {{
  OPTIONAL MATCH (a)<-[:ABOUT]-(f:Fact)-[:ABOUT]->(b)
  WHERE NOT f.retired AND ($since IS NULL OR f.first_seen >= $since) AND {FACT_IN_SIGHT}
  WITH f ORDER BY f.first_seen, f.position
  RETURN collect(f.text)[..$per_relation] AS shared
}}
RETURN a.slug AS source, b.slug AS target, coalesce(r.manual, false) AS manual, weight, shared
ORDER BY weight DESC, a.slug, b.slug
LIMIT $limit
"""


def members(
    tx: neo4j.ManagedTransaction, owner: str, slug: str, limit: int, visible: list[str] | None = None,
    areas: list[str] | None = None,
) -> tuple[list[dict], int]:
    rows = [dict(r) for r in tx.run(COMPILE_MEMBERS, owner=owner, slug=slug, limit=limit, visible=visible, areas=areas)]
    for row in rows:
        row["updated_at"] = to_native(row["updated_at"])
    total = tx.run(MEMBER_COUNT, owner=owner, slug=slug, visible=visible, areas=areas).single()["total"]
    return rows, total


def facts(
    tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], since: datetime | None, per_page: int,
    visible: list[str] | None = None, areas: list[str] | None = None,
) -> dict[str, tuple[list[dict], int]]:
    """slug -> (its facts the caller may read, oldest first, at most `per_page`; how many there are in all)."""
    out = {}
    for r in tx.run(COMPILE_FACTS, owner=owner, slugs=slugs, since=since, per_page=per_page, visible=visible,
                    areas=areas):
        rows = [{**f, "first_seen": to_native(f["first_seen"])} for f in r["facts"]]
        out[r["slug"]] = (rows, r["total"])
    return out


def relations(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], since: datetime | None, limit: int,
              per_relation: int, visible: list[str] | None = None, areas: list[str] | None = None) -> list[dict]:
    """Links between the pages, strongest first, each with at most `per_relation` sentences both are
    in that the caller may read."""
    return [dict(r) for r in tx.run(COMPILE_RELATIONS, owner=owner, slugs=slugs, since=since, limit=limit,
                                    per_relation=per_relation, visible=visible, areas=areas)]

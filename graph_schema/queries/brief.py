"""The brief: the material it is written from, and its cache (one Brief node per person)."""

from __future__ import annotations

import json

import neo4j

from graph_schema.kinds import PageKind
from graph_schema.models import BriefView, PageRef
from graph_schema.queries.pages import to_native

YOU_MATERIAL = """
MATCH (o:Owner {id: $owner})
OPTIONAL MATCH (you:Page {owner: $owner, slug: 'you'})
OPTIONAL MATCH (f:Fact)-[:ABOUT]->(you) WHERE NOT f.retired AND ($visible IS NULL OR 'you' IN $visible)
WITH o, you, f ORDER BY f.first_seen DESC
WITH o, you, collect(f.text)[..$max_facts] AS facts
CALL (o) {
  MATCH (s:Source {owner: o.id})
  WHERE $visible IS NULL OR EXISTS { (s)-[:MENTIONS]->(p:Page) WHERE p.slug IN $visible }
  RETURN count(CASE WHEN s.status = 'ingested' THEN 1 END) AS sources
}
RETURN o.version AS version, coalesce(you.title, o.name) AS name, facts, sources
"""

FOCUS_MATERIAL = """
MATCH (focus:Page:Focus {owner: $owner})
WHERE $visible IS NULL OR focus.slug IN $visible
OPTIONAL MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(focus)
WHERE $visible IS NULL OR m.slug IN $visible
WITH focus, m
OPTIONAL MATCH (m)<-[x:MENTIONS]-(:Source {owner: $owner, status: 'ingested'})
WITH focus, m, count(x) AS weight
ORDER BY weight DESC, m.title
WITH focus, collect(m {.slug, .title, .kind})[..$per_focus] AS members, count(m) AS member_count
WHERE member_count > 0  // an area whose documents are all gone stays a page (keys name it), not news
RETURN focus.slug AS slug, focus.title AS title, 'focus' AS kind, members, member_count, focus.updated_at AS updated_at
ORDER BY member_count DESC, updated_at DESC
LIMIT $max_focus
"""

# What matters most: the things the most sources talk about, per kind.
TOP_PAGES = """
MATCH (p:Page {owner: $owner})
WHERE p.kind IN $kinds AND ($visible IS NULL OR p.slug IN $visible)
OPTIONAL MATCH (p)<-[x:MENTIONS]-(:Source {owner: $owner, status: 'ingested'})
WITH p, count(x) AS sources
WHERE sources > 0
WITH p.kind AS kind, p, sources ORDER BY sources DESC, p.fact_count DESC, p.title
WITH kind, collect(p {.slug, .title, .kind, sources: sources})[..$per_kind] AS pages
RETURN kind, pages
"""

LOAD_BRIEF = """
MATCH (o:Owner {id: $owner})
OPTIONAL MATCH (b:Brief {owner: $owner})
RETURN o.version AS version, b.text AS text, b.sources AS sources, b.version AS built_version,
       b.built_at AS built_at
"""

# A rebuild stores its brief only if no newer one is stored: two rebuilds racing (or a slow one
# finishing late) never put an older graph version's brief back. The lock (a SET on the node)
# makes the version check and the write one step for concurrent rebuilds.
STORE_BRIEF = """
MERGE (b:Brief {owner: $owner})
SET b._lock = true
REMOVE b._lock
WITH b
WHERE b.version IS NULL OR b.version <= $version
SET b.text = $text, b.sources = $sources, b.version = $version, b.built_at = datetime()
RETURN b.built_at AS built_at
"""


def brief_material(tx: neo4j.ManagedTransaction, owner: str, max_pages: int, visible: list[str] | None = None) -> dict:
    """What the brief is written from; only pages in `visible` when a key's scope limits it."""
    you = tx.run(YOU_MATERIAL, owner=owner, max_facts=5, visible=visible).single()
    focus = [dict(r) for r in tx.run(FOCUS_MATERIAL, owner=owner, per_focus=6, max_focus=6, visible=visible)]
    kinds = [k.value for k in (PageKind.PERSON, PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.TOPIC)]
    top = {r["kind"]: r["pages"] for r in tx.run(TOP_PAGES, owner=owner, kinds=kinds, per_kind=max_pages, visible=visible)}
    return {
        "version": you["version"] if you else 0,
        "name": you["name"] if you else "You",
        "you_facts": you["facts"] if you else [],
        "sources": you["sources"] if you else 0,
        "focus": focus,
        "top": top,
    }


def load_brief(tx: neo4j.ManagedTransaction, owner: str) -> tuple[int, BriefView | None]:
    """(current graph version, the cached brief or None if there is none yet)."""
    record = tx.run(LOAD_BRIEF, owner=owner).single()
    if record is None:
        return 0, None
    if record["text"] is None:
        return record["version"], None
    sources = [PageRef(**s) for s in json.loads(record["sources"] or "[]")]
    return record["version"], BriefView(
        text=record["text"],
        sources=sources,
        graph_version=record["built_version"],
        built_at=to_native(record["built_at"]),
        cached=True,
    )


def store_brief(tx: neo4j.ManagedTransaction, owner: str, brief: BriefView) -> BriefView:
    """Store the brief unless a newer one is stored already; the brief is returned either way
    (it was right for its version, and the caller asked for that version)."""
    sources = json.dumps([s.model_dump(mode="json") for s in brief.sources])
    record = tx.run(STORE_BRIEF, owner=owner, text=brief.text, sources=sources, version=brief.graph_version).single()
    return brief.model_copy(update={"built_at": to_native(record["built_at"])}) if record else brief

"""Writing one ingested source into a person's graph, in one transaction.

`write_document` is the only way the pipeline changes pages and facts. Its steps, in order:
record the source, drop what only its previous version said, upsert pages (new ones get their
kind label), mentions with the resolution evidence, facts with provenance, RELATES_TO between pages
sharing a fact, IN_CONTEXT to the focus area, POSSIBLY_SAME pairs for review, re-render the bodies
of touched pages from their facts, and bump the graph version.
"""

from __future__ import annotations

import neo4j
from pydantic import BaseModel

from graph_schema.kinds import PageKind
from graph_schema.models import DocumentWrite, KnownPage, SourceWrite
from graph_schema.queries.owners import bump_version

SOURCE_STATE = """
MATCH (s:Source {owner: $owner, id: $id})
RETURN s.content_hash AS content_hash, s.status AS status
"""

SOURCE_STATES = """
UNWIND $ids AS id
MATCH (s:Source {owner: $owner, id: id})
RETURN s.id AS id, s.content_hash AS content_hash, s.status AS status
"""

KNOWN_PAGES = """
MATCH (p:Page {owner: $owner})
RETURN p.slug AS slug, p.title AS title, p.kind AS kind, coalesce(p.name_keys, []) AS name_keys
"""

UPSERT_SOURCE = """
MERGE (s:Source {owner: $owner, id: $src.id})
  ON CREATE SET s.created_at = datetime()
SET s.key = $src.key, s.kind = $src.kind, s.title = $src.title, s.format = $src.format,
    s.content_hash = $src.content_hash, s.status = $src.status, s.reason = $src.reason,
    s.truncated_reason = $src.truncated_reason, s.author = $src.author, s.focus = $src.focus_slug,
    s.ingested_at = datetime()
"""

# A changed file replaces what only its old version said: its mentions and chunks go, facts it
# alone supported go, facts other sources also state stay (minus this source's provenance).
DROP_PREVIOUS_MENTIONS = """
MATCH (s:Source {owner: $owner, id: $sid})-[m:MENTIONS]->()
DELETE m
"""
DROP_PREVIOUS_CHUNKS = """
MATCH (s:Source {owner: $owner, id: $sid})-[:HAS_CHUNK]->(c:Chunk)
DETACH DELETE c
"""
DROP_PREVIOUS_FACTS = """
MATCH (f:Fact {owner: $owner})-[r:FROM]->(s:Source {owner: $owner, id: $sid})
DELETE r
WITH DISTINCT f
WHERE NOT (f)-[:FROM]->()
DETACH DELETE f
"""
DROP_PREVIOUS_LINK_SUPPORT = """
MATCH (a:Page {owner: $owner})-[r:RELATES_TO|IN_CONTEXT]->(b:Page {owner: $owner})
WHERE $sid IN coalesce(r.sources, [])
SET r.sources = [x IN r.sources WHERE x <> $sid]
WITH r WHERE size(r.sources) = 0 AND NOT coalesce(r.manual, false)
DELETE r
"""

WRITE_CHUNKS = """
MATCH (s:Source {owner: $owner, id: $sid})
UNWIND $chunks AS c
MERGE (k:Chunk {owner: $owner, id: c.id})
SET k.index = c.index, k.start = c.start, k.end = c.end, k.text = c.text, k.source_id = $sid
MERGE (s)-[:HAS_CHUNK]->(k)
"""

EXISTING_SLUGS = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
RETURN p.slug AS slug
"""

UPSERT_PAGES = """
UNWIND $pages AS row
MERGE (p:Page {owner: $owner, slug: row.slug})
  ON CREATE SET p:$(row.label), p.kind = row.kind, p.title = row.title, p.aliases = [],
                p.name_keys = [], p.body = '', p.fact_count = 0, p.created_at = datetime(),
                p.embedding = row.embedding, p.created_by = $sid
SET p.updated_at = datetime(),
    p.aliases = p.aliases + [a IN row.aliases WHERE NOT a IN p.aliases AND a <> p.title],
    p.name_keys = p.name_keys + [k IN row.name_keys WHERE NOT k IN p.name_keys]
"""

WRITE_MENTIONS = """
MATCH (s:Source {owner: $owner, id: $sid})
UNWIND $mentions AS m
MATCH (p:Page {owner: $owner, slug: m.slug})
MERGE (s)-[r:MENTIONS]->(p)
SET r.starts = m.starts, r.ends = m.ends, r.surfaces = m.surfaces, r.method = m.method,
    r.score = m.score, r.evidence = m.evidence
"""

EXISTING_FACTS = """
UNWIND $ids AS id
MATCH (f:Fact {owner: $owner, id: id})
RETURN f.id AS id
"""

WRITE_FACTS = """
MATCH (s:Source {owner: $owner, id: $sid})
UNWIND $facts AS f
MERGE (x:Fact {owner: $owner, id: f.id})
  ON CREATE SET x.text = f.text, x.first_seen = datetime(), x.position = f.start, x.created_by = $sid
SET x.retired = false
MERGE (x)-[r:FROM]->(s)
SET r.start = f.start, r.end = f.end
WITH x, f
UNWIND f.slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
MERGE (x)-[:ABOUT]->(p)
"""

WRITE_RELATIONS = """
UNWIND $pairs AS pair
MATCH (a:Page {owner: $owner, slug: pair[0]}), (b:Page {owner: $owner, slug: pair[1]})
MERGE (a)-[r:RELATES_TO]->(b)
  ON CREATE SET r.created_at = datetime(), r.sources = [], r.manual = false
SET r.sources = CASE WHEN $sid IN r.sources THEN r.sources ELSE r.sources + $sid END
"""

WRITE_IN_CONTEXT = """
MATCH (focus:Page {owner: $owner, slug: $focus})
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
WHERE p <> focus
MERGE (p)-[r:IN_CONTEXT]->(focus)
  ON CREATE SET r.created_at = datetime(), r.sources = [], r.manual = false
SET r.sources = CASE WHEN $sid IN r.sources THEN r.sources ELSE r.sources + $sid END
"""

WRITE_REVIEW_PAIRS = """
UNWIND $pairs AS pair
MATCH (a:Page {owner: $owner, slug: pair.slug}), (b:Page {owner: $owner, slug: pair.other_slug})
WHERE a <> b AND NOT (a)-[:POSSIBLY_SAME]-(b)
MERGE (a)-[r:POSSIBLY_SAME]->(b)
SET r.score = pair.score, r.evidence = pair.evidence, r.created_at = datetime()
"""

# The body is rendered from the page's live facts, oldest first, in document order.
RENDER_BODIES = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired
WITH p, f ORDER BY f.first_seen, f.position, f.text
WITH p, collect(f.text) AS texts
SET p.body = reduce(acc = '', t IN texts | acc + CASE WHEN acc = '' THEN '' ELSE '\n' END + '- ' + t),
    p.fact_count = size(texts)
"""


# Folding page `from` into page `into`: facts, mentions and links move over (merged with what
# `into` already has), names become aliases, `from` is deleted and remembered as a former slug.
FOLD_FACTS = """
MATCH (y:Page {owner: $owner, slug: $from_slug})<-[r:ABOUT]-(f:Fact), (x:Page {owner: $owner, slug: $into_slug})
MERGE (f)-[:ABOUT]->(x)
DELETE r
"""
FOLD_MENTIONS = """
MATCH (s:Source)-[m:MENTIONS]->(y:Page {owner: $owner, slug: $from_slug}), (x:Page {owner: $owner, slug: $into_slug})
MERGE (s)-[n:MENTIONS]->(x)
  ON CREATE SET n = properties(m)
  ON MATCH SET n.starts = n.starts + m.starts, n.ends = n.ends + m.ends, n.surfaces = n.surfaces + m.surfaces
DELETE m
"""
FOLD_LINKS_OUT = """
MATCH (y:Page {owner: $owner, slug: $from_slug})-[r:RELATES_TO|IN_CONTEXT]->(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x
MERGE (x)-[n:$(type(r))]->(q)
  ON CREATE SET n.created_at = r.created_at, n.sources = [], n.manual = coalesce(r.manual, false)
SET n.sources = n.sources + [s IN coalesce(r.sources, []) WHERE NOT s IN n.sources]
DELETE r
"""
FOLD_LINKS_IN = """
MATCH (y:Page {owner: $owner, slug: $from_slug})<-[r:RELATES_TO|IN_CONTEXT]-(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x
MERGE (q)-[n:$(type(r))]->(x)
  ON CREATE SET n.created_at = r.created_at, n.sources = [], n.manual = coalesce(r.manual, false)
SET n.sources = n.sources + [s IN coalesce(r.sources, []) WHERE NOT s IN n.sources]
DELETE r
"""
FOLD_PAGE = """
MATCH (y:Page {owner: $owner, slug: $from_slug}), (x:Page {owner: $owner, slug: $into_slug})
SET x.aliases = x.aliases + [a IN [y.title] + y.aliases WHERE NOT a IN x.aliases AND a <> x.title],
    x.name_keys = x.name_keys + [k IN y.name_keys WHERE NOT k IN x.name_keys],
    x.former_slugs = coalesce(x.former_slugs, []) + y.slug,
    x.merge_evidence = coalesce(x.merge_evidence, []) + $evidence,
    x.updated_at = datetime()
DETACH DELETE y
"""


def fold_page(tx: neo4j.ManagedTransaction, owner: str, from_slug: str, into_slug: str, evidence: str) -> None:
    for statement in (FOLD_FACTS, FOLD_MENTIONS, FOLD_LINKS_OUT, FOLD_LINKS_IN, FOLD_PAGE):
        tx.run(statement, owner=owner, from_slug=from_slug, into_slug=into_slug, evidence=evidence).consume()


class WriteCounts(BaseModel):
    pages_created: list[str]
    pages_updated: list[str]
    facts_added: int


def source_states(tx: neo4j.ManagedTransaction, owner: str, ids: list[str]) -> dict[str, tuple[str, str]]:
    """source id -> (content hash, status) for those of `ids` already in the graph."""
    return {r["id"]: (r["content_hash"], r["status"]) for r in tx.run(SOURCE_STATES, owner=owner, ids=ids)}


def known_pages(tx: neo4j.ManagedTransaction, owner: str) -> list[KnownPage]:
    return [
        KnownPage(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"]), name_keys=r["name_keys"])
        for r in tx.run(KNOWN_PAGES, owner=owner)
    ]


def record_failure(tx: neo4j.ManagedTransaction, owner: str, source: SourceWrite) -> None:
    """Keep the reason on the source; the pages, facts and links are not touched."""
    tx.run(UPSERT_SOURCE, owner=owner, src=source.model_dump(mode="json")).consume()


def write_document(tx: neo4j.ManagedTransaction, owner: str, plan: DocumentWrite, replaces_previous: bool) -> WriteCounts:
    sid = plan.source.id
    tx.run(UPSERT_SOURCE, owner=owner, src=plan.source.model_dump(mode="json")).consume()
    if replaces_previous:
        for statement in (DROP_PREVIOUS_MENTIONS, DROP_PREVIOUS_CHUNKS, DROP_PREVIOUS_FACTS, DROP_PREVIOUS_LINK_SUPPORT):
            tx.run(statement, owner=owner, sid=sid).consume()

    tx.run(WRITE_CHUNKS, owner=owner, sid=sid, chunks=[c.model_dump() for c in plan.chunks]).consume()

    slugs = [p.slug for p in plan.pages]
    existing = {r["slug"] for r in tx.run(EXISTING_SLUGS, owner=owner, slugs=slugs)}
    rows = [
        {
            "slug": p.slug,
            "label": p.kind.label,
            "kind": p.kind.value,
            "title": p.title,
            "aliases": p.aliases,
            "name_keys": p.name_keys,
            "embedding": p.embedding,
        }
        for p in plan.pages
    ]
    tx.run(UPSERT_PAGES, owner=owner, sid=sid, pages=rows).consume()
    tx.run(WRITE_MENTIONS, owner=owner, sid=sid, mentions=[m.model_dump() for m in plan.mentions]).consume()

    fact_ids = [f.id for f in plan.facts]
    known_facts = {r["id"] for r in tx.run(EXISTING_FACTS, owner=owner, ids=fact_ids)}
    tx.run(WRITE_FACTS, owner=owner, sid=sid, facts=[f.model_dump() for f in plan.facts]).consume()
    tx.run(WRITE_RELATIONS, owner=owner, sid=sid, pairs=[list(p) for p in plan.relations]).consume()
    if plan.source.focus_slug and plan.in_context:
        tx.run(WRITE_IN_CONTEXT, owner=owner, sid=sid, focus=plan.source.focus_slug, slugs=plan.in_context).consume()
    if plan.review_pairs:
        tx.run(WRITE_REVIEW_PAIRS, owner=owner, pairs=[p.model_dump() for p in plan.review_pairs]).consume()
    for merge in plan.page_merges:
        fold_page(tx, owner, merge.from_slug, merge.into_slug, merge.evidence)
    tx.run(RENDER_BODIES, owner=owner, slugs=slugs).consume()
    bump_version(tx, owner)
    return WriteCounts(
        pages_created=[s for s in slugs if s not in existing],
        pages_updated=[s for s in slugs if s in existing],
        facts_added=len(set(fact_ids) - known_facts),
    )


# A deleted file's facts are kept but hidden: retired unless another live source states them too.
RETIRE_SOURCE = """
MATCH (s:Source {owner: $owner, id: $sid})
SET s.status = 'retired', s.retired_at = datetime()
WITH s
OPTIONAL MATCH (f:Fact)-[:FROM]->(s)
WHERE NOT EXISTS { MATCH (f)-[:FROM]->(other:Source) WHERE other.status = 'ingested' }
SET f.retired = true
RETURN count(f) AS retired
"""
TOUCHED_BY_SOURCE = """
MATCH (s:Source {owner: $owner, id: $sid})-[:MENTIONS]->(p:Page)
RETURN collect(p.slug) AS slugs
"""


def retire_source(tx: neo4j.ManagedTransaction, owner: str, sid: str) -> tuple[int, list[str]]:
    """(facts retired, slugs of the pages the source mentioned, whose bodies were re-rendered)."""
    retired = tx.run(RETIRE_SOURCE, owner=owner, sid=sid).single()["retired"]
    slugs = tx.run(TOUCHED_BY_SOURCE, owner=owner, sid=sid).single()["slugs"]
    tx.run(RENDER_BODIES, owner=owner, slugs=slugs).consume()
    bump_version(tx, owner)
    return retired, slugs

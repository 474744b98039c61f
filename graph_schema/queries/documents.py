"""Writing one ingested source into a person's graph, in one transaction.

`write_document` is the only way the pipeline changes pages and facts. Its steps, in order:
note the pages the source's previous version touched, record the source, drop what only its
previous version said, upsert pages (new ones get their kind label), mentions with the resolution
evidence, facts with provenance, RELATES_TO between pages sharing a fact, IN_CONTEXT to the focus
area, POSSIBLY_SAME pairs for review, re-render the bodies of the pages touched by either version
from their live facts, delete the pages nothing live supports any more, and bump the graph version.
`retire_source` does the same for a deleted file, keeping its facts but hidden.
"""

from __future__ import annotations

import neo4j
from pydantic import BaseModel

from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.models import DocumentWrite, KnownPage, SourceWrite
from graph_schema.queries.owners import bump_version
from graph_schema.queries.sight import rendered_body

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
RETURN p.slug AS slug, p.title AS title, p.kind AS kind, coalesce(p.name_keys, []) AS name_keys,
       p.kind_set_at IS NOT NULL AS kind_by_hand,
       EXISTS { (p)<-[m:MENTIONS]-(:Source {owner: $owner}) WHERE m.kind_read_by_rule } AS kind_by_rule,
       coalesce(p.llm_kind = p.kind, false) AS kind_by_model,
       [(p)-[:NOT_SAME]-(q:Page {owner: $owner}) | q.slug] AS not_same,
       coalesce(p.former_slugs, []) AS former_slugs
"""

# The pages named in the same documents as one page (evidence that a lone first name in a new
# note is that person: the note names someone or something they were named with before).
PAGES_NAMED_WITH = """
MATCH (p:Page {owner: $owner, slug: $slug})<-[:MENTIONS]-(s:Source {owner: $owner})-[:MENTIONS]->(q:Page)
WHERE q <> p
WITH DISTINCT q.slug AS slug LIMIT $limit
RETURN collect(slug) AS slugs
"""

PAGE_KINDS = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
RETURN p.slug AS slug, p.kind AS kind
"""

# `active_at`: when the source last changed what it says (first written, its content or its status
# changed); `changed_at`: when the content of a read file last changed (recent activity's 'changed
# document'). A rerun that reads the same content again moves neither.
UPSERT_SOURCE = """
MERGE (s:Source {owner: $owner, id: $src.id})
  ON CREATE SET s.created_at = datetime()
SET s.changed_at = CASE WHEN s.status = 'ingested' AND $src.status = 'ingested' AND s.content_hash <> $src.content_hash
                        THEN datetime() ELSE s.changed_at END,
    s.active_at = CASE WHEN s.active_at IS NULL OR s.status IS NULL OR s.status <> $src.status
                            OR s.content_hash IS NULL OR s.content_hash <> $src.content_hash
                       THEN datetime() ELSE s.active_at END
SET s.key = $src.key, s.kind = $src.kind, s.title = $src.title, s.format = $src.format,
    s.content_hash = $src.content_hash, s.status = $src.status, s.reason = $src.reason,
    s.truncated_reason = $src.truncated_reason, s.author = $src.author, s.author_kind = $src.author_kind,
    s.author_key = $src.author_key, s.focus = $src.focus_slug,
    s.ingested_at = datetime()
"""

# The pages a source touches: those it mentions, those its facts are about (an anchor or a
# submission's focus area need not be mentioned) and the focus area it is filed under. Read before
# its old version is dropped (and before UPSERT_SOURCE replaces `focus`), so that the pages only
# the old version talked about are re-rendered and, if nothing else supports them, deleted.
PAGES_OF_SOURCE = """
MATCH (s:Source {owner: $owner, id: $sid})
CALL (s) {
  MATCH (s)-[:MENTIONS]->(p:Page) RETURN p.slug AS slug
  UNION
  MATCH (s)<-[:FROM]-(:Fact)-[:ABOUT]->(p:Page) RETURN p.slug AS slug
  UNION
  MATCH (p:Page {owner: $owner, slug: s.focus}) RETURN p.slug AS slug
}
RETURN collect(slug) AS slugs
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
# Facts the new version states again (`$keep`) are left alone, so they keep when they were first
# seen. Of the others, a fact no source states any more is deleted, and one that only retired
# (deleted) files state is retired like theirs; returns the pages that lost a fact either way.
DROP_PREVIOUS_FACTS = """
MATCH (f:Fact {owner: $owner})-[r:FROM]->(:Source {owner: $owner, id: $sid})
WHERE NOT f.id IN $keep
DELETE r
WITH DISTINCT f
WHERE NOT EXISTS { (f)-[:FROM]->(s:Source) WHERE s.status <> 'retired' }
SET f.retired = true
WITH f, [(f)-[:ABOUT]->(p:Page) | p.slug] AS about
CALL (f) {
  WITH f WHERE NOT (f)-[:FROM]->()
  DETACH DELETE f
}
UNWIND about AS slug
RETURN collect(DISTINCT slug) AS slugs
"""
# A sentence the new version states again is about the pages the new version finds in it: when
# no other source states it, its old ABOUT links go (WRITE_FACTS makes the new ones).
DROP_RESTATED_ABOUT = """
UNWIND $keep AS id
MATCH (f:Fact {owner: $owner, id: id})-[a:ABOUT]->(:Page)
WHERE (f)-[:FROM]->(:Source {owner: $owner, id: $sid})
  AND NOT EXISTS { (f)-[:FROM]->(s:Source) WHERE s.id <> $sid }
DELETE a
"""
DROP_PREVIOUS_LINK_SUPPORT = """
MATCH (a:Page {owner: $owner})-[r:RELATES_TO|IN_CONTEXT]->(b:Page {owner: $owner})
WHERE $sid IN coalesce(r.sources, [])
SET r.sources = [x IN r.sources WHERE x <> $sid],
    r.works_at = CASE WHEN r.works_at IS NULL THEN NULL ELSE [x IN r.works_at WHERE x <> $sid] END
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

# A slug is one page of one kind: `merge_batch` refuses a plan that would reach a page of another
# kind through its slug (resolved against pages that changed since), so this MERGE only ever
# meets the page resolution chose, or none.
UPSERT_PAGES = """
UNWIND $pages AS row
MERGE (p:Page {owner: $owner, slug: row.slug})
  ON CREATE SET p:$(row.label), p.kind = row.kind, p.title = row.title, p.aliases = [],
                p.name_keys = [], p.body = '', p.fact_count = 0, p.created_at = datetime(),
                p.created_by = $sid
SET p.updated_at = datetime(),
    p.aliases = p.aliases + [a IN row.aliases WHERE NOT a IN p.aliases AND a <> p.title],
    p.name_keys = p.name_keys + [k IN row.name_keys WHERE NOT k IN p.name_keys]
WITH p, row WHERE row.embedding IS NOT NULL
MERGE (p)-[:HAS_VECTOR]->(v:PageVector)
  ON CREATE SET v.owner = $owner, v.embedding = row.embedding
"""

WRITE_MENTIONS = """
MATCH (s:Source {owner: $owner, id: $sid})
UNWIND $mentions AS m
MATCH (p:Page {owner: $owner, slug: m.slug})
MERGE (s)-[r:MENTIONS]->(p)
SET r.starts = m.starts, r.ends = m.ends, r.surfaces = m.surfaces, r.method = m.method,
    r.score = m.score, r.evidence = m.evidence, r.kind_read = m.kind_read, r.kind_read_by_rule = m.kind_read_by_rule
"""

# The kinds the live sources that mention each page read it as (one per source), for pages whose
# kind the person did not set by hand.
KINDS_READ = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
WHERE p.kind IN $kinds AND p.kind_set_at IS NULL
CALL (p) {
  OPTIONAL MATCH (p)<-[m:MENTIONS]-(s:Source {owner: $owner})
  WHERE s.status <> 'retired' AND m.kind_read IN $kinds
  RETURN collect(m.kind_read) AS read, collect(CASE WHEN m.kind_read_by_rule THEN m.kind_read END) AS ruled
}
RETURN p.slug AS slug, p.kind AS kind, read, ruled, p.llm_kind AS llm_kind, p.llm_kind_readings AS llm_read
"""

# A page's kind follows what its sources read it as (see pipeline.merge.kind_by_sources); the
# person's own corrections (`kind_set_at`) are never touched.
RETYPE_PAGES = """
UNWIND $rows AS row
MATCH (p:Page {owner: $owner, slug: row.slug})
WHERE p.kind = row.was AND p.kind_set_at IS NULL
REMOVE p:$(row.was_label)
SET p:$(row.label), p.kind = row.kind, p.updated_at = datetime()
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
// a sentence moved within the file that first said it keeps its place in the page's body
SET x.retired = false, x.position = CASE WHEN x.created_by = $sid THEN f.start ELSE x.position END,
    x.kind = f.kind, x.action_owner = f.owner, x.due = f.due,  // (x.owner is whose graph it is)
    x.due_on = CASE WHEN f.due_on IS NULL THEN null ELSE date(f.due_on) END,
    x.stated_on = CASE WHEN f.stated_on IS NULL THEN null ELSE date(f.stated_on) END, x.done = f.done,
    x.document_status = f.document_status
MERGE (x)-[r:FROM]->(s)
SET r.start = f.start, r.end = f.end
WITH x, f
UNWIND f.slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
MERGE (x)-[:ABOUT]->(p)
"""

# Two pages have one RELATES_TO whichever way round it was made (a hand link, an older graph or
# an import may hold b->a): the source joins the link there is; a new one runs in slug order. A link
# the document now states answers a suggestion (graph_schema.queries.connections).
WRITE_RELATIONS = """
UNWIND $pairs AS pair
MATCH (a:Page {owner: $owner, slug: pair[0]}), (b:Page {owner: $owner, slug: pair[1]})
OPTIONAL MATCH (a)-[existing:RELATES_TO]-(b)
WITH a, b, head(collect(existing)) AS existing
FOREACH (r IN CASE WHEN existing IS NULL THEN [1] ELSE [] END |
  CREATE (a)-[:RELATES_TO {created_at: datetime(), sources: [$sid], manual: false}]->(b))
FOREACH (r IN CASE WHEN existing IS NOT NULL AND NOT $sid IN coalesce(existing.sources, []) THEN [existing] ELSE [] END |
  SET r.sources = coalesce(r.sources, []) + $sid)
WITH a, b
OPTIONAL MATCH (a)-[suggested:SUGGESTED_LINK]-(b)
DELETE suggested
"""

# "Works at": the sources that say the person page of a RELATES_TO works at its organisation page
# (the direction follows from the two pages' kinds; the link itself is stored in slug order).
WRITE_WORKS_AT = """
UNWIND $pairs AS pair
MATCH (a:Page {owner: $owner, slug: pair[0]})-[r:RELATES_TO]-(b:Page {owner: $owner, slug: pair[1]})
SET r.works_at = CASE WHEN $sid IN coalesce(r.works_at, []) THEN r.works_at ELSE coalesce(r.works_at, []) + $sid END
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
WHERE a <> b AND NOT (a)-[:POSSIBLY_SAME]-(b) AND NOT (a)-[:NOT_SAME]-(b)  // a person said they differ
MERGE (a)-[r:POSSIBLY_SAME]->(b)
SET r.score = pair.score, r.evidence = pair.evidence, r.created_at = datetime()
"""

# The body is rendered from the page's live facts, oldest first, in document order.
RENDER_BODIES = f"""
UNWIND $slugs AS slug
MATCH (p:Page {{owner: $owner, slug: slug}})
OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired
WITH p, f ORDER BY f.first_seen, f.position, f.text
WITH p, collect(f.text) AS texts
SET p.body = {rendered_body('texts')},
    p.fact_count = size(texts)
"""

# A page nothing live supports any more is deleted, so it stops showing in search, the snapshot
# and compile as if current: no live fact is about it, no live source names it or is filed under
# it, no link is left (those left are hand-made or backed by a live source), and it is not the
# person's own page, nor a page the person renamed or gave its kind by hand. Its retired facts
# stay; a restored file creates it again.
DROP_UNSUPPORTED_PAGES = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
WHERE NOT p.kind IN ['you', 'focus'] AND p.renamed_at IS NULL AND p.kind_set_at IS NULL
  AND NOT EXISTS { (p)<-[:ABOUT]-(f:Fact) WHERE NOT f.retired }
  AND NOT EXISTS { (p)<-[:MENTIONS]-(s:Source) WHERE s.status <> 'retired' }
  AND NOT EXISTS { (s:Source {owner: $owner, focus: p.slug}) WHERE s.status <> 'retired' }
  AND NOT EXISTS { (p)-[:RELATES_TO|IN_CONTEXT]-(:Page) }
WITH p, p.slug AS slug
OPTIONAL MATCH (p)-[:HAS_VECTOR]->(v:PageVector)
DETACH DELETE p, v
RETURN collect(slug) AS slugs
"""

# The first `$per_page` live facts of the page bound to `p`, in document order, as `first_facts`:
# what a page is, as its vector and an LLM judge read it.
FIRST_FACTS = """
CALL (p) {
  OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired
  WITH f ORDER BY f.first_seen, f.position, f.text
  RETURN collect(f.text)[..$per_page] AS first_facts
}"""

# What a page's vector is rebuilt from once it lost a fact: its first live facts (as a mention's
# context is, when the page is created), or its title when none is left. Pages without a vector
# (the person's own page, focus areas) are left without one.
PAGE_EMBEDDING_FACTS = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})-[:HAS_VECTOR]->(:PageVector)
""" + FIRST_FACTS + """
RETURN p.slug AS slug, p.title AS title, first_facts AS texts
"""
SET_PAGE_EMBEDDINGS = """
UNWIND $rows AS row
MATCH (p:Page {owner: $owner, slug: row.slug})
MERGE (p)-[:HAS_VECTOR]->(v:PageVector)
SET v.owner = $owner, v.embedding = row.embedding
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
  ON MATCH SET n.starts = n.starts + m.starts, n.ends = n.ends + m.ends, n.surfaces = n.surfaces + m.surfaces,
    // a source that named both pages keeps the reading a rule gave, if one did
    n.kind_read = CASE WHEN coalesce(m.kind_read_by_rule, false) AND NOT coalesce(n.kind_read_by_rule, false)
                       THEN m.kind_read ELSE n.kind_read END,
    n.kind_read_by_rule = coalesce(n.kind_read_by_rule, false) OR coalesce(m.kind_read_by_rule, false)
DELETE m
"""
# A page keeps one RELATES_TO with each other page, whichever way round it is stored (see
# WRITE_RELATIONS): `from`'s links to a page `into` already links to join that link, and the
# others are made anew, with their sources, works-at sources and whether a person made them.
FOLD_RELATES_TO = """
MATCH (y:Page {owner: $owner, slug: $from_slug})-[r:RELATES_TO]-(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x
WITH x, q, collect(r) AS links
OPTIONAL MATCH (x)-[e:RELATES_TO]-(q)
WITH x, q, links, head(collect(e)) AS existing
WITH x, q, links, existing,
     reduce(acc = [], r IN links | acc + [s IN coalesce(r.sources, []) WHERE NOT s IN acc]) AS sources,
     reduce(acc = null, r IN links | CASE WHEN r.works_at IS NULL THEN acc
            ELSE coalesce(acc, []) + [s IN r.works_at WHERE NOT s IN coalesce(acc, [])] END) AS works_at,
     any(r IN links WHERE coalesce(r.manual, false)) AS manual,
     reduce(first = null, r IN links | CASE WHEN first IS NULL OR r.created_at < first THEN r.created_at
            ELSE first END) AS created_at
CALL (x, q, existing, sources, works_at, manual, created_at) {
  WITH * WHERE existing IS NULL
  CREATE (x)-[n:RELATES_TO]->(q)
  SET n.created_at = created_at, n.sources = sources, n.manual = manual, n.works_at = works_at
}
CALL (existing, sources, works_at, manual) {
  WITH * WHERE existing IS NOT NULL
  SET existing.sources = coalesce(existing.sources, []) + [s IN sources WHERE NOT s IN coalesce(existing.sources, [])],
      existing.manual = coalesce(existing.manual, false) OR manual,
      existing.works_at = CASE WHEN works_at IS NULL THEN existing.works_at
                          ELSE coalesce(existing.works_at, []) + [s IN works_at WHERE NOT s IN coalesce(existing.works_at, [])] END
}
FOREACH (r IN links | DELETE r)
"""
FOLD_IN_CONTEXT = """
MATCH (y:Page {owner: $owner, slug: $from_slug})-[r:IN_CONTEXT]->(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x
MERGE (x)-[n:IN_CONTEXT]->(q)
  ON CREATE SET n.created_at = r.created_at, n.sources = [], n.manual = coalesce(r.manual, false)
SET n.sources = n.sources + [s IN coalesce(r.sources, []) WHERE NOT s IN n.sources],
    n.manual = coalesce(n.manual, false) OR coalesce(r.manual, false)
DELETE r
"""
# The person's answers stay true of the merged page: what `from` is not, `into` is not (and a
# pair to review between the two closes); a pair still to review moves over unless answered.
FOLD_NOT_SAME = """
MATCH (y:Page {owner: $owner, slug: $from_slug})-[:NOT_SAME]-(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x
WITH DISTINCT x, q
OPTIONAL MATCH (x)-[pair:POSSIBLY_SAME]-(q)
WITH x, q, collect(pair) AS pairs
FOREACH (p IN pairs | DELETE p)
WITH x, q
WHERE NOT (x)-[:NOT_SAME]-(q)
CREATE (x)-[:NOT_SAME {created_at: datetime()}]->(q)
"""
# A suggestion of the kept page to a page it is now linked to by the folded page's link is answered.
FOLD_SUGGESTIONS = """
MATCH (x:Page {owner: $owner, slug: $into_slug})-[s:SUGGESTED_LINK]-(q:Page {owner: $owner})
WHERE EXISTS { (x)-[:RELATES_TO]-(q) } OR EXISTS { (q)-[:RELATES_TO]-(:Page {owner: $owner, slug: $from_slug}) }
DELETE s
"""
FOLD_REVIEW_PAIRS = """
MATCH (y:Page {owner: $owner, slug: $from_slug})-[r:POSSIBLY_SAME]-(q:Page {owner: $owner}),
      (x:Page {owner: $owner, slug: $into_slug})
WHERE q <> x AND NOT (x)-[:NOT_SAME]-(q) AND NOT (x)-[:POSSIBLY_SAME]-(q)
WITH x, q, r ORDER BY r.score DESC
WITH x, q, head(collect(r)) AS best
CREATE (x)-[:POSSIBLY_SAME {score: best.score, evidence: best.evidence, created_at: best.created_at}]->(q)
"""
FOLD_PAGE = """
MATCH (y:Page {owner: $owner, slug: $from_slug}), (x:Page {owner: $owner, slug: $into_slug})
SET x.aliases = x.aliases + [a IN [y.title] + y.aliases WHERE NOT a IN x.aliases AND a <> x.title],
    x.name_keys = x.name_keys + [k IN y.name_keys WHERE NOT k IN x.name_keys],
    x.former_slugs = coalesce(x.former_slugs, []) + y.slug + coalesce(y.former_slugs, []),
    x.merge_evidence = coalesce(x.merge_evidence, []) + $evidence + coalesce(y.merge_evidence, []),
    x.updated_at = datetime()
WITH x, y
OPTIONAL MATCH (y)-[:HAS_VECTOR]->(v:PageVector)
DETACH DELETE y, v
"""


def fold_page(tx: neo4j.ManagedTransaction, owner: str, from_slug: str, into_slug: str, evidence: str) -> None:
    for statement in (FOLD_FACTS, FOLD_MENTIONS, FOLD_RELATES_TO, FOLD_IN_CONTEXT, FOLD_NOT_SAME, FOLD_REVIEW_PAIRS,
                      FOLD_SUGGESTIONS, FOLD_PAGE):
        tx.run(statement, owner=owner, from_slug=from_slug, into_slug=into_slug, evidence=evidence).consume()


class WriteCounts(BaseModel):
    pages_created: list[str]
    pages_updated: list[str]  # in the new version, or re-rendered because only the old one was
    facts_added: int
    pages_deleted: list[str] = []  # only the old version supported them
    pages_losing_facts: list[str] = []  # still here, with a fact fewer: their vectors are stale


class RetireCounts(BaseModel):
    facts_retired: int
    pages_updated: list[str]
    pages_deleted: list[str]
    pages_losing_facts: list[str]


def source_states(tx: neo4j.ManagedTransaction, owner: str, ids: list[str]) -> dict[str, tuple[str, str]]:
    """source id -> (content hash, status) for those of `ids` already in the graph."""
    return {r["id"]: (r["content_hash"], r["status"]) for r in tx.run(SOURCE_STATES, owner=owner, ids=ids)}


def known_pages(tx: neo4j.ManagedTransaction, owner: str) -> list[KnownPage]:
    return [
        KnownPage(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"]), name_keys=r["name_keys"],
                  kind_by_hand=r["kind_by_hand"], kind_by_rule=r["kind_by_rule"], kind_by_model=r["kind_by_model"], not_same=r["not_same"],
                  former_slugs=r["former_slugs"])
        for r in tx.run(KNOWN_PAGES, owner=owner)
    ]


def pages_named_with(tx: neo4j.ManagedTransaction, owner: str, slug: str, limit: int) -> set[str]:
    """Slugs of at most `limit` pages named in the same sources as `slug`."""
    return set(tx.run(PAGES_NAMED_WITH, owner=owner, slug=slug, limit=limit).single()["slugs"])


def page_kinds(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str]) -> dict[str, PageKind]:
    """slug -> kind of those of `slugs` that are pages of the person already."""
    return {r["slug"]: PageKind(r["kind"]) for r in tx.run(PAGE_KINDS, owner=owner, slugs=slugs)}


def record_failure(tx: neo4j.ManagedTransaction, owner: str, source: SourceWrite) -> None:
    """Keep the reason on the source; the pages, facts and links are not touched. The graph's
    version moves: what changed lately (compile's `recent`) now lists the failure."""
    tx.run(UPSERT_SOURCE, owner=owner, src=source.model_dump(mode="json")).consume()
    bump_version(tx, owner)


def pages_of_source(tx: neo4j.ManagedTransaction, owner: str, sid: str) -> list[str]:
    return tx.run(PAGES_OF_SOURCE, owner=owner, sid=sid).single()["slugs"]


def drop_previous_version(tx: neo4j.ManagedTransaction, owner: str, sid: str, keep: list[str]) -> list[str]:
    """Remove what the source's previous version said, except the facts in `keep` (the new version
    states them too); the slugs of the pages that lost a fact."""
    tx.run(DROP_PREVIOUS_MENTIONS, owner=owner, sid=sid).consume()
    tx.run(DROP_PREVIOUS_CHUNKS, owner=owner, sid=sid).consume()
    lost = tx.run(DROP_PREVIOUS_FACTS, owner=owner, sid=sid, keep=keep).single()["slugs"]
    tx.run(DROP_RESTATED_ABOUT, owner=owner, sid=sid, keep=keep).consume()
    tx.run(DROP_PREVIOUS_LINK_SUPPORT, owner=owner, sid=sid).consume()
    return lost


def drop_unsupported_pages(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str]) -> list[str]:
    """Delete those of `slugs` that nothing live supports any more (see DROP_UNSUPPORTED_PAGES)."""
    if not slugs:
        return []
    return tx.run(DROP_UNSUPPORTED_PAGES, owner=owner, slugs=slugs).single()["slugs"]


def kinds_read(
    tx: neo4j.ManagedTransaction, owner: str, slugs: list[str]
) -> dict[str, tuple[PageKind, list[PageKind], list[PageKind], PageKind | None]]:
    """slug -> (its kind, the kind each live source mentioning it read it as, those of the readings
    a rule gave, the kind an LLM answered for exactly these readings or None), for those of `slugs`
    whose kind is one text is read into and was not set by hand."""
    kinds = [k.value for k in ENTITY_KINDS]
    found = {}
    for r in tx.run(KINDS_READ, owner=owner, slugs=slugs, kinds=kinds):
        answered = r["llm_kind"] if r["llm_kind"] and r["llm_read"] == sorted(set(r["read"])) else None
        found[r["slug"]] = (PageKind(r["kind"]), [PageKind(k) for k in r["read"]], [PageKind(k) for k in r["ruled"]],
                            PageKind(answered) if answered else None)
    return found


def retype_pages(tx: neo4j.ManagedTransaction, owner: str, kinds: dict[str, tuple[PageKind, PageKind]]) -> None:
    """Give each page (slug -> (kind it has, kind it gets)) its new kind and label."""
    rows = [{"slug": slug, "was": was.value, "was_label": was.label, "kind": kind.value, "label": kind.label}
            for slug, (was, kind) in kinds.items()]
    if rows:
        tx.run(RETYPE_PAGES, owner=owner, rows=rows).consume()


def page_embedding_texts(
    tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], facts_per_page: int, max_chars: int
) -> dict[str, str]:
    """slug -> the text to embed for it, for those of `slugs` that have a vector."""
    records = tx.run(PAGE_EMBEDDING_FACTS, owner=owner, slugs=slugs, per_page=facts_per_page)
    return {r["slug"]: (" ".join(r["texts"]) or r["title"])[:max_chars] for r in records}


def set_page_embeddings(tx: neo4j.ManagedTransaction, owner: str, vectors: dict[str, list[float]]) -> None:
    rows = [{"slug": slug, "embedding": vector} for slug, vector in vectors.items()]
    tx.run(SET_PAGE_EMBEDDINGS, owner=owner, rows=rows).consume()


def write_document(tx: neo4j.ManagedTransaction, owner: str, plan: DocumentWrite, replaces_previous: bool) -> WriteCounts:
    sid = plan.source.id
    previous = pages_of_source(tx, owner, sid) if replaces_previous else []
    tx.run(UPSERT_SOURCE, owner=owner, src=plan.source.model_dump(mode="json")).consume()
    fact_ids = [f.id for f in plan.facts]
    lost = drop_previous_version(tx, owner, sid, fact_ids) if replaces_previous else []

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

    known_facts = {r["id"] for r in tx.run(EXISTING_FACTS, owner=owner, ids=fact_ids)}
    tx.run(WRITE_FACTS, owner=owner, sid=sid, facts=[f.model_dump() for f in plan.facts]).consume()
    tx.run(WRITE_RELATIONS, owner=owner, sid=sid, pairs=[list(p) for p in plan.relations]).consume()
    if plan.works_at:
        tx.run(WRITE_WORKS_AT, owner=owner, sid=sid, pairs=[list(p) for p in plan.works_at]).consume()
    if plan.source.focus_slug and plan.in_context:
        tx.run(WRITE_IN_CONTEXT, owner=owner, sid=sid, focus=plan.source.focus_slug, slugs=plan.in_context).consume()
    if plan.review_pairs:
        tx.run(WRITE_REVIEW_PAIRS, owner=owner, pairs=[p.model_dump() for p in plan.review_pairs]).consume()
    for merge in plan.page_merges:
        fold_page(tx, owner, merge.from_slug, merge.into_slug, merge.evidence)
    only_before = [s for s in previous if s not in slugs]  # pages of the new version are supported by it
    tx.run(RENDER_BODIES, owner=owner, slugs=slugs + only_before).consume()
    deleted = drop_unsupported_pages(tx, owner, only_before)
    bump_version(tx, owner)
    return WriteCounts(
        pages_created=[s for s in slugs if s not in existing],
        pages_updated=[s for s in slugs if s in existing] + [s for s in only_before if s not in deleted],
        facts_added=len(set(fact_ids) - known_facts),
        pages_deleted=deleted,
        pages_losing_facts=[s for s in lost if s not in deleted],
    )


# A deleted file's facts are kept but hidden: retired unless a source that is not retired states
# them too; returns how many it retired and the pages they are about.
RETIRE_SOURCE = """
MATCH (s:Source {owner: $owner, id: $sid})
SET s.status = 'retired', s.retired_at = datetime()
WITH s
OPTIONAL MATCH (f:Fact)-[:FROM]->(s)
WHERE NOT f.retired AND NOT EXISTS { MATCH (f)-[:FROM]->(other:Source) WHERE other.status <> 'retired' }
SET f.retired = true
WITH f
OPTIONAL MATCH (f)-[:ABOUT]->(p:Page)
RETURN count(DISTINCT f) AS retired, collect(DISTINCT p.slug) AS slugs
"""


def retire_source(tx: neo4j.ManagedTransaction, owner: str, sid: str) -> RetireCounts:
    """Hide what only the deleted file said, take its support off links (a link it alone backed goes,
    unless made by hand), re-render the pages it touched and delete those nothing live supports."""
    touched = pages_of_source(tx, owner, sid)
    record = tx.run(RETIRE_SOURCE, owner=owner, sid=sid).single()
    tx.run(DROP_PREVIOUS_LINK_SUPPORT, owner=owner, sid=sid).consume()
    tx.run(RENDER_BODIES, owner=owner, slugs=touched).consume()
    deleted = drop_unsupported_pages(tx, owner, touched)
    bump_version(tx, owner)
    return RetireCounts(
        facts_retired=record["retired"],
        pages_updated=[s for s in touched if s not in deleted],
        pages_deleted=deleted,
        pages_losing_facts=[s for s in record["slugs"] if s not in deleted],
    )

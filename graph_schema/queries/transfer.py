"""Reading a whole graph out for `subtext export`, and writing one back for `subtext import`.

Reads go in pages of `batch` rows ordered by a stable key, so a large graph is never held by
the server in one result. Writes are UNWIND batches; import only ever fills an empty graph.
"""

from __future__ import annotations

from typing import Any

import neo4j

from graph_schema.queries.pages import to_native

EXPORT_PAGES = """
MATCH (p:Page {owner: $owner}) WHERE p.slug > $after
RETURN p {.slug, .title, .kind, .aliases, .name_keys, .body, .created_at, .updated_at,
          .created_by, .renamed_at, .kind_set_at, .former_slugs, .merge_evidence,
          .llm_kind, .llm_kind_readings, .llm_kind_by, .llm_kind_reason,
          embedding: [(p)-[:HAS_VECTOR]->(v:PageVector) | v.embedding][0]} AS row
ORDER BY p.slug LIMIT $batch
"""

EXPORT_SOURCES = """
MATCH (s:Source {owner: $owner}) WHERE s.id > $after
RETURN s {.id, .key, .kind, .title, .format, .content_hash, .status, .reason, .truncated_reason,
          .author, .focus, .created_at, .ingested_at, .retired_at, .changed_at, .active_at,
          author_kind: coalesce(s.author_kind, CASE WHEN s.kind = 'submission' AND s.author IS NOT NULL
                                                    THEN 'assistant' END)} AS row
ORDER BY s.id LIMIT $batch
"""

EXPORT_CHUNKS = """
MATCH (s:Source {owner: $owner})-[:HAS_CHUNK]->(c:Chunk) WHERE c.id > $after
RETURN c {.id, .index, .start, .end, .text, source: s.id} AS row
ORDER BY c.id LIMIT $batch
"""

EXPORT_FACTS = """
MATCH (f:Fact {owner: $owner}) WHERE f.id > $after
WITH f ORDER BY f.id LIMIT $batch
RETURN f {.id, .text, .kind, .action_owner, .due, .due_on, .stated_on, done: coalesce(f.done, false),
          document_status: coalesce(f.document_status, false), .retired,
          .first_seen, .position, .created_by,
          sources: [(f)-[r:FROM]->(s:Source) | {source: s.id, key: s.key, start: r.start, end: r.end}],
          about: [(f)-[:ABOUT]->(p:Page) | p.slug]} AS row
ORDER BY f.id
"""

EXPORT_MENTIONS = """
MATCH (s:Source {owner: $owner})-[m:MENTIONS]->(p:Page)
WITH s, m, p, s.id + ' ' + p.slug AS cursor WHERE cursor > $after
RETURN {cursor: cursor, source: s.id, key: s.key, page: p.slug, starts: m.starts, ends: m.ends,
        surfaces: m.surfaces, method: m.method, score: m.score, evidence: m.evidence, kind_read: m.kind_read,
        kind_read_by_rule: m.kind_read_by_rule} AS row
ORDER BY cursor LIMIT $batch
"""

EXPORT_LINKS = """
MATCH (a:Page {owner: $owner})-[r:RELATES_TO|IN_CONTEXT|POSSIBLY_SAME|NOT_SAME]->(b:Page {owner: $owner})
WITH a, r, b, type(r) + ' ' + a.slug + ' ' + b.slug AS cursor WHERE cursor > $after
RETURN {cursor: cursor, link: type(r), source: a.slug, target: b.slug, sources: r.sources,
        manual: r.manual, score: r.score, evidence: r.evidence, created_at: r.created_at, works_at: r.works_at} AS row
ORDER BY cursor LIMIT $batch
"""

# Groups the person turned down as focus areas: their answer, which later proposal runs keep to.
EXPORT_DISMISSED_FOCUS = """
MATCH (fp:FocusProposal {owner: $owner, status: 'dismissed'})
WITH fp, fp.slug + ' ' + coalesce(toString(fp.dismissed_at), '') AS cursor WHERE cursor > $after
RETURN {cursor: cursor, slug: fp.slug, title: fp.title, members: fp.members, cohesion: fp.cohesion,
        evidence: fp.evidence, dismissed_at: fp.dismissed_at, dismissed_by: fp.dismissed_by} AS row
ORDER BY cursor LIMIT $batch
"""

EXPORT_QUERIES = {
    "page": (EXPORT_PAGES, "slug"),
    "source": (EXPORT_SOURCES, "id"),
    "chunk": (EXPORT_CHUNKS, "id"),
    "fact": (EXPORT_FACTS, "id"),
    "mention": (EXPORT_MENTIONS, "cursor"),
    "link": (EXPORT_LINKS, "cursor"),
    "dismissed_focus": (EXPORT_DISMISSED_FOCUS, "cursor"),
}

COUNT_CONTENT = """
OPTIONAL MATCH (p:Page {owner: $owner}) WHERE p.slug <> 'you'
WITH count(p) AS pages
OPTIONAL MATCH (s:Source {owner: $owner})
RETURN pages, count(s) AS sources
"""

IMPORT_PAGES = """
UNWIND $rows AS row
MERGE (p:Page {owner: $owner, slug: row.slug})
SET p:$(row.label), p.kind = row.kind, p.title = row.title, p.aliases = row.aliases,
    p.name_keys = row.name_keys, p.body = row.body,
    p.created_by = row.created_by, p.fact_count = 0,
    p.former_slugs = row.former_slugs, p.merge_evidence = row.merge_evidence,
    p.llm_kind = row.llm_kind, p.llm_kind_readings = row.llm_kind_readings, p.llm_kind_by = row.llm_kind_by,
    p.llm_kind_reason = row.llm_kind_reason,
    p.renamed_at = datetime(row.renamed_at), p.kind_set_at = datetime(row.kind_set_at),
    p.created_at = coalesce(datetime(row.created_at), datetime()),
    p.updated_at = coalesce(datetime(row.updated_at), datetime())
WITH p, row WHERE row.embedding IS NOT NULL
MERGE (p)-[:HAS_VECTOR]->(v:PageVector)
SET v.owner = $owner, v.embedding = row.embedding
"""

IMPORT_SOURCES = """
UNWIND $rows AS row
CREATE (s:Source {owner: $owner, id: row.id})
SET s.key = row.key, s.kind = row.kind, s.title = row.title, s.format = row.format,
    s.content_hash = row.content_hash, s.status = row.status, s.reason = row.reason,
    s.truncated_reason = row.truncated_reason, s.author = row.author, s.author_kind = row.author_kind,
    s.focus = row.focus,
    s.created_at = datetime(row.created_at), s.ingested_at = datetime(row.ingested_at),
    s.retired_at = datetime(row.retired_at), s.changed_at = datetime(row.changed_at),
    s.active_at = datetime(row.active_at)
"""

IMPORT_CHUNKS = """
UNWIND $rows AS row
MATCH (s:Source {owner: $owner, id: row.source})
CREATE (c:Chunk {owner: $owner, id: row.id})
SET c.index = row.index, c.start = row.start, c.end = row.end, c.text = row.text, c.source_id = row.source
CREATE (s)-[:HAS_CHUNK]->(c)
"""

IMPORT_FACTS = """
UNWIND $rows AS row
CREATE (f:Fact {owner: $owner, id: row.id})
SET f.text = row.text, f.kind = row.kind, f.action_owner = row.action_owner, f.due = row.due, f.retired = row.retired, f.first_seen = datetime(row.first_seen),
    f.due_on = date(row.due_on), f.stated_on = date(row.stated_on), f.done = coalesce(row.done, false),
    f.document_status = coalesce(row.document_status, false),
    f.position = row.position, f.created_by = row.created_by
WITH f, row
CALL (f, row) {
  UNWIND row.sources AS src
  MATCH (s:Source {owner: $owner, id: src.source})
  CREATE (f)-[:FROM {start: src.start, end: src.end}]->(s)
}
CALL (f, row) {
  UNWIND row.about AS slug
  MATCH (p:Page {owner: $owner, slug: slug})
  CREATE (f)-[:ABOUT]->(p)
}
"""

IMPORT_MENTIONS = """
UNWIND $rows AS row
MATCH (s:Source {owner: $owner, id: row.source}), (p:Page {owner: $owner, slug: row.page})
CREATE (s)-[r:MENTIONS]->(p)
SET r.starts = row.starts, r.ends = row.ends, r.surfaces = row.surfaces, r.method = row.method,
    r.score = row.score, r.evidence = row.evidence, r.kind_read = row.kind_read,
    r.kind_read_by_rule = row.kind_read_by_rule
"""

# `row.link` is one of four relationship types, checked by LinkRecord before any write.
IMPORT_LINKS = """
UNWIND $rows AS row
MATCH (a:Page {owner: $owner, slug: row.source}), (b:Page {owner: $owner, slug: row.target})
CREATE (a)-[r:$(row.link)]->(b)
SET r.sources = row.sources, r.manual = row.manual, r.score = row.score, r.evidence = row.evidence,
    r.works_at = row.works_at, r.created_at = coalesce(datetime(row.created_at), datetime())
"""

IMPORT_DISMISSED_FOCUS = """
UNWIND $rows AS row
CREATE (:FocusProposal {owner: $owner, slug: row.slug, title: row.title, members: row.members,
                        cohesion: row.cohesion, evidence: row.evidence, status: 'dismissed',
                        dismissed_at: coalesce(datetime(row.dismissed_at), datetime()), dismissed_by: row.dismissed_by})
"""

IMPORT_QUERIES = {
    "page": IMPORT_PAGES,
    "source": IMPORT_SOURCES,
    "chunk": IMPORT_CHUNKS,
    "fact": IMPORT_FACTS,
    "mention": IMPORT_MENTIONS,
    "link": IMPORT_LINKS,
    "dismissed_focus": IMPORT_DISMISSED_FOCUS,
}

FACT_COUNTS = """
MATCH (p:Page {owner: $owner})
SET p.fact_count = COUNT { (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired }
"""


def export_batch(tx: neo4j.ManagedTransaction, owner: str, record_type: str, after: str, batch: int) -> list[dict[str, Any]]:
    """The next `batch` records of one type after the cursor `after`, as JSON-ready dicts."""
    query, _ = EXPORT_QUERIES[record_type]
    return [to_native(r["row"]) for r in tx.run(query, owner=owner, after=after, batch=batch)]


def content_counts(tx: neo4j.ManagedTransaction, owner: str) -> tuple[int, int]:
    """(pages other than `you`, sources) in the person's graph."""
    record = tx.run(COUNT_CONTENT, owner=owner).single()
    return record["pages"], record["sources"]


def import_batch(tx: neo4j.ManagedTransaction, owner: str, record_type: str, rows: list[dict[str, Any]]) -> None:
    tx.run(IMPORT_QUERIES[record_type], owner=owner, rows=rows).consume()


def recount_facts(tx: neo4j.ManagedTransaction, owner: str) -> None:
    tx.run(FACT_COUNTS, owner=owner).consume()

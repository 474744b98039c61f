"""Pages whose sources disagree on what they are, for an LLM's kind verdict (issue 18 use 2)."""

from __future__ import annotations

import neo4j

from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.queries.documents import FIRST_FACTS

# Pages the live sources read as two or more kinds ('Quillsoft' a firm in one note, a tool in the
# next), whose kind the person did not set and whose readings no model has answered on yet (an
# answer holds while the readings it was given stay the same). Most facts first.
KINDS_IN_DOUBT = """
MATCH (p:Page {owner: $owner})
WHERE p.kind IN $kinds AND p.kind_set_at IS NULL
CALL (p) {
  MATCH (p)<-[m:MENTIONS]-(s:Source {owner: $owner})
  WHERE s.status <> 'retired' AND m.kind_read IN $kinds
  WITH m.kind_read AS read, count(*) AS sources, max(coalesce(m.kind_read_by_rule, false)) AS by_rule ORDER BY read
  RETURN collect(read) AS read, collect(sources) AS sources, [r IN collect({read: read, by_rule: by_rule}) WHERE r.by_rule | r.read] AS ruled
}
WITH p, read, sources, ruled WHERE size(read) >= 2 AND coalesce(p.llm_kind_readings, []) <> read
WITH p, read, sources, ruled ORDER BY coalesce(p.fact_count, 0) DESC, p.slug LIMIT $limit
""" + FIRST_FACTS + """
RETURN p.slug AS slug, p.title AS title, p.kind AS kind, coalesce(p.aliases, []) AS aliases, read, sources, ruled,
       first_facts AS facts
"""

# What the model answered, kept on the page with the readings it was given; the page's kind is
# changed separately (documents.retype_pages), and only while the person has not set it.
MARK_KIND_ANSWER = """
MATCH (p:Page {owner: $owner, slug: $slug})
WHERE p.kind_set_at IS NULL
SET p.llm_kind = $kind, p.llm_kind_readings = $read, p.llm_kind_by = $by, p.llm_kind_reason = $reason
RETURN p.kind AS kind
"""


def kinds_in_doubt(tx: neo4j.ManagedTransaction, owner: str, limit: int, facts_per_page: int) -> list[dict]:
    """Up to `limit` pages whose live sources read them as different kinds and that no model has
    answered on for these readings: slug, title, kind, aliases, read (sorted kinds), sources (how
    many sources read each), ruled (the kinds a rule read), facts."""
    kinds = [k.value for k in ENTITY_KINDS]
    return [dict(r) for r in tx.run(KINDS_IN_DOUBT, owner=owner, kinds=kinds, limit=limit, per_page=facts_per_page)]


def mark_kind_answer(tx: neo4j.ManagedTransaction, owner: str, slug: str, kind: PageKind | None, read: list[str],
                     by: str, reason: str) -> PageKind | None:
    """Record the model's answer on the page (None: it gave no usable one); returns the page's
    kind, or None when the page is gone or the person set its kind meanwhile."""
    record = tx.run(MARK_KIND_ANSWER, owner=owner, slug=slug, kind=kind.value if kind else None, read=read,
                    by=by, reason=reason).single()
    return PageKind(record["kind"]) if record else None

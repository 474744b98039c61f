"""Pages that may be one thing: the pairs resolution left for review (POSSIBLY_SAME), a person's
answer that two pages are different things (NOT_SAME, never proposed again), and a merge by hand."""

from __future__ import annotations

from typing import NamedTuple

import neo4j

from graph_schema.kinds import ENTITY_KINDS
from graph_schema.models import ReviewPair
from graph_schema.queries.documents import FIRST_FACTS, RENDER_BODIES, WRITE_REVIEW_PAIRS, fold_page
from graph_schema.queries.owners import bump_version, lock_graph

REVIEW_PAIRS = """
MATCH (a:Page {owner: $owner})-[r:POSSIBLY_SAME]->(b:Page {owner: $owner})
WHERE NOT (a)-[:NOT_SAME]-(b)
  AND ($unjudged_only = false OR (r.llm_verdict IS NULL AND coalesce(r.llm_attempts, 0) < $max_attempts))
RETURN a.slug AS slug, a.title AS title, a.kind AS kind, coalesce(a.fact_count, 0) AS facts,
       b.slug AS other_slug, b.title AS other_title, b.kind AS other_kind, coalesce(b.fact_count, 0) AS other_facts,
       coalesce(r.score, 0.0) AS score, coalesce(r.evidence, '') AS evidence,
       r.llm_verdict AS llm_verdict, r.llm_reason AS llm_reason
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
  ON CREATE SET n.created_at = datetime(), n.by = $by
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


# What a judge of a pair is shown of each page: its names, its kind and its first few facts.
PAGES_DESCRIBED = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
""" + FIRST_FACTS + """
RETURN p.slug AS slug, p.title AS title, p.kind AS kind, coalesce(p.aliases, []) AS aliases, first_facts AS facts
"""


def pages_described(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], facts_per_page: int) -> dict[str, dict]:
    return {r["slug"]: dict(r) for r in tx.run(PAGES_DESCRIBED, owner=owner, slugs=slugs, per_page=facts_per_page)}


# Whether the pair is still open (no page of it folded away, no 'not the same' answer since it was read).
PAIR_IS_OPEN = """
MATCH (a:Page {owner: $owner, slug: $slug})-[:POSSIBLY_SAME]-(b:Page {owner: $owner, slug: $other_slug})
WHERE NOT (a)-[:NOT_SAME]-(b)
RETURN count(*) > 0 AS open
"""
# An LLM's answer that settles nothing stays on the pair: 'unsure' is not asked again, and a pair
# that got no valid answer is asked at most `max_attempts` times.
MARK_ASKED = """
MATCH (a:Page {owner: $owner, slug: $slug})-[r:POSSIBLY_SAME]-(b:Page {owner: $owner, slug: $other_slug})
SET r.llm_attempts = coalesce(r.llm_attempts, 0) + 1,
    r.llm_verdict = CASE WHEN $verdict IS NULL THEN r.llm_verdict ELSE $verdict END,
    r.llm_reason = CASE WHEN $verdict IS NULL THEN r.llm_reason ELSE $reason END
"""


def review_pairs(tx: neo4j.ManagedTransaction, owner: str, limit: int, unjudged_only: bool = False,
                 max_attempts: int = 0) -> list[dict]:
    return [dict(r) for r in tx.run(REVIEW_PAIRS, owner=owner, limit=limit, unjudged_only=unjudged_only,
                                    max_attempts=max_attempts)]


def pair_is_open(tx: neo4j.ManagedTransaction, owner: str, slug: str, other_slug: str) -> bool:
    return tx.run(PAIR_IS_OPEN, owner=owner, slug=slug, other_slug=other_slug).single()["open"]


def mark_asked(tx: neo4j.ManagedTransaction, owner: str, slug: str, other_slug: str, verdict: str | None,
               reason: str | None) -> None:
    tx.run(MARK_ASKED, owner=owner, slug=slug, other_slug=other_slug, verdict=verdict, reason=reason).consume()


def mark_not_same(tx: neo4j.ManagedTransaction, owner: str, slug: str, other_slug: str, by: str = "person") -> int | None:
    """Record that two pages are different things (`by`: the person, or the LLM model that said so);
    the number of review pairs it closed, or None when one of the pages does not exist."""
    record = tx.run(MARK_NOT_SAME, owner=owner, slug=slug, other_slug=other_slug, by=by).single()
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


# The near-duplicate scan (pipeline.duplicate_scan) looks again at the pages changed since its last
# run, oldest change first: their stored vectors, the pages they are already paired with or kept
# apart from, and the pages named in one document with them (resolution saw both there).
SCAN_MARK = """
MATCH (o:Owner {id: $owner})
RETURN o.duplicates_scanned_at AS since, o.duplicates_scanned_slug AS after,
       datetime() - duration({seconds: $overlap}) AS mark
"""
PAGES_TO_SCAN = """
MATCH (p:Page {owner: $owner})-[:HAS_VECTOR]->(v:PageVector)
WHERE p.kind IN $kinds
  AND ($since IS NULL OR p.updated_at > $since OR (p.updated_at = $since AND ($after IS NULL OR p.slug > $after)))
WITH p, v ORDER BY p.updated_at, p.slug LIMIT $limit
RETURN p.slug AS slug, v.embedding AS embedding, p.updated_at AS updated_at,
       [(p)-[:NOT_SAME|POSSIBLY_SAME]-(q:Page {owner: $owner}) | q.slug] AS answered
"""
# What else two pages alike by name have in common: how alike they are described, whether one
# document names both (resolution saw both there and kept them apart), and the things both are
# linked to (what one thing named two ways in two documents keeps in common).
PAIR_EVIDENCE = """
UNWIND $pairs AS pair
MATCH (a:Page {owner: $owner, slug: pair[0]}), (b:Page {owner: $owner, slug: pair[1]})
OPTIONAL MATCH (a)-[:HAS_VECTOR]->(va:PageVector)
OPTIONAL MATCH (b)-[:HAS_VECTOR]->(vb:PageVector)
RETURN pair[0] AS slug, pair[1] AS other_slug,
       CASE WHEN va IS NULL OR vb IS NULL THEN 0.0
            ELSE 2 * vector.similarity.cosine(va.embedding, vb.embedding) - 1 END AS cosine,
       EXISTS { (a)<-[:MENTIONS]-(:Source {owner: $owner})-[:MENTIONS]->(b) } AS one_document,
       [(a)-[:RELATES_TO]-(q:Page)-[:RELATES_TO]-(b) WHERE q.kind IN $kinds | q.title] AS shared
"""
# The pairs found go through the write path's own statement (never a pair the person answered).
MARK_SCANNED = """
MATCH (o:Owner {id: $owner})
SET o.duplicates_scanned_at = $mark, o.duplicates_scanned_slug = $after
"""


class ScanMark(NamedTuple):
    """Where a scan reached: pages changed at `at` or later (after the page `after`, when a scan
    stopped at its page limit within one moment of changes) are the next scan's."""

    at: object  # a Neo4j DateTime
    after: str | None = None


def scan_marks(tx: neo4j.ManagedTransaction, owner: str, overlap_seconds: int) -> tuple[ScanMark | None, ScanMark]:
    """(where the last scan reached, or None; the mark this scan leaves if it sees every change).
    That mark is the database's clock less an overlap: a transaction that began before it and
    commits after the scan read (its pages stamped with its start) is looked at by the next scan."""
    record = tx.run(SCAN_MARK, owner=owner, overlap=overlap_seconds).single()
    since = ScanMark(record["since"], record["after"]) if record and record["since"] is not None else None
    return since, ScanMark(record["mark"] if record else None)


def pages_to_scan(tx: neo4j.ManagedTransaction, owner: str, since: ScanMark | None, limit: int) -> list[dict]:
    kinds = [k.value for k in ENTITY_KINDS]
    return [dict(r) for r in tx.run(PAGES_TO_SCAN, owner=owner, kinds=kinds, since=since.at if since else None,
                                    after=since.after if since else None, limit=limit)]


def pair_evidence(tx: neo4j.ManagedTransaction, owner: str, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict]:
    """(slug, other slug) -> cosine, one_document and the titles of what both are linked to."""
    kinds = [k.value for k in ENTITY_KINDS]
    return {(r["slug"], r["other_slug"]): {"cosine": r["cosine"], "one_document": r["one_document"],
                                           "shared": sorted(set(r["shared"]))}
            for r in tx.run(PAIR_EVIDENCE, owner=owner, pairs=[list(p) for p in pairs], kinds=kinds)}


def record_scan(tx: neo4j.ManagedTransaction, owner: str, pairs: list[ReviewPair], mark: ScanMark) -> int:
    """Record the pairs a scan found and how far it reached; returns how many pairs are new."""
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    written = tx.run(WRITE_REVIEW_PAIRS, owner=owner, pairs=[p.model_dump() for p in pairs]).consume()
    tx.run(MARK_SCANNED, owner=owner, mark=mark.at, after=mark.after).consume()
    created = written.counters.relationships_created
    if created:
        bump_version(tx, owner)  # get_page lists the pairs as links
    return created

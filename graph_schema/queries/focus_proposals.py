"""Focus areas the graph proposes (issue 19 item 6): groups of pages that belong together.

A proposal is a node of its own, `(:FocusProposal {owner, slug, title, members, cohesion,
evidence, status})`, not a page: nothing is filed until the person accepts it. `members` holds
page slugs, the most central first. An open proposal is worked out again by every proposal run; a dismissed one stays, so
the same group is never proposed again; an accepted one becomes a focus page (`:Page:Focus`) whose
members are filed under it by hand (`IN_CONTEXT {manual: true}`), so they stay filed whatever the
documents later say, and the proposal is deleted.
"""

from __future__ import annotations

import neo4j

from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.queries.owners import bump_version, lock_graph

# The links documents made between things (RELATES_TO: named in one sentence), with the sources
# behind each; a link made by hand counts as one source of its own.
THING_LINKS = """
MATCH (a:Page {owner: $owner})-[r:RELATES_TO]->(b:Page {owner: $owner})
WHERE a.kind IN $kinds AND b.kind IN $kinds AND a <> b
RETURN a.slug AS a, b.slug AS b, coalesce(r.sources, []) AS sources, coalesce(r.manual, false) AS manual
"""

# The pages of a graph the proposal run groups: their names, kinds and the focus areas they are filed under.
PAGES_GROUPED = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
RETURN p.slug AS slug, p.title AS title, p.kind AS kind,
       [(p)-[:IN_CONTEXT]->(f:Page:Focus {owner: $owner}) | f.slug] AS areas
"""

DISMISSED_PROPOSALS = """
MATCH (fp:FocusProposal {owner: $owner, status: 'dismissed'})
RETURN fp.members AS members
"""

REPLACE_OPEN_PROPOSALS = """
CALL () {
  MATCH (old:FocusProposal {owner: $owner, status: 'open'})
  DELETE old
}
UNWIND $rows AS row
CREATE (:FocusProposal {owner: $owner, slug: row.slug, title: row.title, members: row.members,
                        cohesion: row.cohesion, evidence: row.evidence, status: 'open', created_at: datetime()})
"""

# Open proposals, largest first, each with its member pages as they are now, in the order they
# were proposed (the most central first; a member merged into another page since is found by its
# old slug).
OPEN_PROPOSALS = """
MATCH (fp:FocusProposal {owner: $owner, status: 'open'})
WHERE $slug IS NULL OR fp.slug = $slug
CALL (fp) {
  UNWIND range(0, size(fp.members) - 1) AS i
  MATCH (p:Page {owner: $owner})
  WHERE (p.slug = fp.members[i] OR fp.members[i] IN coalesce(p.former_slugs, [])) AND p.kind IN $kinds
  WITH p, min(i) AS first ORDER BY first
  RETURN collect({slug: p.slug, title: p.title, kind: p.kind}) AS pages
}
RETURN fp.slug AS slug, fp.title AS title, fp.cohesion AS cohesion, fp.evidence AS evidence,
       fp.created_at AS created_at, pages
ORDER BY size(pages) DESC, fp.slug
LIMIT $limit
"""

SLUG_TAKEN = """
MATCH (p:Page {owner: $owner})
WHERE p.slug = $slug OR $slug IN coalesce(p.former_slugs, [])
RETURN p.slug AS slug LIMIT 1
"""

# A focus area known by this name already: a folder's documents find their area by its name.
FOCUS_CALLED = """
MATCH (f:Page:Focus {owner: $owner})
WHERE $key IN coalesce(f.name_keys, [])
RETURN f.title AS title LIMIT 1
"""

# The focus page, its members filed under it by hand, and the proposal gone. The person's own
# words stand behind it now, not a document, so the links are manual (kept when documents change).
ACCEPT_PROPOSAL = """
MATCH (fp:FocusProposal {owner: $owner, slug: $proposal, status: 'open'})
CREATE (f:Page:Focus {owner: $owner, slug: $slug, kind: $focus_kind, title: $title, aliases: [],
                      name_keys: [$key], body: '', fact_count: 0, created_at: datetime(),
                      updated_at: datetime(), created_by: $made_by})
WITH fp, f
CALL (fp, f) {
  UNWIND $members AS member
  MATCH (p:Page {owner: $owner, slug: member})
  WHERE p.kind IN $kinds
  MERGE (p)-[r:IN_CONTEXT]->(f)
    ON CREATE SET r.created_at = datetime(), r.sources = [], r.manual = true
  RETURN count(p) AS filed
}
DELETE fp
RETURN filed
"""

# An accepted area the person no longer wants: its filing goes, and the group is remembered as
# dismissed, so it is not proposed again. Only an area made from a proposal, and only while
# nothing else stands on it (no document filed in a folder of that name, no fact about it, no link
# or answer of the person's).
DROP_ACCEPTED_FOCUS = """
MATCH (f:Page:Focus {owner: $owner, slug: $slug})
WHERE f.created_by = $made_by
  AND NOT EXISTS { (:Fact)-[:ABOUT]->(f) }
  AND NOT EXISTS { (s:Source {owner: $owner, focus: f.slug}) }
  AND NOT EXISTS { (f)-[r]-() WHERE type(r) <> 'IN_CONTEXT' }  // a link or an answer the person made stays
OPTIONAL MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(f)
WITH f, collect(m.slug) AS members
CREATE (:FocusProposal {owner: $owner, slug: f.slug, title: f.title, members: members, status: 'dismissed',
                        evidence: 'accepted, then dropped', dismissed_at: datetime(), dismissed_by: $by})
DETACH DELETE f
RETURN members
"""

DISMISS_PROPOSAL = """
MATCH (fp:FocusProposal {owner: $owner, slug: $proposal, status: 'open'})
SET fp.status = 'dismissed', fp.dismissed_at = datetime(), fp.dismissed_by = $by
RETURN fp.slug AS slug
"""

_KINDS = [k.value for k in ENTITY_KINDS]
MADE_BY = "focus proposal"  # the `created_by` of a focus page made by accepting a proposal


def thing_links(tx: neo4j.ManagedTransaction, owner: str) -> list[dict]:
    """Every RELATES_TO between two pages of things: {a, b, sources, manual}."""
    return [dict(r) for r in tx.run(THING_LINKS, owner=owner, kinds=_KINDS)]


def pages_grouped(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str]) -> list[dict]:
    """{slug, title, kind, areas} of each page in `slugs`."""
    return [dict(r) for r in tx.run(PAGES_GROUPED, owner=owner, slugs=slugs)]


def dismissed_member_sets(tx: neo4j.ManagedTransaction, owner: str) -> list[set[str]]:
    return [set(r["members"]) for r in tx.run(DISMISSED_PROPOSALS, owner=owner)]


def replace_open_proposals(tx: neo4j.ManagedTransaction, owner: str, rows: list[dict]) -> None:
    """Drop the open proposals and record `rows` ({slug, title, members, cohesion, evidence}) instead,
    under the person's write lock (taken before the graph was read) so that two runs never interleave."""
    lock_graph(tx, owner)
    tx.run(REPLACE_OPEN_PROPOSALS, owner=owner, rows=rows).consume()


def open_proposals(tx: neo4j.ManagedTransaction, owner: str, limit: int, slug: str | None = None) -> list[dict]:
    return [dict(r) for r in tx.run(OPEN_PROPOSALS, owner=owner, kinds=_KINDS, limit=limit, slug=slug)]


def slug_taken(tx: neo4j.ManagedTransaction, owner: str, slug: str) -> bool:
    return tx.run(SLUG_TAKEN, owner=owner, slug=slug).single() is not None


def focus_called(tx: neo4j.ManagedTransaction, owner: str, key: str) -> str | None:
    """The title of the focus area whose name reads as `key` (a normalised name), if there is one."""
    record = tx.run(FOCUS_CALLED, owner=owner, key=key).single()
    return record["title"] if record else None


def accept_proposal(tx: neo4j.ManagedTransaction, owner: str, proposal: str, slug: str, title: str, key: str,
                    members: list[str]) -> int | None:
    """Make the focus page `slug` and file `members` under it; how many were filed, or None when the
    proposal is no longer open. The caller checks that `slug` is free, under the lock taken here."""
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    record = tx.run(ACCEPT_PROPOSAL, owner=owner, proposal=proposal, slug=slug, title=title, key=key,
                    members=members, kinds=_KINDS, focus_kind=PageKind.FOCUS.value, made_by=MADE_BY).single()
    if record is None:
        return None
    bump_version(tx, owner)
    return record["filed"]


def dismiss_proposal(tx: neo4j.ManagedTransaction, owner: str, proposal: str, by: str) -> bool:
    lock_graph(tx, owner)
    return tx.run(DISMISS_PROPOSAL, owner=owner, proposal=proposal, by=by).single() is not None


def drop_accepted_focus(tx: neo4j.ManagedTransaction, owner: str, slug: str, by: str) -> list[str] | None:
    """Unfile an accepted area's pages and delete its page; the slugs it held, or None when `slug` is
    no accepted area that nothing else stands on."""
    lock_graph(tx, owner)
    record = tx.run(DROP_ACCEPTED_FOCUS, owner=owner, slug=slug, made_by=MADE_BY, by=by).single()
    if record is None:
        return None
    bump_version(tx, owner)
    return record["members"]

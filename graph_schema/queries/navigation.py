"""Walking the graph: the snapshot, traversal, size checks (scope), and the two page edits."""

from __future__ import annotations

from enum import Enum

import neo4j

from graph_schema.errors import InvalidRequest
from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.queries.owners import bump_version, lock_graph
from graph_schema.queries.sight import link_in_sight, link_sources_in_sight, readable_chars
from graph_schema.slugs import normalise_name, slugify


class LinkOutcome(str, Enum):
    """What link_pages did."""

    CREATED = "created"  # a new link, made by hand
    CONFIRMED = "confirmed"  # a suggested link, now the person's own
    MADE_MANUAL = "made manual"  # documents had implied it; now it is the person's own too
    ALREADY_MANUAL = "already manual"  # linked by hand before: nothing changed
    MISSING = "missing"  # one of the pages does not exist (any more)


# One part of the snapshot: the pages after `$after` ([kind, title, slug] of the last page of the
# part before, or null for the first) in the snapshot's order.
SNAPSHOT_PAGES = """
MATCH (p:Page {owner: $owner})
WHERE ($visible IS NULL OR p.slug IN $visible)
  AND ($after IS NULL OR p.kind > $after[0]
       OR (p.kind = $after[0] AND (p.title > $after[1] OR (p.title = $after[1] AND p.slug > $after[2]))))
RETURN p.slug AS slug, p.title AS title, p.kind AS kind
ORDER BY p.kind, p.title, p.slug
LIMIT $limit
"""
# The links that start at the pages of one part (each link is in exactly one part; its target may
# be in another), found from those pages rather than by scanning every link of the graph.
SNAPSHOT_LINKS = """
UNWIND $listed AS slug
MATCH (a:Page {owner: $owner, slug: slug})-[r:RELATES_TO|IN_CONTEXT]->(b:Page {owner: $owner})
WHERE ($visible IS NULL OR b.slug IN $visible) AND """ + link_in_sight("r") + """
RETURN a.slug AS source, type(r) AS type, b.slug AS target
ORDER BY a.slug, type, b.slug
LIMIT $limit
"""
# The links suggested from the pages of one part (graph_schema.queries.connections), apart from the
# stated ones: for keys that see the whole graph, when the server offers the upkeep group.
SNAPSHOT_SUGGESTED = """
UNWIND $listed AS slug
MATCH (a:Page {owner: $owner, slug: slug})-[s:SUGGESTED_LINK]->(b:Page {owner: $owner})
WHERE $areas IS NULL AND ($visible IS NULL OR b.slug IN $visible)
RETURN a.slug AS source, b.slug AS target, s.evidence AS evidence
ORDER BY a.slug, b.slug
LIMIT $limit
"""
SNAPSHOT_TOTALS = """
CALL () { MATCH (p:Page {owner: $owner}) WHERE ($visible IS NULL OR p.slug IN $visible) RETURN count(p) AS pages }
CALL () {
  MATCH (a:Page {owner: $owner})-[r:RELATES_TO|IN_CONTEXT]->(b:Page {owner: $owner})
  WHERE ($visible IS NULL OR a.slug IN $visible) AND ($visible IS NULL OR b.slug IN $visible)
    AND """ + link_in_sight("r") + """
  RETURN count(r) AS links
}
RETURN pages, links
"""
# The whole graph's totals from each page's degree (links only ever join pages of one owner).
SNAPSHOT_TOTALS_ALL = """
MATCH (p:Page {owner: $owner})
RETURN count(p) AS pages, sum(COUNT { (p)-[:RELATES_TO|IN_CONTEXT]->() }) AS links
"""

PAGE_KIND = """
MATCH (p:Page {owner: $owner, slug: $slug})
WHERE ($visible IS NULL OR p.slug IN $visible)
RETURN p.kind AS kind, p.title AS title
"""

# RELATES_TO is symmetric (stored once, read both ways); strongest links first.
TRAVERSE_RELATES_TO = """
MATCH (start:Page {owner: $owner, slug: $slug})-[r:RELATES_TO]-(q:Page {owner: $owner})
WHERE ($within IS NULL OR EXISTS { (q)-[:IN_CONTEXT]->(:Page:Focus {owner: $owner, slug: $within}) })
  AND ($visible IS NULL OR q.slug IN $visible)
WITH q, r, """ + link_sources_in_sight("r") + """ AS in_sight
WHERE in_sight > 0 OR coalesce(r.manual, false)
RETURN q.slug AS slug, q.title AS title, q.kind AS kind, in_sight +
       CASE WHEN coalesce(r.manual, false) THEN 1 ELSE 0 END AS weight
ORDER BY weight DESC, q.title
LIMIT $limit
"""
# The links suggested around a page (graph_schema.queries.connections), after its stated links:
# for keys that see the whole graph (a suggestion rests on documents of every area), when the
# server offers the upkeep group.
TRAVERSE_SUGGESTED = """
MATCH (start:Page {owner: $owner, slug: $slug})-[s:SUGGESTED_LINK]-(q:Page {owner: $owner})
WHERE $areas IS NULL AND ($visible IS NULL OR q.slug IN $visible)
  AND ($within IS NULL OR EXISTS { (q)-[:IN_CONTEXT]->(:Page:Focus {owner: $owner, slug: $within}) })
RETURN q.slug AS slug, q.title AS title, q.kind AS kind, 0 AS weight, true AS suggested, s.evidence AS evidence
ORDER BY s.score DESC, q.title
LIMIT $limit
"""
# IN_CONTEXT from a thing: the focus areas it is filed under; from a focus area: its members.
TRAVERSE_IN_CONTEXT = """
MATCH (start:Page {owner: $owner, slug: $slug})-[r:IN_CONTEXT]-(q:Page {owner: $owner})
WHERE (start.kind = 'focus' AND endNode(r) = start) OR (start.kind <> 'focus' AND startNode(r) = start)
WITH q
WHERE ($within IS NULL OR q.slug = $within OR EXISTS { (q)-[:IN_CONTEXT]->(:Page:Focus {owner: $owner, slug: $within}) })
  AND ($visible IS NULL OR q.slug IN $visible)
RETURN q.slug AS slug, q.title AS title, q.kind AS kind, 1 AS weight
ORDER BY q.title
LIMIT $limit
"""

SCOPE_FOCUS = """
MATCH (focus:Page:Focus {owner: $owner, slug: $slug})
OPTIONAL MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(focus)
WHERE ($visible IS NULL OR m.slug IN $visible)
WITH focus, collect(m) AS members
CALL (members) {
  UNWIND members AS a
  MATCH (a)-[r:RELATES_TO]->(b) WHERE b IN members AND """ + link_in_sight("r") + """
  RETURN count(r) AS relationships
}
RETURN size(members) AS members, relationships,
       reduce(n = """ + readable_chars("focus") + """, m IN members | n + """ + readable_chars("m") + """) AS characters,
       [m IN members | m.kind] AS kinds
"""
SCOPE_THING = """
MATCH (p:Page {owner: $owner, slug: $slug})
OPTIONAL MATCH (p)-[r:RELATES_TO|IN_CONTEXT]-(q:Page {owner: $owner})
WHERE ($visible IS NULL OR q.slug IN $visible) AND """ + link_in_sight("r") + """
WITH p, type(r) AS type, collect(DISTINCT q) AS neighbours
RETURN type, size(neighbours) AS count,
       """ + readable_chars("p") + """ + reduce(n = 0, q IN neighbours | n + """ + readable_chars("q") + """) AS characters
"""
FOCUS_INDEX = """
MATCH (f:Page:Focus {owner: $owner})
WHERE ($visible IS NULL OR f.slug IN $visible)
OPTIONAL MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(f)
WHERE ($visible IS NULL OR m.slug IN $visible)
RETURN f.slug AS slug, f.title AS title, count(m) AS members
ORDER BY members DESC, f.title
"""

# A focus area's title and the key of one document filed under it (the folder it comes from).
FOCUS_HOME = """
MATCH (f:Page:Focus {owner: $owner, slug: $slug})
OPTIONAL MATCH (s:Source {owner: $owner, focus: $slug, kind: $document})
WITH f, s ORDER BY s.key
RETURN f.title AS title, collect(s.key)[..1] AS keys
"""

RENAME_PAGE = """
MATCH (p:Page {owner: $owner, slug: $slug})
SET p.aliases = CASE WHEN p.title IN coalesce(p.aliases, []) OR p.title = $title OR p.kind = 'you'
                     THEN coalesce(p.aliases, []) ELSE coalesce(p.aliases, []) + p.title END,
    p.title = $title, p.updated_at = datetime(), p.renamed_at = datetime(),
    p.name_keys = CASE WHEN p.kind = 'you' OR $key IN coalesce(p.name_keys, []) THEN p.name_keys
                       ELSE coalesce(p.name_keys, []) + $key END
RETURN p.slug AS slug
"""

# A person's correction of a page's kind: the kind label changes with the property, and
# `kind_set_at` marks it as theirs, so later runs never undo it (resolution keeps the kind of the
# page it lands on, a hand-kinded page is never folded into another, nor removed as unsupported).
# Only pages of the kinds text is read into; the person's own page and focus areas stay what they are.
SET_PAGE_KIND = """
MATCH (p:Page {owner: $owner, slug: $slug})
WHERE p.kind IN $kinds
REMOVE p:$($labels)
SET p:$($label), p.kind = $kind, p.updated_at = datetime(), p.kind_set_at = datetime()
RETURN p.slug AS slug
"""

# Every RELATES_TO between two pages, either way round (there should be at most one).
LINKS_BETWEEN = """
MATCH (a:Page {owner: $owner, slug: $a})-[r:RELATES_TO]-(b:Page {owner: $owner, slug: $b})
RETURN startNode(r).slug AS source, endNode(r).slug AS target, coalesce(r.manual, false) AS manual,
       coalesce(r.sources, []) AS sources
"""

# A link by hand, as one statement. Both pages are locked first, in slug order (a SET on each:
# Neo4j's write locks then serialise every link write on the pair, and the fixed order cannot
# deadlock), so two callers linking a->b and b->a at once find each other's link instead of
# making two. An existing link (either direction: older versions stored both ways round) is
# marked manual, so it stays when the documents that implied it change; a new one is stored from
# the smaller slug to the larger, the direction the pipeline writes (its pairs are sorted too).
LINK_PAGES = """
MATCH (first:Page {owner: $owner, slug: $first}), (second:Page {owner: $owner, slug: $second})
SET first._lock = true, second._lock = true
REMOVE first._lock, second._lock
WITH first, second
OPTIONAL MATCH (first)-[old:RELATES_TO]-(second)
WITH first, second, collect(old) AS links
WITH first, second, links, all(r IN links WHERE coalesce(r.manual, false)) AND size(links) > 0 AS was_manual
FOREACH (r IN links | SET r.manual = true)
FOREACH (_ IN CASE WHEN size(links) = 0 THEN [1] ELSE [] END |
  CREATE (first)-[:RELATES_TO {created_at: datetime(), sources: [], manual: true}]->(second))
WITH first, second, links, was_manual
OPTIONAL MATCH (first)-[suggested:SUGGESTED_LINK]-(second)
WITH links, was_manual, collect(suggested) AS suggestions
FOREACH (s IN suggestions | DELETE s)
RETURN size(links) = 0 AS created, was_manual, size(suggestions) > 0 AS was_suggested
"""


def page_kind(tx: neo4j.ManagedTransaction, owner: str, slug: str, visible: list[str] | None = None) -> PageKind | None:
    record = tx.run(PAGE_KIND, owner=owner, slug=slug, visible=visible).single()
    return PageKind(record["kind"]) if record else None


def snapshot(
    tx: neo4j.ManagedTransaction, owner: str, max_pages: int, max_links: int, visible: list[str] | None = None,
    areas: list[str] | None = None, after: list[str] | None = None, suggested: bool = False,
) -> dict:
    """One part of the snapshot: up to `max_pages` pages after `after`, the links that start at them
    (up to `max_links`), the totals, and `next` (the `after` of the next part; None at the end)."""
    pages = [dict(r) for r in tx.run(SNAPSHOT_PAGES, owner=owner, limit=max_pages + 1, visible=visible, after=after)]
    following = [pages[max_pages - 1][k] for k in ("kind", "title", "slug")] if len(pages) > max_pages else None
    pages = pages[:max_pages]
    listed = [p["slug"] for p in pages]
    links = [dict(r) for r in tx.run(SNAPSHOT_LINKS, owner=owner, limit=max_links + 1, listed=listed,
                                     visible=visible, areas=areas)]
    links_cut = len(links) > max_links
    links = links[:max_links]
    if visible is None:
        totals = tx.run(SNAPSHOT_TOTALS_ALL, owner=owner).single()
    else:
        totals = tx.run(SNAPSHOT_TOTALS, owner=owner, visible=visible, areas=areas).single()
    proposed = [dict(r) for r in tx.run(SNAPSHOT_SUGGESTED, owner=owner, listed=listed, limit=max_links,
                                        visible=visible, areas=areas)] if suggested else []
    return {"pages": pages, "links": links, "total_pages": totals["pages"], "total_links": totals["links"],
            "next": following, "links_cut": links_cut, "suggested": proposed}


def traverse(
    tx: neo4j.ManagedTransaction, owner: str, slug: str, edge_type: str, within: str | None, limit: int,
    visible: list[str] | None = None, areas: list[str] | None = None, suggested: bool = False,
) -> list[dict]:
    """The pages one kind of link leads to from `slug`; with `suggested`, the suggested links after
    the stated ones (RELATES_TO)."""
    statement = TRAVERSE_RELATES_TO if edge_type == "RELATES_TO" else TRAVERSE_IN_CONTEXT
    rows = [dict(r) for r in tx.run(statement, owner=owner, slug=slug, within=within, limit=limit, visible=visible,
                                    areas=areas)]
    if suggested and edge_type == "RELATES_TO" and len(rows) < limit:
        rows += [dict(r) for r in tx.run(TRAVERSE_SUGGESTED, owner=owner, slug=slug, within=within,
                                         limit=limit - len(rows), visible=visible, areas=areas)]
    return rows


def scope_focus(tx: neo4j.ManagedTransaction, owner: str, slug: str, visible: list[str] | None = None,
                areas: list[str] | None = None) -> dict:
    return dict(tx.run(SCOPE_FOCUS, owner=owner, slug=slug, visible=visible, areas=areas).single())


def scope_thing(tx: neo4j.ManagedTransaction, owner: str, slug: str, visible: list[str] | None = None,
                areas: list[str] | None = None) -> list[dict]:
    return [dict(r) for r in tx.run(SCOPE_THING, owner=owner, slug=slug, visible=visible, areas=areas)]


def focus_index(tx: neo4j.ManagedTransaction, owner: str, visible: list[str] | None = None) -> list[dict]:
    return [dict(r) for r in tx.run(FOCUS_INDEX, owner=owner, visible=visible)]


def focus_home(tx: neo4j.ManagedTransaction, owner: str, slug: str, document_kind: str) -> dict | None:
    """{title, keys} of a focus area (keys: at most one document filed under it), or None."""
    record = tx.run(FOCUS_HOME, owner=owner, slug=slug, document=document_kind).single()
    return dict(record) if record else None


# Another focus area known by the name a focus page is to take: a folder's documents find their
# area by its name, so two areas of one name would split the folder's.
FOCUS_NAME_TAKEN = """
MATCH (p:Page:Focus {owner: $owner, slug: $slug})
MATCH (other:Page:Focus {owner: $owner})
WHERE other <> p AND $key IN coalesce(other.name_keys, [])
RETURN other.title AS title LIMIT 1
"""


def rename_page(tx: neo4j.ManagedTransaction, owner: str, slug: str, title: str) -> bool:
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    clash = tx.run(FOCUS_NAME_TAKEN, owner=owner, slug=slug, key=normalise_name(title) or slugify(title)).single()
    if clash is not None:
        raise InvalidRequest(f"The focus area {clash['title']!r} is called so already: give this one another title.")
    # The name the person gave is one later documents find the page by (a page that was only its
    # own document's 'the Court' had none).
    renamed = tx.run(RENAME_PAGE, owner=owner, slug=slug, title=title, key=normalise_name(title)).single() is not None
    if renamed:
        bump_version(tx, owner)
    return renamed


def set_page_kind(tx: neo4j.ManagedTransaction, owner: str, slug: str, kind: PageKind) -> bool:
    """Give a page a kind by hand (one of ENTITY_KINDS); False when there is no such page of those kinds."""
    if kind not in ENTITY_KINDS:
        raise ValueError(f"{kind.value!r} is not a kind a page can be given")
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    record = tx.run(SET_PAGE_KIND, owner=owner, slug=slug, kind=kind.value, label=kind.label,
                    kinds=[k.value for k in ENTITY_KINDS], labels=[k.label for k in ENTITY_KINDS]).single()
    if record is not None:
        bump_version(tx, owner)
    return record is not None


def links_between(tx: neo4j.ManagedTransaction, owner: str, a: str, b: str) -> list[dict]:
    """The RELATES_TO links joining two pages, as stored (direction, manual, supporting sources)."""
    return [dict(r) for r in tx.run(LINKS_BETWEEN, owner=owner, a=a, b=b)]


def link_pages(tx: neo4j.ManagedTransaction, owner: str, a: str, b: str) -> LinkOutcome:
    """Link two existing pages by hand (one RELATES_TO, whichever way round they are named)."""
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    first, second = sorted((a, b))
    record = tx.run(LINK_PAGES, owner=owner, first=first, second=second).single()
    if record is None:
        return LinkOutcome.MISSING
    if record["created"]:
        outcome = LinkOutcome.CONFIRMED if record["was_suggested"] else LinkOutcome.CREATED
    elif record["was_manual"]:
        return LinkOutcome.ALREADY_MANUAL  # nothing changed: no new graph version
    else:
        outcome = LinkOutcome.MADE_MANUAL
    bump_version(tx, owner)
    return outcome

"""Reading pages: one page in full, page references, and counts."""

from __future__ import annotations

from typing import Any

import neo4j

from graph_schema.kinds import FactKind, PageKind, SourceKind
from graph_schema.models import FactView, LinkView, PageDetail, PageRef, SourceRef
from graph_schema.queries.sight import FACT_IN_SIGHT, SOURCE_IN_SIGHT, link_in_sight, rendered_body
from graph_schema.settings import get_settings

GET_PAGE = f"""
MATCH (p:Page {{owner: $owner, slug: $slug}})
WHERE ($visible IS NULL OR p.slug IN $visible)
OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired AND {FACT_IN_SIGHT}
WITH p, f ORDER BY f.first_seen, f.position, f.id
WITH p, collect(f) AS all_facts
RETURN p {{.slug, .title, .kind, .aliases, .created_at, .updated_at,
          body: CASE WHEN $visible IS NULL THEN p.body
                ELSE {rendered_body("[f IN all_facts | f.text]")} END}} AS page,
       size(all_facts) AS facts_total,
       [f IN all_facts[..$max_facts] | {{
           id: f.id, text: f.text, first_seen: f.first_seen, kind: f.kind, owner: f.action_owner, due: f.due,
           sources: [(f)-[r:FROM]->(s:Source {{owner: $owner}}) WHERE s.status <> 'retired' AND {SOURCE_IN_SIGHT} | {{
               source_id: s.id, key: s.key, kind: s.kind, title: s.title, author: s.author,
               author_kind: coalesce(s.author_kind, CASE WHEN s.kind = 'submission' AND s.author IS NOT NULL
                                                         THEN 'assistant' END),
               yours: coalesce($key_id IS NOT NULL AND s.author_key = $key_id, false),
               start: r.start, end: r.end}}]
       }}] AS facts
"""

PAGE_LINKS = """
MATCH (p:Page {owner: $owner, slug: $slug})-[r:RELATES_TO|IN_CONTEXT|POSSIBLY_SAME|SUGGESTED_LINK]-(q:Page {owner: $owner})
WHERE ($visible IS NULL OR q.slug IN $visible) AND """ + link_in_sight("r") + """
  AND (type(r) <> 'SUGGESTED_LINK' OR ($suggested AND $areas IS NULL))
WITH p, r, q, type(r) = 'SUGGESTED_LINK' AS suggested
RETURN CASE WHEN suggested THEN 'RELATES_TO' ELSE type(r) END AS type, suggested, startNode(r) = p AS outgoing,
       q.slug AS slug, q.title AS title, q.kind AS kind
ORDER BY type, suggested, q.title
LIMIT $max_links
"""

PAGE_REFS = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner, slug: slug})
WHERE ($visible IS NULL OR p.slug IN $visible)
RETURN p.slug AS slug, p.title AS title, p.kind AS kind
"""

# The page a slug names now: pages folded into another (a merge of duplicates) leave their slug in
# the page they joined, so a slug an assistant kept still finds that page.
FOLDED_INTO = """
UNWIND $slugs AS slug
MATCH (p:Page {owner: $owner})
WHERE slug IN coalesce(p.former_slugs, []) AND ($visible IS NULL OR p.slug IN $visible)
RETURN slug AS former, p.slug AS slug, p.title AS title, p.kind AS kind
"""

GRAPH_COUNTS = """
CALL () { MATCH (n {owner: $owner}) WHERE NOT n:PageVector AND NOT n:FocusProposal RETURN count(n) AS nodes }
CALL () { MATCH (n {owner: $owner})-[r]->() WHERE NOT r:HAS_VECTOR RETURN count(r) AS relationships }
CALL () { MATCH (p:Page {owner: $owner}) RETURN count(p) AS pages }
CALL () { MATCH (f:Fact {owner: $owner}) RETURN count(f) AS facts }
CALL () { MATCH (s:Source {owner: $owner}) RETURN count(s) AS sources }
CALL () { MATCH (v:PageVector {owner: $owner}) RETURN count(v) AS vectors }
RETURN nodes, relationships, pages, facts, sources, vectors
"""


def to_native(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value


def get_page(
    tx: neo4j.ManagedTransaction, owner: str, slug: str, max_facts: int, max_links: int | None = None,
    visible: list[str] | None = None, areas: list[str] | None = None, key_id: str | None = None,
    suggested: bool = False,
) -> PageDetail | None:
    """One page in full; None if it does not exist or is not in `visible` (None: no limit). A
    limited key reads only the facts the scope rule lets it (`graph_schema.queries.sight`).
    `key_id`: the reader's access key, whose own submissions are marked `yours`; `suggested`: list
    the links subtext suggests too (graph_schema.queries.connections)."""
    record = tx.run(GET_PAGE, owner=owner, slug=slug, max_facts=max_facts, visible=visible, areas=areas,
                    key_id=key_id).single()
    if record is None:
        moved = folded_into(tx, owner, [slug], visible).get(slug)
        if moved is None:
            return None
        slug = moved.slug
        record = tx.run(GET_PAGE, owner=owner, slug=slug, max_facts=max_facts, visible=visible, areas=areas,
                        key_id=key_id).single()
        if record is None:
            return None
    page = record["page"]
    facts = [
        FactView(
            id=f["id"],
            text=f["text"],
            kind=FactKind(f["kind"] or FactKind.STATEMENT),  # facts written before kinds existed are statements
            owner=f["owner"],
            due=f["due"],
            first_seen=to_native(f["first_seen"]),
            sources=[SourceRef(**{**s, "kind": SourceKind(s["kind"])}) for s in f["sources"]],
        )
        for f in record["facts"]
    ]
    links = [
        LinkView(
            type=r["type"],
            direction="both" if r["type"] != "IN_CONTEXT" else ("out" if r["outgoing"] else "in"),
            page=PageRef(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"])),
            suggested=r["suggested"],
        )
        for r in tx.run(PAGE_LINKS, owner=owner, slug=slug, visible=visible, areas=areas, suggested=suggested,
                        max_links=get_settings().get_page_max_links if max_links is None else max_links)
    ]
    return PageDetail(
        slug=page["slug"],
        title=page["title"],
        kind=PageKind(page["kind"]),
        body=page["body"] or "",
        aliases=page["aliases"] or [],
        facts=facts,
        facts_total=record["facts_total"],
        links=links,
        created_at=to_native(page["created_at"]),
        updated_at=to_native(page["updated_at"]),
    )


def page_refs(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], visible: list[str] | None = None) -> list[PageRef]:
    by_slug = {
        r["slug"]: PageRef(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"]))
        for r in tx.run(PAGE_REFS, owner=owner, slugs=slugs, visible=visible)
    }
    missing = [s for s in slugs if s not in by_slug]
    if missing:
        by_slug |= folded_into(tx, owner, missing, visible)
    return [by_slug[s] for s in slugs if s in by_slug]


def folded_into(tx: neo4j.ManagedTransaction, owner: str, slugs: list[str], visible: list[str] | None = None) -> dict[str, PageRef]:
    """{former slug: the page it was folded into} for those of `slugs` that were folded away."""
    return {r["former"]: PageRef(slug=r["slug"], title=r["title"], kind=PageKind(r["kind"]))
            for r in tx.run(FOLDED_INTO, owner=owner, slugs=slugs, visible=visible)}


def graph_counts(tx: neo4j.ManagedTransaction, owner: str) -> dict[str, int]:
    return dict(tx.run(GRAPH_COUNTS, owner=owner).single())


# Every name a page goes by: its title, its aliases and the surface forms its mentions were found
# as (what a scorer compares with the names a gold file lists).
PAGE_NAMES = """
MATCH (p:Page {owner: $owner})
WHERE NOT p.kind IN ['you', 'focus']
OPTIONAL MATCH (:Source {owner: $owner})-[m:MENTIONS]->(p)
WITH p, collect(m.surfaces) AS surfaces
RETURN p.slug AS slug, p.kind AS kind,
       [p.title] + coalesce(p.aliases, []) + reduce(acc = [], s IN surfaces | acc + s) AS names
ORDER BY p.slug
"""


def page_names(tx: neo4j.ManagedTransaction, owner: str) -> list[tuple[str, str, set[str]]]:
    """(slug, kind, every name it goes by) of each page found in text."""
    return [(r["slug"], r["kind"], set(r["names"])) for r in tx.run(PAGE_NAMES, owner=owner)]

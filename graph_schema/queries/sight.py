"""What a limited access key may read of a page it can see: the scope rule every read obeys.

A limited key reads a fact only if every page the fact is about is in its sight (`$visible`, the
slugs of `graph_schema.queries.access.visible_slugs`) and, for a key limited to focus areas
(`$areas`, their slugs), one of the fact's live sources is filed under one of them; of the fact's
sources it sees only those. So a page two areas share shows each area's key only what that area's
documents say about it. None for either parameter means no limit.

These are Cypher fragments composed into the read queries: constants, never user text. They name
the fact `f` and the source `s`.
"""

from __future__ import annotations

# Its own variables have names no query uses: a pattern inside it would otherwise bind to a
# variable of the same name in the query around it.
FACT_IN_SIGHT = """($visible IS NULL OR (
    all(sight_slug IN [(f)-[:ABOUT]->(sight_page:Page) | sight_page.slug] WHERE sight_slug IN $visible)
    AND ($areas IS NULL OR EXISTS { MATCH (f)-[:FROM]->(sight_source:Source)
                                    WHERE sight_source.status <> 'retired' AND sight_source.focus IN $areas })))"""

SOURCE_IN_SIGHT = "($areas IS NULL OR s.focus IN $areas)"

def rendered_body(texts: str) -> str:
    """A page's body from the list expression `texts` (its facts' texts, in order): the stored body
    (`documents.RENDER_BODIES`, from all of them) and a limited key's (from those it may read)."""
    return f"reduce(acc = '', t IN {texts} | acc + CASE WHEN acc = '' THEN '' ELSE '\\n' END + '- ' + t)"


def readable_chars(page: str) -> str:
    """How many characters of the page bound to the variable `page` a key may read: its body's
    length for a key that sees everything, else the length of its facts in sight as the body
    would render them. `page` is a variable name of the calling query, never user text."""
    return (f"CASE WHEN $visible IS NULL THEN size(coalesce({page}.body, '')) ELSE "
            f"reduce(n = 0, c IN [(f:Fact)-[:ABOUT]->({page}) WHERE NOT f.retired AND {FACT_IN_SIGHT} | size(f.text) + 3]"
            " | n + c) END")


def link_sources_in_sight(link: str) -> str:
    """How many of the documents behind the RELATES_TO link bound to `link` a key may read: all of
    them for a key that is not limited to focus areas. A link only another area's documents made
    is none of a focus key's business (unless made by hand). `link` is a variable name of the
    calling query, never user text; the query must have $owner and $areas."""
    return (f"size([sight_sid IN coalesce({link}.sources, []) WHERE $areas IS NULL OR EXISTS {{ "
            "MATCH (sight_link_source:Source {owner: $owner, id: sight_sid}) WHERE sight_link_source.focus IN $areas }])")


def link_in_sight(link: str) -> str:
    """Whether a key sees the link bound to `link`: any link other than RELATES_TO (IN_CONTEXT
    comes from the area's own documents), a link made by hand, or one a readable document made."""
    return (f"($areas IS NULL OR type({link}) <> 'RELATES_TO' OR coalesce({link}.manual, false) OR "
            f"{link_sources_in_sight(link)} > 0)")

"""The brief: the material it is written from, and its cache (one Brief node per person)."""

from __future__ import annotations

import json
from datetime import datetime

import neo4j

from graph_schema.kinds import PageKind
from graph_schema.queries.pages import to_native
from graph_schema.queries.sight import FACT_IN_SIGHT, SOURCE_IN_SIGHT
from graph_schema.settings import Settings

YOU_MATERIAL = """
MATCH (o:Owner {id: $owner})
OPTIONAL MATCH (you:Page {owner: $owner, slug: 'you'})
OPTIONAL MATCH (f:Fact)-[:ABOUT]->(you) WHERE NOT f.retired AND """ + FACT_IN_SIGHT + """
WITH o, you, f ORDER BY f.first_seen DESC
WITH o, you, collect(f.text)[..$max_facts] AS facts
CALL (o) {
  MATCH (s:Source {owner: o.id})
  WHERE ($visible IS NULL OR EXISTS { (s)-[:MENTIONS]->(p:Page) WHERE p.slug IN $visible }) AND """ + SOURCE_IN_SIGHT + """
  RETURN count(CASE WHEN s.status = 'ingested' THEN 1 END) AS sources
}
RETURN o.version AS version, coalesce(you.title, o.name) AS name, facts, sources
"""

# The facts of an area as the brief reads them (after `WITH DISTINCT f`): not retired, every page
# they are about visible, from a source still ingested; newest first, the document's own status first.
_FACT_ROWS = """
  WITH DISTINCT f WHERE NOT f.retired
  WITH f WHERE """ + FACT_IN_SIGHT + """
  WITH f, [(f)-[:ABOUT]->(q:Page) | q] AS about
  WITH f, about, [(f)-[:FROM]->(s:Source {status: 'ingested'}) WHERE """ + SOURCE_IN_SIGHT + """ | s] AS froms
  WHERE size(froms) > 0
  // the document's own status first, then by the date the document gives (else when it arrived)
  ORDER BY coalesce(f.document_status, false) DESC, coalesce(f.stated_on, date(f.first_seen)) DESC,
           f.first_seen DESC, f.position
  RETURN f {.id, .text, .kind, owner: f.action_owner, .due, .due_on, .stated_on, .first_seen, .position,
            documents: [s IN froms | s.key],
            earliest: reduce(e = null, s IN froms | CASE WHEN e IS NULL OR s.ingested_at < e THEN s.ingested_at ELSE e END),
            about: [q IN about | q {.slug, .title, .kind}],
            owner_page: head([q IN about WHERE f.action_owner IS NOT NULL AND (q.title = f.action_owner OR f.action_owner IN coalesce(q.aliases, []))
                              | q {.slug, .title, .kind}])} AS fact
"""

# The newest $max_typed of each kind: a note full of tasks must not crowd out the decisions of
# older ones (the list stays newest first within a kind).
_EACH_KIND_CAPPED = ("reduce(capped = [], k IN ['decision', 'action', 'question'] | "
                     "capped + [f IN typed WHERE f.kind = k][..$max_typed])")

# Focus areas, most recently active first: when their sources last arrived, the members most
# sources mention, and their decisions, actions and open questions (newest first) plus the
# earliest statements (to say what the area is). A fact is read only when every page it is about
# is visible, so a key's scoped brief never quotes a sentence naming what the key cannot see.
FOCUS_MATERIAL = """
MATCH (focus:Page:Focus {owner: $owner})
WHERE ($visible IS NULL OR focus.slug IN $visible) AND ($only_focus IS NULL OR focus.slug = $only_focus)
// An area's sources: the documents filed in its folder, and, for the pages the person filed under
// it by hand (an accepted proposal), the notes in no folder that name those pages (a folder's
// documents are its own area's: they never make another area look active).
CALL (focus) {
  CALL (focus) {
    MATCH (s:Source {owner: $owner, focus: focus.slug, status: 'ingested'})
    RETURN s
    UNION
    MATCH (focus)<-[:IN_CONTEXT {manual: true}]-(:Page)<-[:MENTIONS]-(s:Source {owner: $owner, status: 'ingested'})
    WHERE s.focus IS NULL
    RETURN s
  }
  WITH s WHERE """ + SOURCE_IN_SIGHT + """
  RETURN count(s) AS source_count, max(s.ingested_at) AS last_activity
}
// Members are ranked by how many of the area's documents name them in a sentence of their own: a
// licence line or a footer every document shares word for word (one fact FROM each of them) makes
// no one a member that matters, and lists no one.
CALL (focus) {
  OPTIONAL MATCH (m:Page {owner: $owner})-[filed:IN_CONTEXT]->(focus)
  WHERE $visible IS NULL OR m.slug IN $visible
  CALL (m, focus, filed) {
    OPTIONAL MATCH (m)<-[x:MENTIONS]-(s:Source {owner: $owner, status: 'ingested'})
    WHERE (s.focus = focus.slug OR (coalesce(filed.manual, false) AND s.focus IS NULL)) AND """ + SOURCE_IN_SIGHT + """
      AND EXISTS { MATCH (s)<-[:FROM]-(own:Fact)-[:ABOUT]->(m)
                   WHERE NOT own.retired AND COUNT { (own)-[:FROM]->(:Source) } = 1 }
    RETURN count(x) AS weight
  }
  WITH m, weight ORDER BY weight DESC, m.title
  RETURN collect(CASE WHEN weight > 0 THEN m {.slug, .title, .kind} END)[..$per_focus] AS members,
         count(m) AS member_count
}
WITH focus, source_count, last_activity, members, member_count
WHERE member_count > 0  // an area whose documents are all gone stays a page (keys name it), not news
WITH focus, source_count, members, member_count, coalesce(last_activity, focus.updated_at) AS last_activity
ORDER BY last_activity DESC, member_count DESC
LIMIT $max_focus
CALL (focus) {
  CALL (focus) {
    MATCH (:Source {owner: $owner, focus: focus.slug, status: 'ingested'})<-[:FROM]-(f:Fact)
    RETURN f
    UNION
    MATCH (f:Fact)-[:ABOUT]->(focus)
    RETURN f
    UNION
    // about a page filed by hand, from notes in no folder (the loose area leaves these to it)
    MATCH (focus)<-[:IN_CONTEXT {manual: true}]-(:Page)<-[:ABOUT]-(f:Fact)
    WHERE NOT EXISTS { (f)-[:FROM]->(o:Source {status: 'ingested'}) WHERE o.focus IS NOT NULL }
    RETURN f
  }
""" + _FACT_ROWS + """}
WITH focus, source_count, members, member_count, last_activity, collect(fact) AS facts
WITH focus, source_count, members, member_count, last_activity,
     [f IN facts WHERE coalesce(f.kind, 'statement') <> 'statement'] AS typed,
     [f IN facts WHERE coalesce(f.kind, 'statement') = 'statement'] AS statements
RETURN focus.slug AS slug, focus.title AS title, 'focus' AS kind, members, member_count, source_count,
       last_activity,
       """ + _EACH_KIND_CAPPED + """ AS typed, size(typed) AS typed_total, statements[..$max_statements] AS statements
"""

# Documents at the top of the upload folder belong to no focus area: their decisions, actions and
# open questions (the facts that name a page and no focus area lists) are read as one more area,
# with the pages they mention most. Submissions are not notes of the folder.
LOOSE_MATERIAL = """
MATCH (s:Source {owner: $owner, status: 'ingested', kind: 'document'})
WHERE s.focus IS NULL AND $areas IS NULL  // documents of no focus area: out of a focus key's sight
  AND ($visible IS NULL OR EXISTS { (s)-[:MENTIONS]->(p:Page) WHERE p.slug IN $visible })
WITH count(s) AS source_count, max(s.ingested_at) AS last_activity, collect(s) AS sources
WHERE source_count > 0
CALL (sources) {
  UNWIND sources AS s
  MATCH (s)-[x:MENTIONS]->(m:Page)
  WHERE m.kind <> 'you' AND ($visible IS NULL OR m.slug IN $visible)
  WITH m, count(x) AS weight ORDER BY weight DESC, m.title
  RETURN collect(m {.slug, .title, .kind})[..$per_focus] AS members, count(m) AS member_count
}
CALL (sources) {
  UNWIND sources AS s
  MATCH (s)<-[:FROM]-(f:Fact)
  WHERE coalesce(f.kind, 'statement') <> 'statement'
    // a fact a focus area lists already (from one of its documents, or about it) is not listed twice
    AND NOT EXISTS { (f)-[:FROM]->(o:Source {status: 'ingested'}) WHERE o.focus IS NOT NULL }
    AND NOT EXISTS { (f)-[:ABOUT]->(:Page:Focus) }
    AND NOT EXISTS { (f)-[:ABOUT]->(:Page)-[:IN_CONTEXT {manual: true}]->(:Page:Focus) }  // an accepted area's
""" + _FACT_ROWS + """}
WITH source_count, last_activity, members, member_count, collect(fact) AS typed
RETURN null AS slug, null AS title, 'loose' AS kind, members, member_count, source_count, last_activity,
       """ + _EACH_KIND_CAPPED + """ AS typed, size(typed) AS typed_total, [] AS statements
"""
# Who and what matters lately: pages the newest sources mention, by how many of them do, with
# their newest facts (to say why in a few words). A source counts for a page only where a sentence
# of its own names it: a licence line, a footer or a signature that several documents share word
# for word (one fact FROM each of them) says nothing about what they are about.
TOP_PAGES = """
MATCH (s:Source {owner: $owner, status: 'ingested'})
WHERE """ + SOURCE_IN_SIGHT + """
WITH s ORDER BY s.ingested_at DESC LIMIT $recent_sources
MATCH (s)-[:MENTIONS]->(p:Page)
WHERE p.kind IN $kinds AND ($visible IS NULL OR p.slug IN $visible)
  AND EXISTS { MATCH (s)<-[:FROM]-(own:Fact)-[:ABOUT]->(p)
               WHERE NOT own.retired AND COUNT { (own)-[:FROM]->(:Source) } = 1 }
WITH p, count(s) AS recent, max(s.ingested_at) AS last_seen
// a limited key ranks a page by the facts it may read of it, never by the rest
WITH p, recent, last_seen, CASE WHEN $visible IS NULL THEN p.fact_count
     ELSE COUNT { MATCH (f:Fact)-[:ABOUT]->(p) WHERE NOT f.retired AND """ + FACT_IN_SIGHT + """ } END AS readable_facts
ORDER BY recent DESC, last_seen DESC, readable_facts DESC, p.title
LIMIT $max_pages
CALL (p) {
  OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p)
  WHERE NOT f.retired AND """ + FACT_IN_SIGHT + """
  WITH f ORDER BY f.first_seen DESC, f.position
  RETURN collect(f.text)[..$facts_per_page] AS facts
}
RETURN p.slug AS slug, p.title AS title, p.kind AS kind, coalesce(p.aliases, []) AS aliases, recent, facts
ORDER BY recent DESC, last_seen DESC, readable_facts DESC, p.title
"""

# Reports of work done ("Daniel sent the volumes", "the review is done"), newest first: the brief
# shows an open item one of them matches as closed (knowledge.brief.closing_report).
DONE_REPORTS = """
MATCH (f:Fact {owner: $owner})
WHERE f.done AND NOT f.retired AND """ + FACT_IN_SIGHT + """
WITH f, [(f)-[:ABOUT]->(q:Page) | q] AS about
WITH f, about, [(f)-[:FROM]->(s:Source {status: 'ingested'}) WHERE """ + SOURCE_IN_SIGHT + """ | s] AS froms
WHERE size(froms) > 0
ORDER BY f.first_seen DESC
LIMIT $max_reports
RETURN f {.id, .text, .first_seen, .stated_on, .position, documents: [s IN froms | s.key],
          about: [q IN about | q {.slug, .title, .kind}]} AS fact
"""

# What arrived since the previous brief was built: documents and submissions, and new decisions.
# With no previous brief ($since null), everything there is: the first brief says what it starts from.
CHANGED_SINCE = """
OPTIONAL MATCH (s:Source {owner: $owner, status: 'ingested'})
WHERE ($since IS NULL OR s.ingested_at > $since)
  AND ($visible IS NULL OR EXISTS { (s)-[:MENTIONS]->(p:Page) WHERE p.slug IN $visible }) AND """ + SOURCE_IN_SIGHT + """
WITH s ORDER BY s.ingested_at DESC
WITH collect(s.key) AS keys
OPTIONAL MATCH (f:Fact {owner: $owner})
WHERE ($since IS NULL OR f.first_seen > $since) AND NOT f.retired AND f.kind IN ['decision', 'action', 'question']
  AND """ + FACT_IN_SIGHT + """
RETURN keys, count(CASE WHEN f.kind = 'decision' THEN 1 END) AS decisions,
       count(CASE WHEN f.kind <> 'decision' THEN 1 END) AS open_items
"""

LOAD_BRIEF = """
MATCH (o:Owner {id: $owner})
OPTIONAL MATCH (b:Brief {owner: $owner})
RETURN o.version AS version, b.text AS text, b.sources AS sources, b.version AS built_version,
       b.built_at AS built_at, b.lines AS lines, b.omitted AS omitted, b.estimated_tokens AS estimated_tokens,
       b.narrative AS narrative, b.narrated_by AS narrated_by
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
SET b.text = $text, b.sources = $sources, b.version = $version, b.built_at = datetime(),
    b.lines = $lines, b.omitted = $omitted, b.estimated_tokens = $estimated_tokens, b.narrative = $narrative,
    b.narrated_by = $narrated_by
RETURN b.built_at AS built_at
"""


def brief_material(
    tx: neo4j.ManagedTransaction, owner: str, settings: Settings, visible: list[str] | None = None,
    since: datetime | None = None, only_focus: str | None = None, first: bool = False, areas: list[str] | None = None,
) -> dict:
    """What the brief is written from; only pages in `visible` when a key's scope limits it, and
    what arrived after `since` (the previous brief) when it is given, or everything there is when
    this is the `first` brief. `only_focus` reads that one focus area's material (compile's status
    of an area)."""
    you = tx.run(YOU_MATERIAL, owner=owner, max_facts=settings.brief_facts_about_you, visible=visible,
                 areas=areas).single()
    focus = []
    for record in tx.run(FOCUS_MATERIAL, owner=owner, per_focus=settings.brief_members_per_focus, max_focus=settings.brief_max_focus,
                         max_typed=settings.brief_facts_per_focus, max_statements=settings.brief_statements_per_focus, visible=visible,
                         only_focus=only_focus, areas=areas):
        row = dict(record)
        row["last_activity"] = to_native(row["last_activity"])
        for fact in (*row["typed"], *row["statements"]):
            for key in ("first_seen", "earliest", "stated_on", "due_on"):
                fact[key] = to_native(fact.get(key))
        focus.append(row)
    if only_focus is None:
        for record in tx.run(LOOSE_MATERIAL, owner=owner, per_focus=settings.brief_members_per_focus, max_typed=settings.brief_facts_per_focus,
                             visible=visible, areas=areas):
            row = dict(record)
            row["last_activity"] = to_native(row["last_activity"])
            for fact in row["typed"]:
                for key in ("first_seen", "earliest", "stated_on", "due_on"):
                    fact[key] = to_native(fact.get(key))
            focus.append(row)
    kinds = [k.value for k in (PageKind.PERSON, PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.TOPIC)]
    top = [] if only_focus else [  # one area's status needs no list of who matters
        dict(r) for r in tx.run(TOP_PAGES, owner=owner, kinds=kinds, max_pages=settings.brief_max_pages,
                                recent_sources=settings.brief_recent_sources, facts_per_page=settings.brief_why_facts, visible=visible,
                                areas=areas)]
    reports = []
    for record in tx.run(DONE_REPORTS, owner=owner, visible=visible, areas=areas,
                         max_reports=settings.brief_max_done_reports):
        report = dict(record["fact"])
        report["first_seen"], report["stated_on"] = to_native(report["first_seen"]), to_native(report["stated_on"])
        reports.append(report)
    changed = None
    if since is not None or first:
        changed = dict(tx.run(CHANGED_SINCE, owner=owner, since=since, visible=visible, areas=areas).single())
    return {
        "version": you["version"] if you else 0,
        "name": you["name"] if you else "You",
        "you_facts": you["facts"] if you else [],
        "sources": you["sources"] if you else 0,
        "focus": focus,
        "top": top,
        "changed": changed,
        "since": since,
        "first": first,
        "reports": reports,
    }


def load_brief(tx: neo4j.ManagedTransaction, owner: str) -> tuple[int, dict | None]:
    """(current graph version, the cached brief's fields or None if there is none yet)."""
    record = tx.run(LOAD_BRIEF, owner=owner).single()
    if record is None:
        return 0, None
    if record["text"] is None:
        return record["version"], None
    return record["version"], {
        "text": record["text"],
        "sources": json.loads(record["sources"] or "[]"),
        "lines": json.loads(record["lines"] or "[]"),
        "omitted": record["omitted"] or [],
        "estimated_tokens": record["estimated_tokens"] or 0,
        "narrative": record["narrative"],
        "narrated_by": record["narrated_by"],
        "graph_version": record["built_version"],
        "built_at": to_native(record["built_at"]),
    }


def store_brief(tx: neo4j.ManagedTransaction, owner: str, brief: dict) -> datetime | None:
    """Store the brief (its fields, as load_brief gives them back) unless a newer one is stored
    already; when it was built (None when the newer one was kept)."""
    record = tx.run(STORE_BRIEF, owner=owner, text=brief["text"], sources=json.dumps(brief["sources"]),
                    version=brief["graph_version"], lines=json.dumps(brief["lines"]), omitted=brief["omitted"],
                    estimated_tokens=brief["estimated_tokens"], narrative=brief.get("narrative"),
                    narrated_by=brief.get("narrated_by")).single()
    return to_native(record["built_at"]) if record else None


# A narrative added to the stored brief later (an LLM configured after it was built, or unreachable
# then); only to the brief of that graph version. `narrated_by` is the model that was asked.
STORE_NARRATIVE = """
MATCH (b:Brief {owner: $owner})
WHERE b.version = $version
SET b.narrative = $narrative, b.narrated_by = $narrated_by
"""


def store_narrative(tx: neo4j.ManagedTransaction, owner: str, version: int, narrative: str | None, narrated_by: str) -> None:
    tx.run(STORE_NARRATIVE, owner=owner, version=version, narrative=narrative, narrated_by=narrated_by).consume()

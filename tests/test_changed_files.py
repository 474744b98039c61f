"""A changed file replaces what only its old version said, and a deleted file takes along what only
it said: facts, page bodies and fact counts, pages nothing live supports any more, links and their
weights, full-text and vector search, the brief and compile (review bugs B1 and B14)."""

from __future__ import annotations

import math

from graph_schema import db
from graph_schema.kinds import SourceKind
from graph_schema.queries.navigation import LinkOutcome, link_pages, rename_page, traverse
from graph_schema.queries.search import fulltext_search, vector_search
from knowledge.brief import current_brief
from mcp_server.service import GraphService
from graph_schema.slugs import source_id_for
from pipeline.embedding import embed_text, embed_texts_remembered
from pipeline.run import ingest_paths, run_ingest
from tests.conftest import write

# Deleted in v2: the only sentence naming Zelda Quint (and linking Marta to Northwind). Reworded:
# the one about Tomasz's accounts. Moved: the hiring sentence to the front, the chair's to the end.
KEPT = "Marta Kowalski chairs the Baltic Freight Forum."
DELETED = "Zelda Quint audits the cold-storage ledgers of Northwind Logistics for Marta Kowalski every spring."
OLD_WORDING = "The membership accounts are kept by Tomasz Nowak in a blue cardboard folder."
NEW_WORDING = "The membership accounts are kept by Tomasz Nowak in a shared spreadsheet."
MOVED = "Marta Kowalski hired Tomasz Nowak as treasurer."
V1 = f"{KEPT} {DELETED} {MOVED} {OLD_WORDING}\n"
V2 = f"{MOVED} {NEW_WORDING} {KEPT}\n"
# Another file keeps Northwind Logistics alive, so its page must lose the deleted sentence only.
OTHER = "Oskar Lind from Northwind Logistics met Ingrid Holm."


def _query(graph, cypher: str, **params) -> list[dict]:
    with graph["driver"].session() as session:
        return [dict(r) for r in session.run(cypher, owner=graph["owner"], **params)]


def _page(graph, slug: str) -> dict | None:
    rows = _query(graph, "MATCH (p:Page {owner: $owner, slug: $slug}) "
                         "RETURN p.body AS body, p.fact_count AS fact_count, "
                         "[(p)-[:HAS_VECTOR]->(v) | v.embedding][0] AS embedding", slug=slug)
    return rows[0] if rows else None


def _facts(graph) -> dict[str, dict]:
    rows = _query(graph, "MATCH (f:Fact {owner: $owner}) RETURN f.text AS text, f.retired AS retired, "
                         "f.first_seen AS first_seen")
    return {r["text"]: r for r in rows}


def _links(graph) -> dict[tuple[str, str, str], dict]:
    """(type, slug, slug) with the two slugs sorted -> sources and manual flag."""
    rows = _query(graph, "MATCH (a:Page {owner: $owner})-[r:RELATES_TO|IN_CONTEXT]->(b:Page {owner: $owner}) "
                         "RETURN type(r) AS type, a.slug AS a, b.slug AS b, r.sources AS sources, r.manual AS manual")
    return {(r["type"], *sorted((r["a"], r["b"]))): r for r in rows}


def _cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))


def _fulltext(graph, words: str) -> list[str]:
    hits = graph["db"].read(graph["driver"], fulltext_search, graph["owner"], words, 20, 200)
    return [f"{h.slug}: {h.preview}" for h in hits]


def _compiled_text(target: str) -> str:
    service = GraphService()
    try:
        answer = service.compile(service.default_access, "", target, "medium", "structured", None)
        return answer.structured.model_dump_json()
    finally:
        service.close()


def test_a_changed_file_replaces_what_only_its_old_version_said(graph):
    owner = graph["owner"]
    write(graph["upload"], "a.md", V1)
    write(graph["upload"], "b.md", OTHER)
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    before = _facts(graph)
    assert {KEPT, DELETED, OLD_WORDING, MOVED} <= set(before)
    assert _page(graph, "zelda-quint") is not None and ("RELATES_TO", "marta-kowalski", "northwind-logistics") in _links(graph)

    write(graph["upload"], "a.md", V2)
    outcomes = {o.key: o.status for o in ingest_paths([graph["upload"]]).outcomes}
    assert outcomes == {"a.md": "ingested", "b.md": "unchanged"}

    facts = _facts(graph)
    assert DELETED not in facts and OLD_WORDING not in facts and NEW_WORDING in facts
    # What the new version still says is the same fact, first seen when it was first said.
    assert facts[KEPT]["first_seen"] == before[KEPT]["first_seen"]

    # Zelda Quint was named only in the deleted sentence: nothing live supports the page now.
    assert _page(graph, "zelda-quint") is None
    northwind = _page(graph, "northwind-logistics")  # b.md still names it: only its own sentence stays
    assert northwind["body"] == f"- {OTHER}" and northwind["fact_count"] == 1
    tomasz = _page(graph, "tomasz-nowak")
    assert "blue cardboard folder" not in tomasz["body"] and "shared spreadsheet" in tomasz["body"]
    assert tomasz["fact_count"] == 2
    marta = _page(graph, "marta-kowalski")
    assert marta["body"].index("hired") < marta["body"].index("chairs")  # the new document order
    assert marta["fact_count"] == 2
    # The page's vector is rebuilt from what is still said: nearer the new wording than the old.
    assert _cosine(tomasz["embedding"], embed_text("a shared spreadsheet")) > _cosine(
        tomasz["embedding"], embed_text("a blue cardboard folder"))

    a_id = source_id_for(owner, SourceKind.DOCUMENT, "a.md")
    links = _links(graph)
    assert ("RELATES_TO", "marta-kowalski", "northwind-logistics") not in links  # only the deleted sentence said it
    assert links[("RELATES_TO", "marta-kowalski", "tomasz-nowak")]["sources"] == [a_id]

    assert _fulltext(graph, "Zelda cold storage ledgers") == []
    assert _fulltext(graph, "blue cardboard folder") == []
    assert any("shared spreadsheet" in hit for hit in _fulltext(graph, "spreadsheet"))
    nearest = graph["db"].read(graph["driver"], vector_search, owner, embed_text(DELETED), 10, -1.0, 200)
    assert nearest and not any("Zelda" in h.title or "ledgers" in h.preview for h in nearest)

    brief = db.in_session(graph["driver"], current_brief, owner, embed_texts_remembered)
    assert "Zelda" not in brief.text and "zelda-quint" not in {s.slug for s in brief.sources}
    compiled = _compiled_text("marta-kowalski")
    assert "Zelda" not in compiled and "northwind-logistics" not in compiled and "blue cardboard" not in compiled


# a.md sits in the folder "fund", so its pages are filed under that focus area.
A_SHARED = "Ingrid Holm runs the Copper Valley Fund with Marta Kowalski."
A_ONLY = "Ingrid Holm spoke at the Baltic Freight Forum. Oskar Lind advises Ingrid Holm."
B_TEXT = f"Marta Kowalski chairs the Baltic Freight Forum. {A_SHARED}"


def test_a_deleted_file_takes_along_links_and_pages_only_it_supported(graph):
    owner = graph["owner"]
    write(graph["upload"], "fund/a.md", f"{A_SHARED} {A_ONLY}\n")
    write(graph["upload"], "b.md", B_TEXT + "\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    a_id, b_id = (source_id_for(owner, SourceKind.DOCUMENT, k) for k in ("fund/a.md", "b.md"))
    links = _links(graph)
    assert sorted(links[("RELATES_TO", "ingrid-holm", "marta-kowalski")]["sources"]) == sorted([a_id, b_id])
    assert ("RELATES_TO", "baltic-freight-forum", "ingrid-holm") in links
    assert any(t == "IN_CONTEXT" and "fund" in (x, y) for t, x, y in links)
    # A link made by hand outlives the file behind its pages.
    with graph["driver"].session() as session:
        assert session.execute_write(link_pages, owner, "oskar-lind", "baltic-freight-forum") == LinkOutcome.CREATED

    (graph["upload"] / "fund" / "a.md").unlink()
    assert [o.status for o in run_ingest(["fund/a.md"]).outcomes] == ["retired"]

    links = _links(graph)
    assert not any(a_id in (link["sources"] or []) for link in links.values())
    assert links[("RELATES_TO", "ingrid-holm", "marta-kowalski")]["sources"] == [b_id]
    assert ("RELATES_TO", "baltic-freight-forum", "ingrid-holm") not in links  # only a.md said it
    manual = links[("RELATES_TO", "baltic-freight-forum", "oskar-lind")]
    assert manual["manual"] is True and manual["sources"] == []
    # The weights read from the sources follow: one file behind Ingrid and Marta now, not two.
    around = graph["db"].read(graph["driver"], traverse, owner, "ingrid-holm", "RELATES_TO", None, 10)
    assert {r["slug"]: r["weight"] for r in around} == {"marta-kowalski": 1, "copper-valley-fund": 1}

    # No live file is in "fund" any more: its links go; the focus area itself stays, empty (keys
    # limited to it name it), and leaves the brief.
    fund = _page(graph, "fund")
    assert fund is not None and fund["fact_count"] == 0 and not any(t == "IN_CONTEXT" for t, _, _ in links)
    oskar = _page(graph, "oskar-lind")  # kept for its hand-made link, but says nothing any more
    assert oskar is not None and oskar["body"] == "" and oskar["fact_count"] == 0
    assert _fulltext(graph, "advises") == []
    brief = db.in_session(graph["driver"], current_brief, owner, embed_texts_remembered)
    assert "fund" not in {s.slug for s in brief.sources} and "Oskar" not in brief.text
    assert "baltic-freight-forum" not in _compiled_text("ingrid-holm")

    # b.md drops the sentence it shared with the deleted a.md: only a retired file says it now.
    # Pages nothing supports go, except one the person renamed by hand.
    with graph["driver"].session() as session:
        assert session.execute_write(rename_page, owner, "copper-valley-fund", "Copper Valley Fund (Gdańsk)")
    write(graph["upload"], "b.md", "Marta Kowalski chairs the Baltic Freight Forum.\n")
    ingest_paths([graph["upload"]])
    assert _facts(graph)[A_SHARED]["retired"] is True
    assert _page(graph, "ingrid-holm") is None
    renamed = _page(graph, "copper-valley-fund")
    assert renamed is not None and renamed["fact_count"] == 0
    marta = _page(graph, "marta-kowalski")
    assert marta["body"] == "- Marta Kowalski chairs the Baltic Freight Forum." and marta["fact_count"] == 1
    assert _fulltext(graph, "Copper Valley") == ["copper-valley-fund: Copper Valley Fund (Gdańsk)"]  # its name only

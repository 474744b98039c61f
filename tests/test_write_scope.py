"""Scope holds on writes: a `focus:` key's edit_page_body files what it records under its focus
area, never attaches facts to pages outside it, and its answer names only pages it may see; its
uploads land in the focus area's folder. No answer reveals that a hidden slug exists."""

from __future__ import annotations

import json

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema.queries.pages import get_page
from pipeline.run import ingest_paths
from tests.conftest import make_key, write

HARBOUR = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
ORCHARD = "Lucia Ferreira runs the Orchard cooperative with Greenfield Farms. Lucia Ferreira uses Airtable."
HIDDEN = ["lucia-ferreira", "orchard", "greenfield-farms", "airtable", "Lucia", "Orchard", "Greenfield", "Airtable"]


@pytest.fixture()
def two_areas(graph):
    write(graph["upload"], "harbour/kickoff.md", HARBOUR)
    write(graph["upload"], "orchard/coop.md", ORCHARD)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}, report.outcomes
    return graph


def _page(graph, slug: str):
    return graph["db"].read(graph["driver"], get_page, graph["owner"], slug, 1000)


async def _answer(client: Client, tool: str, args: dict) -> str:
    """Everything the caller is shown: the structured answer, or the error's text."""
    try:
        return json.dumps((await client.call_tool(tool, args)).structured_content)
    except ToolError as e:
        return str(e)


async def test_focus_key_edit_never_touches_or_names_a_hidden_page(two_areas, served):
    g = two_areas
    lucia = _page(g, "lucia-ferreira")
    assert lucia is not None and lucia.facts_total >= 1
    key = make_key(g, "harbour bot", scope="focus:harbour")
    async with Client(served.mcp(key)) as client:
        answer = await _answer(client, "edit_page_body", {
            "slug": "priya-natarajan",
            "body": "Priya Natarajan called Lucia Ferreira about the budget for the pitch.",
        })
    assert not [h for h in HIDDEN if h in answer], answer
    after = _page(g, "lucia-ferreira")
    assert after.facts_total == lucia.facts_total, [f.text for f in after.facts]
    assert "harbour" not in {link.page.slug for link in after.links}  # not pulled into the focus area either


async def test_focus_key_edit_is_filed_under_its_focus_area(two_areas, served):
    g = two_areas
    key = make_key(g, "harbour bot", scope="focus:harbour")
    async with Client(served.mcp(key)) as client:
        edited = (await client.call_tool("edit_page_body", {
            "slug": "priya-natarajan",
            "body": "Priya Natarajan hired Quentin Marlowe to write the pitch deck. The deck is due in May.",
        })).structured_content
        created = [p["slug"] for p in edited["pages_created"]]
        assert created, edited
        for slug in created + [p["slug"] for p in edited["pages_updated"]]:
            # Everything the answer names, the key can read: it was filed under harbour.
            assert (await client.call_tool("get_page", {"slug": slug})).structured_content["page"]["slug"] == slug
        for slug in created:
            assert "harbour" in {link.page.slug for link in _page(g, slug).links if link.type == "IN_CONTEXT"}, slug

        with pytest.raises(ToolError, match="focus area") as refused:
            await client.call_tool("edit_page_body", {"body": "We start the Lighthouse project.",
                                                      "new_project": "Lighthouse"})
        assert not [h for h in HIDDEN if h in str(refused.value)]
        # the probe's own call: a focus area the key cannot see is refused exactly as one that does not exist
        hidden_area = await _answer(client, "edit_page_body", {"body": "We start the Lighthouse project.",
                                                               "new_project": "Orchard"})
        assert hidden_area.replace("Orchard", "NAME") == str(refused.value).replace("Lighthouse", "NAME"), hidden_area
        hidden = await _answer(client, "edit_page_body", {"body": "Something new.", "slug": "lucia-ferreira"})
        missing = await _answer(client, "edit_page_body", {"body": "Something new.", "slug": "nobody-at-all"})
    assert _page(g, "lighthouse") is None
    assert hidden.replace("lucia-ferreira", "SLUG") == missing.replace("nobody-at-all", "SLUG"), (hidden, missing)


def test_focus_key_upload_lands_in_its_focus_area(two_areas, served):
    g = two_areas
    key = make_key(g, "harbour uploader", scope="focus:harbour")
    with httpx.Client(base_url=served.base, timeout=60) as http:
        response = http.post("/api/upload", headers={"Authorization": f"Bearer {key}"},
                             json={"content": "Quentin Marlowe designs the brochures for the pitch."})
    assert response.status_code == 201, response.text
    uploaded = response.json()["id"]
    assert uploaded.startswith("harbour/"), uploaded
    assert (g["upload"] / uploaded).is_file()
    report = ingest_paths([g["upload"] / uploaded])
    assert [o.status for o in report.outcomes] == ["ingested"], report.outcomes
    quentin = _page(g, "quentin-marlowe")
    assert quentin is not None and "harbour" in {link.page.slug for link in quentin.links}


def test_focus_key_upload_about_a_hidden_page_is_refused_and_not_saved(two_areas, served):
    g = two_areas
    key = make_key(g, "harbour uploader", scope="focus:harbour")
    before = sorted(p.relative_to(g["upload"]).as_posix() for p in g["upload"].rglob("*") if p.is_file())
    lucia_before = _page(g, "lucia-ferreira").facts_total
    with httpx.Client(base_url=served.base, timeout=120) as http:
        response = http.post("/api/upload", headers={"Authorization": f"Bearer {key}"},
                             files={"file": ("notes.md", b"Lucia Ferreira will present the Harbour pitch budget.\n")})
    assert response.status_code == 403, response.text
    assert not any(word in response.text for word in HIDDEN), response.text
    after = sorted(p.relative_to(g["upload"]).as_posix() for p in g["upload"].rglob("*") if p.is_file())
    assert after == before  # nothing saved, so the sensor has nothing to ingest
    assert _page(g, "lucia-ferreira").facts_total == lucia_before


async def test_a_me_key_cannot_file_text_under_a_focus_area_it_cannot_see(two_areas, served):
    # The probe of issue 16, item 2: new_project naming a hidden focus area came back "updated" and
    # filed the text there. A key that sees only the person starts no project, hidden or new, and the
    # refusal is the same for both, so it tells nothing of which exist.
    g = two_areas
    orchard_facts = _page(g, "orchard").facts_total
    key = make_key(g, "my assistant", scope="me")
    async with Client(served.mcp(key)) as client:
        hidden = await _answer(client, "edit_page_body", {"body": "I want to try a new irrigation plan.",
                                                           "new_project": "Orchard"})
        unknown = await _answer(client, "edit_page_body", {"body": "I want to try a new irrigation plan.",
                                                            "new_project": "Quince"})
    assert "cannot start a new project" in hidden, hidden
    assert hidden.replace("Orchard", "NAME") == unknown.replace("Quince", "NAME"), (hidden, unknown)
    assert _page(g, "orchard").facts_total == orchard_facts
    assert _page(g, "quince") is None


def test_a_focus_key_upload_is_checked_whole_even_past_the_chunk_limit(two_areas):
    # The run reads a document's first SUBTEXT_MAX_CHUNKS_PER_DOCUMENT chunks, but the check reads
    # it all: with a higher limit later, a re-run would write what the first check never saw.
    from tests.conftest import _serve

    g = two_areas
    served = _serve(g, SUBTEXT_MAX_CHUNKS_PER_DOCUMENT="1")
    server = next(served)
    try:
        key = make_key(g, "harbour uploader", scope="focus:harbour")
        before = sorted(p.relative_to(g["upload"]).as_posix() for p in g["upload"].rglob("*") if p.is_file())
        body = ("Priya Natarajan is leading the Harbour pitch for Acme Corporation. " * 40 + "\n\n") * 3
        body += "Lucia Ferreira will present the Harbour pitch budget.\n"
        with httpx.Client(base_url=server.base, timeout=120) as http:
            response = http.post("/api/upload", headers={"Authorization": f"Bearer {key}"},
                                 files={"file": ("long-notes.md", body.encode())})
        assert response.status_code == 403, response.text
        assert sorted(p.relative_to(g["upload"]).as_posix() for p in g["upload"].rglob("*") if p.is_file()) == before
    finally:
        served.close()

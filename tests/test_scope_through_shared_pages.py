"""A page two focus areas share: a key limited to one area reads only what that area's documents
say about it, in every read tool (issue 16, item 1), over the real server."""

from __future__ import annotations

import json

import pytest
from fastmcp import Client

from pipeline.run import ingest_paths
from tests.conftest import make_key, write

HARBOUR = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Priya Natarajan will send the Harbour deck to Acme Corporation on Friday.
Daniel Okafor from Northwind Logistics joined the Harbour pitch.
"""
# What only the orchard area may read: a word found nowhere else, and a hidden person.
ORCHARD = """Priya Natarajan wants the pomegranate budget kept secret until March.
Priya Natarajan reviewed the pomegranate memo with Lucia Ferreira.
Priya Natarajan will ask Acme Corporation about the pomegranate budget.
Priya Natarajan called Daniel Okafor about the pomegranate budget.
"""
HIDDEN = ("pomegranate", "Lucia", "orchard")


@pytest.fixture()
def shared_page(graph):
    paths = [write(graph["upload"], "harbour/kickoff.md", HARBOUR), write(graph["upload"], "orchard/migration.md", ORCHARD)]
    report = ingest_paths(paths)
    assert {o.status for o in report.outcomes} == {"ingested"}, report.outcomes
    rows = graph["driver"].execute_query(
        "MATCH (:Page {owner: $owner, slug: 'priya-natarajan'})-[:IN_CONTEXT]->(f:Focus) RETURN f.slug AS slug",
        owner=graph["owner"]).records
    assert {r["slug"] for r in rows} == {"harbour", "orchard"}  # one page, in both areas
    return graph


def _shown(result) -> str:
    """What a tool answer shows the assistant, without the echo of its own query."""
    data = {k: v for k, v in (result.structured_content or {}).items() if k not in ("query", "intent")}
    return json.dumps(data, default=str)


async def test_a_focus_key_reads_only_its_areas_facts_on_a_shared_page(shared_page, served):
    harbour_key = make_key(shared_page, "harbour only", scope="focus:harbour", write=False)
    async with Client(served.mcp(harbour_key)) as client:
        page = (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        assert page["facts"] and all("Harbour" in f["text"] for f in page["facts"]), page["facts"]
        assert page["facts_total"] == len(page["facts"])
        assert {s["key"] for f in page["facts"] for s in f["sources"]} == {"harbour/kickoff.md"}
        answers = {
            "get_page": await client.call_tool("get_page", {"slug": "priya-natarajan"}),
            "compile deep": await client.call_tool("compile", {"intent": "budget memo", "target": "harbour",
                                                               "depth": "deep"}),
            "compile page": await client.call_tool("compile", {"intent": "budget memo", "target": "priya-natarajan",
                                                               "depth": "deep"}),
            "search": await client.call_tool("search", {"query": "pomegranate budget memo", "limit": 50}),
            "search by word": await client.call_tool("search", {"query": "pomegranate", "limit": 50}),
            # 'to' is no word Lucene looks for, so it cannot make a hidden word's page pass as readable
            "search by word and operator": await client.call_tool("search", {"query": "pomegranate to", "limit": 50}),
            "brief": await client.call_tool("brief", {}),
            "scope": await client.call_tool("scope", {"target": "harbour"}),
            "traverse": await client.call_tool("traverse", {"from_slug": "priya-natarajan"}),
        }
        for tool, answer in answers.items():
            shown = _shown(answer)
            for word in HIDDEN:
                assert word.lower() not in shown.lower(), (tool, word, shown[:600])
        for query in ("search by word", "search by word and operator"):
            assert "priya-natarajan" not in {h["slug"] for h in answers[query].structured_content["results"]}, query
        scoped_size = answers["scope"].structured_content["estimated_tokens"]
        # Priya and Daniel are both in the harbour area, but only an orchard document links them.
        related = {link["page"]["slug"] for link in page["links"] if link["type"] == "RELATES_TO"}
        assert "acme-corporation" in related and "daniel-okafor" not in related, page["links"]
        compiled = answers["compile page"].structured_content  # nor does compile relate them
        assert "Daniel Okafor (person, related)" not in compiled["text"], compiled["text"]
        assert "daniel-okafor" not in {source["slug"] for source in compiled["sources"]}, compiled["sources"]
        snapshot = (await client.call_tool("graph_snapshot", {})).structured_content
        assert "daniel-okafor" in {p["slug"] for p in snapshot["pages"]}
        assert not [link for link in snapshot["links"] if link["type"] == "RELATES_TO"
                    and {link["source"], link["target"]} == {"priya-natarajan", "daniel-okafor"}], snapshot["links"]
        # Who matters is ranked by what the key may read: Priya and Acme have two harbour facts each, so
        # Acme comes first by name; Priya's four orchard facts must not put her ahead.
        brief = answers["brief"].structured_content["text"]
        assert brief.index("Acme Corporation (organisation)") < brief.index("Priya Natarajan (person)"), brief
        # The link between Priya and Acme counts only the harbour document behind it.
        path = {step["slug"]: step["weight"] for step in answers["traverse"].structured_content["path"]}
        assert path.get("acme-corporation") == 1, path

    async with Client(served.mcp()) as client:  # the whole graph still reads both documents' facts
        page = (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        assert any("pomegranate" in f["text"] for f in page["facts"]) and any("Harbour" in f["text"] for f in page["facts"])
        hits = (await client.call_tool("search", {"query": "pomegranate", "limit": 50})).structured_content["results"]
        assert {h["slug"] for h in hits} & {"priya-natarajan", "lucia-ferreira"}  # the orchard's pages
        page = (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        assert "daniel-okafor" in {link["page"]["slug"] for link in page["links"] if link["type"] == "RELATES_TO"}
        path = (await client.call_tool("traverse", {"from_slug": "priya-natarajan"})).structured_content["path"]
        assert {step["slug"]: step["weight"] for step in path}.get("acme-corporation") == 2, path
        # The size scope estimates for the area counts only what the key can read.
        assert (await client.call_tool("scope", {"target": "harbour"})).structured_content["estimated_tokens"] > scoped_size

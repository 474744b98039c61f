"""link_pages: a link made by hand stays when the document that also implied it changes, and a
pair of pages has one RELATES_TO whichever way round (and however many callers) it is linked."""

from __future__ import annotations

import asyncio
import threading

import pytest
from fastmcp import Client

from graph_schema.queries import navigation
from graph_schema.queries.pages import page_refs
from pipeline.run import ingest_paths
from tests.conftest import write

KICKOFF = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
# The same pages, but nothing says Priya Natarajan and Acme Corporation together any more.
KICKOFF_CHANGED = """Priya Natarajan is leading the Harbour pitch.
Acme Corporation hired a new chief financial officer last week.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
# People who are never named in one sentence together: no automatic links between them.
ROSTER = """Marcus Webb joined the team last year.
Elena Petrova writes the quarterly reports.
Tomasz Nowak reviews the pull requests.
Hiroshi Tanaka runs the test laboratory.
Amara Okeke leads the design studio.
"""


def _links(graph, a: str, b: str) -> list[dict]:
    return graph["db"].read(graph["driver"], navigation.links_between, graph["owner"], a, b)


def test_a_document_joins_a_link_stored_the_other_way_round(kickoff):
    # An older graph or an import may hold a hand link against slug order (priya -> daniel).
    graph = kickoff
    reverse = ("MATCH (a:Page {owner: $owner, slug: 'daniel-okafor'})-[r:RELATES_TO]-(b:Page {owner: $owner, slug: 'priya-natarajan'}) "
               "DELETE r CREATE (b)-[:RELATES_TO {created_at: datetime(), sources: [], manual: true}]->(a)")
    graph["db"].write(graph["driver"], lambda tx: tx.run(reverse, owner=graph["owner"]).consume())
    write(graph["upload"], "harbour/call.md", "Priya Natarajan called Daniel Okafor about the berth schedule.\n")
    assert [o.status for o in ingest_paths([graph["upload"] / "harbour" / "call.md"]).outcomes] == ["ingested"]
    links = _links(graph, "daniel-okafor", "priya-natarajan")
    assert len(links) == 1 and links[0]["source"] == "priya-natarajan" and links[0]["manual"] is True, links
    assert len(links[0]["sources"]) == 1, links


@pytest.fixture()
def kickoff(graph):
    write(graph["upload"], "harbour/kickoff.md", KICKOFF)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}
    return graph


async def test_hand_link_on_automatic_link_survives_the_document_changing(kickoff, mcp):
    graph = kickoff
    automatic = _links(graph, "priya-natarajan", "acme-corporation")
    assert len(automatic) == 1 and automatic[0]["manual"] is False and automatic[0]["sources"], automatic
    async with Client(mcp) as client:
        answer = (await client.call_tool("link_pages", {"from_slug": "acme-corporation",
                                                        "to_slug": "priya-natarajan"})).structured_content
    assert "already linked" not in answer["message"], answer
    assert [link["manual"] for link in _links(graph, "priya-natarajan", "acme-corporation")] == [True]

    write(graph["upload"], "harbour/kickoff.md", KICKOFF_CHANGED)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}
    kept = _links(graph, "priya-natarajan", "acme-corporation")
    assert len(kept) == 1 and kept[0]["manual"] is True and kept[0]["sources"] == [], kept


async def test_linking_both_ways_is_one_relationship_stored_in_slug_order(kickoff, mcp):
    graph = kickoff
    assert _links(graph, "northwind-logistics", "acme-corporation") == []
    async with Client(mcp) as client:
        first = (await client.call_tool("link_pages", {"from_slug": "northwind-logistics",
                                                       "to_slug": "acme-corporation"})).structured_content
        again = (await client.call_tool("link_pages", {"from_slug": "acme-corporation",
                                                       "to_slug": "northwind-logistics"})).structured_content
    assert "Linked" in first["message"] and "already linked" in again["message"], (first, again)
    links = _links(graph, "acme-corporation", "northwind-logistics")
    # One relationship, in the direction the pipeline also writes (slugs in order), made by hand.
    assert [(l["source"], l["target"], l["manual"]) for l in links] == [
        ("acme-corporation", "northwind-logistics", True)
    ], links


@pytest.fixture()
def roster(graph):
    write(graph["upload"], "team/roster.md", ROSTER)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}
    people = sorted(s for s in (
        "marcus-webb", "elena-petrova", "tomasz-nowak", "hiroshi-tanaka", "amara-okeke"
    ) if graph["db"].read(graph["driver"], page_refs, graph["owner"], [s]))
    assert len(people) >= 4, people  # NER found (nearly) everyone
    pairs = [(a, b) for i, a in enumerate(people) for b in people[i + 1:]]
    assert all(_links(graph, a, b) == [] for a, b in pairs)
    return graph, pairs


async def test_concurrent_link_pages_both_ways_make_one_relationship(roster, served):
    graph, pairs = roster
    clients = [Client(served.mcp()) for _ in range(6)]

    async def link_all(client: Client, reverse: bool) -> None:
        async with client:
            await asyncio.gather(*[
                client.call_tool("link_pages", {"from_slug": b, "to_slug": a} if reverse else {"from_slug": a, "to_slug": b})
                for a, b in pairs
            ])

    await asyncio.gather(*[link_all(c, reverse=i % 2 == 1) for i, c in enumerate(clients)])
    for a, b in pairs:
        links = _links(graph, a, b)
        assert [(l["source"], l["target"], l["manual"]) for l in links] == [(a, b, True)], (a, b, links)


def test_concurrent_link_writes_in_process_make_one_relationship(roster):
    """The same race without HTTP in between: many threads, each pair linked both ways at once."""
    graph, pairs = roster
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def link(reverse: bool) -> None:
        try:
            barrier.wait()
            for a, b in pairs:
                x, y = (b, a) if reverse else (a, b)
                graph["db"].write(graph["driver"], navigation.link_pages, graph["owner"], x, y)
        except BaseException as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=link, args=(i % 2 == 1,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for a, b in pairs:
        assert len(_links(graph, a, b)) == 1, (a, b, _links(graph, a, b))

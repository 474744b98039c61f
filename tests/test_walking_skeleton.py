"""One document to a brief over MCP, on real parts: Neo4j, spaCy, MiniLM, Dagster, fastmcp over HTTP."""

from __future__ import annotations

import urllib.request

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema.queries.pages import graph_counts
from graph_schema.settings import get_settings
from pipeline.run import dagster_instance, ingest_paths
from tests.conftest import write

NOTES = """# Harbour pitch kickoff

Priya Natarajan is leading the Harbour pitch for Acme Corporation. The pitch goes to the
Acme Corporation board in April.

Daniel Okafor from Northwind Logistics joined the call and will share the shipping volumes.
Priya Natarajan asked Daniel Okafor for the berth schedule before Friday.
"""


def counts(graph) -> dict[str, int]:
    return graph["db"].read(graph["driver"], graph_counts, graph["owner"])


async def test_document_to_brief_search_and_page_over_mcp(graph, mcp):
    write(graph["upload"], "harbour/kickoff.md", NOTES)
    report = ingest_paths([graph["upload"]])
    assert [o.status for o in report.outcomes] == ["ingested"]
    created = set(report.outcomes[0].pages_created)
    assert {"priya-natarajan", "daniel-okafor", "acme-corporation", "northwind-logistics", "harbour"} <= created

    # The runs were recorded in the Dagster instance that dagster.yaml configures.
    instance = dagster_instance()
    assert all(instance.get_run_by_id(run_id) is not None for run_id in report.run_ids)

    async with Client(mcp) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert {"brief", "search", "get_page"} <= set(tools)
        assert tools["brief"].annotations.readOnlyHint is True

        brief = (await client.call_tool("brief", {})).structured_content
        assert "Priya Natarajan" in brief["text"] and "harbour" in brief["text"]
        assert {"slug": "priya-natarajan", "title": "Priya Natarajan", "kind": "person"} in brief["sources"]
        again = (await client.call_tool("brief", {})).structured_content
        assert again["cached"] is True and again["text"] == brief["text"]

        # An ingest run in another process (this one; the server is a subprocess) is seen on the
        # very next call, although the server keeps its brief without asking Neo4j.
        write(graph["upload"], "harbour/berths.md", "Marta Lindqvist from Orion Shipping owns the berth schedule.\n")
        outcomes = ingest_paths([graph["upload"]]).outcomes
        assert {o.key: o.status for o in outcomes} == {"harbour/kickoff.md": "unchanged", "harbour/berths.md": "ingested"}
        after = (await client.call_tool("brief", {})).structured_content
        assert after["graph_version"] > brief["graph_version"]  # (the run itself rebuilt the brief)
        assert "Marta Lindqvist" in after["text"] and "marta-lindqvist" in {s["slug"] for s in after["sources"]}

        found = (await client.call_tool("search", {"query": "shipping volumes from a logistics company"})).structured_content
        assert found["mode"] == "semantic"
        assert 1 <= len(found["results"]) <= 5
        assert all(len(hit["preview"]) <= 200 for hit in found["results"])
        assert "northwind-logistics" in [hit["slug"] for hit in found["results"]]

        page = (await client.call_tool("get_page", {"slug": "daniel-okafor"})).structured_content["page"]
        assert page["kind"] == "person" and page["title"] == "Daniel Okafor"
        facts = {f["text"] for f in page["facts"]}
        assert any("shipping volumes" in f for f in facts)
        source = page["facts"][0]["sources"][0]
        assert source["key"] == "harbour/kickoff.md"
        original = NOTES[source["start"] : source["end"]]
        assert "Daniel Okafor" in original
        assert {link["page"]["slug"] for link in page["links"]} >= {"northwind-logistics", "harbour"}

        with pytest.raises(ToolError, match="No page has the slug 'no-such-page'.*search"):
            await client.call_tool("get_page", {"slug": "no-such-page"})


def test_ingesting_the_same_file_twice_writes_nothing(graph):
    write(graph["upload"], "kickoff.md", NOTES)
    first = ingest_paths([graph["upload"]])
    assert first.outcomes[0].status == "ingested"
    before = counts(graph)
    second = ingest_paths([graph["upload"]])
    assert second.outcomes[0].status == "unchanged"
    assert second.brief_rebuilt is False
    assert counts(graph) == before


def test_unreadable_files_are_reported_and_the_rest_ingests(graph):
    write(graph["upload"], "good.md", NOTES)
    alone = ingest_paths([graph["upload"] / "good.md"])
    assert alone.outcomes[0].status == "ingested"
    before = counts(graph)

    write(graph["upload"], "empty.md", "")
    write(graph["upload"], "junk.pdf", bytes(range(256)) * 40)
    write(graph["upload"], "broken.docx", b"PK\x03\x04 this is not a real docx")
    write(graph["upload"], "binary.md", b"\x00\x01\x02\x03" * 100)
    write(graph["upload"], "slides.key", b"not a supported format")
    report = ingest_paths([graph["upload"]])
    by_key = {o.key: o for o in report.outcomes}
    assert by_key["good.md"].status == "unchanged"
    failed = {k: o.reason for k, o in by_key.items() if o.status == "failed"}
    assert set(failed) == {"empty.md", "junk.pdf", "broken.docx", "binary.md", "slides.key"}
    assert "empty" in failed["empty.md"]
    assert "no %PDF header" in failed["junk.pdf"]
    assert "NUL" in failed["binary.md"]
    assert "not a supported format" in failed["slides.key"]

    # The bad files added only their source records (status failed, with the reason): no pages,
    # facts, chunks or links.
    after_bad = counts(graph)
    assert after_bad == {**before, "sources": before["sources"] + 5, "nodes": before["nodes"] + 5}

    write(graph["upload"], "later.md", "Sofia Marquez joined Northwind Logistics as head of data.")
    later = {o.key: o.status for o in ingest_paths([graph["upload"]]).outcomes}
    assert later["later.md"] == "ingested"
    assert {k for k, status in later.items() if status == "failed"} == set(failed)  # recorded again, not doubled
    after = counts(graph)
    assert after["sources"] == after_bad["sources"] + 1
    assert after["pages"] > after_bad["pages"] and after["facts"] > after_bad["facts"]


def test_neo4j_browser_and_bolt_password(neo4j_server):
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        pytest.skip("NEO4J_URI points at a server this project did not start")
    from subtext.local_neo4j import LocalNeo4j

    local = LocalNeo4j(settings)
    assert local.start() is False  # a second start is a no-op
    with urllib.request.urlopen(local.browser_address, timeout=10) as response:
        assert response.status == 200
    import neo4j

    with neo4j.GraphDatabase.driver(local.bolt_address, auth=("neo4j", local.password())) as driver:
        driver.verify_connectivity()
    with pytest.raises(neo4j.exceptions.AuthError):
        with neo4j.GraphDatabase.driver(local.bolt_address, auth=("neo4j", "wrong-password")) as driver:
            driver.verify_connectivity()


def test_the_generated_neo4j_password_is_never_read_as_an_option():
    # neo4j-admin took a password starting with '-' for an option and `subtext neo4j start` failed
    # ("Missing required parameter: '<password>'"), once in 64 fresh installs; seen failing here
    # on URL-safe base64 passwords within these draws.
    from subtext.local_neo4j import new_password

    drawn = [new_password() for _ in range(2000)]
    assert not [p for p in drawn if p.startswith("-")]
    assert len(set(drawn)) == len(drawn) and min(map(len, drawn)) >= 32

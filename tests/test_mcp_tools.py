"""scope, graph_snapshot, traverse, rename_page and link_pages through a real MCP client over HTTP."""

from __future__ import annotations

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema.queries import navigation
from graph_schema.queries.pages import graph_counts
from pipeline.run import ingest_paths
from tests.conftest import write

KICKOFF = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
DATA = "Sofia Marquez loads the shipping volumes into PostgreSQL for Daniel Okafor."


@pytest.fixture()
def ingested(graph):
    write(graph["upload"], "harbour/kickoff.md", KICKOFF)
    write(graph["upload"], "data/loading.md", DATA)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}
    return graph


async def test_read_tools_over_mcp(ingested, mcp):
    async with Client(mcp) as client:
        tools = {t.name: t for t in await client.list_tools()}
        for name in ("brief", "search", "scope", "get_page", "graph_snapshot", "traverse"):
            assert tools[name].annotations.readOnlyHint is True, name
        for name in ("rename_page", "link_pages"):
            assert tools[name].annotations.readOnlyHint is False, name
        assert tools["edit_page_body"].annotations.idempotentHint is False  # each call is a new submission

        index = (await client.call_tool("scope", {"target": "you"})).structured_content
        assert {a["slug"] for a in index["focus_areas"]} == {"harbour", "data"}
        focus = (await client.call_tool("scope", {"target": "harbour"})).structured_content
        assert focus["members"] >= 4 and "deep compile is sensible" in focus["advice"]
        thing = (await client.call_tool("scope", {"target": "daniel-okafor"})).structured_content
        assert thing["neighbours"]["RELATES_TO"] >= 3 and thing["neighbours"]["IN_CONTEXT"] == 2

        snap = (await client.call_tool("graph_snapshot", {})).structured_content
        slugs = {p["slug"] for p in snap["pages"]}
        assert {"you", "harbour", "data", "daniel-okafor", "sofia-marquez"} <= slugs
        assert snap["total_pages"] == len(snap["pages"]) and snap["more"] is None
        assert all("body" not in p for p in snap["pages"])
        assert {"source": "daniel-okafor", "type": "IN_CONTEXT", "target": "data"} in snap["links"]

        walk = (await client.call_tool("traverse", {"from_slug": "daniel-okafor"})).structured_content
        assert walk["edge_type"] == "RELATES_TO"
        assert {"sofia-marquez", "northwind-logistics"} <= {s["slug"] for s in walk["path"]}
        inside = (await client.call_tool("traverse", {"from_slug": "daniel-okafor", "within": "data"})).structured_content
        assert "northwind-logistics" not in {s["slug"] for s in inside["path"]}
        filed = (await client.call_tool("traverse", {"from_slug": "daniel-okafor", "edge_type": "IN_CONTEXT"})).structured_content
        assert {s["slug"] for s in filed["path"]} == {"harbour", "data"}
        lonely = (await client.call_tool("traverse", {"from_slug": "harbour"})).structured_content
        assert lonely["path"] == []

        with pytest.raises(ToolError, match="never 'you'"):
            await client.call_tool("traverse", {"from_slug": "you"})
        with pytest.raises(ToolError, match="search or graph_snapshot"):
            await client.call_tool("traverse", {"from_slug": "nobody-here"})
        with pytest.raises(ToolError, match="search or graph_snapshot"):
            await client.call_tool("scope", {"target": "nobody-here"})


async def test_write_tools_over_mcp(ingested, mcp):
    graph = ingested
    async with Client(mcp) as client:
        before = (await client.call_tool("get_page", {"slug": "acme-corporation"})).structured_content["page"]
        renamed = (await client.call_tool("rename_page", {"slug": "acme-corporation", "title": "Acme Group"})).structured_content
        page = renamed["page"]
        assert page["slug"] == "acme-corporation" and page["title"] == "Acme Group"
        assert "Acme Corporation" in page["aliases"]
        assert {link["page"]["slug"] for link in page["links"]} == {link["page"]["slug"] for link in before["links"]}
        brief = (await client.call_tool("brief", {})).structured_content
        assert "Acme Group" in brief["text"] and brief["cached"] is False

        counts = graph["db"].read(graph["driver"], graph_counts, graph["owner"])
        with pytest.raises(ToolError, match="itself"):
            await client.call_tool("link_pages", {"from_slug": "sofia-marquez", "to_slug": "sofia-marquez"})
        with pytest.raises(ToolError, match="search or graph_snapshot"):
            await client.call_tool("link_pages", {"from_slug": "sofia-marquez", "to_slug": "invented-slug"})
        assert graph["db"].read(graph["driver"], graph_counts, graph["owner"]) == counts

        assert graph["db"].read(graph["driver"], navigation.links_between, graph["owner"], "acme-corporation",
                                "sofia-marquez") == []
        linked = (await client.call_tool("link_pages", {"from_slug": "sofia-marquez", "to_slug": "acme-corporation"})).structured_content
        assert "Linked" in linked["message"]
        again = (await client.call_tool("link_pages", {"from_slug": "acme-corporation", "to_slug": "sofia-marquez"})).structured_content
        assert "already linked" in again["message"]
        links = graph["db"].read(graph["driver"], navigation.links_between, graph["owner"], "acme-corporation",
                                 "sofia-marquez")
        assert [(l["source"], l["target"], l["manual"]) for l in links] == [("acme-corporation", "sofia-marquez", True)]
        walk = (await client.call_tool("traverse", {"from_slug": "sofia-marquez"})).structured_content
        assert "acme-corporation" in {s["slug"] for s in walk["path"]}
        with pytest.raises(ToolError, match="search or graph_snapshot"):
            await client.call_tool("rename_page", {"slug": "invented-slug", "title": "X"})


async def test_edit_page_body_goes_through_the_pipeline(ingested, mcp):
    graph = ingested
    async with Client(mcp) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert tools["edit_page_body"].annotations.readOnlyHint is False
        before = graph["db"].read(graph["driver"], graph_counts, graph["owner"])

        with pytest.raises(ToolError, match="exactly one"):
            await client.call_tool("edit_page_body", {"body": "Something."})
        with pytest.raises(ToolError, match="exactly one"):
            await client.call_tool("edit_page_body", {"body": "x", "slug": "harbour", "new_project": "Y"})
        with pytest.raises(ToolError, match="search or graph_snapshot"):
            await client.call_tool("edit_page_body", {"body": "Something.", "slug": "made-up"})
        assert graph["db"].read(graph["driver"], graph_counts, graph["owner"]) == before

        anchored = (await client.call_tool("edit_page_body", {
            "slug": "daniel-okafor",
            "body": "Decided on 12 March that Daniel Okafor presents the volumes to Maria Lopez. The board meets in April.",
        })).structured_content
        assert anchored["facts_added"] == 2
        assert "maria-lopez" in {p["slug"] for p in anchored["pages_created"]}
        assert "daniel-okafor" in {p["slug"] for p in anchored["pages_updated"]}
        page = (await client.call_tool("get_page", {"slug": "daniel-okafor"})).structured_content["page"]
        facts = {f["text"]: f for f in page["facts"]}
        assert "The board meets in April." in facts  # no entity: filed on the anchor
        assert facts["The board meets in April."]["sources"][0]["kind"] == "submission"

        project = (await client.call_tool("edit_page_body", {
            "new_project": "Berth Scheduler",
            "body": "I am starting the Berth Scheduler with Sofia Marquez. We ship a prototype in May.",
        })).structured_content
        assert project["focus_created"]["slug"] == "berth-scheduler"
        assert project["focus_created"]["kind"] == "focus"
        scope = (await client.call_tool("scope", {"target": "berth-scheduler"})).structured_content
        assert scope["members"] >= 1
        you = (await client.call_tool("get_page", {"slug": "you"})).structured_content["page"]
        assert any("I am starting the Berth Scheduler" in f["text"] for f in you["facts"])


async def test_the_same_server_over_stdio(ingested):
    import os
    import sys

    from fastmcp.client.transports import StdioTransport

    env = {**os.environ, "SUBTEXT_OWNER": ingested["owner"], "SUBTEXT_UPLOAD_DIR": str(ingested["upload"])}
    transport = StdioTransport(command=sys.executable, args=["-m", "subtext.cli", "serve", "--stdio"], env=env)
    async with Client(transport) as client:
        names = {t.name for t in await client.list_tools()}
        assert {"brief", "search", "get_page", "scope", "traverse", "edit_page_body"} <= names
        page = (await client.call_tool("get_page", {"slug": "sofia-marquez"})).structured_content["page"]
        assert page["title"] == "Sofia Marquez"

"""The graph-upkeep tools over MCP (issue 19): `review` and `merge_pages` are an opt-in group, offered
only when the server is told to (SUBTEXT_UPKEEP_TOOLS) and, over HTTP, only to keys made for them;
they obey read-only and scope like the ten, and a merge is a dry run unless asked otherwise."""

from __future__ import annotations

import os
import sys

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from graph_schema.queries.pages import get_page
from pipeline.run import ingest_paths
from tests.conftest import make_key, write

TEN = {"brief", "search", "get_page", "scope", "compile", "graph_snapshot", "traverse",
       "edit_page_body", "rename_page", "link_pages"}
UPKEEP = {"review", "merge_pages", "find_contradictions", "recent_activity", "focus_proposals", "accept_focus_area",
          "dismiss_focus_area"}


@pytest.fixture()
def two_firms(graph):
    """'Acme Freight' and 'Acme Logistics': two pages resolution left as a pair to review (ingested
    before the test's event loop runs Dagster's own)."""
    write(graph["upload"], "harbour/logistics.md", "Priya Natarajan met Acme Logistics about the Harbour pitch.\n")
    write(graph["upload"], "freight.md", "Acme Freight sent the revised quote to Daniel Okafor.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    return graph


async def test_upkeep_tools_are_listed_only_for_keys_made_for_them_and_merge_is_a_dry_run_first(
        two_firms, served_with_upkeep):
    graph = two_firms
    upkeep = served_with_upkeep.mcp(make_key(graph, "upkeep", upkeep=True))
    plain = served_with_upkeep.mcp(make_key(graph, "plain"))
    reader = served_with_upkeep.mcp(make_key(graph, "reader", write=False, upkeep=True))
    partial = served_with_upkeep.mcp(make_key(graph, "partial", scope="focus:harbour", upkeep=True))

    async with Client(plain) as client:  # an assistant that knows the ten sees exactly the ten
        assert {t.name for t in await client.list_tools()} == TEN
        with pytest.raises(ToolError):
            await client.call_tool("review", {})
    async with Client(partial) as client:  # part of the graph: merging would move other areas' facts,
        # while reading one page's conflicts or what changed keeps to the key's scope
        assert {t.name for t in await client.list_tools()} == TEN | {"find_contradictions", "recent_activity"}

    async with Client(upkeep) as client:
        assert {t.name for t in await client.list_tools()} == TEN | UPKEEP
        review = (await client.call_tool("review", {})).structured_content
        assert [{p["page"]["slug"], p["other"]["slug"]} for p in review["pairs"]] == [{"acme-freight", "acme-logistics"}]
        assert "share a name" in review["pairs"][0]["evidence"]

        dry = (await client.call_tool("merge_pages", {"from_slug": "acme-freight", "into_slug": "acme-logistics"}))
        assert dry.structured_content["merge"]["applied"] is False and "Nothing changed" in dry.structured_content["message"]
        assert graph["db"].read(graph["driver"], get_page, graph["owner"], "acme-freight", 10).slug == "acme-freight"

    async with Client(reader) as client:  # a read-only key may look, not merge
        await client.call_tool("merge_pages", {"from_slug": "acme-freight", "into_slug": "acme-logistics"})
        with pytest.raises(ToolError, match="read-only"):
            await client.call_tool("merge_pages", {"from_slug": "acme-freight", "into_slug": "acme-logistics",
                                                   "dry_run": False})

    async with Client(upkeep) as client:
        done = (await client.call_tool("merge_pages", {"from_slug": "acme-freight", "into_slug": "acme-logistics",
                                                       "dry_run": False})).structured_content
        assert done["merge"]["applied"] is True and done["merge"]["facts"] == 1
        page = (await client.call_tool("get_page", {"slug": "acme-freight"})).structured_content["page"]
        assert page["slug"] == "acme-logistics" and "Acme Freight" in page["aliases"]
        assert (await client.call_tool("review", {})).structured_content["pairs"] == []
        with pytest.raises(ToolError, match="one page already"):
            await client.call_tool("merge_pages", {"from_slug": "acme-logistics", "into_slug": "acme-freight"})
        # an old slug names the page it joined: folding that page away is refused, not done (seen
        # failing: 'Acme Logistics' itself was folded into Priya's page)
        with pytest.raises(ToolError, match="was merged into 'acme-logistics' already"):
            await client.call_tool("merge_pages", {"from_slug": "acme-freight", "into_slug": "priya-natarajan",
                                                   "dry_run": False})
        assert (await client.call_tool("get_page", {"slug": "acme-logistics"})).structured_content["page"]["slug"] \
            == "acme-logistics"
        with pytest.raises(ToolError, match="never merged"):
            await client.call_tool("merge_pages", {"from_slug": "harbour", "into_slug": "acme-logistics"})


async def test_over_stdio_the_person_gets_the_upkeep_tools_only_when_the_server_offers_them(two_firms):
    graph = two_firms
    env = {**os.environ, "SUBTEXT_OWNER": graph["owner"], "SUBTEXT_UPLOAD_DIR": str(graph["upload"])}
    command = [sys.executable, "-m", "subtext.cli", "serve", "--stdio"]
    async with Client(StdioTransport(command=command[0], args=command[1:], env=env)) as client:
        assert {t.name for t in await client.list_tools()} == TEN
    env["SUBTEXT_UPKEEP_TOOLS"] = "true"
    async with Client(StdioTransport(command=command[0], args=command[1:], env=env)) as client:
        assert {t.name for t in await client.list_tools()} >= UPKEEP
        pairs = (await client.call_tool("review", {"limit": 5})).structured_content["pairs"]
        assert [{p["page"]["slug"], p["other"]["slug"]} for p in pairs] == [{"acme-freight", "acme-logistics"}]
    # a key in the environment that was not made for upkeep is refused, with what to do
    env["SUBTEXT_ACCESS_KEY"] = make_key(graph, "desktop")
    async with Client(StdioTransport(command=command[0], args=command[1:], env=env)) as client:
        with pytest.raises(ToolError, match="--upkeep"):
            await client.call_tool("review", {})

"""compile through a real MCP client over HTTP: depths, shapes, cache, intent, freshness, budget."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from pipeline.run import ingest_paths
from tests.conftest import write

KICKOFF = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
The Acme Corporation board reviews the budget of the Harbour pitch in April.
"""
DATA = """Sofia Marquez loads the shipping volumes into PostgreSQL for Daniel Okafor.
Daniel Okafor asked Sofia Marquez for a berth schedule dashboard.
"""


@pytest.fixture()
def ingested(graph):
    write(graph["upload"], "harbour/kickoff.md", KICKOFF)
    write(graph["upload"], "harbour/data.md", DATA)
    report = ingest_paths([graph["upload"]])
    assert {o.status for o in report.outcomes} == {"ingested"}
    return graph


async def test_compile_depths_shapes_and_cache(ingested, mcp):
    async with Client(mcp) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"brief", "search", "scope", "compile", "get_page", "graph_snapshot", "traverse",
                              "edit_page_body", "rename_page", "link_pages"}
        tool = tools["compile"]
        assert tool.title == "Compile context" and tool.annotations.readOnlyHint is True
        props = tool.inputSchema["properties"]
        assert props["depth"]["default"] == "shallow" and props["shape"]["default"] == "narrative"
        assert set(tool.inputSchema["required"]) == {"intent", "target"}

        async def compile_(**args):
            return (await client.call_tool("compile", {"intent": "", **args})).structured_content

        shallow = await compile_(target="harbour")
        assert shallow["depth"] == "shallow" and shallow["shape"] == "narrative" and shallow["cached"] is False
        assert shallow["text"].startswith("<document-text>\n# harbour (focus)")
        members = {s["slug"] for s in shallow["sources"]}
        assert {"harbour", "priya-natarajan", "daniel-okafor", "sofia-marquez", "acme-corporation"} <= members
        assert all(s["kind"] in {"focus", "person", "organisation", "project", "tool", "topic"} for s in shallow["sources"])
        assert "## What is in this focus area" in shallow["text"] and "- Sofia Marquez (person, member)" in shallow["text"]

        # Another shape re-uses the gathered material.
        structured = await compile_(target="harbour", shape="structured")
        assert structured["cached"] is True and structured["text"] is None
        items = {i["slug"]: i for i in structured["structured"]["items"]}
        assert items["daniel-okafor"]["kind"] == "person" and items["daniel-okafor"]["facts"] == []
        summary = await compile_(target="harbour", shape="summary")
        assert summary["cached"] is True and "Daniel Okafor (person)" in summary["text"]

        medium = await compile_(target="harbour", depth="medium", shape="structured")
        items = {i["slug"]: i for i in medium["structured"]["items"]}
        assert any("berth schedule" in f["text"] for f in items["sofia-marquez"]["facts"])
        assert all(f["sources"] for f in items["sofia-marquez"]["facts"])

        deep = await compile_(target="daniel-okafor", depth="deep")
        assert "## How they relate" in deep["text"]
        assert "Daniel Okafor and Sofia Marquez:" in deep["text"] or "Sofia Marquez and Daniel Okafor:" in deep["text"]
        assert deep["estimated_tokens"] > shallow["estimated_tokens"] > 0

        you = await compile_(target="you", depth="deep")
        assert you["depth"] == "shallow" and "always shallow" in you["note"]
        assert "harbour" in {s["slug"] for s in you["sources"]}

        # Intent orders members by meaning: the database person first for a data question.
        steered = await compile_(target="harbour", intent="PostgreSQL database loading work", shape="structured")
        assert steered["structured"]["items"][0]["slug"] in {"sofia-marquez", "postgresql"}
        # ...and another intent orders them otherwise (so the order above is not a fixed one).
        other = await compile_(target="harbour", intent="the Acme Corporation board and its budget", shape="structured")
        assert other["structured"]["items"][0]["slug"] not in {"sofia-marquez", "postgresql"}

        # Freshness in the future keeps nothing; a wide one keeps everything.
        future = await compile_(target="sofia-marquez", depth="medium", freshness="2999-01-01")
        assert "No facts on this page yet in that time." in future["text"]
        # A cut between two ingests keeps only what the later one taught.
        cut = datetime.now(timezone.utc)
        write(ingested["upload"], "harbour/dashboard.md", "Sofia Marquez finished the berth schedule dashboard.\n")
        ingest_paths([ingested["upload"] / "harbour" / "dashboard.md"])
        recent = await compile_(target="sofia-marquez", depth="medium", freshness=cut.isoformat(), shape="structured")
        assert [f["text"] for f in recent["structured"]["target_facts"]] == [
            "Sofia Marquez finished the berth schedule dashboard."]
        week = await compile_(target="sofia-marquez", depth="medium", freshness="7d", shape="structured")
        assert len(week["structured"]["target_facts"]) == 3

        # The graph changed: the cache is not used.
        write(ingested["upload"], "harbour/more.md", "Priya Natarajan moved the Harbour pitch review to May.\n")
        ingest_paths([ingested["upload"] / "harbour" / "more.md"])
        again = await compile_(target="harbour", shape="summary")
        assert again["cached"] is False

        with pytest.raises(ToolError, match="No page has the slug 'nowhere'"):
            await compile_(target="nowhere")
        with pytest.raises(ToolError, match="freshness 'soon' is not understood"):
            await compile_(target="harbour", freshness="soon")


async def test_compile_stays_within_the_token_budget(graph, mcp_small_budget):
    lines = [f"Member{n} Person{n} works with Priya Natarajan on the Harbour pitch section {n}." for n in range(40)]
    write(graph["upload"], "harbour/long.md", "\n\n".join(lines))
    ingest_paths([graph["upload"]])
    async with Client(mcp_small_budget) as client:
        answer = (await client.call_tool("compile", {"intent": "", "target": "harbour", "depth": "medium"})).structured_content
    assert answer["estimated_tokens"] <= 400
    assert answer["omitted"] and "more connected page" in " ".join(answer["omitted"])


async def test_compile_of_a_focus_area_says_where_it_stands(graph, mcp):
    """Like the peers' tag context: what the area is, what was decided (dated), what is open (owner,
    due date) and what was closed, each with its sources, in every shape (issue 20)."""
    import shutil

    from graph_schema.settings import PROJECT_ROOT

    shutil.copytree(PROJECT_ROOT / "samples" / "uploads" / "harbour-pitch", graph["upload"] / "harbour-pitch")
    write(graph["upload"], "harbour-pitch/follow-up.md",
          "Daniel Okafor sent the 2025 shipping volumes from Northwind Logistics.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    async with Client(mcp) as client:
        async def compile_(**args):
            return (await client.call_tool("compile", {"intent": "", "target": "harbour-pitch", **args})).structured_content

        structured = (await compile_(shape="structured"))["structured"]
        status = structured["status"]
        assert status["source_count"] >= 3 and status["what_it_is"]["text"]
        grafana = next(line for line in status["decided"] if "prototype dashboard in Grafana" in line["text"])
        assert grafana["text"].startswith("Decided (") and "harbour-pitch/kickoff-notes.md" in grafana["documents"]
        assert any(line["text"].startswith("To do (") and line["sources"] for line in status["open"])
        closed = next(line for line in status["closed"] if "shipping volumes" in line["text"])
        assert "harbour-pitch/follow-up.md" in closed["documents"]
        assert not [line for line in status["open"] if "shipping volumes" in line["text"]]

        narrative = (await compile_())["text"]
        print(narrative)
        assert "## Where it stands" in narrative and grafana["text"] in narrative and closed["text"] in narrative
        summary = (await compile_(shape="summary"))["text"]
        assert f"{len(status['decided'])} decided:" in summary and f"{len(status['closed'])} closed:" in summary

        # A person's page has no status of its own.
        person = await compile_(target="daniel-okafor", shape="structured")
        assert person["structured"]["status"] is None

"""Recent activity and the state of a focus area (issue 19 item 5): what changed lately and why,
newest first, within a key's scope; compile on a focus area carries its latest sources and the
focus areas it shares pages with.

Real stack: notes ingested through Dagster into Neo4j (added, changed, deleted, unreadable), a
submission through edit_page_body, the MCP server over Streamable HTTP, the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema.settings import PROJECT_ROOT, get_settings
from knowledge.activity import recent_activity
from pipeline.run import ingest_paths
from tests.conftest import export_then_import, make_key, write


@pytest.fixture()
def busy_folder(graph):
    """Two focus areas sharing Project Harbour and Daniel Okafor; then one note changed, one deleted, one unreadable."""
    upload = graph["upload"]
    write(upload, "harbour/kickoff.md",
          "# Harbour pitch kickoff\n\nPriya Natarajan leads Project Harbour with Daniel Okafor.\n"
          "We decided to pitch Northwind Logistics in April.\n")
    write(upload, "harbour/notes.md", "# Harbour notes\n\nPriya Natarajan met Northwind Logistics about Project Harbour.\n")
    write(upload, "finance/budget.md",
          "# Budget review\n\nDaniel Okafor approved the Project Harbour budget.\n"
          "Action: Daniel Okafor to send the volumes to Priya Natarajan by Friday.\n")
    assert {o.status for o in ingest_paths([upload]).outcomes} == {"ingested"}
    write(upload, "harbour/kickoff.md",
          "# Harbour pitch kickoff\n\nPriya Natarajan leads Project Harbour with Daniel Okafor.\n"
          "We decided to pitch Northwind Logistics in May instead.\n")
    (upload / "harbour" / "notes.md").unlink()
    write(upload, "harbour/scan.pdf", b"%PDF-1.4 this is not really a PDF")
    outcomes = ingest_paths([upload / "harbour" / "kickoff.md", upload / "harbour" / "notes.md",
                             upload / "harbour" / "scan.pdf"]).outcomes
    assert sorted(o.status for o in outcomes) == ["failed", "ingested", "retired"], outcomes
    return graph


async def test_recent_activity_says_what_changed_and_why_within_the_keys_scope(busy_folder, served_with_upkeep):
    graph = busy_folder
    upkeep = served_with_upkeep.mcp(make_key(graph, "Claude", upkeep=True))
    plain = served_with_upkeep.mcp(make_key(graph, "plain"))
    finance_only = served_with_upkeep.mcp(make_key(graph, "finance only", scope="focus:finance", upkeep=True))

    async with Client(upkeep) as client:
        await client.call_tool("edit_page_body", {"slug": "project-harbour",
                                                  "body": "The Harbour pitch deck was approved by Priya Natarajan."})
        answer = (await client.call_tool("recent_activity", {})).structured_content
        by_source = {item["source"]: item for item in answer["activity"]}
        assert answer["total"] == 5 and len(answer["activity"]) == 5, answer
        # newest first: the submission came last
        assert answer["activity"][0]["kind"] == "submission" and answer["activity"][0]["why"] == "sent by Claude (assistant)"
        assert [item["at"] for item in answer["activity"]] == sorted((item["at"] for item in answer["activity"]), reverse=True)
        kickoff = by_source["harbour/kickoff.md"]
        assert (kickoff["change"], kickoff["why"]) == ("changed", "changed document")
        assert kickoff["decisions"] == 1 and "May" in kickoff["latest_decision"]
        assert {p["slug"] for p in kickoff["pages"]} >= {"priya-natarajan", "project-harbour", "daniel-okafor"}
        assert kickoff["focus"]["slug"] == "harbour"
        assert by_source["harbour/notes.md"]["change"] == "deleted" and "deleted" in by_source["harbour/notes.md"]["why"]
        assert by_source["harbour/scan.pdf"]["change"] == "failed" and by_source["harbour/scan.pdf"]["why"].startswith("could not be read: ")
        budget = by_source["finance/budget.md"]
        assert (budget["change"], budget["open_items"]) == ("new", 1)

        only_harbour = (await client.call_tool("recent_activity", {"focus": "harbour", "limit": 2})).structured_content
        assert only_harbour["total"] == 3 and len(only_harbour["activity"]) == 2
        assert all(item["focus"]["slug"] == "harbour" for item in only_harbour["activity"])
        assert "showing the newest 2" in only_harbour["message"]
        nothing = (await client.call_tool("recent_activity", {"since": "2099-01-01"})).structured_content
        assert nothing["activity"] == [] and nothing["message"].startswith("Nothing changed")
        with pytest.raises(ToolError, match="not a focus area"):
            await client.call_tool("recent_activity", {"focus": "priya-natarajan"})
        with pytest.raises(ToolError, match="not understood"):
            await client.call_tool("recent_activity", {"since": "last tuesday"})

    async with Client(finance_only) as client:  # a focus key sees its own area's sources only
        answer = (await client.call_tool("recent_activity", {"since": "1d"})).structured_content
        assert [item["source"] for item in answer["activity"]] == ["finance/budget.md"], answer

    async with Client(plain) as client:  # not a key made for the upkeep tools
        with pytest.raises(ToolError):
            await client.call_tool("recent_activity", {})


async def test_compile_on_a_focus_area_carries_its_recent_sources_and_related_areas(busy_folder, served):
    async with Client(served.mcp()) as client:
        compiled = (await client.call_tool("compile", {"intent": "", "target": "harbour", "shape": "structured"})
                    ).structured_content["structured"]
        assert {item["source"] for item in compiled["recent"]} == {"harbour/kickoff.md", "harbour/notes.md", "harbour/scan.pdf"}
        [related] = compiled["related_areas"]
        assert related["area"]["slug"] == "finance" and related["together"] >= 2
        assert {p["slug"] for p in related["shared"]} >= {"daniel-okafor", "project-harbour"}
        narrative = (await client.call_tool("compile", {"intent": "", "target": "harbour"})).structured_content["text"]
        assert "## Lately (newest first)" in narrative and "harbour/kickoff.md (changed document)" in narrative
        assert "## Focus areas sharing pages with it" in narrative and "- finance (" in narrative, narrative
        person = (await client.call_tool("compile", {"intent": "", "target": "priya-natarajan", "shape": "structured"})
                  ).structured_content["structured"]
        assert person["recent"] == [] and person["related_areas"] == []  # only a focus area has them


def test_the_recent_command_lists_what_changed_and_export_keeps_it(busy_folder, tmp_path):
    graph = busy_folder
    env = {**os.environ, "SUBTEXT_OWNER": graph["owner"], "NEO4J_URI": get_settings().bolt_uri, "COLUMNS": "250"}
    listed = subprocess.run([sys.executable, "-m", "subtext.cli", "recent", "--focus", "harbour"], cwd=PROJECT_ROOT,
                            env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "3 sources changed" in listed.stdout and "harbour/kickoff.md (changed document)" in listed.stdout
    assert "decided: We decided to pitch Northwind Logistics in May instead." in listed.stdout
    missing = subprocess.run([sys.executable, "-m", "subtext.cli", "recent", "--focus", "priya-natarajan"],
                             cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert missing.returncode == 1 and "No focus area has the slug 'priya-natarajan'" in missing.stderr

    def changes(owner: str) -> dict[str, str]:
        items, _ = graph["db"].read(graph["driver"], recent_activity, owner, None, None, 20, get_settings())
        return {item.source: item.change for item in items}

    expected = {"harbour/kickoff.md": "changed", "harbour/notes.md": "deleted", "harbour/scan.pdf": "failed",
                "finance/budget.md": "new"}
    assert changes(graph["owner"]) == expected
    assert changes(export_then_import(graph, tmp_path)) == expected  # an imported graph says the same

    # a deleted note put back is news again, dated now, not when it was deleted
    write(graph["upload"], "harbour/notes.md", "# Harbour notes\n\nPriya Natarajan met Northwind Logistics.\n")
    assert [o.status for o in ingest_paths([graph["upload"] / "harbour" / "notes.md"]).outcomes] == ["ingested"]
    items, _ = graph["db"].read(graph["driver"], recent_activity, graph["owner"], None, "harbour", 1, get_settings())
    assert [(i.source, i.change) for i in items] == [("harbour/notes.md", "new")]

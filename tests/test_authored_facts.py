"""Authored facts (issue 19 item 4): every fact says who stated it. A document's own authors (an
Author field, a byline, a mail's sender) or the assistant whose key sent a submission, marked
`yours` for that key only; get_page and compile show it, export and import keep it.

Real stack: notes ingested through Dagster into Neo4j, the MCP server over Streamable HTTP."""

from __future__ import annotations

from fastmcp import Client

from graph_schema.queries.pages import get_page
from pipeline.run import ingest_paths
from tests.conftest import export_then_import, make_key, write


def _authors(page) -> dict[str, list[tuple]]:
    """fact text -> (author, author_kind, yours) of each of its sources."""
    return {f["text"]: [(s["author"], s["author_kind"], s["yours"]) for s in f["sources"]] for f in page["facts"]}


async def test_who_stated_each_fact_is_kept_shown_and_survives_export(graph, served, tmp_path):
    write(graph["upload"], "proposal.md",
          "Author: Tomasz Wierzbicki\nDate: 14 Oct 2026\n\nThe Tidepool rollout needs Adaeze Nwosu's sign-off.\n")
    write(graph["upload"], "plan.md",
          "# Tidepool plan\n\n*Prepared by Mireille Dufresne (Planning), 10 Nov 2026*\n\n"
          "Adaeze Nwosu approved the Tidepool budget.\n")
    write(graph["upload"], "call.md", "# Call\n\nAdaeze Nwosu asked for the Tidepool numbers.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    claude, other = make_key(graph, "Claude"), make_key(graph, "Cursor")

    async with Client(served.mcp(claude)) as client:
        await client.call_tool("edit_page_body", {"slug": "adaeze-nwosu", "body": "Adaeze Nwosu moved to the Lisbon office."})
        page = (await client.call_tool("get_page", {"slug": "adaeze-nwosu"})).structured_content["page"]
        said = _authors(page)
        assert said["The Tidepool rollout needs Adaeze Nwosu's sign-off."] == [("Tomasz Wierzbicki", "document", False)]
        assert said["Adaeze Nwosu approved the Tidepool budget."] == [("Mireille Dufresne", "document", False)]
        assert said["Adaeze Nwosu asked for the Tidepool numbers."] == [(None, None, False)]  # the note names no author
        assert said["Adaeze Nwosu moved to the Lisbon office."] == [("Claude", "assistant", True)]
        compiled = (await client.call_tool("compile", {"intent": "", "target": "adaeze-nwosu", "shape": "structured"}))
        facts = {f["text"]: f["authors"] for f in compiled.structured_content["structured"]["target_facts"]}
        assert facts["Adaeze Nwosu moved to the Lisbon office."] == [{"name": "Claude", "kind": "assistant"}]
        assert facts["Adaeze Nwosu approved the Tidepool budget."] == [{"name": "Mireille Dufresne", "kind": "document"}]
        narrative = (await client.call_tool("compile", {"intent": "", "target": "adaeze-nwosu"})).structured_content["text"]
        assert "moved to the Lisbon office. (sent by Claude (assistant))" in narrative

    async with Client(served.mcp(other)) as client:  # another assistant's key: not its own words
        page = (await client.call_tool("get_page", {"slug": "adaeze-nwosu"})).structured_content["page"]
        assert _authors(page)["Adaeze Nwosu moved to the Lisbon office."] == [("Claude", "assistant", False)]

    imported = export_then_import(graph, tmp_path)
    page = graph["db"].read(graph["driver"], get_page, imported, "adaeze-nwosu", 50)
    kept = {f.text: [(s.author, s.author_kind) for s in f.sources] for f in page.facts}
    assert kept["Adaeze Nwosu moved to the Lisbon office."] == [("Claude", "assistant")]
    assert kept["The Tidepool rollout needs Adaeze Nwosu's sign-off."] == [("Tomasz Wierzbicki", "document")]

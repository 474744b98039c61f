"""Focus areas from the graph (issue 19 item 6): pages that documents keep naming together are
proposed as a focus area; accepting one files its pages under a new focus page (and they stay
filed when documents change); a dismissed group is never proposed again; neither a group already
filed under one area nor the crowd of a whole graph is proposed.

Real stack: notes ingested through Dagster into Neo4j, the proposals run as the Dagster upkeep
asset and through the CLI; Louvain from networkx."""

from __future__ import annotations

from pipeline.run import ingest_paths
from tests.conftest import make_key, write

# Two pieces of work with their own people, firms and tools, which one note joins by a sentence. No
# folders: filed by folder, each would be a focus area already.
_KESTREL = {
    "kickoff.md": "# Kickoff\n\nPriya Natarajan leads Project Kestrel for Tidewater Freight.\n\n"
                          "Tidewater Freight wants Project Kestrel live by June.\n",
    "data.md": "# Data\n\nPriya Natarajan moves the Tidewater Freight loads to Snowflake.\n\n"
                       "Project Kestrel keeps its history in Snowflake.\n\n"
                       "Jonas Berg checks the Snowflake costs with Priya Natarajan.\n\n"
                       "Priya Natarajan decided to keep Project Kestrel on Snowflake.\n",
    "review.md": "# Review\n\nJonas Berg presented Project Kestrel to Tidewater Freight.\n",
}
_HIRING = {
    "plan.md": "# Hiring plan\n\nOmar Haddad hires two engineers through Northwind Staffing.\n\n"
                      "Northwind Staffing sends Omar Haddad ten profiles a week.\n",
    "loop.md": "# Interview loop\n\nLena Fischer runs the Greenhouse pipeline with Omar Haddad.\n\n"
                      "Northwind Staffing posts its candidates to Greenhouse.\n\n"
                      "Lena Fischer pays Northwind Staffing monthly.\n",
    "offers.md": "# Offers\n\nOmar Haddad signed two offers in Greenhouse.\n",
}
_BRIDGE = {"weekly.md": "# Weekly\n\nOmar Haddad asked Priya Natarajan for one engineer.\n"}


def _ingest(graph, notes: dict[str, str]) -> None:
    for path, text in notes.items():
        write(graph["upload"], path, text)
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}


def _members(proposal) -> set[str]:
    return {p.slug for p in proposal.pages}


async def test_groups_named_together_are_proposed_accepted_and_dismissed(graph, served_with_upkeep):
    import pytest
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    from graph_schema.errors import InvalidRequest
    from graph_schema.queries.navigation import focus_index, scope_focus
    from graph_schema.settings import get_settings
    from knowledge.focus_proposals import (
        accept_focus_proposal,
        dismiss_focus_proposal,
        drop_accepted_focus,
        list_focus_proposals,
        propose_focus_areas,
    )

    db, driver, owner, settings = graph["db"], graph["driver"], graph["owner"], get_settings()
    _ingest(graph, {**_KESTREL, **_HIRING, **_BRIDGE})
    proposals = db.write(driver, propose_focus_areas, owner, settings)
    kestrel = {"priya-natarajan", "project-kestrel", "tidewater-freight", "snowflake", "jonas-berg"}
    hiring = {"omar-haddad", "northwind-staffing", "lena-fischer", "greenhouse"}
    assert [_members(p) for p in proposals] == [kestrel, hiring]
    first, second = proposals
    assert first.title == "Project Kestrel and Tidewater Freight" and first.slug == "project-kestrel-and-tidewater-freight"
    assert "named together in 3 documents" in first.evidence and first.cohesion >= settings.focus_proposal_min_cohesion
    assert [_members(p) for p in db.read(driver, list_focus_proposals, owner, 10)] == [kestrel, hiring]

    # What cannot be done says what to do instead.
    with pytest.raises(InvalidRequest, match="already has the slug 'snowflake'"):
        db.write(driver, accept_focus_proposal, owner, first.slug, "Snowflake", True)
    # found in review: a title another focus area's name reads as ('The Hiring' beside a folder's
    # 'Hiring') split that folder's area, whose next document made a second page 'hiring-2'
    db.write(driver, lambda tx: tx.run("CREATE (:Page:Focus {owner: $owner, slug: 'hiring', kind: 'focus', "
                                       "title: 'Hiring', name_keys: ['hiring'], aliases: []})", owner=owner).consume())
    with pytest.raises(InvalidRequest, match="focus area 'Hiring' is called so already"):
        db.write(driver, accept_focus_proposal, owner, first.slug, "The Hiring", True)
    db.write(driver, lambda tx: tx.run("MATCH (f:Page {owner: $owner, slug: 'hiring'}) DELETE f", owner=owner).consume())
    for refused in (lambda tx: accept_focus_proposal(tx, owner, "no-such-proposal", None, True),
                    lambda tx: dismiss_focus_proposal(tx, owner, "no-such-proposal")):
        with pytest.raises(InvalidRequest, match="`subtext focus proposals` lists"):
            db.write(driver, refused)

    # Over MCP (the upkeep group): a dry run changes nothing, a read-only key may look but not
    # accept, and accepting makes the focus page and files the group under it.
    upkeep = served_with_upkeep.mcp(make_key(graph, "upkeep", upkeep=True))
    reader = served_with_upkeep.mcp(make_key(graph, "reader", write=False, upkeep=True))
    async with Client(reader) as client:
        listed = (await client.call_tool("focus_proposals", {})).structured_content["proposals"]
        assert [p["slug"] for p in listed] == [first.slug, second.slug]
        with pytest.raises(ToolError, match="read-only"):
            await client.call_tool("accept_focus_area", {"proposal": first.slug, "dry_run": False})
    async with Client(upkeep) as client:
        preview = (await client.call_tool("accept_focus_area", {"proposal": first.slug, "title": "Kestrel rollout"})
                   ).structured_content
        assert preview["accepted"]["applied"] is False and preview["accepted"]["focus"]["slug"] == "kestrel-rollout"
        assert db.read(driver, focus_index, owner) == []
        # found in review: a title with a line break and a bidi override was stored as it came,
        # and reached every brief's heading
        done = (await client.call_tool("accept_focus_area", {"proposal": first.slug, "title": " Kestrel\n\u202erollout ",
                                                             "dry_run": False})).structured_content
        assert done["accepted"]["applied"] is True and {p["slug"] for p in done["accepted"]["pages"]} == kestrel
        scope = (await client.call_tool("scope", {"target": "kestrel-rollout"})).structured_content
        assert scope["target"]["kind"] == "focus" and scope["members"] == 5
        # found in review: the brief read an accepted area's documents by folder only, and listed
        # 'Working on: Kestrel rollout (0 sources …)' with nothing in it, first
        lines = (await client.call_tool("brief", {})).structured_content["lines"]
        heading = next(line["text"] for line in lines if line["section"] == "focus")
        assert heading.startswith("Working on: Kestrel rollout (4 sources"), heading
        assert any(line["section"] == "decision" and "keep Project Kestrel on Snowflake" in line["text"] for line in lines)
    assert db.read(driver, focus_index, owner) == [{"slug": "kestrel-rollout", "title": "Kestrel rollout", "members": 5}]
    assert db.read(driver, scope_focus, owner, "kestrel-rollout")["members"] == 5

    # found in review: a folder's newest note naming the accepted area's people made that area the
    # newest, and its decision was listed under 'Kestrel rollout' instead of its own folder's area
    write(graph["upload"], "ops/rota.md", "# Rota\n\nPriya Natarajan decided to lend Jonas Berg to the ops rota.\n")
    assert "ingested" in {o.status for o in ingest_paths([graph["upload"]]).outcomes}
    async with Client(upkeep) as client:
        lines = (await client.call_tool("brief", {})).structured_content["lines"]
    area, under = None, {}
    for line in lines:
        if line["section"] == "focus":
            area = line["text"].split(" (")[0]
        elif line["section"] == "decision":
            under[line["text"]] = area
    assert [a for text, a in under.items() if "ops rota" in text] == ["Working on: ops"], under
    assert [a for text, a in under.items() if "keep Project Kestrel" in text] == ["Working on: Kestrel rollout"], under

    # Dismissed, the other group is never proposed again; the accepted one is an area now, so
    # it is not proposed either.
    db.write(driver, dismiss_focus_proposal, owner, second.slug)
    assert db.write(driver, propose_focus_areas, owner, settings) == []
    assert db.read(driver, list_focus_proposals, owner, 10) == []

    # A changed note leaves the filing as the person made it (the links are theirs, not a document's).
    write(graph["upload"], "kickoff.md", "# Kickoff\n\nPriya Natarajan leads Project Kestrel for Tidewater Freight.\n")
    assert "ingested" in {o.status for o in ingest_paths([graph["upload"]]).outcomes}
    assert db.read(driver, focus_index, owner)[0]["members"] == 5

    # found in review: renaming a focus area to another's name split that folder's area as accepting did
    from graph_schema.queries.navigation import rename_page
    with pytest.raises(InvalidRequest, match="focus area 'ops' is called so already"):
        db.write(driver, rename_page, owner, "kestrel-rollout", "Ops")

    # Dropped, the accepted area goes and its group is not proposed again; a folder's area cannot be
    # dropped, nor one a key is scoped to (found in review: the key then saw whatever area took the slug next).
    with pytest.raises(InvalidRequest, match="only an accepted proposal"):
        db.write(driver, drop_accepted_focus, owner, "snowflake")
    with pytest.raises(InvalidRequest, match="only an accepted proposal"):
        db.write(driver, drop_accepted_focus, owner, "ops")
    make_key(graph, "kestrel only", scope="focus:kestrel-rollout")
    with pytest.raises(InvalidRequest, match="'kestrel only' is scoped to 'kestrel-rollout'"):
        db.write(driver, drop_accepted_focus, owner, "kestrel-rollout")
    from knowledge.keys import find_key, revoke
    db.write(driver, lambda tx: revoke(tx, find_key(tx, owner, "kestrel only")))
    assert db.write(driver, drop_accepted_focus, owner, "kestrel-rollout") == 5
    assert [f["slug"] for f in db.read(driver, focus_index, owner)] == ["ops"]
    assert db.write(driver, propose_focus_areas, owner, settings) == []

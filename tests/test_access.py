"""Access keys over real HTTP: two people never see each other, scopes limit every read tool,
write and pause settings hold, bad keys get 401, DNS rebinding is refused, and user text is
stored verbatim (every query is parameterised)."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema import db
from graph_schema.access import PAUSED_MESSAGE
from graph_schema.errors import InvalidRequest
from graph_schema.queries.owners import graph_version
from knowledge.keys import find_key, revoke, set_paused
from pipeline.run import ingest_paths
from tests.conftest import exported, make_key, write

HARBOUR = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
ORCHARD = "Lucia Ferreira runs the Orchard cooperative with Greenfield Farms. Lucia Ferreira uses Airtable."
ABOUT_ME = "I am a product lead. I work with Priya Natarajan every week."
# The other person's graph: names and words that appear nowhere in the first person's documents.
OTHER = """Thessaly Okonkwo directs the Quillon Observatory for the Vantablack Institute.
Thessaly Okonkwo asked Bertrand Zoltan to calibrate the Quillon telescope.
"""

READ_TOOLS = ["brief", "search", "get_page", "scope", "compile", "graph_snapshot", "traverse"]


def _text(result) -> str:
    """Everything a tool answer shows the assistant, except the echo of the caller's own query."""
    structured = {k: v for k, v in (result.structured_content or {}).items() if k != "query"}
    parts = [json.dumps(structured, default=str)] if structured else []
    if not structured:
        parts += [getattr(c, "text", "") for c in result.content]
    return "\n".join(parts)


async def _answer(client: Client, tool: str, args: dict) -> str:
    try:
        return _text(await client.call_tool(tool, args))
    except ToolError as e:
        return str(e)


@pytest.fixture()
def two_people(graph):
    upload = graph["upload"]
    mine = [write(upload, "harbour/kickoff.md", HARBOUR), write(upload, "orchard/coop.md", ORCHARD),
            write(upload, "me.md", ABOUT_ME)]
    other = f"other-{uuid.uuid4().hex[:8]}"
    make_key(graph, "setup", owner=other)  # creates the person
    theirs = [write(upload, f"@{other}/observatory/quillon.md", OTHER)]
    for paths in (mine, theirs):
        report = ingest_paths(paths)
        assert {o.status for o in report.outcomes} == {"ingested"}, report.outcomes
    return {**graph, "other": other}


def _slugs(driver, owner: str) -> dict[str, str]:
    rows = driver.execute_query("MATCH (p:Page {owner: $owner}) RETURN p.slug AS slug, p.title AS title", owner=owner)
    return {r["slug"]: r["title"] for r in rows.records}


async def test_two_people_never_see_each_other(two_people, served):
    g = two_people
    theirs = _slugs(g["driver"], g["other"])
    assert {"thessaly-okonkwo", "quillon-observatory"} <= set(theirs), theirs
    secrets = {t for t in theirs.values() if t not in ("You", g["other"])} | {"Quillon", "Thessaly", "calibrate"}
    probes = 0
    async with Client(served.mcp()) as client:
        calls = [("brief", {}), ("graph_snapshot", {}), ("scope", {"target": "you"}),
                 ("compile", {"intent": "everything", "target": "you"})]
        for query in ["Quillon Observatory telescope", "Thessaly Okonkwo", "calibrate", "Vantablack"]:
            calls.append(("search", {"query": query, "limit": 50}))
        for slug in theirs:  # slugs guessed from the other graph
            calls += [("get_page", {"slug": slug}), ("scope", {"target": slug}),
                      ("traverse", {"from_slug": slug}), ("traverse", {"from_slug": slug, "edge_type": "IN_CONTEXT"}),
                      ("compile", {"intent": "x", "target": slug, "depth": "deep", "shape": "structured"}),
                      ("rename_page", {"slug": slug, "title": "Renamed"}),
                      ("link_pages", {"from_slug": slug, "to_slug": "priya-natarajan"})]
        for tool, args in calls:
            answer = await _answer(client, tool, args)
            for echoed in args.values():  # an error may name the slug the caller guessed
                answer = answer.replace(f"'{echoed}'", "")
            probes += 1
            leaked = [s for s in secrets if s in answer]
            assert not leaked, (tool, args, leaked, answer[:500])
        mine = (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
        assert mine["title"] == "Priya Natarajan"
    # The other person's own key sees their graph, and none of the first person's.
    other_key = make_key(g, "theirs", owner=g["other"])
    async with Client(served.mcp(other_key)) as client:
        snapshot = (await client.call_tool("graph_snapshot", {})).structured_content
        assert {p["slug"] for p in snapshot["pages"]} == set(theirs)
        assert "Priya" not in await _answer(client, "search", {"query": "Priya Natarajan Harbour pitch", "limit": 50})
    assert _slugs(g["driver"], g["other"]) == theirs  # the renames and links above changed nothing
    print(f"cross-person probes: {probes}, leaks: 0")


async def test_focus_and_me_keys_see_only_their_scope(two_people, served):
    g = two_people
    rows = g["driver"].execute_query(
        "MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(:Focus {slug: 'harbour'}) RETURN m.slug AS slug",
        owner=g["owner"]).records
    harbour = {"harbour"} | {r["slug"] for r in rows}
    everything = set(_slugs(g["driver"], g["owner"]))
    hidden = everything - harbour
    assert {"priya-natarajan", "acme-corporation"} <= harbour and {"lucia-ferreira", "orchard", "you"} <= hidden
    key = make_key(g, "harbour only", scope="focus:harbour", write=False)
    async with Client(served.mcp(key)) as client:
        snapshot = (await client.call_tool("graph_snapshot", {})).structured_content
        assert {p["slug"] for p in snapshot["pages"]} == harbour
        assert all(link["source"] in harbour and link["target"] in harbour for link in snapshot["links"])
        for slug in hidden:  # exactly the answer a slug that does not exist gets
            assert await _answer(client, "get_page", {"slug": slug}) == \
                (await _answer(client, "get_page", {"slug": "no-such-page"})).replace("no-such-page", slug)
            if slug != "you":
                with pytest.raises(ToolError, match="No page has the slug"):
                    await client.call_tool("traverse", {"from_slug": slug})
        answers = [await _answer(client, "search", {"query": "Lucia Ferreira Orchard cooperative Airtable", "limit": 50}),
                   await _answer(client, "brief", {}),
                   await _answer(client, "compile", {"intent": "all", "target": "you"}),
                   await _answer(client, "compile", {"intent": "all", "target": "harbour", "depth": "deep"}),
                   await _answer(client, "scope", {"target": "you"}),
                   await _answer(client, "traverse", {"from_slug": "priya-natarajan"})]
        for answer in answers:
            assert "Lucia" not in answer and "Orchard" not in answer and "product lead" not in answer, answer[:400]
        brief = (await client.call_tool("brief", {})).structured_content
        assert {s["slug"] for s in brief["sources"]} <= harbour and "Working on: harbour" in brief["text"]
        index = (await client.call_tool("scope", {"target": "you"})).structured_content
        assert [a["slug"] for a in index["focus_areas"]] == ["harbour"]

    me = make_key(g, "me only", scope="me", write=False)
    async with Client(served.mcp(me)) as client:
        seen = {p["slug"] for p in (await client.call_tool("graph_snapshot", {})).structured_content["pages"]}
        you = (await client.call_tool("get_page", {"slug": "you"})).structured_content["page"]
        around = {link["page"]["slug"] for link in you["links"]}
        assert you["slug"] == "you"
        assert seen == {"you"} | around | {"harbour", "orchard"}
        assert "daniel-okafor" not in seen and "lucia-ferreira" not in seen


async def test_write_settings_and_pause(two_people, served):
    g = two_people
    version = g["db"].read(g["driver"], graph_version, g["owner"])
    read_only = make_key(g, "reader", write=False)
    async with Client(served.mcp(read_only)) as client:
        for tool, args in [("rename_page", {"slug": "priya-natarajan", "title": "P. N."}),
                           ("link_pages", {"from_slug": "priya-natarajan", "to_slug": "lucia-ferreira"}),
                           ("edit_page_body", {"body": "Priya moved to Lisbon.", "slug": "priya-natarajan"})]:
            with pytest.raises(ToolError, match="read-only.*needs Read \\+ write"):
                await client.call_tool(tool, args)
        assert (await client.call_tool("get_page", {"slug": "priya-natarajan"})).structured_content["page"]
    assert g["db"].read(g["driver"], graph_version, g["owner"]) == version

    limited = make_key(g, "limited", write=True, full_context=False)
    async with Client(served.mcp(limited)) as client:
        with pytest.raises(ToolError, match="does not have Full context"):
            await client.call_tool("edit_page_body", {"body": "Priya moved to Lisbon.", "slug": "priya-natarajan"})
        renamed = (await client.call_tool("rename_page", {"slug": "acme-corporation", "title": "Acme Corp"})).structured_content
        assert renamed["page"]["title"] == "Acme Corp"

    paused = make_key(g, "pausable")
    db.write(g["driver"], set_paused, db.read(g["driver"], find_key, g["owner"], "pausable"), True)
    message = PAUSED_MESSAGE.format(name="pausable")
    async with Client(served.mcp(paused)) as client:
        brief = (await client.call_tool("brief", {})).structured_content
        assert brief["text"] == message and brief["sources"] == []
        for tool, args in [("search", {"query": "Priya"}), ("get_page", {"slug": "priya-natarajan"}),
                           ("scope", {"target": "you"}), ("compile", {"intent": "x", "target": "you"}),
                           ("graph_snapshot", {}), ("traverse", {"from_slug": "priya-natarajan"}),
                           ("rename_page", {"slug": "priya-natarajan", "title": "X"}),
                           ("link_pages", {"from_slug": "priya-natarajan", "to_slug": "acme-corporation"}),
                           ("edit_page_body", {"body": "x", "slug": "priya-natarajan"})]:
            with pytest.raises(ToolError) as refused:
                await client.call_tool(tool, args)
            assert str(refused.value) == message
        db.write(g["driver"], set_paused, db.read(g["driver"], find_key, g["owner"], "pausable"), False)
        assert "Priya" in _text(await client.call_tool("get_page", {"slug": "priya-natarajan"}))


def test_domain_functions_compose_in_one_transaction(two_people):
    """The domain functions take the caller's transaction: two of them in one write land together
    or not at all."""
    g = two_people
    make_key(g, "composed")

    def pause_then_refuse(tx):
        set_paused(tx, find_key(tx, g["owner"], "composed"), True)
        find_key(tx, g["owner"], "no such key")  # refused: the pause above is rolled back with it

    with pytest.raises(InvalidRequest, match="No key is named 'no such key'"):
        db.write(g["driver"], pause_then_refuse)
    assert not db.read(g["driver"], find_key, g["owner"], "composed").paused
    assert db.write(g["driver"], lambda tx: set_paused(tx, find_key(tx, g["owner"], "composed"), True)).paused
    assert db.read(g["driver"], find_key, g["owner"], "composed").paused


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "probe", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_missing_wrong_and_revoked_keys_get_401(two_people, served):
    g = two_people
    revoked = make_key(g, "to revoke")
    db.write(g["driver"], revoke, db.read(g["driver"], find_key, g["owner"], "to revoke"))
    good = make_key(g, "good")
    malformed = good[:-1] + ("A" if good[-1] != "A" else "B")  # the right id, the wrong secret
    with httpx.Client(base_url=served.base, timeout=30) as http:
        for auth in [None, "Basic dXNlcjpwYXNz", "Bearer", "Bearer stx_nothing", f"Bearer {malformed}",
                     f"Bearer {revoked}"]:
            headers = {**HEADERS, **({"Authorization": auth} if auth else {})}
            response = http.post("/mcp", json=INITIALIZE, headers=headers)
            assert response.status_code == 401, (auth, response.status_code)
            assert "Priya" not in response.text and "serverInfo" not in response.text
            upload = http.post("/api/upload", json={"content": "x"}, headers=headers)
            assert upload.status_code == 401 and "error" in upload.json()
        ok = http.post("/mcp", json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {good}"})
        assert ok.status_code == 200


def test_dns_rebinding_is_refused(served):
    with httpx.Client(base_url=served.base, timeout=30) as http:
        auth = {**HEADERS, "Authorization": f"Bearer {served.key}"}
        assert http.post("/mcp", json=INITIALIZE, headers={**auth, "Host": "evil.example.com"}).status_code == 421
        assert http.post("/mcp", json=INITIALIZE, headers={**auth, "Origin": "http://evil.example.com"}).status_code == 403
        assert http.post("/mcp", json=INITIALIZE, headers={**auth, "Origin": served.base}).status_code == 200


INJECTIONS = [
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) RETURN 1 UNION MATCH (n) RETURN n //',
    "`Page` {owner: 'x'} ${injected} \\u0000",
    "Robert'); CALL dbms.components() YIELD name //",
    "{{ $slug }} ]]> <script>alert(1)</script>",
]


def _identities(driver, owner: str) -> set[tuple]:
    """What identifies each record of a person's graph (pages by slug, facts, sources, links…)."""
    keys = ("slug", "id", "source", "target", "link", "fact", "page")
    return {(r["type"], *(str(r.get(k)) for k in keys)) for r in exported(driver, owner) if r["type"] != "meta"}


async def test_user_text_is_stored_verbatim_never_executed(two_people, served):
    g = two_people
    mine_before = _identities(g["driver"], g["owner"])
    theirs_before = exported(g["driver"], g["other"])[1:]  # without the meta line (its time)
    calls = 0
    async with Client(served.mcp()) as client:
        own_slugs = set(_slugs(g["driver"], g["owner"]))
        for text in INJECTIONS:
            renamed = (await client.call_tool("rename_page", {"slug": "acme-corporation", "title": text})).structured_content
            assert renamed["page"]["title"] == text
            assert (await client.call_tool("get_page", {"slug": "acme-corporation"})).structured_content["page"]["title"] == text
            searched = (await client.call_tool("search", {"query": text})).structured_content
            assert searched["query"] == text and {h["slug"] for h in searched["results"]} <= own_slugs, searched
            calls += 3
            for tool, args in [("get_page", {"slug": text}), ("scope", {"target": text}),
                               ("traverse", {"from_slug": text}), ("compile", {"intent": text, "target": text}),
                               ("link_pages", {"from_slug": text, "to_slug": "acme-corporation"})]:
                answer = await _answer(client, tool, args)
                assert "No page has the slug" in answer, (tool, answer[:300])
                calls += 1
            compiled = (await client.call_tool("compile", {"intent": text, "target": "harbour"})).structured_content
            assert compiled["intent"] == " ".join(text.split())
            calls += 1
        edited = (await client.call_tool("edit_page_body", {"slug": "acme-corporation",
                                                             "body": "Acme Corporation noted: " + " ".join(INJECTIONS)})).structured_content
        assert edited["facts_added"] >= 1
    # Nothing of this person's graph went (the edit's additions cannot hide a deletion: every record
    # is compared by identity, not counted), and the other person's graph is exactly as it was.
    mine_after = _identities(g["driver"], g["owner"])
    assert mine_before - mine_after == set() and mine_after - mine_before
    assert exported(g["driver"], g["other"])[1:] == theirs_before
    stored = g["driver"].execute_query(
        "MATCH (f:Fact {owner: $owner}) WHERE f.text CONTAINS 'DETACH DELETE' RETURN f.text AS text", owner=g["owner"]
    ).records
    assert any("MATCH (n) DETACH DELETE n" in r["text"] for r in stored)
    assert calls == len(INJECTIONS) * 9
    print(f"injection strings: {len(INJECTIONS)} x 9 tool calls, none executed")


async def test_stdio_acts_with_the_key_in_its_environment(two_people):
    import os
    import sys

    from fastmcp.client.transports import StdioTransport

    g = two_people
    key = make_key(g, "desktop", scope="focus:harbour", write=False)
    env = {**os.environ, "SUBTEXT_OWNER": g["owner"], "SUBTEXT_UPLOAD_DIR": str(g["upload"]), "SUBTEXT_ACCESS_KEY": key}
    transport = StdioTransport(command=sys.executable, args=["-m", "subtext.cli", "serve", "--stdio"], env=env)
    async with Client(transport) as client:
        seen = {p["slug"] for p in (await client.call_tool("graph_snapshot", {})).structured_content["pages"]}
        assert "priya-natarajan" in seen and "lucia-ferreira" not in seen
        with pytest.raises(ToolError, match="read-only"):
            await client.call_tool("rename_page", {"slug": "priya-natarajan", "title": "P"})
    env["SUBTEXT_ACCESS_KEY"] = "stx_000000000000_" + "x" * 43
    async with Client(StdioTransport(command=sys.executable, args=["-m", "subtext.cli", "serve", "--stdio"],
                                     env=env)) as client:
        with pytest.raises(ToolError, match="SUBTEXT_ACCESS_KEY is not a valid key"):
            await client.call_tool("brief", {})

"""The contract of every MCP tool, in memory: `fastmcp.Client(server)` calls the server object in
this process (no HTTP, no subprocess), over one small graph ingested once for the module.

Each answer is checked against the model the tool declares (every field present, no others,
each of its type), and each refusal is a `ToolError` whose text is a sentence saying what to do.
The real transports (Streamable HTTP, stdio) keep their own tests in test_mcp_tools.py.
"""

from __future__ import annotations

import socket
import uuid

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from pydantic import BaseModel

from graph_schema.db import UNAVAILABLE
from graph_schema.settings import get_settings, reset_settings
from knowledge.types import BriefView, CompileAnswer
from mcp_server.server import build_server
from mcp_server.service import (
    EditAnswer,
    GraphService,
    LinkAnswer,
    PageAnswer,
    ScopeAnswer,
    SearchAnswer,
    Snapshot,
    TraverseAnswer,
)
from pipeline.run import ingest_paths
from tests.conftest import write

KICKOFF = """Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will share the shipping volumes with Priya Natarajan.
"""
DATA = "Sofia Marquez loads the shipping volumes into PostgreSQL for Daniel Okafor."

TOOLS = {"brief", "search", "scope", "compile", "get_page", "graph_snapshot", "traverse", "edit_page_body",
         "rename_page", "link_pages"}


@pytest.fixture(scope="module")
def person(neo4j_server, tmp_path_factory):
    """A person of the module's own with two short documents ingested (a dozen pages), so the
    tests below share one ingest; the write tests come last and touch pages the reads do not."""
    owner = f"contract-{uuid.uuid4().hex[:10]}"
    upload = tmp_path_factory.mktemp("contract-uploads")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SUBTEXT_OWNER", owner)
        env.setenv("SUBTEXT_UPLOAD_DIR", str(upload))
        reset_settings()
        write(upload, "harbour/kickoff.md", KICKOFF)
        write(upload, "data/loading.md", DATA)
        report = ingest_paths([upload])
        assert {o.status for o in report.outcomes} == {"ingested"}
        yield owner
    reset_settings()


@pytest.fixture(scope="module")
def server(person):
    """The server as `subtext serve --stdio` builds it (the caller is the person themselves)."""
    service = GraphService()
    yield build_server(service, stdio=True)
    service.close()


async def call(server, tool: str, args: dict | None = None) -> dict:
    async with Client(server) as client:
        return (await client.call_tool(tool, args or {})).structured_content


async def refusal(server, tool: str, args: dict) -> str:
    """The text of the ToolError a call raises: whole sentences saying what to do, never the masked
    "Error calling tool …" of an unexpected exception."""
    async with Client(server) as client:
        with pytest.raises(ToolError) as refused:
            await client.call_tool(tool, args)
    text = str(refused.value)
    assert not text.startswith("Error calling tool") and " " in text and text.endswith("."), text
    return text


def conforms(content: dict, model: type[BaseModel]) -> BaseModel:
    """The answer parses as `model` and carries exactly its fields (no missing, no extra ones)."""
    assert set(content) == set(model.model_fields), (model.__name__, sorted(content))
    return model.model_validate(content)


def is_ref(ref: dict) -> bool:
    return set(ref) == {"slug", "title", "kind"} and all(isinstance(v, str) and v for v in ref.values())


async def test_the_server_lists_the_ten_tools_each_with_an_output_schema(server):
    async with Client(server) as client:
        tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.description and tool.outputSchema, name
        assert tool.annotations.readOnlyHint is (name not in {"edit_page_body", "rename_page", "link_pages"}), name
    assert tools["edit_page_body"].annotations.idempotentHint is False


async def test_the_server_starts_while_the_database_is_down_and_gets_ready_once_it_answers(person):
    # The lifespan cannot open the driver, yet the server starts; the tools say the database is
    # unavailable, and the first call that reaches it makes the graph ready (schema and the
    # person's `you` page, for a person who has none yet) before answering.
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nobody = f"bolt://127.0.0.1:{unused.getsockname()[1]}"
    reachable = get_settings().model_copy(update={"owner": f"contract-new-{uuid.uuid4().hex[:8]}"})
    service = GraphService(reachable.model_copy(update={"neo4j_uri": nobody}))
    async with Client(build_server(service, stdio=True)) as client:
        with pytest.raises(ToolError) as refused:
            await client.call_tool("get_page", {"slug": "you"})
        assert str(refused.value) == UNAVAILABLE
        service.settings = reachable  # the database comes back (here: the one that was up all along)
        you = (await client.call_tool("get_page", {"slug": "you"})).structured_content["page"]
    assert you["kind"] == "you" and you["title"] == reachable.owner_name


async def test_brief(server):
    brief = conforms(await call(server, "brief"), BriefView)
    assert brief.text and brief.graph_version > 0
    assert "priya-natarajan" in {s.slug for s in brief.sources}
    assert all(line.text and line.section for line in brief.lines)
    again = conforms(await call(server, "brief"), BriefView)
    assert again.cached is True and again.text == brief.text


async def test_search(server):
    found = conforms(await call(server, "search", {"query": "shipping volumes", "limit": 3}), SearchAnswer)
    assert found.query == "shipping volumes" and found.mode in ("semantic", "fulltext")
    assert 1 <= len(found.results) <= 3
    assert all(len(hit.preview) <= 200 and isinstance(hit.score, float) for hit in found.results)
    assert [s.slug for s in found.sources] == [hit.slug for hit in found.results]
    with pytest.raises(ToolError, match="limit"):  # the schema's bounds hold before any query runs
        await call(server, "search", {"query": "x", "limit": 0})


async def test_scope(server):
    index = conforms(await call(server, "scope", {"target": "you"}), ScopeAnswer)
    assert index.target.slug == "you" and {a["slug"] for a in index.focus_areas} == {"harbour", "data"}
    assert all(set(a) >= {"slug", "title"} for a in index.focus_areas)
    focus = conforms(await call(server, "scope", {"target": "harbour"}), ScopeAnswer)
    assert isinstance(focus.members, int) and isinstance(focus.relationships, int) and focus.estimated_tokens >= 0
    assert focus.advice.endswith(".")
    thing = conforms(await call(server, "scope", {"target": "daniel-okafor"}), ScopeAnswer)
    assert thing.members is None and set(thing.neighbours) <= {"RELATES_TO", "IN_CONTEXT"} and thing.neighbours
    assert "search or graph_snapshot" in await refusal(server, "scope", {"target": "nobody-here"})


async def test_compile(server):
    for shape in ("narrative", "summary", "structured"):
        content = await call(server, "compile", {"intent": "prepare the pitch", "target": "harbour",
                                                 "depth": "medium", "shape": shape})
        answer = conforms(content, CompileAnswer)
        assert answer.target.slug == "harbour" and answer.depth == "medium" and answer.shape == shape
        assert (answer.text is None) is (shape == "structured")
        assert (answer.structured is None) is (shape != "structured")
        assert answer.sources and all(is_ref(s) for s in content["sources"])
    you = conforms(await call(server, "compile", {"intent": "catch up", "target": "you", "depth": "deep"}), CompileAnswer)
    assert you.depth == "shallow" and you.note and you.note.endswith(".")
    assert "freshness" in await refusal(server, "compile", {"intent": "x", "target": "harbour", "freshness": "soon"})
    assert "search or graph_snapshot" in await refusal(server, "compile", {"intent": "x", "target": "nobody-here"})


async def test_get_page(server):
    content = await call(server, "get_page", {"slug": "daniel-okafor"})
    answer = conforms(content, PageAnswer)
    page = answer.page
    assert (page.slug, page.title, page.kind.value) == ("daniel-okafor", "Daniel Okafor", "person")
    assert page.facts and page.facts_total >= len(page.facts)
    assert all(f.text and f.sources and f.sources[0].key for f in page.facts)
    assert all(is_ref(link["page"]) for link in content["page"]["links"])
    assert [s.slug for s in answer.sources] == ["daniel-okafor"]
    text = await refusal(server, "get_page", {"slug": "no-such-page"})
    assert text.startswith("No page has the slug 'no-such-page'.") and "search or graph_snapshot" in text


async def test_graph_snapshot(server):
    content = await call(server, "graph_snapshot")
    snap = conforms(content, Snapshot)
    assert {"you", "harbour", "data", "daniel-okafor"} <= {p.slug for p in snap.pages}
    assert all(is_ref(p) for p in content["pages"])
    assert all(set(link) == {"source", "type", "target"} for link in content["links"])
    assert snap.total_pages == len(snap.pages) and snap.total_links == len(snap.links) and snap.more is None


async def test_graph_snapshot_comes_in_parts_that_together_hold_every_page_and_link_once(server, person):
    whole = conforms(await call(server, "graph_snapshot"), Snapshot)
    assert whole.next_cursor is None and whole.total_pages > 5
    service = GraphService(get_settings().model_copy(update={"snapshot_max_pages": 4}))
    parted = build_server(service, stdio=True)
    try:
        parts, cursor = [], None
        while True:
            part = conforms(await call(parted, "graph_snapshot", {"cursor": cursor} if cursor else {}), Snapshot)
            parts.append(part)
            assert len(part.pages) <= 4 and part.total_pages == whole.total_pages
            assert part.more and ("next part" in part.more if part.next_cursor else "last part" in part.more)
            cursor = part.next_cursor
            if cursor is None:
                break
        assert len(parts) == -(-whole.total_pages // 4)
        assert [p.slug for part in parts for p in part.pages] == [p.slug for p in whole.pages]
        links = [(link.source, link.type, link.target) for part in parts for link in part.links]
        assert sorted(links) == sorted((link.source, link.type, link.target) for link in whole.links)
        assert "without a cursor" in await refusal(parted, "graph_snapshot", {"cursor": "not-a-cursor"})
    finally:
        service.close()


async def test_traverse(server):
    walk = conforms(await call(server, "traverse", {"from_slug": "daniel-okafor"}), TraverseAnswer)
    assert walk.start.slug == "daniel-okafor" and walk.edge_type == "RELATES_TO" and walk.within is None
    assert walk.path and all(isinstance(step.weight, int) and step.weight > 0 for step in walk.path)
    assert [s.slug for s in walk.sources] == ["daniel-okafor", *[step.slug for step in walk.path]]
    filed = conforms(await call(server, "traverse", {"from_slug": "daniel-okafor", "edge_type": "IN_CONTEXT"}),
                     TraverseAnswer)
    assert {step.slug for step in filed.path} == {"harbour", "data"}
    assert "never 'you'" in await refusal(server, "traverse", {"from_slug": "you"})
    assert "focus area" in await refusal(server, "traverse", {"from_slug": "daniel-okafor", "within": "daniel-okafor"})
    assert "search or graph_snapshot" in await refusal(server, "traverse", {"from_slug": "nobody-here"})


async def test_rename_page(server):
    answer = conforms(await call(server, "rename_page", {"slug": "northwind-logistics", "title": "Northwind"}),
                      PageAnswer)
    assert answer.page.slug == "northwind-logistics" and answer.page.title == "Northwind"
    assert "Northwind Logistics" in answer.page.aliases
    assert "empty" in await refusal(server, "rename_page", {"slug": "northwind-logistics", "title": "  "})
    assert "search or graph_snapshot" in await refusal(server, "rename_page", {"slug": "invented-slug", "title": "X"})


async def test_link_pages(server):
    linked = conforms(await call(server, "link_pages", {"from_slug": "sofia-marquez", "to_slug": "acme-corporation"}),
                      LinkAnswer)
    assert linked.message.startswith("Linked")
    again = conforms(await call(server, "link_pages", {"from_slug": "acme-corporation", "to_slug": "sofia-marquez"}),
                     LinkAnswer)
    assert "already linked" in again.message
    assert "itself" in await refusal(server, "link_pages", {"from_slug": "sofia-marquez", "to_slug": "sofia-marquez"})
    assert "search or graph_snapshot" in await refusal(server, "link_pages",
                                                       {"from_slug": "sofia-marquez", "to_slug": "invented-slug"})


async def test_edit_page_body(server):
    assert "exactly one" in await refusal(server, "edit_page_body", {"body": "Something."})
    assert "empty" in await refusal(server, "edit_page_body", {"body": "  ", "slug": "sofia-marquez"})
    assert "search or graph_snapshot" in await refusal(server, "edit_page_body", {"body": "x.", "slug": "made-up"})
    content = await call(server, "edit_page_body", {
        "slug": "sofia-marquez", "body": "Sofia Marquez hands the loader over to Tomas Berg in June.",
    })
    answer = conforms(content, EditAnswer)
    assert answer.facts_added >= 1 and answer.message.startswith("Recorded")
    assert "sofia-marquez" in {p.slug for p in answer.pages_updated}
    assert all(is_ref(p) for p in content["pages_created"] + content["pages_updated"])
    assert answer.focus_created is None
    assert [s.slug for s in answer.sources] == [p.slug for p in answer.pages_created + answer.pages_updated]

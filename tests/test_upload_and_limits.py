"""POST /api/upload and the per-person rate limits, over real HTTP."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from tests.conftest import _serve, make_key
from tests.test_sensor_and_retire import evaluate_sensor, launch_requested_runs

FAST = re.compile(r"^You're going a bit fast — try again in (\d+)s$")


@pytest.fixture()
def upload_server(graph):
    yield from _serve(graph, SUBTEXT_MAX_UPLOAD_BYTES="2000")


@pytest.fixture()
def limited_server(graph):
    yield from _serve(graph, SUBTEXT_RATE_LIMIT_CALLS_PER_MINUTE="5", SUBTEXT_RATE_LIMIT_SUBMISSIONS_PER_MINUTE="2")


def _files_under(folder) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


async def test_upload_endpoint_refuses_bad_input_and_feeds_the_pipeline(graph, upload_server):
    upload_dir = graph["upload"]
    outside_before = _files_under(upload_dir.parent)
    writer = upload_server.key
    reader = make_key(graph, "reader", write=False)
    other = f"other-{uuid.uuid4().hex[:8]}"
    other_writer = make_key(graph, "theirs", owner=other)
    refused = 0
    with httpx.Client(base_url=upload_server.base, timeout=30) as http:
        def post(key, headers=None, **kwargs):
            return http.post("/api/upload", headers={"Authorization": f"Bearer {key}", **(headers or {})}, **kwargs)

        bad = [
            (post(writer, files={"file": ("notes.exe", b"MZ binary")}), 415, "not a supported format"),
            (post(writer, files={"file": ("big.md", b"x" * 3000)}), 413, "limit"),
            (post(writer, content=b"plain words", headers={"Content-Type": "text/plain"}), 415, "multipart"),
            (post(writer, files={"file": ("empty.md", b"")}), 400, "empty"),
            (post(writer, files={"file": ("blank.txt", b"  \n\t ")}), 400, "empty"),
            (post(writer, files={"other": ("a.md", b"text")}), 400, '"file"'),
            (post(writer, json={"content": ""}), 400, "non-empty"),
            (post(writer, json={"content": "x", "path": "../../x"}), 400, "other fields"),
            (post(writer, json={"content": "x", "source": {"url": "u"}}), 400, '"app"'),
            (post(writer, content=b"{not json", headers={"Content-Type": "application/json"}), 400, "not valid JSON"),
            (post(reader, json={"content": "Ingrid Solberg"}), 403, "read-only"),
        ]
        for response, status, words in bad:
            refused += 1
            assert response.status_code == status, (status, response.text)
            assert words in response.json()["error"], response.json()

        # A traversal name is never a path: the file lands in the folder under a generated name.
        sneaky = post(writer, files={"file": ("../../../etc/ferry.md", b"Ingrid Solberg leads the Fjord Ferry project.")})
        assert sneaky.status_code == 201, sneaky.text
        note = post(writer, json={"content": "Ingrid Solberg signed the Fjord Ferry contract with Norsk Maritime.",
                                  "source": {"app": "Shortcuts", "title": "Ferry call"}})
        theirs = post(other_writer, files={"file": ("plan.txt", b"Quentin Abara runs the Lantern Archive.")})
        for response in (sneaky, note, theirs):
            assert response.status_code == 201, response.text
    mine_ids = [sneaky.json()["id"], note.json()["id"]]
    their_id = theirs.json()["id"]
    assert all(".." not in i and "/" not in i for i in mine_ids) and their_id.startswith(f"@{other}/")
    assert _files_under(upload_dir.parent) - outside_before == {f"uploads/{i}" for i in [*mine_ids, their_id]}

    # The sensor picks them up: one run per person.
    tick = evaluate_sensor(None)
    ranges = sorted((r.tags["dagster/asset_partition_range_start"], r.tags["dagster/asset_partition_range_end"])
                    for r in tick.run_requests)
    assert ranges == sorted([(their_id, their_id), tuple(sorted(mine_ids))])
    # The requested runs, executed as the daemon would: each run covers its whole range.
    assert len(launch_requested_runs(tick)) == len(ranges)
    async with Client(upload_server.mcp()) as client:
        page = (await client.call_tool("get_page", {"slug": "ingrid-solberg"})).structured_content["page"]
        assert len(page["facts"]) >= 2
        with pytest.raises(ToolError, match="No page has the slug"):  # another person's page
            await client.call_tool("get_page", {"slug": "quentin-abara"})
    async with Client(upload_server.mcp(other_writer)) as client:
        assert (await client.call_tool("get_page", {"slug": "quentin-abara"})).structured_content["page"]
    print(f"upload refusals tried: {refused}")


async def test_rate_limits_are_per_person_and_shared_by_keys(graph, limited_server):
    first, second = limited_server.key, make_key(graph, "second key")
    other = f"other-{uuid.uuid4().hex[:8]}"
    other_key = make_key(graph, "theirs", owner=other)
    async with Client(limited_server.mcp(first)) as a, Client(limited_server.mcp(second)) as b:
        for client in (a, a, a, b, b):  # 5 calls, the allowance, across two keys
            await client.call_tool("brief", {})
        with pytest.raises(ToolError) as refused:
            await b.call_tool("search", {"query": "anything"})
        wait = int(FAST.match(str(refused.value)).group(1))
        assert 1 <= wait <= 60
        with pytest.raises(ToolError, match=FAST.pattern):
            await a.call_tool("graph_snapshot", {})

    # Another person's allowance is their own; edit_page_body and uploads share one.
    async with Client(limited_server.mcp(other_key)) as c, httpx.AsyncClient(base_url=limited_server.base) as http:
        await c.call_tool("brief", {})
        with pytest.raises(ToolError, match="exactly one of slug"):  # counted, though refused
            await c.call_tool("edit_page_body", {"body": "x"})
        auth = {"Authorization": f"Bearer {other_key}"}
        assert (await http.post("/api/upload", json={"content": "A note."}, headers=auth)).status_code == 201
        over = await http.post("/api/upload", json={"content": "Another note."}, headers=auth)
        assert over.status_code == 429 and FAST.match(over.json()["error"])
        assert 1 <= int(over.headers["Retry-After"]) <= 60
        with pytest.raises(ToolError, match=FAST.pattern):
            await c.call_tool("edit_page_body", {"body": "Decided to ship.", "new_project": "Ship"})
        await c.call_tool("search", {"query": "note"})  # the call allowance still has room

"""`subtext people remove`: the dry run changes nothing and counts what would go; a removal leaves
no node and no upload folder of the person, touches no one else, and their keys get 401 over
real HTTP at once, even from a server that had just checked them; a key whose person no longer
exists (a removal cut short) can neither read nor write the person's graph back into being."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import httpx
import pytest
from fastmcp import Client
from mcp.shared.exceptions import MCPError

from graph_schema import db
from graph_schema.queries.owners import delete_owner
from graph_schema.settings import PROJECT_ROOT
from knowledge.keys import add_owner
from knowledge.owners import find_owner
from pipeline.run import ingest_paths
from tests.conftest import _serve, exported, make_key, write
from tests.test_access import HARBOUR, HEADERS, INITIALIZE, OTHER

OTHER_NAME = "Ada Quillon"


@pytest.fixture()
def people(graph):
    """The test's person with one document, and another person (named OTHER_NAME) with two
    documents in their `@id/` folder and a read + write key."""
    other = f"other-{uuid.uuid4().hex[:8]}"
    db.write(graph["driver"], add_owner, OTHER_NAME, other)
    key = make_key(graph, "their laptop", owner=other)
    upload = graph["upload"]
    theirs = [write(upload, f"@{other}/observatory/quillon.md", OTHER),
              write(upload, f"@{other}/notes.md", "Bertrand Zoltan visits the Quillon Observatory in May.")]
    for paths in ([write(upload, "harbour/kickoff.md", HARBOUR)], theirs):
        report = ingest_paths(paths)
        assert {o.status for o in report.outcomes} == {"ingested"}, report.outcomes
    return {**graph, "other": other, "other_key": key, "other_folder": upload / f"@{other}"}


@pytest.fixture()
def served_long_cache(graph):
    """The server relying on a checked key for ten minutes: only the removal's write to the graph
    can make it check the key again."""
    yield from _serve(graph, SUBTEXT_CHANGE_CHECK_SECONDS="600")


def _cli(g, *args: str, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SUBTEXT_OWNER": g["owner"], "SUBTEXT_UPLOAD_DIR": str(g["upload"]), **env}
    return subprocess.run([sys.executable, "-m", "subtext.cli", "people", "remove", *args], cwd=PROJECT_ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def _count(g, cypher: str, owner: str) -> int:
    return g["driver"].execute_query(cypher, owner=owner).records[0][0]


def _nodes(g, owner: str) -> int:
    """Every node of the person: those that carry their id, and their Owner node."""
    return _count(g, "MATCH (n) WHERE n.owner = $owner OR (n:Owner AND n.id = $owner) RETURN count(n)", owner)


def _of(g, label: str, owner: str) -> int:
    return _count(g, f"MATCH (n:{label} {{owner: $owner}}) RETURN count(n)", owner)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _initialize(base: str, key: str) -> int:
    """The HTTP status of an MCP initialize with the key."""
    with httpx.Client(base_url=base, timeout=60) as http:
        return http.post("/mcp", json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {key}"}).status_code


def _upload(base: str, key: str) -> int:
    """The HTTP status of a note uploaded with the key."""
    with httpx.Client(base_url=base, timeout=60) as http:
        return http.post("/api/upload", json={"content": "Bertrand Zoltan is back."},
                         headers={"Authorization": f"Bearer {key}"}).status_code


async def _write_project(served, key: str) -> str:
    """edit_page_body with a new project through `key`: 'written', or 'refused' when the client
    cannot even connect (the server answers its initialize with 401, see `_initialize`)."""
    try:
        async with Client(served.mcp(key)) as client:
            await client.call_tool("edit_page_body", {"body": "Ada Quillon restarted the Comeback telescope.",
                                                      "new_project": "Comeback"})
        return "written"
    except MCPError:
        return "refused"


def test_dry_run_counts_what_would_go_and_changes_nothing(people):
    g, other = people, people["other"]
    before = {who: _nodes(g, who) for who in (g["owner"], other)}
    pages, facts, sources = (_of(g, label, other) for label in ("Page", "Fact", "Source"))
    assert pages > 2 and facts > 1 and sources == 2

    done = _cli(g, OTHER_NAME.lower())  # by name, in any case
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert f"Removing {OTHER_NAME} ({other}) would delete" in said
    assert (f"{_plural(pages, 'page')}, {_plural(facts, 'fact')}, {_plural(sources, 'source')}, 1 access key "
            f"({before[other]} nodes in all, chunks included) and the upload folder "
            f"{g['other_folder']} with 2 files.") in said
    assert f"Nothing was removed. To remove them: subtext people remove {other} --yes" in said

    assert {who: _nodes(g, who) for who in before} == before
    assert sorted(p.name for p in g["other_folder"].rglob("*.md")) == ["notes.md", "quillon.md"]


async def test_removal_leaves_nothing_of_the_person_and_their_key_gets_401(people, served_long_cache):
    g, other, key = people, people["other"], people["other_key"]
    mine = exported(g["driver"], g["owner"])[1:]  # without the meta line (its time)
    async with Client(served_long_cache.mcp(key)) as client:  # the server checks the key and keeps it
        assert "Quillon" in str((await client.call_tool("graph_snapshot", {})).structured_content)

    # Batches of 7 nodes: the graph goes in many transactions, the Owner node in the first.
    done = _cli(g, other, "--yes", SUBTEXT_REMOVE_BATCH_SIZE="7")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert said.startswith(f"Removed {OTHER_NAME} ({other}):") and "Their keys are refused from now on." in said

    assert (_initialize(served_long_cache.base, key), _upload(served_long_cache.base, key)) == (401, 401)
    assert await _write_project(served_long_cache, key) == "refused"
    assert _nodes(g, other) == 0
    assert not g["other_folder"].exists()
    # The other person is as they were, and their key still works.
    assert exported(g["driver"], g["owner"])[1:] == mine
    assert _initialize(served_long_cache.base, served_long_cache.key) == 200
    gone = _cli(g, other)
    assert gone.returncode == 1 and f"There is no person '{other}'; `subtext people list` shows them." in gone.stderr


async def test_key_of_a_person_whose_owner_node_is_gone_is_refused(people, served):
    """A removal cut short after its first step: the Owner node is gone, the keys are not yet."""
    g, other, key = people, people["other"], people["other_key"]
    g["db"].write(g["driver"], delete_owner, other)
    uploads_before = sorted(g["other_folder"].rglob("*"))

    answers = {"initialize": _initialize(served.base, key), "upload": _upload(served.base, key),
               "edit_page_body": await _write_project(served, key),
               "Owner nodes": _count(g, "MATCH (o:Owner {id: $owner}) RETURN count(o)", other),
               "comeback pages": _count(g, "MATCH (p:Page {owner: $owner, slug: 'comeback'}) RETURN count(p)", other)}
    assert answers == {"initialize": 401, "upload": 401, "edit_page_body": "refused", "Owner nodes": 0,
                       "comeback pages": 0}  # nothing read, nothing written, the person not made again
    assert sorted(g["other_folder"].rglob("*")) == uploads_before

    # Running the removal again finishes it: the person is found by the nodes that are left.
    assert db.read(g["driver"], find_owner, other) == other
    done = _cli(g, other, "--yes")
    assert done.returncode == 0, done.stderr
    assert f"Removed '{other}':" in done.stdout
    assert _nodes(g, other) == 0 and not g["other_folder"].exists()


def test_the_deployments_person_and_ambiguous_names_are_refused(graph):
    owner = graph["owner"]
    twins = [f"twin-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    for twin in twins:
        db.write(graph["driver"], add_owner, "Sam Same", twin)

    mine = _cli(graph, owner, "--yes")
    assert mine.returncode == 1
    assert (f"'{owner}' is the person this deployment runs as (SUBTEXT_OWNER), and their upload folder holds "
            "everyone's folders, so they cannot be removed. To remove them, first set SUBTEXT_OWNER to the "
            "person who should run it from now on.") in " ".join(mine.stderr.split())
    assert _count(graph, "MATCH (p:Page {owner: $owner, slug: 'you'}) RETURN count(p)", owner) == 1
    assert graph["upload"].is_dir()

    twin = _cli(graph, "Sam Same", "--yes")
    assert twin.returncode == 1
    assert "Several people are named 'Sam Same'; use the id `subtext people list` shows." in twin.stderr
    assert all(_nodes(graph, t) == 2 for t in twins)  # Owner and you page each

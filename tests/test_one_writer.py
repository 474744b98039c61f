"""One writer per person at a time, across processes (review B3).

Two `subtext ingest` processes introduce things that share a name but are of different kinds:
the focus area "Mercury" (a folder) in one document and the organisation "Mercury" in the other;
the person "Nimbus" (an `Author:` header, a kind given by rule) in one and the organisation
"Nimbus" in the other. The test holds the person's graph open for writing until both processes
are waiting to write, so both have resolved their documents before either commits. Afterwards
the graph must equal what one process ingesting the two documents one after the other gives
(in either order): nothing resolved against pages that changed meanwhile, and no two different
things folded into one page because they share a slug.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

from graph_schema import db
from graph_schema.queries.owners import ensure_owner
from graph_schema.settings import PROJECT_ROOT
from pipeline.run import ingest_paths
from tests.conftest import write

# In the folder `mercury/`, so its focus area is "Mercury"; Nimbus is a person by rule.
FOCUS_DOCUMENT = ("mercury/kickoff.md",
                  "Author: Nimbus\nDate: 2024-05-01\n\nNimbus approved the Harbour budget for the launch.\n")
# spaCy labels both names here as organisations (checked: the model's guess, not a rule).
ORGANISATION_DOCUMENT = ("builds.md",
                         "The team ships builds with Mercury every night.\n"
                         "Nimbus signed the hosting contract with Orion Shipping.\n")
BLOCKED_WAIT_SECONDS = 400


def _query(graph, cypher: str, owner: str) -> list[dict]:
    with graph["driver"].session() as session:
        return [dict(r) for r in session.run(cypher, owner=owner)]


def _graph_of(graph, owner: str) -> dict:
    """Pages (slug, title, kind) and, per page, the texts of the facts about it; not the `you`
    page, whose title is the person's name and so differs from one test person to the next."""
    pages = _query(graph, "MATCH (p:Page {owner: $owner}) WHERE p.slug <> 'you' "
                          "RETURN p.slug AS slug, p.title AS title, p.kind AS kind", owner)
    facts = _query(graph, "MATCH (p:Page {owner: $owner}) WHERE p.slug <> 'you' OPTIONAL MATCH (f:Fact)-[:ABOUT]->(p) "
                          "RETURN p.slug AS slug, collect(f.text) AS texts", owner)
    return {
        "pages": sorted((p["slug"], p["title"], p["kind"]) for p in pages),
        "facts": {f["slug"]: sorted(f["texts"]) for f in facts},
    }


def _blocked_writers(graph) -> int:
    # Waiting on the person's write lock itself (not, say, on creating the owner): both have
    # resolved their documents and reached the merge.
    rows = _query(graph, "SHOW TRANSACTIONS YIELD status, currentQuery WHERE status STARTS WITH 'Blocked' "
                         "AND currentQuery CONTAINS 'last_write_at' RETURN count(*) AS n", "")
    return rows[0]["n"]


def test_two_processes_introducing_same_names_of_other_kinds_equal_a_serial_run(graph):
    upload = graph["upload"]
    paths = [write(upload, name, text) for name, text in (FOCUS_DOCUMENT, ORGANISATION_DOCUMENT)]
    # The serial runs go first: they also create the session's Dagster instance storage, which
    # two processes starting at once would otherwise both try to create.
    serial = {}
    for order in (paths, paths[::-1]):
        other = f"test-serial-{uuid.uuid4().hex[:8]}"
        for path in order:
            assert {o.status for o in ingest_paths([path], owner=other).outcomes} == {"ingested"}
        serial[tuple(p.name for p in order)] = _graph_of(graph, other)

    owner = graph["owner"]
    db.write(graph["driver"], ensure_owner, owner, owner)
    env = {**os.environ, "SUBTEXT_OWNER": owner, "SUBTEXT_UPLOAD_DIR": str(upload)}

    # The test writes to the person's Owner node and keeps the transaction open: every writer of
    # this person now waits, so both processes resolve against the same (empty) graph first.
    with graph["driver"].session() as session:
        hold = session.begin_transaction()
        hold.run("MATCH (o:Owner {id: $owner}) SET o.held_by_test = true", owner=owner).consume()
        processes = [
            subprocess.Popen([sys.executable, "-m", "subtext.cli", "ingest", str(path)], cwd=PROJECT_ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for path in paths
        ]
        deadline = time.monotonic() + BLOCKED_WAIT_SECONDS
        while _blocked_writers(graph) < len(processes) and time.monotonic() < deadline:
            assert all(p.poll() is None for p in processes), [p.communicate()[0][-2000:] for p in processes]
            time.sleep(0.5)
        assert _blocked_writers(graph) >= len(processes), "both ingest processes should be waiting to write"
        hold.rollback()
    for process in processes:
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output[-3000:]

    concurrent = _graph_of(graph, owner)
    assert concurrent in serial.values(), (concurrent, serial)
    # Whatever the order, the focus area and the organisation are two pages, never one.
    mercury_kinds = sorted(kind for slug, _, kind in concurrent["pages"] if slug.startswith("mercury"))
    assert mercury_kinds == ["focus", "organisation"], concurrent["pages"]

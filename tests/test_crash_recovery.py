"""SIGKILL in the middle of an ingest, then run again: the graph equals an uninterrupted run's.

Both graphs are built by `subtext ingest` processes from the same 16 PEPs (real text whose
people and organisations recur across documents). The interrupted one is killed three times,
each at a random point while its write transaction is open (watched through Neo4j's SHOW
TRANSACTIONS), then run to the end. The comparison is of `subtext export`'s records, everything
in them but timestamps and the ids derived from the person.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid

from graph_schema import db
from graph_schema.queries.pages import graph_counts
from graph_schema.settings import PROJECT_ROOT
from knowledge.transfer import write_export

PEPS = PROJECT_ROOT / "tests" / "data" / "peps" / "docs"
DOCUMENTS = ["pep-0002.rst", "pep-0010.rst", "pep-0020.rst", "pep-0215.rst", "pep-0221.rst", "pep-0228.rst",
             "pep-0229.rst", "pep-0251.rst", "pep-0306.rst", "pep-0356.rst", "pep-0407.rst", "pep-0775.rst",
             "pep-0815.rst", "pep-3003.rst", "pep-0001.rst", "pep-0008.rst"]
MANY_LOCKS = 20
DROPPED = {"created_at", "updated_at", "first_seen", "ingested_at", "exported_at", "retired_at", "active_at", "changed_at", "owner", "id"}


def _ingest(owner: str, upload, env_extra: dict | None = None) -> subprocess.Popen:
    env = {**os.environ, "SUBTEXT_OWNER": owner, "SUBTEXT_UPLOAD_DIR": str(upload), **(env_extra or {})}
    return subprocess.Popen([sys.executable, "-m", "subtext.cli", "ingest", str(upload)], cwd=PROJECT_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _sources_written(driver, owner: str) -> int:
    return db.read(driver, graph_counts, owner)["sources"]


def _writing(driver) -> bool:
    """Whether the ingest's batch transaction is open: one holding many locks (its small
    bookkeeping writes hold a few)."""
    query = ("SHOW TRANSACTIONS YIELD currentQuery, activeLockCount "
             "WHERE activeLockCount >= $locks AND NOT currentQuery STARTS WITH 'SHOW' RETURN count(*) AS n")
    with driver.session() as session:
        return session.run(query, locks=MANY_LOCKS).single()["n"] > 0


def _comparable(driver, owner: str) -> dict[str, list[str]]:
    """The graph's export, keyed by record type, with person-specific ids mapped to document keys."""
    buffer = io.StringIO()
    db.in_session(driver, write_export, owner, buffer)
    records = [json.loads(line) for line in buffer.getvalue().splitlines()]
    key_of = {r["id"]: r["key"] for r in records if r["type"] == "source"}

    def normalise(value):
        if isinstance(value, dict):
            return {k: normalise(v) for k, v in sorted(value.items()) if k not in DROPPED}
        if isinstance(value, list):
            return sorted((normalise(v) for v in value), key=json.dumps)
        if isinstance(value, str) and value in key_of:
            return key_of[value]
        return value

    grouped: dict[str, list[str]] = {}
    for record in records:
        if record["type"] != "meta":
            grouped.setdefault(record["type"], []).append(json.dumps(normalise(record), sort_keys=True))
    return {kind: sorted(rows) for kind, rows in grouped.items()}


def test_killed_ingests_leave_the_graph_an_uninterrupted_run_makes(graph, tmp_path):
    driver = graph["driver"]
    run_id = uuid.uuid4().hex[:8]
    folders = {}
    for name in ("whole", "killed"):
        folders[name] = tmp_path / name
        folders[name].mkdir()
        for document in DOCUMENTS:
            shutil.copy(PEPS / document, folders[name] / document)
    whole, killed = f"crash-whole-{run_id}", f"crash-killed-{run_id}"

    reference = _ingest(whole, folders["whole"])
    output, _ = reference.communicate(timeout=900)
    assert reference.returncode == 0, output
    assert _sources_written(driver, whole) == len(DOCUMENTS)

    rng = random.Random(run_id)
    kills = []
    for _ in range(3):
        process = _ingest(killed, folders["killed"])
        deadline = time.monotonic() + 900
        while process.poll() is None and time.monotonic() < deadline:
            if _writing(driver):  # the batch's transaction holds locks: kill at a random point in it
                time.sleep(rng.uniform(0, 0.05))
                open_then = _writing(driver)
                process.send_signal(signal.SIGKILL)
                kills.append((open_then, _sources_written(driver, killed)))
                break
            time.sleep(0.005)
        process.wait(timeout=60)
    print(f"killed (transaction still open at the kill, sources in the graph after): {kills}")
    assert any(open_then for open_then, _ in kills), "no kill landed inside a write transaction"
    assert all(written in (0, len(DOCUMENTS)) for _, written in kills), kills  # never part of a batch

    finish = _ingest(killed, folders["killed"])
    output, _ = finish.communicate(timeout=900)
    assert finish.returncode == 0, output

    expected, actual = _comparable(driver, whole), _comparable(driver, killed)
    assert set(expected) == set(actual)
    for kind in expected:
        missing = set(expected[kind]) - set(actual[kind])
        extra = set(actual[kind]) - set(expected[kind])
        assert not missing and not extra, (kind, sorted(missing)[:3], sorted(extra)[:3])
        assert len(expected[kind]) == len(actual[kind]), kind  # no duplicates either
    counts_whole, counts_killed = db.read(driver, graph_counts, whole), db.read(driver, graph_counts, killed)
    assert counts_whole == counts_killed

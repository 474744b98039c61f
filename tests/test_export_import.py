"""`subtext export` and `subtext import`: a graph out as JSONL and back, span for span."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

from graph_schema.settings import PROJECT_ROOT
from pipeline.run import ingest_paths
from tests.conftest import write

NOTES = """Author: Priya Natarajan, Daniel Okafor

Priya Natarajan leads the Harbour pitch for the Python Software Foundation (PSF).
The PSF board meets Daniel Okafor in April.
"""


def _cli(*args: str, owner: str, upload, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "SUBTEXT_OWNER": owner, "SUBTEXT_UPLOAD_DIR": str(upload)}
    return subprocess.run([sys.executable, "-m", "subtext.cli", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, input=stdin, timeout=300)


def _comparable(path) -> dict[str, list]:
    """Records by type, without the parts an import legitimately changes (export time)."""
    by_type: dict[str, list] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] != "meta":
            by_type.setdefault(record["type"], []).append(record)
    return by_type


def test_export_then_import_round_trips(graph, tmp_path):
    path = write(graph["upload"], "harbour/kickoff.md", NOTES)
    report = ingest_paths([graph["upload"]])
    assert report.count("ingested") == 1

    exported = tmp_path / "graph.jsonl"
    done = _cli("export", str(exported), owner=graph["owner"], upload=graph["upload"])
    assert done.returncode == 0, done.stderr
    records = _comparable(exported)
    assert {"page", "source", "chunk", "fact", "mention", "link"} <= set(records)

    # Spans index the file's own text: every mention can be found again in the original.
    text = path.read_text()
    for mention in records["mention"]:
        for start, end, surface in zip(mention["starts"], mention["ends"], mention["surfaces"], strict=True):
            assert text[start:end] == surface
    for fact in records["fact"]:
        for source in fact["sources"]:
            assert fact["text"] == " ".join(text[source["start"]:source["end"]].split())
    psf = next(p for p in records["page"] if p["slug"] == "python-software-foundation")
    assert "PSF" in psf["aliases"]

    other = f"test-import-{uuid.uuid4().hex[:8]}"
    done = _cli("import", str(exported), owner=other, upload=graph["upload"])
    assert done.returncode == 0, done.stderr
    again = tmp_path / "again.jsonl"
    assert _cli("export", str(again), owner=other, upload=graph["upload"]).returncode == 0
    assert _comparable(again) == records

    # Importing into a graph that has content is refused, and says what to do instead.
    done = _cli("import", str(exported), owner=other, upload=graph["upload"])
    assert done.returncode == 1
    assert "only fills an empty graph" in done.stderr and "SUBTEXT_OWNER" in done.stderr


def test_import_names_the_bad_line(graph, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"type": "meta", "format": "subtext-export", "version": 1, "owner": "x", "exported_at": "now"}) + "\n"
        + json.dumps({"type": "page", "slug": "a", "title": "A", "kind": "person"}) + "\n"
        + json.dumps({"type": "page", "slug": "b", "title": "B", "kind": "spaceship"}) + "\n"
    )
    done = _cli("import", str(bad), owner=f"test-bad-{uuid.uuid4().hex[:8]}", upload=graph["upload"])
    assert done.returncode == 1
    assert "bad.jsonl, line 3" in done.stderr and "kind" in done.stderr

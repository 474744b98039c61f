"""`subtext export` and `subtext import`: a graph out as JSONL and back, span for span."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.kinds import SourceKind
from graph_schema.settings import PROJECT_ROOT
from graph_schema.slugs import fact_id, source_id_for
from knowledge.transfer import import_records, parse_records, write_export
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


def _records(path) -> dict[str, list]:
    """Records by type, as exported (the meta line left out: its time and owner differ)."""
    by_type: dict[str, list] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record["type"] != "meta":
            by_type.setdefault(record["type"], []).append(record)
    return by_type


def _comparable(path) -> dict[str, list]:
    """Records by type, without the parts an import legitimately changes: the export time and the
    ids derived from the owner (a source is named by its kind and key, a chunk by its source and
    index, a fact by its text), so two people's exports of one graph compare equal."""
    by_type = _records(path)
    source = {s["id"]: f"{s['kind']}:{s['key']}" for s in by_type.get("source", [])}
    fact = {f["id"]: f["text"] for f in by_type.get("fact", [])}

    def rename(value):
        if isinstance(value, str):
            return source.get(value, fact.get(value, value))
        if isinstance(value, list):
            return [rename(v) for v in value]
        if isinstance(value, dict):
            return {k: rename(v) for k, v in value.items()}
        return value

    for chunk in by_type.get("chunk", []):
        chunk["id"] = f"{source[chunk['source']]}#{chunk['index']}"
    renamed = {t: [rename(r) for r in records] for t, records in by_type.items()}
    for record in renamed.get("fact", []):  # exported in source-id order, which the renaming changed
        record["sources"] = sorted(record["sources"], key=lambda s: json.dumps(s, sort_keys=True))
    return {t: sorted(records, key=lambda r: json.dumps(r, sort_keys=True)) for t, records in renamed.items()}


def _counts(graph, owner: str) -> dict[str, int]:
    with graph["driver"].session() as session:
        return {label: session.run(f"MATCH (n:{label} {{owner: $owner}}) RETURN count(n) AS n", owner=owner).single()["n"]
                for label in ("Page", "Source", "Chunk", "Fact")}


def test_export_then_import_round_trips(graph, tmp_path):
    path = write(graph["upload"], "harbour/kickoff.md", NOTES)
    report = ingest_paths([graph["upload"]])
    assert report.count("ingested") == 1

    # A group the person turned down as a focus area is their answer too.
    from graph_schema.queries.focus_proposals import replace_open_proposals
    from knowledge.focus_proposals import dismiss_focus_proposal

    db.write(graph["driver"], replace_open_proposals, graph["owner"], [
        {"slug": "harbour-pitch", "title": "Harbour pitch", "members": ["priya-natarajan", "daniel-okafor"],
         "cohesion": 0.9, "evidence": "2 pages named together in 1 document"}])
    db.write(graph["driver"], dismiss_focus_proposal, graph["owner"], "harbour-pitch")

    exported = tmp_path / "graph.jsonl"
    done = _cli("export", str(exported), owner=graph["owner"], upload=graph["upload"])
    assert done.returncode == 0, done.stderr
    records = _records(exported)
    assert {"page", "source", "chunk", "fact", "mention", "link", "dismissed_focus"} <= set(records)
    assert [r["members"] for r in records["dismissed_focus"]] == [["priya-natarajan", "daniel-okafor"]]

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
    assert _comparable(again) == _comparable(exported)
    # The ids are the importing person's own: what ingesting the same files there would give.
    for source in _records(again)["source"]:
        assert source["id"] == source_id_for(other, SourceKind(source["kind"]), source["key"])
    for fact in _records(again)["fact"]:
        assert fact["id"] == fact_id(other, fact["text"])

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


def _export(graph, path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        db.in_session(graph["driver"], write_export, graph["owner"], handle)


def test_import_under_another_owner_then_reingest_duplicates_nothing(graph, tmp_path):
    write(graph["upload"], "harbour/kickoff.md", NOTES)
    assert ingest_paths([graph["upload"]]).count("ingested") == 1
    exported = tmp_path / "graph.jsonl"
    _export(graph, exported)

    other = f"test-import-{uuid.uuid4().hex[:8]}"
    with exported.open(encoding="utf-8") as handle:
        db.in_session(graph["driver"], import_records, other, other, parse_records(handle, str(exported)))
    imported = _counts(graph, other)
    assert imported == _counts(graph, graph["owner"])

    # The same files ingested again by the importing person are recognised as already there.
    report = ingest_paths([graph["upload"]], owner=other)
    assert [o.status for o in report.outcomes] == ["unchanged"]
    assert _counts(graph, other) == imported


def test_import_failing_midway_leaves_the_graph_as_it_was(graph, tmp_path):
    write(graph["upload"], "harbour/kickoff.md", NOTES)
    assert ingest_paths([graph["upload"]]).count("ingested") == 1
    exported = tmp_path / "graph.jsonl"
    _export(graph, exported)
    # The last link carries a time the database cannot read: every line is valid JSON of the
    # right shape, so the failure comes while writing, after pages, sources and facts.
    lines = exported.read_text().splitlines()
    last_link = max(i for i, line in enumerate(lines) if json.loads(line)["type"] == "link")
    record = json.loads(lines[last_link])
    record["created_at"] = "the day before yesterday"
    lines[last_link] = json.dumps(record)
    exported.write_text("\n".join(lines) + "\n")

    other = f"test-import-{uuid.uuid4().hex[:8]}"
    with exported.open(encoding="utf-8") as handle:
        records = parse_records(handle, str(exported))
    with pytest.raises(Exception) as failure:
        db.in_session(graph["driver"], import_records, other, other, records)
    assert _counts(graph, other) == {"Page": 0, "Source": 0, "Chunk": 0, "Fact": 0}
    assert isinstance(failure.value, InvalidRequest) and "Nothing was imported" in str(failure.value), failure.value

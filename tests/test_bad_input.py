"""Bad input: broken, hostile and odd files in one run beside good ones, on the real pipeline.

Every file is generated here. For each: the run does not crash, the good documents still ingest,
the bad one is recorded with a clear reason (in the Dagster run and in `subtext status`), a file
over a limit is processed up to it and marked truncated, and nothing outside the upload folder
is read.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

from dagster import AssetKey, AssetRecordsFilter
from pypdf import PdfReader, PdfWriter

from graph_schema.queries.pages import get_page
from graph_schema.settings import PROJECT_ROOT, get_settings, reset_settings
from pipeline.run import dagster_instance, document_keys, run_ingest
from tests.conftest import write

SECRET = "Zebulon Quartermaine keeps the vault code QX-7731 in the drawer."
SENTENCES = [
    "Priya Natarajan is leading the Harbour pitch for Acme Corporation.",
    "Daniel Okafor from Northwind Logistics will share the shipping volumes.",
    "The board of Acme Corporation reviews the Harbour pitch in April.",
]


def text_pdf(text: str) -> bytes:
    """A one-page PDF with a text layer, written out by hand."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def encrypted(pdf: bytes) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.encrypt(user_password="open-sesame", owner_password="owner")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def zip_bomb_docx(path: Path, unpacked: int) -> None:
    """A docx whose document part inflates to `unpacked` bytes from well under 1 MB."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b"\0" * (1 << 20)
            for _ in range(unpacked // len(block)):
                member.write(block)


def build_corpus(upload: Path, outside: Path, rng: random.Random) -> dict[str, tuple[str, str]]:
    """Write the corpus; returns key -> (expected status, a phrase the recorded reason must contain)."""
    expect: dict[str, tuple[str, str]] = {}

    def add(name: str, data: str | bytes, status: str, reason: str = "") -> None:
        write(upload, name, data)
        expect[name] = (status, reason)

    add("good/kickoff.md", "# Kickoff\n\n" + " ".join(SENTENCES) + "\n", "ingested")
    add("good/report.pdf", text_pdf("Marta Kowalski chairs the Baltic Freight Forum in Gdansk."), "ingested")
    add("empty.md", b"", "failed", "the file is empty")
    add("blank.txt", "   \n\n\t  \n  ", "failed", "it contains no text")
    add("junk.pdf", rng.randbytes(40_000), "failed", "no %PDF header")
    add("junk.docx", rng.randbytes(40_000), "failed", "is not a docx")
    add("junk.md", rng.randbytes(40_000), "failed", "binary data")
    pdf = text_pdf("Ines Duarte audits the Lisbon depot for Northwind Logistics.")
    add("truncated.pdf", pdf[: len(pdf) // 2], "failed", "incomplete")
    add("encrypted.pdf", encrypted(pdf), "failed", "password")
    zip_bomb_docx(upload / "bomb.docx", 320 << 20)
    expect["bomb.docx"] = ("failed", "zip bomb")
    add("nul.txt", "Ada Lovelace wrote notes.\0\0\0 On the engine.\n", "failed", "NUL bytes")
    paragraph = " ".join(SENTENCES) + "\n\n"
    add("big.txt", paragraph * (50_000_000 // len(paragraph) + 1), "truncated", "SUBTEXT_MAX_FILE_BYTES")
    add("one-line.txt", " ".join(SENTENCES) * (5_000_000 // len(" ".join(SENTENCES))), "truncated",
        "SUBTEXT_MAX_CHUNKS_PER_DOCUMENT")
    add("latin1.txt", "José Martínez runs Señor Café in Málaga with Zoë Brontë.\n".encode("latin-1"), "ingested")
    add("utf16.txt", "Kenji Watanabe manages the Osaka Freight Terminal.\n".encode("utf-16"), "ingested")
    add("mixed.md", "Olena Kovalenko (Олена Коваленко) met 王小明 and فاطمة in Kyiv 🚢 about Harbour.\n", "ingested")
    add("notes with spaces.md", "Farid Haddad reviews the berth schedule.\n", "ingested")
    add("ünïcödé 文档.md", "Björn Lindqvist owns the crane contract.\n", "ingested")
    add("-leading-dash.md", "Chidi Okonkwo signs the lease.\n", "ingested")
    add("--help.md", "Sana Mirza books the surveyors.\n", "ingested")
    write(outside, "secret.md", SECRET)
    (upload / "link.md").symlink_to(outside / "secret.md")
    expect["link.md"] = ("failed", "outside the upload folder")
    (upload / "linked-dir").symlink_to(outside, target_is_directory=True)
    expect["linked-dir/secret.md"] = ("failed", "outside the upload folder")
    expect["../outside/secret.md"] = ("failed", "outside the upload folder")  # a key that climbs out
    expect["vanished.md"] = ("failed", "deleted before it was read")  # listed, then deleted
    return expect


def recorded_sources(graph) -> dict[str, dict]:
    query = "MATCH (s:Source {owner: $owner}) RETURN s.key AS key, s.status AS status, s.reason AS reason, " \
            "s.truncated_reason AS truncated, s.content_hash AS hash"
    with graph["driver"].session() as session:
        return {r["key"]: dict(r) for r in session.run(query, owner=graph["owner"])}


def nodes_containing(graph, needle: str) -> int:
    """Pages, facts, chunks, sources and the brief of the graph with `needle` in a text property."""
    has_needle = ("any(k IN keys(n) WHERE (n[k] IS :: STRING AND n[k] CONTAINS $needle) "
                  "OR (n[k] IS :: LIST<STRING NOT NULL> AND any(x IN n[k] WHERE x CONTAINS $needle)))")
    found = 0
    with graph["driver"].session() as session:
        for label, key in (("Page", "slug"), ("Fact", "id"), ("Chunk", "id"), ("Source", "id"), ("Brief", "owner")):
            query = f"MATCH (n:{label}) WHERE n.owner = $owner AND n.{key} IS NOT NULL AND {has_needle} RETURN count(n) AS n"
            found += session.run(query, owner=graph["owner"], needle=needle).single()["n"]
    return found


def test_bad_input_never_crashes_a_run_and_every_failure_is_recorded(graph, tmp_path, monkeypatch):
    monkeypatch.setenv("SUBTEXT_MAX_CHUNKS_PER_DOCUMENT", "40")  # keeps spaCy's share of the big files small
    reset_settings()
    upload, outside = graph["upload"], tmp_path / "outside"
    expect = build_corpus(upload, outside, random.Random(6))
    keys = document_keys([upload], get_settings())
    assert "link.md" in keys and "vanished.md" not in keys
    keys += ["linked-dir/secret.md", "../outside/secret.md", "vanished.md"]

    report = run_ingest(keys)

    outcomes = {o.key: o for o in report.outcomes}
    assert set(outcomes) == set(expect)
    sources = recorded_sources(graph)
    for key, (status, reason) in expect.items():
        outcome = outcomes[key]
        if status == "failed":
            assert outcome.status == "failed", (key, outcome)
            assert reason in outcome.reason, (key, outcome.reason)
            assert sources[key]["status"] == "failed" and reason in sources[key]["reason"], key
        else:
            assert outcome.status == "ingested", (key, outcome)
            assert bool(sources[key]["truncated"]) == (status == "truncated"), (key, sources[key])
            if status == "truncated":
                assert reason in sources[key]["truncated"], (key, sources[key]["truncated"])
    assert "only the first 40 of" in sources["big.txt"]["truncated"]  # both limits said, with figures

    # The good documents and the odd-but-valid ones made their pages.
    for slug in ("priya-natarajan", "marta-kowalski", "jose-martinez", "kenji-watanabe", "olena-kovalenko",
                 "farid-haddad", "bjorn-lindqvist", "chidi-okonkwo", "sana-mirza"):
        assert graph["db"].read(graph["driver"], get_page, graph["owner"], slug, 20) is not None, slug

    # Nothing outside the upload folder was read (the same search finds what was read).
    assert nodes_containing(graph, "Baltic Freight") > 0
    assert nodes_containing(graph, "QX-7731") == 0 and nodes_containing(graph, "Quartermaine") == 0

    # The reasons are visible in Dagster, on each document's partition.
    instance = dagster_instance()
    for key in ("bomb.docx", "encrypted.pdf", "vanished.md"):
        records = instance.fetch_materializations(
            AssetRecordsFilter(asset_key=AssetKey("graph_merge"), asset_partitions=[key]), limit=1
        ).records
        metadata = records[0].asset_materialization.metadata
        assert metadata["status"].value == "failed" and expect[key][1] in metadata["reason"].value
    # every stage's figures for a document are on its partition of the last step
    record = instance.fetch_materializations(
        AssetRecordsFilter(asset_key=AssetKey("graph_merge"), asset_partitions=["big.txt"]), limit=1).records[0]
    metadata = {k: v.value for k, v in record.asset_materialization.metadata.items()}
    assert metadata["status"] == "ingested" and metadata["chunks"] == 40, metadata
    assert "only the first 40 of" in metadata["truncated"] and metadata["entities"] > 0, metadata

    # ... and in `subtext status`, with the run that recorded them.
    shown = subprocess.run(
        [sys.executable, "-m", "subtext.cli", "status"], cwd=PROJECT_ROOT, capture_output=True, text=True,
        env={**os.environ, "COLUMNS": "250"}, timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    for key, (status, reason) in expect.items():
        if status != "ingested":
            assert key in shown.stdout and reason in shown.stdout, (key, shown.stdout)
    assert "Neo4j: up" in shown.stdout


def test_a_file_that_changes_while_it_is_read_ends_as_its_final_version(graph):
    path = write(graph["upload"], "growing.md", "# Growing\n\nLeila Haddad opened the Tangier office.\n\n")
    stop = threading.Event()

    def keep_appending() -> None:
        count = 0
        while not stop.is_set():
            with path.open("a", encoding="utf-8") as handle:
                handle.write(f"Leila Haddad signed lease number {count} for the Tangier office.\n\n")
            count += 1
            time.sleep(0.005)

    writer = threading.Thread(target=keep_appending)
    writer.start()
    try:
        first = run_ingest(["growing.md"])
    finally:
        stop.set()
        writer.join()
    assert [o.status for o in first.outcomes] == ["ingested"]
    second = run_ingest(["growing.md"])  # what the sensor does when it sees the file changed
    assert [o.status for o in second.outcomes] == ["ingested"]

    final = path.read_bytes()
    sources = recorded_sources(graph)
    assert list(sources) == ["growing.md"]
    assert sources["growing.md"]["hash"] == hashlib.sha256(final).hexdigest()
    page = graph["db"].read(graph["driver"], get_page, graph["owner"], "leila-haddad", 500)
    text = final.decode()
    spans = [s for f in page.facts for s in f.sources]
    assert spans and all("Leila Haddad" in text[s.start : s.end] for s in spans if s.key == "growing.md")


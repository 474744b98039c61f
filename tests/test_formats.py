"""Slide decks, web pages and emails go through unstructured into the same graph as notes."""

from __future__ import annotations

import json
from email.message import EmailMessage

from pptx import Presentation

from graph_schema.queries.pages import get_page
from pipeline.run import ingest_paths
from tests.conftest import exported, write


def _deck(path) -> None:
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Harbour pitch review"
    slide.placeholders[1].text = "Priya Natarajan presents the Harbour pitch to Acme Corporation in April."
    deck.save(path)


def _email() -> bytes:
    message = EmailMessage()
    message["From"] = "Daniel Okafor <daniel@northwind.example>"
    message["To"] = "Priya Natarajan <priya@acme.example>"
    message["Subject"] = "Berth schedule"
    message.set_content("Hi Priya,\n\nDaniel Okafor from Northwind Logistics will send the berth schedule on Friday.\n")
    return bytes(message)


HTML = """<!doctype html><html><head><title>Vector search notes</title></head><body>
<h1>Vector search notes</h1>
<p>Daniel Okafor compared Neo4j with Microsoft for the Harbour pitch.</p>
<script>var ignored = "Marta Lindqvist from Orion Shipping owns the berth schedule.";</script>
</body></html>"""


def test_pptx_html_and_eml_are_ingested(graph):
    upload = graph["upload"]
    _deck(upload / "review.pptx")
    write(upload, "notes.html", HTML)
    write(upload, "schedule.eml", _email())
    report = ingest_paths([upload])
    by_key = {o.key: o for o in report.outcomes}
    assert {k: o.status for k, o in by_key.items()} == {
        "review.pptx": "ingested", "notes.html": "ingested", "schedule.eml": "ingested"}, \
        {k: o.reason for k, o in by_key.items()}

    priya = graph["db"].read(graph["driver"], get_page, graph["owner"], "priya-natarajan", 50)
    assert priya is not None
    assert {s.key for f in priya.facts for s in f.sources} >= {"review.pptx"}
    daniel = graph["db"].read(graph["driver"], get_page, graph["owner"], "daniel-okafor", 50)
    assert daniel is not None
    assert {s.key for f in daniel.facts for s in f.sources} >= {"notes.html", "schedule.eml"}
    # Script text is not document text: it is in no chunk, fact or page, while the paragraph
    # beside it is (a control that the export holds the HTML's text at all).
    records = json.dumps(exported(graph["driver"], graph["owner"]))
    assert "Daniel Okafor compared Neo4j" in records
    assert "Lindqvist" not in records and "var ignored" not in records


def _renamed_part(path, into, part: str, renamed: str):
    """A copy of a docx whose `part` is stored as `renamed`, with the package's content types and
    relationships pointing at the new name (as a crafted file would)."""
    import zipfile

    folder, name = part.rsplit("/", 1)
    new_folder, new_name = renamed.rsplit("/", 1)
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(into, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            data = source.read(member)
            filename = member.filename
            if filename == part:
                filename = renamed
            elif filename == f"{folder}/_rels/{name}.rels":
                filename = f"{new_folder}/_rels/{new_name}.rels"
            if filename.endswith((".rels", ".xml")):
                data = data.replace(part.encode(), renamed.encode())
            target.writestr(filename, data)
    return into


def _docx(path, paragraphs: int, picture_bytes: int = 0):
    """A real docx of `paragraphs` paragraphs, and a picture part of `picture_bytes` if asked."""
    import zipfile

    from docx import Document

    document = Document()
    for n in range(paragraphs):
        document.add_paragraph(f"Paragraph {n}: Marta Kowalski reviewed the berth schedule with the Gdansk team.")
    document.save(str(path))
    if picture_bytes:  # stored as Word stores one: the package declares what a .png part is
        with zipfile.ZipFile(path) as source:
            parts = {m.filename: source.read(m) for m in source.infolist()}
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
            b"<Default ", b'<Default Extension="png" ContentType="image/png"/><Default ', 1)
        parts["word/media/image1.png"] = b"\0" * picture_bytes
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in parts.items():
                archive.writestr(name, data)
    return path


def test_a_docx_whose_markup_passes_the_limit_is_refused_before_parsing_and_pictures_do_not_count(
        tmp_path, monkeypatch):
    from graph_schema.settings import get_settings, reset_settings
    from pipeline.parse import parse_document

    monkeypatch.setenv("SUBTEXT_MAX_UNPACKED_MARKUP_BYTES", "1000000")
    reset_settings()
    try:
        long = parse_document(_docx(tmp_path / "long.docx", 8_000), "long.docx", "s", get_settings())
        assert long.failure and "SUBTEXT_MAX_UNPACKED_MARKUP_BYTES" in long.failure and "Split it" in long.failure
        # a short text with a large picture is read: only the text's markup counts
        pictured = parse_document(_docx(tmp_path / "pictured.docx", 20, picture_bytes=5_000_000), "pictured.docx", "s",
                                  get_settings())
        assert pictured.failure is None and "Marta Kowalski" in pictured.text
        # the parser goes by the package's declared content types, not by file names: a text part
        # renamed to look like a picture still counts as text
        disguised = _renamed_part(_docx(tmp_path / "plain.docx", 8_000), tmp_path / "disguised.docx",
                                  "word/document.xml", "word/image9.png")
        refused = parse_document(disguised, "disguised.docx", "s", get_settings())
        assert refused.failure and "SUBTEXT_MAX_UNPACKED_MARKUP_BYTES" in refused.failure
    finally:
        monkeypatch.delenv("SUBTEXT_MAX_UNPACKED_MARKUP_BYTES")
        reset_settings()

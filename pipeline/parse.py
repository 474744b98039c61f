"""Stage 1: read a source and split it into chunks.

Plain-text formats (.txt, .md, .rst) keep the file's own text, so every span in the graph
indexes the original file. Everything else goes through `unstructured` (the fast, text-layer
strategy for PDFs) and its elements are joined with blank lines. A source that cannot be read
comes back with `failure` set to a sentence naming the reason; it never raises.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from xml.etree import ElementTree
from pathlib import Path

from pydantic import BaseModel

from graph_schema.kinds import SourceKind
from graph_schema.models import Chunk, ParsedDocument
from graph_schema.settings import Settings
from graph_schema.slugs import source_id_for
from knowledge.upload_folders import SUPPORTED_SUFFIXES, TEXT_FORMATS, UNSTRUCTURED_FORMATS, key_within_owner


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n+")
# Chinese and Japanese end sentences with full-width marks and no space after them.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
_RST_TITLE = re.compile(r"^Title:\s*(.+)$", re.MULTILINE)
_MD_TITLE = re.compile(r"^#\s+(.+)$", re.MULTILINE)


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()




def focus_of_key(key: str) -> str | None:
    """The focus area of a document: the top-level subfolder of its person's upload folder."""
    if Path(key).is_absolute():
        return None
    parts = Path(key_within_owner(key)).parts
    return parts[0] if len(parts) > 1 and not Path(key).is_absolute() else None


def decode_text(data: bytes) -> str:
    """Decode bytes that should be text; raise ValueError with a reason when they are not."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8")
    if b"\0" in data[:8192]:
        raise ValueError("it contains NUL bytes, so it is binary data rather than text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    controls = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\n\r\t\f")
    if controls > len(text[:8192]) * 0.01:
        raise ValueError("it is not readable text (binary data with a text file name?)")
    return text


def trim_cut_character(data: bytes) -> bytes:
    """`data` without the character a byte limit cut in two, so the text is cut at a character.

    Left in, an incomplete UTF-8 sequence makes the whole file undecodable as UTF-8 ("José"
    would come out as "JosÃ©"), and an odd byte makes UTF-16 undecodable. A file in a one-byte
    encoding whose last byte looks like a UTF-8 lead byte loses that one character at the cut.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = data[: len(data) - len(data) % 2]
        last = data[-2:] if data.startswith(b"\xfe\xff") else data[-2:][::-1]  # big-endian order
        return data[:-2] if len(data) >= 4 and 0xD8 <= last[0] <= 0xDB else data  # half a surrogate pair
    lead = len(data) - 1
    while lead > 0 and len(data) - lead < 4 and data[lead] & 0xC0 == 0x80:  # continuation bytes
        lead -= 1
    if lead < 0:
        return data
    first = data[lead]
    length = 4 if first >= 0xF0 else 3 if first >= 0xE0 else 2 if first >= 0xC0 else 1
    return data[:lead] if len(data) - lead < length else data


def chunk_text(text: str, target_chars: int) -> list[Chunk]:
    """Paragraphs packed into chunks of about `target_chars`; offsets index `text` exactly."""
    pieces: list[tuple[int, int]] = []
    position = 0
    for match in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        if text[position:end].strip():
            pieces.extend(_split_long(text, position, end, target_chars))
        position = match.end() if match else len(text)

    chunks: list[Chunk] = []
    start = end = None
    for piece_start, piece_end in pieces:
        if start is None:
            start, end = piece_start, piece_end
        elif piece_end - start <= target_chars:
            end = piece_end
        else:
            chunks.append(Chunk(index=len(chunks), start=start, end=end))
            start, end = piece_start, piece_end
    if start is not None:
        chunks.append(Chunk(index=len(chunks), start=start, end=end))
    return chunks


def _split_long(text: str, start: int, end: int, target: int) -> list[tuple[int, int]]:
    """A paragraph longer than twice the target is cut at sentence ends (or hard, as a last resort)."""
    if end - start <= 2 * target:
        return [(start, end)]
    spans: list[tuple[int, int]] = []
    position = start
    while end - position > target:
        window = text[position : position + target]
        cut = None
        for m in _SENTENCE_END.finditer(window):
            cut = m.end()
        if cut is None or cut < target // 4:
            space = window.rfind(" ")
            cut = space + 1 if space > target // 4 else target
        spans.append((position, position + cut))
        position += cut
    if position < end:
        spans.append((position, end))
    return spans


def _title_from_text(text: str, path: Path) -> str:
    for pattern in (_RST_TITLE, _MD_TITLE):
        match = pattern.search(text[:4000])
        if match:
            return match.group(1).strip()[:200]
    return path.stem.replace("_", " ").replace("-", " ").strip() or path.name


def _title_from_elements(texts: list[str], path: Path) -> str:
    first = texts[0] if texts else ""
    return first if 0 < len(first) <= 120 else path.stem.replace("_", " ").replace("-", " ")


def _read_unstructured(path: Path, fmt: str) -> list[str]:
    """Element texts of a rich document, in reading order."""
    if fmt == "pdf":
        from unstructured.partition.pdf import partition_pdf

        elements = partition_pdf(filename=str(path), strategy="fast", languages=["eng"])
    elif fmt == "docx":
        from unstructured.partition.docx import partition_docx

        elements = partition_docx(filename=str(path))
    elif fmt == "pptx":
        from unstructured.partition.pptx import partition_pptx

        elements = partition_pptx(filename=str(path))
    elif fmt == "html":
        from unstructured.partition.html import partition_html

        elements = partition_html(filename=str(path))
    else:
        from unstructured.partition.email import partition_email

        elements = partition_email(filename=str(path))
    return [e.text.strip() for e in elements if getattr(e, "text", "").strip()]


def title_apart(text: str, stem: str) -> str:
    """The document's title as a paragraph of its own where the parser ran it into the first
    sentence: a PDF whose title line has the body's font comes out as 'Vector search notes Sofia
    Marquez compared …'. Only the file's own name, and only before a capital (a new sentence)."""
    words = [w for w in re.split(r"[\W_]+", stem) if w]
    if len(words) < 2:  # 'john.pdf' beginning 'John Smith wrote …' names John Smith
        return text
    title = re.match(r"\s*" + r"[\W_]+".join(map(re.escape, words)) + r"(?= (?-i:[A-Z]))", text, re.IGNORECASE)
    if not title:
        return text
    return f"{title.group().strip()}\n\n{text[title.end():].lstrip()}"


ZIP_FORMATS = ("docx", "pptx")


def unpacked_size_problem(path: Path, fmt: str, limit: int, markup_limit: int) -> str | None:
    """docx and pptx are zip archives. One that would unpack to more than `limit` bytes (a zip
    bomb) is refused before any parser opens it; Python's zipfile never inflates a member past
    its declared size, so the declared sizes are a safe bound. So is one whose markup parts (the
    text and its markup, not the pictures) pass `markup_limit`: the parser reads all of it, slowly
    and in memory, though chunks past SUBTEXT_MAX_CHUNKS_PER_DOCUMENT would be dropped anyway."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            unpacked = sum(member.file_size for member in members)
            if unpacked > limit:
                return (f"it would unpack to {unpacked:,} bytes, over the {limit:,} allowed "
                        "(SUBTEXT_MAX_UNPACKED_BYTES): a damaged file or a zip bomb")
            markup = sum(member.file_size for member in _markup_members(archive, members, markup_limit))
    except (zipfile.BadZipFile, EOFError, ValueError, ElementTree.ParseError):
        return f"it is not a {fmt} file (a {fmt} is a zip archive, and this one is not or is damaged)"
    if markup > markup_limit:
        return (f"its text and markup would unpack to {markup:,} bytes, over the {markup_limit:,} read "
                "(SUBTEXT_MAX_UNPACKED_MARKUP_BYTES); a document that long would be cut at "
                "SUBTEXT_MAX_CHUNKS_PER_DOCUMENT anyway. Split it into smaller documents, or raise the setting")
    return None


_CONTENT_TYPES = "[Content_Types].xml"
_OPC = "{http://schemas.openxmlformats.org/package/2006/content-types}"


def _markup_members(archive: zipfile.ZipFile, members: list[zipfile.ZipInfo],
                    markup_limit: int) -> list[zipfile.ZipInfo]:
    """The parts the parser reads as XML. The package's own [Content_Types].xml says what each part
    is (by its name, else by its extension), and the parser goes by it, not by the file name: a
    text part renamed 'x.png' is still read. A part with no declared type is never read (the
    parser cannot tell what it is), so it counts only towards SUBTEXT_MAX_UNPACKED_BYTES."""
    types = next((m for m in members if m.filename == _CONTENT_TYPES), None)
    if types is None or types.file_size > markup_limit:
        return members
    root = ElementTree.fromstring(archive.read(types))
    by_extension = {e.get("Extension", "").lower(): e.get("ContentType", "") for e in root.iter(f"{_OPC}Default")}
    by_part = {e.get("PartName", "").lower(): e.get("ContentType", "") for e in root.iter(f"{_OPC}Override")}

    def is_markup(member: zipfile.ZipInfo) -> bool:
        name = member.filename.lower()
        content_type = by_part.get("/" + name) or by_extension.get(name.rsplit(".", 1)[-1] if "." in name else "")
        return content_type is not None and content_type.endswith("xml")

    return [m for m in members if not m.is_dir() and is_markup(m)]


def pdf_problem(data: bytes) -> str | None:
    """A reason a PDF cannot be read at all, from its bytes."""
    if b"%PDF-" not in data[:1024]:
        return "it is not a PDF (it has no %PDF header: other data with a .pdf name?)"
    return None


def pdf_is_cut_off(data: bytes) -> bool:
    """A complete PDF ends with an %%EOF marker."""
    return b"%%EOF" not in data[-2048:]


def pdf_without_text_reason(data: bytes) -> str:
    """Why a PDF gave no text: the likeliest cause first."""
    if b"/Encrypt" in data:
        return "it is protected by a password, so its text cannot be read; drop in an unprotected copy"
    if pdf_is_cut_off(data):
        return "it is incomplete (cut off before its end: a partial download or copy?)"
    return "no text layer was found (a scanned PDF?)"


def parse_document(path: Path, key: str, owner: str, settings: Settings) -> ParsedDocument:
    """Read `path` into a ParsedDocument; failures are returned with a reason, never raised."""
    source_id = source_id_for(owner, SourceKind.DOCUMENT, key)
    base = ParsedDocument(source_id=source_id, key=key, focus=focus_of_key(key), title=path.name)
    suffix = path.suffix.lower()
    fmt = TEXT_FORMATS.get(suffix) or UNSTRUCTURED_FORMATS.get(suffix)
    if fmt is None:
        return base.model_copy(
            update={
                "failure": f"{path.suffix or 'files without an extension'} is not a supported format; "
                f"supported: {', '.join(SUPPORTED_SUFFIXES)}"
            }
        )
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            data = handle.read(settings.max_file_bytes)
    except FileNotFoundError:
        return base.model_copy(update={"failure": "the file no longer exists (deleted before it was read)"})
    except OSError as e:
        return base.model_copy(update={"failure": f"the file could not be read: {e.strerror or e}"})

    truncated = None
    if size > settings.max_file_bytes:
        data = trim_cut_character(data)
        truncated = (
            f"only the first {settings.max_file_bytes:,} of {size:,} bytes were read "
            "(SUBTEXT_MAX_FILE_BYTES)"
        )
    if not data:
        return base.model_copy(update={"failure": "the file is empty", "format": fmt})
    digest = content_hash(data)
    base = base.model_copy(update={"format": fmt, "content_hash": digest})

    try:
        if fmt in TEXT_FORMATS.values():
            text = decode_text(data)
            element_count = len(_PARAGRAPH_BREAK.split(text))
        else:
            if truncated:
                return base.model_copy(
                    update={"failure": f"a {fmt} file of {size:,} bytes is over the size limit (SUBTEXT_MAX_FILE_BYTES)"}
                )
            problem = (unpacked_size_problem(path, fmt, settings.max_unpacked_bytes, settings.max_unpacked_markup_bytes)
                       if fmt in ZIP_FORMATS
                       else pdf_problem(data) if fmt == "pdf" else None)
            if problem:
                return base.model_copy(update={"failure": f"the file could not be read as {fmt}: {problem}"})
            texts = _read_unstructured(path, fmt)
            text = "\n\n".join(texts)
            text = title_apart(text, path.stem) if fmt == "pdf" else text
            element_count = len(texts)
    except ValueError as e:
        return base.model_copy(update={"failure": f"the file could not be read as {fmt}: {e}"})
    except Exception as e:  # a parser's own error: report it, do not take the batch down
        reason = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
        return base.model_copy(update={"failure": f"the file could not be parsed as {fmt}: {reason}"})

    if not text.strip():
        what = pdf_without_text_reason(data) if fmt == "pdf" else "it contains no text"
        return base.model_copy(update={"failure": f"nothing to ingest: {what}"})
    if fmt == "pdf" and pdf_is_cut_off(data):
        note = "the PDF is incomplete (cut off before its end), so only the text before the cut was read"
        truncated = f"{truncated}; {note}" if truncated else note

    title = _title_from_text(text, path) if fmt in TEXT_FORMATS.values() else _title_from_elements(texts, path)
    chunks = chunk_text(text, settings.chunk_target_chars)
    if len(chunks) > settings.max_chunks_per_document:
        kept = chunks[: settings.max_chunks_per_document]
        note = (
            f"only the first {len(kept):,} of {len(chunks):,} chunks were processed "
            "(SUBTEXT_MAX_CHUNKS_PER_DOCUMENT)"
        )
        truncated = f"{truncated}; {note}" if truncated else note
        chunks = kept
        text = text[: kept[-1].end] if kept else text  # only what the chunks cover: no rule reads past them, and every stage would carry the rest
    return base.model_copy(
        update={
            "title": title,
            "text": text,
            "chunks": chunks,
            "element_count": element_count,
            "truncated_reason": truncated,
        }
    )


SUBMISSION_PREFIX = "submission:"


class Submission(BaseModel):
    """Prose an assistant sent through edit_page_body, kept as a file so a run can be repeated."""

    body: str
    anchor_slug: str | None = None
    new_project: str | None = None
    author: str | None = None
    author_key: str | None = None  # the id of the access key that sent it


def submission_file(key: str, settings: Settings) -> Path:
    return settings.state_dir / "submissions" / (key.removeprefix(SUBMISSION_PREFIX) + ".json")


def parse_submission(key: str, owner: str, settings: Settings) -> ParsedDocument:
    source_id = source_id_for(owner, SourceKind.SUBMISSION, key)
    base = ParsedDocument(source_id=source_id, key=key, kind=SourceKind.SUBMISSION, format="text", title=key)
    try:
        submission = Submission.model_validate_json(submission_file(key, settings).read_text())
    except FileNotFoundError:
        return base.model_copy(update={"failure": "the submission is no longer stored"})
    text = submission.body
    title = f"Submission about {submission.new_project or submission.anchor_slug or 'you'}"
    return base.model_copy(
        update={
            "title": title,
            "text": text,
            "content_hash": content_hash(text.encode()),
            "chunks": chunk_text(text, settings.chunk_target_chars),
            "element_count": 1,
            "focus": submission.new_project,
            "anchor_slug": submission.anchor_slug,
            "author": submission.author,
            "author_key": submission.author_key,
        }
    )

"""POST /api/upload: a document (multipart file) or a note (JSON {content, source}) dropped into
the caller's upload folder, where the pipeline's sensor picks it up.

Nothing the client sends becomes a path: files are saved under a generated name that keeps only
a supported extension. A key limited to a focus area uploads into that focus area's folder, so
what it sends is filed there. Errors are JSON `{"error": "..."}`: 4xx for a refused request,
503 only when the graph cannot be reached.
"""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
from datetime import datetime, timezone
from pathlib import Path, PurePath

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse

from graph_schema.access import Access
from graph_schema.errors import AccessRefused, GraphUnavailable, RateLimited, SubtextError, UploadRefused
from graph_schema.plain_text import plain_name
from knowledge.upload_folders import SUPPORTED_SUFFIXES, owner_upload_dir
from mcp_server.rate_limit import RateLimiter
from mcp_server.scoped_writes import check_submission_in_scope, home_focus
from mcp_server.service import GraphService

SOURCE_FIELDS = {"app", "url", "title"}


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _read_capped(request: Request, cap: int) -> bytes:
    """The body, refusing (413) as soon as it passes `cap` bytes, whatever Content-Length said."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > cap:
        raise UploadRefused(413, f"The upload is {int(declared):,} bytes; the limit is {cap:,}.")
    body = bytearray()
    async for piece in request.stream():
        body.extend(piece)
        if len(body) > cap:
            raise UploadRefused(413, f"The upload is over the {cap:,}-byte limit.")
    return bytes(body)


def _note_from_json(body: bytes) -> tuple[bytes, str]:
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UploadRefused(400, f"The body is not valid JSON ({e}); send {{\"content\": \"...\"}}.") from e
    except RecursionError as e:  # nesting deeper than the parser's stack
        raise UploadRefused(400, 'The JSON is nested too deeply; send {"content": "...", "source": {...}}.') from e
    if not isinstance(data, dict) or set(data) - {"content", "source"}:
        raise UploadRefused(400, 'Send a JSON object with "content" (text) and optionally "source"; other fields are refused.')
    content = data.get("content")
    if not isinstance(content, str) or not content.strip():
        raise UploadRefused(400, '"content" must be non-empty text.')
    source = data.get("source")
    lines = []
    if source is not None:
        if not isinstance(source, dict) or "app" not in source or set(source) - SOURCE_FIELDS \
                or not all(isinstance(v, str) for v in source.values()):
            raise UploadRefused(400, '"source" must be an object with "app" and optionally "url" and "title" (all text).')
        if source.get("title"):
            lines.append(f"# {plain_name(source['title'])}\n")
    lines.append(content.strip() + "\n")
    if source is not None:
        lines.append("\nSent from " + ", ".join(source[k] for k in ("app", "url") if source.get(k)) + ".\n")
    return "\n".join(lines).encode(), ".md"


async def _file_from_form(request: Request, body: bytes, cap: int) -> tuple[bytes, str]:
    # Starlette parses the form from the body already read (and capped) above.
    request._body = body
    try:
        form = await request.form(max_files=1, max_fields=5, max_part_size=cap)
    except Exception as e:  # malformed multipart of any kind
        raise UploadRefused(400, f"The multipart body could not be read ({e}).") from e
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise UploadRefused(400, 'Send the document as a multipart file field named "file".')
    suffix = PurePath(upload.filename or "").suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UploadRefused(
            415, f"{suffix or 'A file without an extension'} is not a supported format; "
                 f"supported: {', '.join(SUPPORTED_SUFFIXES)}."
        )
    data = await upload.read()
    return data, suffix


def build_upload_endpoint(service: GraphService, limiter: RateLimiter):
    settings = service.settings

    async def caller(request: Request) -> Access:
        header = request.headers.get("authorization", "")
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise UploadRefused(401, "Send an access key as 'Authorization: Bearer stx_…' (`subtext keys create`).")
        access = await anyio.to_thread.run_sync(lambda: service.authenticate(secret.strip()))
        if access is None:
            raise UploadRefused(401, "The access key is not valid.")
        try:
            service.check_can_write(access, needs_full_context=False)
        except AccessRefused as e:
            raise UploadRefused(403, str(e)) from e
        return access

    async def upload(request: Request) -> JSONResponse:
        try:
            access = await caller(request)
            content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type not in ("application/json", "multipart/form-data"):
                raise UploadRefused(415, "Send multipart/form-data with a \"file\" field, or application/json "
                                         "with {\"content\": \"...\"}.")
            body = await _read_capped(request, settings.max_upload_bytes)
            if content_type == "application/json":
                data, suffix = _note_from_json(body)
            else:
                data, suffix = await _file_from_form(request, body, settings.max_upload_bytes)
            if not data.strip():
                raise UploadRefused(400, "The file is empty; there is nothing to ingest.")
            # Taken once the request is known to be well-formed (a malformed one spends nothing)
            # and before the upload is read for its scope, which is work worth a slot.
            limiter.take(access.owner, {"submissions": settings.rate_limit_submissions_per_minute})
            folder = await anyio.to_thread.run_sync(lambda: _folder_for(service, access))
            name = f"upload-{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}{suffix}"
            await anyio.to_thread.run_sync(lambda: _check_in_scope(service, access, name, data))
            await anyio.to_thread.run_sync(lambda: _save(folder, name, data))
            key = (folder / name).relative_to(settings.upload_dir).as_posix()
            return JSONResponse({"id": key}, status_code=201)
        except UploadRefused as e:
            return _error(e.status, e.message)
        except RateLimited as e:
            return _error(429, str(e), {"Retry-After": str(e.retry_after)})
        except GraphUnavailable as e:
            return _error(503, str(e))
        except AccessRefused as e:
            return _error(403, str(e))
        except SubtextError as e:  # any other refusal is about the request, not an outage
            return _error(400, str(e))

    return upload


def _folder_for(service: GraphService, access: Access):
    """The caller's upload folder; for a key limited to a focus area, that area's subfolder."""
    home = home_focus(service.driver(), access)
    folder = owner_upload_dir(service.settings, access.owner)
    return folder / home["folder"] if home else folder


def _check_in_scope(service: GraphService, access: Access, name: str, data: bytes) -> None:
    """A limited key's upload is read now, as the run will read it, and refused (AccessRefused,
    nothing saved) if its text would add facts to a page outside the key's scope; the sensor
    ingests it later, so this is the only moment the key is known."""
    visible = service.visible(access)
    if visible is None:
        return
    from pipeline.parse import parse_document

    # All of it, not just the chunks a run reads now: with a higher SUBTEXT_MAX_CHUNKS_PER_DOCUMENT
    # later, a re-run would write what a check of those chunks never saw.
    whole = service.settings.model_copy(update={"max_chunks_per_document": sys.maxsize})
    with tempfile.TemporaryDirectory(prefix="subtext-upload-") as scratch:
        path = Path(scratch) / name
        path.write_bytes(data)
        parsed = parse_document(path, name, access.owner, whole)
    if parsed.failure is None and parsed.text.strip():
        home = home_focus(service.driver(), access)
        check_submission_in_scope(service.driver(), access, visible, parsed.text, None,
                                  home["title"] if home else None, service.settings)


def _save(folder, name: str, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{name}.part"  # hidden until complete: the sensor never sees half a file
    partial.write_bytes(data)
    partial.rename(folder / name)

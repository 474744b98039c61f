"""Where each person's documents live, and which formats an upload folder accepts.

The configured person's documents sit at the top of the upload folder (its subfolders are
focus areas); every other person's sit in `@<person id>/` inside it, with the same layout. A
document's key is its path relative to the upload folder, so the key says whose it is.
"""

from __future__ import annotations

from pathlib import PurePosixPath, Path

from graph_schema.settings import Settings

PERSON_FOLDER_PREFIX = "@"

TEXT_FORMATS = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".rst": "restructuredtext"}
UNSTRUCTURED_FORMATS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".html": "html",
    ".htm": "html",
    ".eml": "email",
}
SUPPORTED_SUFFIXES = sorted({*TEXT_FORMATS, *UNSTRUCTURED_FORMATS})


def owner_upload_dir(settings: Settings, owner: str) -> Path:
    return settings.upload_dir if owner == settings.owner else settings.upload_dir / f"{PERSON_FOLDER_PREFIX}{owner}"


def owner_of_key(key: str, default_owner: str) -> str:
    """Whose document a key is: `@ada/notes.md` is ada's, anything else the default person's."""
    first = PurePosixPath(key).parts[0] if key else ""
    if first.startswith(PERSON_FOLDER_PREFIX) and len(first) > 1 and "/" in key:
        return first[1:]
    return default_owner


def key_within_owner(key: str) -> str:
    """The key as seen from inside its person's folder (`@ada/harbour/a.md` -> `harbour/a.md`)."""
    parts = PurePosixPath(key).parts
    if len(parts) > 1 and parts[0].startswith(PERSON_FOLDER_PREFIX) and len(parts[0]) > 1:
        return PurePosixPath(*parts[1:]).as_posix()
    return key

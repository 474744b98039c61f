"""Files from outside the upload folder, copied in by `subtext ingest` without overwriting another document.

A copy takes the file's own name. When that name already holds a different document (another
folder's `kickoff.md`), the copy takes the next free `kickoff (2).md` instead, so the first one's
facts stay. Each copy records where it came from (a small file in the state folder): ingesting
the same outside file again after editing it updates its own copy, a new version of one
document, rather than adding another.
"""

from __future__ import annotations

import filecmp
import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from graph_schema.settings import Settings

ORIGINS_FOLDER = "imports"  # in the state folder: one record per copy, naming the file it came from


def import_file(source: Path, wanted: Path, settings: Settings) -> Path:
    """Copy `source` into the upload folder at `wanted`, or at `wanted (n)` when `wanted` holds
    another document; returns the copy's path (an existing one when nothing needed copying)."""
    origin = str(source.resolve())
    taken = list(_taken(wanted))
    for target in taken:
        if _origin_of(target, settings) == origin:  # its own earlier copy: this is a new version
            return _copy(source, target, origin, settings)
    for target in taken:
        if target.is_file() and filecmp.cmp(source, target, shallow=False):  # the same document is already there
            if _origin_of(target, settings) is None:
                _record_origin(target, origin, settings)
            return target
    return _copy(source, _numbered(wanted, len(taken) + 1), origin, settings)


def _numbered(wanted: Path, n: int) -> Path:
    """`notes.md`, then `notes (2).md`, `notes (3).md`…"""
    return wanted if n == 1 else wanted.with_name(f"{wanted.stem} ({n}){wanted.suffix}")


def _taken(wanted: Path) -> Iterator[Path]:
    """The names in `wanted`'s sequence that already exist, up to the first free one."""
    n = 1
    while (candidate := _numbered(wanted, n)).exists() or candidate.is_symlink():
        yield candidate
        n += 1


def _copy(source: Path, target: Path, origin: str, settings: Settings) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists() or not filecmp.cmp(source, target, shallow=False):
        shutil.copy2(source, target)
    _record_origin(target, origin, settings)
    return target


def _record_file(target: Path, settings: Settings) -> Path:
    name = hashlib.sha256(str(target.resolve()).encode()).hexdigest()[:32]
    return settings.state_dir / ORIGINS_FOLDER / f"{name}.txt"


def _origin_of(target: Path, settings: Settings) -> str | None:
    record = _record_file(target, settings)
    return record.read_text() if record.is_file() else None


def _record_origin(target: Path, origin: str, settings: Settings) -> None:
    record = _record_file(target, settings)
    record.parent.mkdir(parents=True, exist_ok=True)
    temporary = record.with_name(f"{record.name}.{os.getpid()}.tmp")
    temporary.write_text(origin)
    temporary.replace(record)  # whole or not at all, should two ingests import at once

"""What changed in the upload folder since the last look (plain functions; the sensor wires them).

A cheap fingerprint (size, mtime) tells which files to look at again; the content hash decides
whether a file really changed, so touching a file or copying it back unchanged requests nothing.

Dagster launches one run per run_key, ever, so a run_key must name one change, not one content:
a file that goes back to an earlier version (A -> B -> A -> B), or is deleted, re-added and deleted
again, repeats a (key, hash) pair. The cursor therefore counts the changes of every key it has
seen (kept after a delete), and a change's run_key carries that count.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field

from pipeline.parse import content_hash

SERIES_LENGTH = 10  # hex digits naming a cursor's run_key series


class FileState(BaseModel):
    size: int
    mtime_ns: int
    sha256: str


class FolderChanges(BaseModel):
    new: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    state: dict[str, FileState] = Field(default_factory=dict)  # the cursor to keep for next time

    @property
    def any(self) -> bool:
        return bool(self.new or self.changed or self.deleted)


class SensorCursor(BaseModel):
    """What the sensor keeps between ticks."""

    # Names this cursor's series of run_keys: taken from the folder and its files when the sensor
    # starts without a cursor (first start, a cursor reset in the UI), so a new series never
    # repeats an older one's run_keys, and a re-tried first tick still gives the same keys.
    series: str = ""
    files: dict[str, FileState] = Field(default_factory=dict)
    changes: dict[str, int] = Field(default_factory=dict)  # per key, every change requested so far

    def run_key(self, key: str, what: str) -> str:
        """The run_key of the latest change of `key` (`what`: its content hash, or "deleted"):
        the same for a re-tried evaluation of one tick, different for every later change."""
        return f"{self.series}:{self.changes[key]}:{what}:{key}"


def read_cursor(text: str | None) -> SensorCursor:
    """The cursor as stored; one of the older form (only file states) starts a new series."""
    data = json.loads(text) if text else {}
    if "series" in data:
        return SensorCursor.model_validate(data)
    return SensorCursor(files={k: FileState(**v) for k, v in data.items()})


def advance(cursor: SensorCursor, upload_dir: Path) -> tuple[FolderChanges, SensorCursor]:
    """What changed since `cursor`, and the cursor that counts those changes."""
    changes = folder_changes(upload_dir, cursor.files)
    counts = dict(cursor.changes)
    for key in [*changes.new, *changes.changed, *changes.deleted]:
        counts[key] = counts.get(key, 0) + 1
    series = cursor.series or _series_of(upload_dir, changes.state)
    return changes, SensorCursor(series=series, files=changes.state, changes=counts)


def _series_of(upload_dir: Path, state: dict[str, FileState]) -> str:
    seen = json.dumps([str(upload_dir.resolve()), {k: v.model_dump() for k, v in state.items()}], sort_keys=True)
    return content_hash(seen.encode())[:SERIES_LENGTH]


def scan_upload_folder(upload_dir: Path) -> dict[str, tuple[int, int]]:
    """key -> (size, mtime_ns) of every visible file under the folder (symlinks are not followed)."""
    if not upload_dir.is_dir():
        return {}
    found = {}
    for path in sorted(upload_dir.rglob("*")):
        relative = path.relative_to(upload_dir)
        if any(part.startswith(".") for part in relative.parts) or path.is_symlink() or not path.is_file():
            continue
        stat = path.stat()
        found[relative.as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return found


def folder_changes(upload_dir: Path, previous: dict[str, FileState]) -> FolderChanges:
    changes = FolderChanges()
    for key, (size, mtime_ns) in scan_upload_folder(upload_dir).items():
        before = previous.get(key)
        if before and (before.size, before.mtime_ns) == (size, mtime_ns):
            changes.state[key] = before
            continue
        try:
            digest = content_hash((upload_dir / key).read_bytes())
        except OSError:
            continue  # vanished or unreadable mid-scan: the next tick sees it again
        changes.state[key] = FileState(size=size, mtime_ns=mtime_ns, sha256=digest)
        if before is None:
            changes.new.append(key)
        elif before.sha256 != digest:
            changes.changed.append(key)
    changes.deleted = sorted(k for k in previous if k not in changes.state)
    return changes

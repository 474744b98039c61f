"""What changed in the upload folder since the last look (plain functions; the sensor wires them).

A cheap fingerprint (size, mtime) tells which files to look at again; the content hash decides
whether a file really changed, so touching a file or copying it back unchanged requests nothing.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from pipeline.parse import content_hash


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

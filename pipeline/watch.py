"""What changed in the upload folder since the last look (plain functions; the sensor wires them).

A cheap fingerprint (size, mtime) tells which files to look at again; the content hash decides
whether a file really changed, so touching a file or copying it back unchanged requests nothing.

Dagster launches one run per run_key, ever, so a run_key must name one change, not one content:
a file that goes back to an earlier version (A -> B -> A -> B), or is deleted, re-added and deleted
again, repeats a (key, hash) pair. The state therefore counts the changes of every key it has
seen (kept after a delete), and a change's run_key carries that count.

The state (every file's fingerprint and change count) is kept in a file beside the Dagster
instance, one generation per change; the sensor's cursor only names the generation. Dagster
records the cursor with every tick, so a cursor holding every file's hash would grow the
instance by the folder's size on every tick (a folder of 100k files: megabytes a tick).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, Field

from pipeline.parse import content_hash

SERIES_LENGTH = 10  # hex digits naming a cursor's run_key series
STATE_FOLDER = "upload-sensor"  # under the Dagster storage folder: one file per generation of the state


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


class WatchState(BaseModel):
    """What the sensor keeps between ticks (in a file the cursor names, see `store_state`)."""

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


def read_cursor(text: str | None, folder: Path) -> tuple[WatchState, int]:
    """The state a cursor names and its generation (0: no stored generation yet).

    Cursors of older versions held the whole state (or only the file states, which starts a new
    series). A cursor whose state file is gone, or that names none (edited by hand), starts a
    series of its own, so that no run_key of the lost series is used again for another change.
    Any other error reading the file fails the tick, which Dagster evaluates again."""
    data = json.loads(text) if text else {}
    if "generation" in data:
        try:
            path = _state_path(folder, data.get("series"), data.get("generation"), data.get("digest"))
            return WatchState.model_validate_json(path.read_text()), data["generation"]
        except (FileNotFoundError, ValueError):
            lost = f"{data.get('series')}:{data.get('generation')}:{data.get('digest')}:lost"
            return WatchState(series=content_hash(lost.encode())[:SERIES_LENGTH]), 0
    if "series" in data:
        return WatchState.model_validate(data), 0
    return WatchState(files={k: FileState(**v) for k, v in data.items()}), 0


def store_state(state: WatchState, generation: int, folder: Path) -> str:
    """Write `state` as its series' generation `generation` and return the cursor naming it.

    A file is named by its content too, so it is never overwritten with another state: a second
    evaluation from the same cursor (the UI's "Test sensor" beside a real tick) writes a file of
    its own. Generations before the previous one are removed: a tick whose cursor Dagster does
    not keep (it failed after this) is evaluated again from the previous generation, which stays."""
    folder.mkdir(parents=True, exist_ok=True)
    text = state.model_dump_json()
    digest = content_hash(text.encode())[:SERIES_LENGTH]
    path = _state_path(folder, state.series, generation, digest)
    if not path.exists():
        written = path.with_name(path.name + ".tmp")
        with written.open("w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # a kept cursor never names an empty file after a power cut
        os.replace(written, path)  # a reader never sees half a state
    for old in folder.glob(f"{state.series}-*.json"):
        number = old.stem.split("-")[1]
        if number.isdigit() and int(number) < generation - 1:
            old.unlink(missing_ok=True)
    return json.dumps({"series": state.series, "generation": generation, "digest": digest})


def _state_path(folder: Path, series: object, generation: object, digest: object) -> Path:
    if not (isinstance(series, str) and series.isalnum() and isinstance(generation, int)
            and isinstance(digest, str) and digest.isalnum()):  # a cursor edited by hand names no other file
        raise ValueError(f"not a cursor of the upload sensor: {series!r}, {generation!r}, {digest!r}")
    return folder / f"{series}-{generation}-{digest}.json"


def advance(state: WatchState, upload_dir: Path) -> tuple[FolderChanges, WatchState]:
    """What changed since `state`, and the state that counts those changes."""
    changes = folder_changes(upload_dir, state.files)
    counts = dict(state.changes)
    for key in [*changes.new, *changes.changed, *changes.deleted]:
        counts[key] = counts.get(key, 0) + 1
    series = state.series or _series_of(upload_dir, changes.state)
    return changes, WatchState(series=series, files=changes.state, changes=counts)


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

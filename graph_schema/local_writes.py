"""A file that says "a subtext process on this machine just wrote to the graph".

The MCP server keeps what it read from Neo4j about access keys and graph versions for a few
seconds (`change_check_seconds`), because reading it costs a database round trip on every call,
a third of a cached brief's time. Every committed write (`db.write`) replaces this file, and a
server that finds it replaced reads Neo4j again at once: ingest runs, `subtext keys pause` and
the server's own writes are therefore seen on the very next call. Only writers on another
machine sharing NEO4J_URI go unseen, for at most `change_check_seconds`.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from typing import Generic, TypeVar

from graph_schema.settings import get_settings

WRITTEN_FILE = "graph.written"

T = TypeVar("T")


def mark_written() -> None:
    """Replace the file atomically with a new random token. A state folder that cannot be
    written only costs the servers their shortcut, never the write itself."""
    state = get_settings().state_dir
    scratch = state / f".{WRITTEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    try:
        state.mkdir(parents=True, exist_ok=True)
        scratch.write_text(secrets.token_hex(16), encoding="utf-8")
        os.replace(scratch, state / WRITTEN_FILE)
    except OSError:
        scratch.unlink(missing_ok=True)


def written_stamp() -> str:
    """The token of the last write on this machine ("" before the first one)."""
    try:
        return (get_settings().state_dir / WRITTEN_FILE).read_text(encoding="utf-8")
    except OSError:
        return ""


@dataclass(frozen=True)
class RecentRead(Generic[T]):
    """A value read from Neo4j, with when it was read and the write stamp taken just before."""

    value: T
    read_at: float
    stamp: str

    @classmethod
    def before_reading(cls, value: T, stamp: str) -> RecentRead[T]:
        return cls(value, time.monotonic(), stamp)

    def still_current(self) -> bool:
        """No write on this machine since, and read less than `change_check_seconds` ago."""
        age = time.monotonic() - self.read_at
        return age < get_settings().change_check_seconds and written_stamp() == self.stamp

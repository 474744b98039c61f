"""Per-person allowances per minute, shared by all of that person's keys (a sliding window).

Every tool call takes from the person's call allowance; edit_page_body and HTTP uploads also
take from one shared submission allowance. A call refused before any work (a paused key, a
read-only key asked to write, a malformed upload) is refused before it takes anything: it must
not lock the person's other keys out. A refusal that comes after the work (text found to be
outside a key's scope once it was read) is charged, or a key could make the server read for free.
Kept in this process's memory: one server process
serves a deployment, and a restart forgets at most a minute of history.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from graph_schema.errors import RateLimited

WINDOW_SECONDS = 60.0


class RateLimiter:
    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._calls: dict[tuple[str, str], deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, owner: str, allowances: dict[str, int]) -> None:
        """Take one slot from each named allowance (name -> per-minute limit), all or none.

        Raises RateLimited with the seconds until every one of them has a free slot."""
        now = self._clock()
        with self._lock:
            windows = []
            wait = 0.0
            for name, limit in allowances.items():
                window = self._calls.setdefault((owner, name), deque())
                while window and window[0] <= now - WINDOW_SECONDS:
                    window.popleft()
                if len(window) >= max(limit, 0):
                    frees_at = window[len(window) - limit] + WINDOW_SECONDS if limit > 0 else now + WINDOW_SECONDS
                    wait = max(wait, frees_at - now)
                windows.append(window)
            if wait > 0:
                raise RateLimited(max(1, math.ceil(wait)))
            for window in windows:
                window.append(now)

"""Per-person allowances per minute, shared by all of that person's keys (a sliding window).

Every tool call takes from the person's call allowance; edit_page_body and HTTP uploads also
take from one shared submission allowance. A refused call (a paused key, a read-only key asked to
write, an upload that is not accepted) gives its slots back: it did nothing, so it must not lock
the person's other keys out. Kept in this process's memory: one server process
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

    def take(self, owner: str, allowances: dict[str, int]) -> float:
        """Take one slot from each named allowance (name -> per-minute limit), all or none; returns
        the slots' time, which `give_back` needs.

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
        return now

    def give_back(self, owner: str, allowances: dict[str, int], taken_at: float) -> None:
        """Return the slots `take` gave at `taken_at` (for a call that was refused)."""
        with self._lock:
            for name in allowances:
                window = self._calls.get((owner, name))
                if window is not None and taken_at in window:
                    window.remove(taken_at)

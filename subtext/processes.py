"""Running a long-lived tool (`dagster dev`) so that Ctrl-C or SIGTERM stops it and everything it started.

`dagster dev` starts a webserver, a daemon and code servers. Told to stop, it asks them to, and
here they did not finish within 40 s (a bare Dagster project too), so a stopped `subtext dagster`
left five processes and the UI's port behind. The tool runs in a process group of its own: a stop
is passed on to it as Ctrl-C, and what is still running after `grace_seconds` is ended.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


def run_until_stopped(command: list[str], cwd: Path, grace_seconds: float) -> int:
    """Run `command` until it exits, or until this process gets SIGINT or SIGTERM; its exit code."""
    child = subprocess.Popen(command, cwd=cwd, start_new_session=True)
    stopping: list[int] = []
    previous = {s: signal.signal(s, lambda number, _frame: stopping.append(number))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while child.poll() is None and not stopping:
            try:
                child.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        if stopping:
            _stop_group(child, grace_seconds)
        return child.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stop_group(child: subprocess.Popen, grace_seconds: float) -> None:
    """Ctrl-C to the whole group (the tool's own way to stop), then SIGTERM, then SIGKILL."""
    for number, wait in ((signal.SIGINT, grace_seconds), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(child.pid, number)
        except ProcessLookupError:
            return  # the group is gone
        try:
            child.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        if not group_alive(child.pid):
            return


def group_alive(group: int) -> bool:
    """Whether any process of the process group `group` is still running."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True

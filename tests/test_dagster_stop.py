"""`subtext dagster` stops, with every process `dagster dev` started, when told to (real Dagster)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from graph_schema.settings import PROJECT_ROOT
from subtext.processes import group_alive


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_subtext_dagster_stops_every_process_on_sigterm(tmp_path):
    port = _free_port()
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    env = {**os.environ, "SUBTEXT_STATE_DIR": str(tmp_path / "state"), "SUBTEXT_UPLOAD_DIR": str(uploads)}
    ui = subprocess.Popen([sys.executable, "-m", "subtext.cli", "dagster", "--port", str(port)], cwd=PROJECT_ROOT,
                          env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert ui.poll() is None, "subtext dagster ended before its UI answered"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the Dagster UI never answered"
            time.sleep(1)
        groups = {os.getpgid(child) for child in _children(ui.pid)} - {os.getpgid(ui.pid)}
        groups |= {os.getpgid(ui.pid)}
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=30)  # the grace period (5 s) and the ends after it; `dagster dev` alone hung here
        time.sleep(1)
        assert not [g for g in groups if group_alive(g)], "processes of `subtext dagster` outlived it"
    finally:
        for group in {os.getpgid(p) for p in [ui.pid, *_children(ui.pid)] if Path(f"/proc/{p}").exists()}:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass

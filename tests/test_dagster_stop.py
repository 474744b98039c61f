"""`subtext dagster` stops, with every process `dagster dev` started, when told to (real Dagster)."""

from __future__ import annotations

import os
import signal
import time

from subtext.processes import group_alive
from tests.conftest import _free_port, child_pids, kill_process_groups, start_subtext_dagster


def test_subtext_dagster_stops_every_process_on_sigterm(tmp_path):
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    env = {**os.environ, "SUBTEXT_STATE_DIR": str(tmp_path / "state"), "SUBTEXT_UPLOAD_DIR": str(uploads)}
    ui = start_subtext_dagster(env, _free_port())
    try:
        groups = {os.getpgid(child) for child in child_pids(ui.pid)} | {os.getpgid(ui.pid)}
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=30)  # the grace period (5 s) and the ends after it; `dagster dev` alone hung here
        time.sleep(1)
        assert not [g for g in groups if group_alive(g)], "processes of `subtext dagster` outlived it"
    finally:
        kill_process_groups(ui.pid)

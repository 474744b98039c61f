"""What the MCP server keeps from Neo4j is dropped on the next call after any local write."""

from __future__ import annotations

import time

from graph_schema.local_writes import RecentRead, mark_written, written_stamp
from graph_schema.settings import reset_settings


def _settings(monkeypatch, tmp_path, seconds: str) -> None:
    monkeypatch.setenv("SUBTEXT_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("SUBTEXT_CHANGE_CHECK_SECONDS", seconds)
    reset_settings()


def test_a_local_write_ends_what_was_read_before_it(monkeypatch, tmp_path):
    _settings(monkeypatch, tmp_path, "60")
    assert written_stamp() == ""
    held = RecentRead.before_reading("brief v1", written_stamp())
    assert held.still_current()
    mark_written()
    assert not held.still_current()
    again = RecentRead.before_reading("brief v2", written_stamp())
    assert again.still_current()
    mark_written()
    mark_written()
    assert not again.still_current()
    assert not list(tmp_path.glob(".graph.written.*"))  # no scratch files left behind
    reset_settings()


def test_nothing_is_relied_on_longer_than_the_setting(monkeypatch, tmp_path):
    _settings(monkeypatch, tmp_path, "0.2")
    held = RecentRead.before_reading("key", written_stamp())
    assert held.still_current()
    time.sleep(0.25)
    assert not held.still_current()
    _settings(monkeypatch, tmp_path, "0")
    assert not RecentRead.before_reading("key", written_stamp()).still_current()
    reset_settings()

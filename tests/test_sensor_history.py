"""Every change of an upload-folder file becomes a run, however often a version repeats, and every
ingest run leaves the brief of the person it wrote for current.

The sensor is evaluated through Dagster's public API and its run requests are executed for real,
with the daemon's one-run-per-run_key rule (see `launch_requested_runs`).
"""

from __future__ import annotations

import os

import pytest

from graph_schema.kinds import SourceKind
from graph_schema.queries.brief import load_brief
from graph_schema.queries.documents import source_states
from graph_schema.queries.pages import get_page
from graph_schema.slugs import source_id_for
from pipeline.run import ingest_paths
from tests.conftest import write
from tests.test_sensor_and_retire import evaluate_sensor, launch_requested_runs

LEADS = "Ingrid Solberg leads the Fjord Ferry project."
SIGNED = "Ingrid Solberg signed the Fjord Ferry contract with Norsk Maritime."


def _facts(graph, slug: str, owner: str | None = None) -> set[str]:
    page = graph["db"].read(graph["driver"], get_page, owner or graph["owner"], slug, 50)
    return {f.text for f in page.facts} if page else set()


def _tick_and_run(cursor: str | None) -> tuple[str, list[str]]:
    tick = evaluate_sensor(cursor)
    return tick.cursor, launch_requested_runs(tick)


def _set_version(path, text: str, step: int) -> None:
    """Write a version with its own mtime, so the sensor's cheap (size, mtime) check looks again."""
    write(path.parent, path.name, text)
    os.utime(path, ns=(10**18 + step, 10**18 + step))


def test_a_file_that_returns_to_an_earlier_version_is_ingested_every_time(graph):
    path = graph["upload"] / f"{graph['owner']}.md"  # partitions are shared by the session's tests
    cursor, run_keys = None, []
    for step, (text, gone) in enumerate([(LEADS, SIGNED), (SIGNED, LEADS), (LEADS, SIGNED), (SIGNED, LEADS)]):
        _set_version(path, text, step)
        cursor, launched = _tick_and_run(cursor)
        assert len(launched) == 1, f"change {step + 1} ({text[:25]}…) launched {launched}"
        run_keys += launched
        facts = _facts(graph, "ingrid-solberg")
        assert text in facts and gone not in facts, (step, facts)
    assert len(set(run_keys)) == 4


def test_a_file_deleted_re_added_and_deleted_again_is_retired_twice(graph):
    path = graph["upload"] / f"{graph['owner']}.md"  # partitions are shared by the session's tests
    _set_version(path, LEADS, 0)
    cursor, launched = _tick_and_run(None)
    assert len(launched) == 1 and LEADS in _facts(graph, "ingrid-solberg")
    for step, present in enumerate([False, True, False], start=1):
        if present:
            _set_version(path, LEADS, step)
        else:
            path.unlink()
        cursor, launched = _tick_and_run(cursor)
        assert len(launched) == 1, f"step {step} ({'re-added' if present else 'deleted'}) launched {launched}"
        assert (LEADS in _facts(graph, "ingrid-solberg")) == present, step


def test_files_that_arrive_together_are_all_ingested_by_their_one_run(graph):
    names = [f"{graph['owner']}-{n}.md" for n in "abc"]  # three, so the range has a middle key
    for name, person in zip(names, ["Ingrid Solberg", "Marta Kowalski", "Priya Natarajan"]):
        write(graph["upload"], name, f"{person} joined the Fjord Ferry project.")
    tick = evaluate_sensor(None)
    assert len(tick.run_requests) == 1
    assert len(launch_requested_runs(tick)) == 1
    ids = {source_id_for(graph["owner"], SourceKind.DOCUMENT, name): name for name in names}
    states = graph["db"].read(graph["driver"], source_states, graph["owner"], list(ids))
    assert {ids[i]: status for i, (_, status) in states.items()} == {name: "ingested" for name in names}


def _brief_is_current_and_names(graph, owner: str, name: str) -> None:
    version, brief = graph["db"].read(graph["driver"], load_brief, owner)
    assert brief is not None, f"no brief was built for {owner}"
    assert brief["graph_version"] == version, f"the brief of {owner} is behind the graph ({brief['graph_version']} < {version})"
    assert name in brief["text"], brief["text"]


def test_a_sensor_run_rebuilds_the_brief_of_the_person_whose_folder_changed(graph):
    other = f"{graph['owner']}-b"
    write(graph["upload"], f"@{other}/ferry.md", SIGNED)
    _, launched = _tick_and_run(None)
    assert len(launched) == 1
    assert SIGNED in _facts(graph, "ingrid-solberg", other)
    _brief_is_current_and_names(graph, other, "Ingrid Solberg")


def test_ingest_rebuilds_the_brief_of_the_person_whose_documents_it_read(graph):
    other = f"{graph['owner']}-b"
    report = ingest_paths([write(graph["upload"], f"@{other}/ferry.md", LEADS)])
    assert [o.status for o in report.outcomes] == ["ingested"] and report.brief_rebuilt
    _brief_is_current_and_names(graph, other, "Ingrid Solberg")


def test_run_keys_name_each_change_and_repeat_only_for_a_retried_tick(tmp_path):
    """No database: the cursor arithmetic alone (pipeline.watch)."""
    from pipeline.watch import advance, read_cursor, store_state

    upload, folder = tmp_path / "upload", tmp_path / "sensor-state"
    upload.mkdir()
    path = upload / "ferry.md"
    cursor, keys = None, []
    for step, text in enumerate([LEADS, SIGNED, LEADS, SIGNED, None, LEADS, None]):
        if text is None:
            path.unlink()
        else:
            _set_version(path, text, step)
        state, generation = read_cursor(cursor, folder)
        changes, after = advance(state, upload)
        stored = store_state(after, generation + 1, folder)
        assert advance(read_cursor(cursor, folder)[0], upload)[1] == after  # a re-tried tick
        assert changes.any
        keys.append(after.run_key("ferry.md", "deleted" if text is None else changes.state["ferry.md"].sha256[:12]))
        cursor = stored
    assert len(set(keys)) == len(keys)
    assert not advance(read_cursor(cursor, folder)[0], upload)[0].any
    assert len(list(folder.iterdir())) == 2  # this generation and the one before


def test_a_cursor_whose_state_is_gone_starts_a_series_of_its_own(tmp_path):
    from pipeline.watch import advance, read_cursor, store_state

    upload, folder = tmp_path / "upload", tmp_path / "sensor-state"
    upload.mkdir()
    _set_version(upload / "ferry.md", LEADS, 0)
    state, generation = read_cursor(None, folder)
    changes, after = advance(state, upload)
    cursor = store_state(after, generation + 1, folder)
    for stored in folder.iterdir():
        stored.unlink()
    lost, generation = read_cursor(cursor, folder)
    assert generation == 0 and lost.files == {} and lost.series and lost.series != after.series
    _, again = advance(lost, upload)
    assert again.run_key("ferry.md", "x") != after.run_key("ferry.md", "x")  # never the lost series' keys


OTHER_TEXT = "Tomasz Nowak joined the Baltic Freight Forum as treasurer."


def test_a_second_evaluation_from_one_cursor_never_rewrites_the_state_another_cursor_names(tmp_path):
    """The UI's "Test sensor" beside a real tick: both start from one cursor and see different
    folders; the state the kept cursor names is still the one it was written with."""
    from pipeline.watch import advance, read_cursor, store_state

    upload, folder = tmp_path / "upload", tmp_path / "sensor-state"
    upload.mkdir()
    _set_version(upload / "ferry.md", LEADS, 0)
    first = store_state(advance(read_cursor(None, folder)[0], upload)[1], 1, folder)
    _set_version(upload / "notes.md", OTHER_TEXT, 1)
    state, generation = read_cursor(first, folder)
    _, seen_by_tick = advance(state, upload)
    kept = store_state(seen_by_tick, generation + 1, folder)
    _set_version(upload / "ferry.md", SIGNED, 2)
    _, seen_by_test = advance(state, upload)
    store_state(seen_by_test, generation + 1, folder)
    assert read_cursor(kept, folder)[0] == seen_by_tick
    assert advance(read_cursor(kept, folder)[0], upload)[0].changed == ["ferry.md"]  # the change is still ahead


def test_a_state_file_that_cannot_be_read_fails_the_tick_instead_of_starting_over(tmp_path):
    import json

    from pipeline.watch import advance, read_cursor, store_state

    upload, folder = tmp_path / "upload", tmp_path / "sensor-state"
    upload.mkdir()
    _set_version(upload / "ferry.md", LEADS, 0)
    cursor = store_state(advance(read_cursor(None, folder)[0], upload)[1], 1, folder)
    [stored] = folder.iterdir()
    stored.unlink()
    stored.mkdir()  # unreadable as a file (an I/O error, not a lost file): Dagster evaluates the tick again
    with pytest.raises(OSError):
        read_cursor(cursor, folder)
    assert read_cursor(json.dumps({"generation": "x"}), folder)[1] == 0  # a cursor edited by hand starts over

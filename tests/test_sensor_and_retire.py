"""The upload-folder sensor asks for the right runs, and a deleted file's facts are retired."""

from __future__ import annotations

import os

from dagster import build_sensor_context

from graph_schema.queries.pages import get_page
from pipeline.definitions import defs
from pipeline.run import dagster_instance, run_ingest
from tests.conftest import write

TEXT = "Marta Kowalski chairs the Baltic Freight Forum. Marta Kowalski invited Northwind Logistics."
OTHER = "Tomasz Nowak joined the Baltic Freight Forum as treasurer."


def _evaluate(cursor: str | None):
    # As in the daemon, partition keys are checked against the instance's dynamic partitions.
    from dagster._core.definitions.partitions.context import partition_loading_context

    instance = dagster_instance()
    sensor = defs.get_sensor_def("upload_folder")
    context = build_sensor_context(instance=instance, cursor=cursor, repository_def=defs.get_repository_def())
    with partition_loading_context(dynamic_partitions_store=instance):
        return sensor.evaluate_tick(context)


def test_sensor_requests_new_changed_and_deleted_files_once(graph):
    # Partition keys live in the shared Dagster instance: names unique to this test's owner.
    a, b = f"forum/{graph['owner']}-a.md", f"{graph['owner']}-b.md"
    write(graph["upload"], a, TEXT)
    write(graph["upload"], b, OTHER)
    first = _evaluate(None)
    assert len(first.run_requests) == 1  # arrived together: one run over the new partitions
    tags = first.run_requests[0].tags
    assert {tags["dagster/asset_partition_range_start"], tags["dagster/asset_partition_range_end"]} == {a, b}
    added = first.dynamic_partitions_requests[0].partition_keys
    assert sorted(added) == sorted([a, b])
    dagster_instance().add_dynamic_partitions("documents", added)  # what the daemon does with it

    quiet = _evaluate(first.cursor)
    assert quiet.run_requests == [] and quiet.skip_message

    path = graph["upload"] / b
    os.utime(path, ns=(1, 1))  # touched, same content: nothing to do
    assert _evaluate(quiet.cursor).run_requests == []

    write(graph["upload"], b, OTHER + " He lives in Gdansk.")
    changed = _evaluate(quiet.cursor)
    assert [r.partition_key for r in changed.run_requests] == [b]

    path.unlink()
    deleted = _evaluate(changed.cursor)
    assert [r.partition_key for r in deleted.run_requests] == [b]
    assert "deleted" in deleted.run_requests[0].run_key


def test_deleting_a_file_retires_only_what_it_alone_said(graph):
    write(graph["upload"], "a.md", TEXT)
    write(graph["upload"], "b.md", OTHER + " " + TEXT.split(". ")[0] + ".")
    report = run_ingest(["a.md", "b.md"])
    assert {o.status for o in report.outcomes} == {"ingested"}

    (graph["upload"] / "a.md").unlink()
    retired = run_ingest(["a.md"])
    assert retired.outcomes[0].status == "retired" and retired.brief_rebuilt
    page = graph["db"].read(graph["driver"], get_page, graph["owner"], "marta-kowalski", 50)
    texts = {f.text for f in page.facts}
    assert "Marta Kowalski chairs the Baltic Freight Forum." in texts  # b.md states it too
    assert not any("invited" in t for t in texts)  # only a.md said it: retired, hidden
    assert all(s.key == "b.md" for f in page.facts for s in f.sources)

    again = run_ingest(["a.md"])
    assert again.outcomes[0].status == "unchanged"

"""The upload-folder sensor asks for the right runs, and a deleted file's facts are retired."""

from __future__ import annotations

import os

from dagster import RunsFilter, SensorResult, build_sensor_context

from graph_schema.queries.pages import get_page
from pipeline.definitions import defs
from pipeline.run import dagster_instance, run_ingest
from tests.conftest import write

TEXT = "Marta Kowalski chairs the Baltic Freight Forum. Marta Kowalski invited Northwind Logistics."
OTHER = "Tomasz Nowak joined the Baltic Freight Forum as treasurer."
SENSOR = "upload_folder"


def evaluate_sensor(cursor: str | None) -> SensorResult:
    """One tick of the upload-folder sensor, called the way Dagster's public API allows."""
    context = build_sensor_context(instance=dagster_instance(), cursor=cursor)
    return defs.resolve_sensor_def(SENSOR)(context)


def launch_requested_runs(tick: SensorResult) -> list[str]:
    """What the daemon does with a tick, for real: add the requested partitions, then launch each
    run request whose run_key this sensor has not used before (Dagster launches one run per
    run_key, ever, and silently drops the rest). Runs execute in this process; returns the
    run_keys of the runs launched."""
    instance = dagster_instance()
    for request in tick.dynamic_partitions_requests:
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    launched = []
    for request in tick.run_requests:
        origin = {"dagster/sensor_name": SENSOR, "dagster/run_key": request.run_key}
        if instance.get_runs(filters=RunsFilter(tags=origin), limit=1):
            continue
        job = defs.resolve_job_def(request.job_name)
        result = job.execute_in_process(instance=instance, partition_key=request.partition_key,
                                        tags={**request.tags, **origin}, raise_on_error=False)
        assert result.success, f"run {result.run_id} for {request.run_key} failed"
        launched.append(request.run_key)
    return launched


def test_sensor_requests_new_changed_and_deleted_files_once(graph):
    # Partition keys live in the shared Dagster instance: names unique to this test's owner.
    a, b = f"forum/{graph['owner']}-a.md", f"{graph['owner']}-b.md"
    write(graph["upload"], a, TEXT)
    write(graph["upload"], b, OTHER)
    first = evaluate_sensor(None)
    assert len(first.run_requests) == 1  # arrived together: one run over the new partitions
    tags = first.run_requests[0].tags
    assert {tags["dagster/asset_partition_range_start"], tags["dagster/asset_partition_range_end"]} == {a, b}
    added = first.dynamic_partitions_requests[0].partition_keys
    assert sorted(added) == sorted([a, b])
    dagster_instance().add_dynamic_partitions("documents", added)  # what the daemon does with it

    quiet = evaluate_sensor(first.cursor)
    assert quiet.run_requests == [] and quiet.skip_reason.skip_message

    path = graph["upload"] / b
    os.utime(path, ns=(1, 1))  # touched, same content: nothing to do
    assert evaluate_sensor(quiet.cursor).run_requests == []

    write(graph["upload"], b, OTHER + " He lives in Gdansk.")
    changed = evaluate_sensor(quiet.cursor)
    assert [r.partition_key for r in changed.run_requests] == [b]

    path.unlink()
    deleted = evaluate_sensor(changed.cursor)
    assert [r.partition_key for r in deleted.run_requests] == [b]
    assert "deleted" in deleted.run_requests[0].run_key


def test_files_whose_content_the_graph_holds_get_no_run(graph):
    from pipeline.run import ingest_paths

    # Ingested by `subtext ingest` while no daemon ran: the sensor's first tick finds them unknown.
    a, b = f"held/{graph['owner']}-a.md", f"held/{graph['owner']}-b.md"
    report = ingest_paths([write(graph["upload"], a, TEXT), write(graph["upload"], b, OTHER)])
    assert {o.status for o in report.outcomes} == {"ingested"}
    first = evaluate_sensor(None)
    assert first.run_requests == [], [r.run_key for r in first.run_requests]

    write(graph["upload"], b, OTHER + " He lives in Gdansk.")  # a new version: the graph lacks it
    c = f"held/{graph['owner']}-c.md"
    write(graph["upload"], c, "Ewa Lis audits the Baltic Freight Forum.")
    second = evaluate_sensor(first.cursor)
    requested = {r.partition_key or r.tags["dagster/asset_partition_range_start"] for r in second.run_requests}
    assert requested == {b, c}


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


def test_a_forced_run_processes_a_document_the_graph_already_holds(graph):
    from pipeline.run import ingest_paths

    key = f"forced/{graph['owner']}.md"
    assert {o.status for o in ingest_paths([write(graph["upload"], key, TEXT)]).outcomes} == {"ingested"}
    job = defs.resolve_job_def("ingest_documents")
    again = job.execute_in_process(instance=dagster_instance(), partition_key=key)
    assert again.output_for_node("graph_merge")[key].status == "unchanged"  # without force: nothing to do
    forced = job.execute_in_process(instance=dagster_instance(), partition_key=key, tags={"subtext/force": "true"})
    outcome = forced.output_for_node("graph_merge")[key]
    assert outcome.status == "ingested" and outcome.pages_updated, outcome
    assert "subtext/force" in job.description

    # `subtext status` names the document of a one-document run (it called such runs 'brief')
    from pipeline.run_history import recent_runs

    listed = {run.run_id: run for run in recent_runs(dagster_instance(), 20)}
    assert listed[forced.run_id].documents == key and listed[forced.run_id].job == "ingest_documents"


def test_graph_writes_queue_per_person_not_across_people(graph):
    from dagster import DagsterRun
    from dagster._utils.tags import TagConcurrencyLimitsCounter  # the daemon's own queue rule

    ada, bo = f"@{graph['owner']}-ada/notes.md", f"@{graph['owner']}-bo/notes.md"
    write(graph["upload"], ada, TEXT)
    write(graph["upload"], bo, OTHER)
    tick = evaluate_sensor(None)
    tags = {r.tags["dagster/asset_partition_range_start"]: r.tags for r in tick.run_requests}
    limits = dagster_instance().run_coordinator.get_run_queue_config().tag_concurrency_limits

    def run(run_tags: dict) -> DagsterRun:
        return DagsterRun(job_name="ingest_documents", tags={**defs.resolve_job_def("ingest_documents").tags, **run_tags})

    queue = TagConcurrencyLimitsCounter(limits, [run(tags[ada])])  # ada's run is writing
    assert not queue.is_blocked(run(tags[bo]))  # bo's run goes at the same time
    assert queue.is_blocked(run(tags[ada]))  # a second run of ada's waits


def test_the_sensor_cursor_stays_small_however_many_files_the_folder_holds(graph):
    """Dagster records the cursor with every tick: it names the state, it does not hold it."""
    folder = graph["upload"] / f"many-{graph['owner']}"
    for i in range(300):
        write(folder, f"note-{i:03}.md", f"Note {i} of the harbour archive.")
    first = evaluate_sensor(None)
    assert len(first.run_requests) == 1 and len(first.cursor) < 120, len(first.cursor)
    quiet = evaluate_sensor(first.cursor)
    assert quiet.run_requests == [] and quiet.cursor == first.cursor
    write(folder, "note-007.md", "Note 7 of the harbour archive, revised.")
    changed = evaluate_sensor(quiet.cursor)  # the state the cursor names still knows every file
    assert [r.partition_key for r in changed.run_requests] == [f"many-{graph['owner']}/note-007.md"]
    assert len(changed.cursor) < 120

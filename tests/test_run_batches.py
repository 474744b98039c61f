"""A batch of documents is one Dagster run, wherever its documents sit in the partition order,
and that run touches only them (issue 17: with history, ingest fell to one run per document)."""

from __future__ import annotations

from pipeline.assets import documents
from pipeline.definitions import defs
from pipeline.run import dagster_instance, ingest_paths
from pipeline.run_history import failure_reason
from pipeline.sensors import PARTITION_TAG, RANGE_END_TAG, RANGE_START_TAG
from tests.conftest import merges_of, write

TEXTS = [
    "Ingrid Solberg leads the Fjord Ferry project.",
    "Marta Kowalski signed the Fjord Ferry contract with Norsk Maritime.",
    "Priya Natarajan reviewed the Fjord Ferry budget.",
]
EDITED = "Ingrid Solberg left the Fjord Ferry project."
NEW = "Tomas Berg joined Norsk Maritime as its harbour engineer."


def test_an_edited_old_document_and_a_new_one_are_one_run_over_exactly_them(graph):
    upload, owner = graph["upload"], graph["owner"]
    names = [f"{owner}-{i}.md" for i in range(3)]  # partitions are shared by the session's tests
    first = ingest_paths([write(upload, name, text) for name, text in zip(names, TEXTS)])
    assert len(first.run_ids) == 1

    # The edited first document and a new one: two untouched documents lie between them in the
    # partition order.
    write(upload, names[0], EDITED)
    added = f"{owner}-new.md"
    second = ingest_paths([upload / names[0], write(upload, added, NEW)])

    assert len(second.run_ids) == 1
    assert sorted((o.key, o.status) for o in second.outcomes) == sorted([(names[0], "ingested"), (added, "ingested")])
    instance = dagster_instance()
    run = instance.get_run_by_id(second.run_ids[0])
    order = instance.get_dynamic_partitions(documents.name)
    covered = order[order.index(run.tags[RANGE_START_TAG]) : order.index(run.tags[RANGE_END_TAG]) + 1]
    assert sorted(covered) == sorted([names[0], added])  # what a re-execution of the run would cover
    assert [merges_of(instance, name) for name in names] == [2, 1, 1]
    assert merges_of(instance, added) == 1


def test_a_run_started_again_with_its_tags_does_its_own_documents_or_says_why_not(graph):
    """What a re-execution from `subtext dagster` does: the job, again, with the run's tags."""
    upload, owner = graph["upload"], graph["owner"]
    names = [f"{owner}-{i}.md" for i in range(3)]
    first = ingest_paths([write(upload, name, text) for name, text in zip(names, TEXTS)])
    write(upload, names[1], EDITED)
    added = f"{owner}-new.md"
    second = ingest_paths([upload / names[1], write(upload, added, NEW)])  # moves names[1] after names[2]
    assert len(second.run_ids) == 1

    instance = dagster_instance()
    job = defs.resolve_job_def("ingest_documents")
    again = job.execute_in_process(instance=instance, tags=instance.get_run_by_id(second.run_ids[0]).tags,
                                   raise_on_error=False)
    assert again.success
    assert sorted(again.output_for_node("graph_merge")) == sorted([names[1], added])

    # The first run's range (names[0] … names[2]) no longer holds names[1]: it refuses to run.
    old = job.execute_in_process(instance=instance, tags=instance.get_run_by_id(first.run_ids[0]).tags,
                                 raise_on_error=False)
    assert not old.success
    assert "ingest the documents again" in failure_reason(instance, old.run_id)
    assert [merges_of(instance, name) for name in names] == [1, 3, 1]


def test_a_re_executed_edit_writes_to_the_person_it_was_written_for(graph):
    """edit_page_body's run for a person re-executed as the UI does (the code location's resources,
    which name no person; the run's tags): the person comes from the run, not the default one."""
    from dagster import RunsFilter

    from pipeline.assets import FORCE_TAG
    from pipeline.run import submit_text

    other = f"{graph['owner']}-other"  # SUBTEXT_OWNER is the test's own person
    outcome = submit_text("Ingrid Solberg leads the Fjord Ferry project.", owner=other, new_project="Fjord Ferry")
    instance = dagster_instance()
    # one document runs as its partition (a range of one would cost Dagster two lookups an event)
    parent = instance.get_runs(filters=RunsFilter(tags={PARTITION_TAG: outcome.key}), limit=1)[0]
    again = defs.resolve_job_def("ingest_documents").execute_in_process(
        instance=instance, tags={**parent.tags, FORCE_TAG: "true"}, raise_on_error=False)
    assert again.success
    with graph["driver"].session() as session:
        holders = session.run("MATCH (s:Source {key: $key}) RETURN s.owner AS owner", key=outcome.key).value()
    assert holders == [other]

"""The Dagster code location loads and holds what the UI shows."""

from __future__ import annotations

from pipeline.definitions import defs


def test_definitions_load_with_partitioned_assets_and_jobs():
    repository = defs.get_repository_def()
    keys = {key.to_user_string() for key in repository.asset_graph.get_all_asset_keys()}
    ingest = {"parsed_documents", "document_mentions", "resolved_entities", "graph_merge", "context_brief"}
    assert keys == ingest | {"duplicate_review_pairs", "focus_area_proposals"}
    job = defs.resolve_job_def("ingest_documents")
    assert job.partitions_def is not None and job.partitions_def.name == "documents"
    assert job.tags["subtext/graph-writes"] == "true"
    # Every ingest run ends by refreshing the brief of the person it wrote for.
    assert {node.name for node in job.nodes} == ingest
    assert [name for name in repository.job_names if not name.startswith("__")] == ["ingest_documents", "scan_duplicates", "propose_focus_areas"]
    # graph upkeep runs on its own, on a schedule that is on unless the person turns it off in the UI
    assert sorted(s.job_name for s in repository.schedule_defs) == ["propose_focus_areas", "scan_duplicates"]


def test_the_graph_connection_comes_from_environment_variables_the_ui_can_show(monkeypatch):
    from dagster import EnvVar

    from pipeline.resources import connection_from_environment

    for name in ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "SUBTEXT_NEO4J_URI", "SUBTEXT_NEO4J_USERNAME",
                 "SUBTEXT_NEO4J_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    assert connection_from_environment() == {}  # the embedded server: address and password from the state folder
    monkeypatch.setenv("NEO4J_URI", "neo4j://127.0.0.1:7999")
    monkeypatch.setenv("SUBTEXT_NEO4J_PASSWORD", "secret")
    assert connection_from_environment() == {"uri": EnvVar("NEO4J_URI"), "password": EnvVar("SUBTEXT_NEO4J_PASSWORD")}
    # found in review: the settings read the first variable that is set, even when it is empty, and so must the runs
    monkeypatch.setenv("NEO4J_URI", "")
    monkeypatch.setenv("SUBTEXT_NEO4J_URI", "bolt://127.0.0.1:7998")
    assert connection_from_environment()["uri"] == EnvVar("NEO4J_URI")


def test_a_run_opens_the_graph_driver_when_it_starts_and_closes_it_when_it_ends(graph):
    import neo4j
    import pytest
    from dagster import build_resources

    from pipeline.resources import GraphResource

    with build_resources({"graph": GraphResource(owner=graph["owner"])}) as resources:
        driver = resources.graph.driver()
        assert resources.graph.driver() is driver  # one driver for the whole run
        assert driver.execute_query("RETURN 1 AS one").records[0]["one"] == 1
    with pytest.raises(neo4j.exceptions.DriverError):
        driver.execute_query("RETURN 1 AS one")

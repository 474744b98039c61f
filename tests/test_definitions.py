"""The Dagster code location loads and holds what the UI shows."""

from __future__ import annotations

from pipeline.definitions import defs


def test_definitions_load_with_partitioned_assets_and_jobs():
    repository = defs.get_repository_def()
    keys = {key.to_user_string() for key in repository.asset_graph.get_all_asset_keys()}
    assert keys == {"parsed_documents", "document_mentions", "resolved_entities", "graph_merge", "context_brief"}
    job = defs.resolve_job_def("ingest_documents")
    assert job.partitions_def is not None and job.partitions_def.name == "documents"
    assert job.tags["subtext/graph-writes"] == "true"
    # Every ingest run ends by refreshing the brief of the person it wrote for.
    assert {node.name for node in job.nodes} == keys
    assert [name for name in repository.job_names if not name.startswith("__")] == ["ingest_documents"]

"""Stage outputs are kept per person and upload folder: two people with the same document key
never read each other's intermediate results, even when a later step is re-run alone."""

from __future__ import annotations

from dagster import materialize

from graph_schema.queries.pages import get_page
from graph_schema.settings import reset_settings
from pipeline.assets import INGEST_ASSETS, parsed_documents
from pipeline.definitions import resources
from pipeline.run import dagster_instance
from tests.conftest import write

MINE = "Ingrid Solberg leads the Fjord Ferry project."
THEIRS = "Marta Kowalski signed the Fjord Ferry contract with Norsk Maritime."


def _as(monkeypatch, owner: str, upload) -> None:
    monkeypatch.setenv("SUBTEXT_OWNER", owner)
    monkeypatch.setenv("SUBTEXT_UPLOAD_DIR", str(upload))
    reset_settings()


def test_people_with_one_document_key_never_see_each_others_stage_outputs(graph, tmp_path, monkeypatch):
    key = "kickoff.md"
    other, other_upload = f"{graph['owner']}-b", tmp_path / "their-uploads"
    write(graph["upload"], key, MINE)
    write(other_upload, key, THEIRS)
    instance = dagster_instance()
    instance.add_dynamic_partitions("documents", [key])

    def run(selection) -> None:
        result = materialize(INGEST_ASSETS, selection=selection, partition_key=key, instance=instance,
                             resources=resources())
        assert result.success

    run([parsed_documents])  # my document parsed ...
    _as(monkeypatch, other, other_upload)
    run([parsed_documents])  # ... then theirs, under the same key
    _as(monkeypatch, graph["owner"], graph["upload"])
    run([a for a in INGEST_ASSETS if a is not parsed_documents])  # my later steps re-run alone

    mine = graph["db"].read(graph["driver"], get_page, graph["owner"], "ingrid-solberg", 50)
    assert mine is not None and MINE in {f.text for f in mine.facts}
    assert graph["db"].read(graph["driver"], get_page, graph["owner"], "marta-kowalski", 50) is None

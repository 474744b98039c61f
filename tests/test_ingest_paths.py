"""`subtext ingest` of files outside the upload folder: nothing is overwritten, and no document
key reaches outside the upload folder."""

from __future__ import annotations

import pytest

from graph_schema.errors import InvalidRequest
from graph_schema.queries.pages import get_page
from graph_schema.settings import get_settings
from pipeline.run import ingest_paths, run_ingest
from pipeline.stages import path_of_key
from tests.conftest import write

LEADS = "Ingrid Solberg leads the Fjord Ferry project."
SIGNED = "Marta Kowalski signed the Fjord Ferry contract with Norsk Maritime."


def _facts(graph, slug: str) -> set[str]:
    page = graph["db"].read(graph["driver"], get_page, graph["owner"], slug, 50)
    return {f.text for f in page.facts} if page else set()


def test_two_different_files_with_one_name_are_both_kept(graph, tmp_path):
    first = write(tmp_path / "one", "kickoff.md", LEADS)
    second = write(tmp_path / "two", "kickoff.md", SIGNED)
    one = ingest_paths([first]).outcomes
    two = ingest_paths([second]).outcomes
    assert [o.status for o in one + two] == ["ingested", "ingested"]
    assert one[0].key != two[0].key
    assert (graph["upload"] / one[0].key).read_text() == LEADS
    assert (graph["upload"] / two[0].key).read_text() == SIGNED
    assert LEADS in _facts(graph, "ingrid-solberg") and SIGNED in _facts(graph, "marta-kowalski")

    # The same file again is the same document (unchanged); a new version of it updates that document.
    again = ingest_paths([second]).outcomes
    assert [(o.key, o.status) for o in again] == [(two[0].key, "unchanged")]
    write(tmp_path / "two", "kickoff.md", SIGNED.replace("signed", "cancelled"))
    edited = ingest_paths([second]).outcomes
    assert [(o.key, o.status) for o in edited] == [(two[0].key, "ingested")]
    assert not any("signed" in t for t in _facts(graph, "marta-kowalski"))
    assert LEADS in _facts(graph, "ingrid-solberg")


def test_two_folders_with_one_relative_path_are_both_kept(graph, tmp_path):
    write(tmp_path / "one" / "harbour", "notes.md", LEADS)
    write(tmp_path / "two" / "harbour", "notes.md", SIGNED)
    one = ingest_paths([tmp_path / "one"]).outcomes
    two = ingest_paths([tmp_path / "two"]).outcomes
    assert [o.status for o in one + two] == ["ingested", "ingested"]
    assert one[0].key != two[0].key and two[0].key.startswith("harbour/")
    assert LEADS in _facts(graph, "ingrid-solberg") and SIGNED in _facts(graph, "marta-kowalski")


def test_a_missing_file_on_the_command_line_is_a_clear_error(graph, tmp_path):
    with pytest.raises(InvalidRequest, match="does not exist"):
        ingest_paths([tmp_path / "nowhere" / "missing.md"])


def test_an_absolute_partition_key_is_refused(graph, tmp_path):
    outside = write(tmp_path / "outside", "secret.md", LEADS)
    refused = path_of_key(str(outside), get_settings())
    assert isinstance(refused, str) and "absolute" in refused
    outcomes = run_ingest([str(outside)]).outcomes  # as if typed into the Dagster UI
    assert [o.status for o in outcomes] == ["failed"] and "absolute" in outcomes[0].reason
    assert _facts(graph, "ingrid-solberg") == set()


def test_ingest_prints_whole_document_keys_when_its_output_is_not_a_terminal(graph):
    import os
    import subprocess
    import sys

    from tests.conftest import PROJECT_ROOT, write

    key = "a-focus-area-with-a-long-name/minutes-of-the-quarterly-steering-committee-meeting-2026-11.md"
    write(graph["upload"], key, "Marta Kowalski chairs the Baltic Freight Forum.\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    shown = subprocess.run([sys.executable, "-m", "subtext.cli", "ingest", str(graph["upload"] / key)],
                           cwd=PROJECT_ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert shown.returncode == 0, shown.stderr
    assert f"{key}\tingested\t" in shown.stdout, shown.stdout  # one whole line per document, never cut

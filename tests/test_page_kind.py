"""`subtext pages kind SLUG KIND`: a person's correction of a page's kind, and later runs never undo it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.settings import PROJECT_ROOT, reset_settings
from knowledge.page_edits import correct_page_kind
from knowledge.transfer import parse_records, write_export
from pipeline.run import ingest_paths, run_ingest
from tests.conftest import export_then_import, write

TRACKER = "The Bellhaven rollout is tracked in Jira.\nJira sends the team a digest every Monday.\n"
TRACKER_EDITED = "The Bellhaven rollout is tracked in Jira.\nJira sends the team a digest every Friday now.\n"
WITHOUT_TRACKER = "The Bellhaven rollout moved to a shared spreadsheet.\n"
GUIDO_HEADER = ("Title: One\nAuthor: Guido van Rossum <guido@python.org>\nStatus: Final\n\n"
                "Guido van Rossum wrote this. Later, Guido explained the grammar.\n")
GUIDO_MISREAD = "In his email, Guido explained why the proposal was rejected.\n"  # 'Guido' read as an organisation


def _page(graph, slug: str, owner: str | None = None) -> dict | None:
    query = ("MATCH (p:Page {owner: $owner, slug: $slug}) "
             "RETURN p.kind AS kind, labels(p) AS labels, p.kind_set_at IS NOT NULL AS by_hand")
    with graph["driver"].session() as session:
        record = session.run(query, owner=owner or graph["owner"], slug=slug).single()
    return dict(record) if record else None


def _titled(graph, title: str) -> list[str]:
    query = "MATCH (p:Page {owner: $owner}) WHERE toLower(p.title) = toLower($title) RETURN p.slug AS slug"
    with graph["driver"].session() as session:
        return sorted(r["slug"] for r in session.run(query, owner=graph["owner"], title=title))


def _cli(graph, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SUBTEXT_OWNER": graph["owner"], "SUBTEXT_UPLOAD_DIR": str(graph["upload"])}
    return subprocess.run([sys.executable, "-m", "subtext.cli", *args], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_command_sets_the_kind_and_its_label(graph):
    ingest_paths([write(graph["upload"], "tracker.md", TRACKER)])
    before = _page(graph, "jira")
    assert before is not None
    result = _cli(graph, "pages", "kind", "jira", "tool")
    assert result.returncode == 0, result.stderr
    assert "jira is now a tool" in result.stdout or "already a tool" in result.stdout
    after = _page(graph, "jira")
    assert after["kind"] == "tool" and after["by_hand"]
    assert "Tool" in after["labels"] and "Page" in after["labels"]
    assert not {"Person", "Organisation", "Project", "Topic"} & set(after["labels"])


def test_unknown_slugs_and_kinds_get_a_clear_sentence(graph):
    ingest_paths([write(graph["upload"], "tracker.md", TRACKER)])
    with pytest.raises(InvalidRequest, match="There is no page with the slug 'no-such-page'"):
        db.write(graph["driver"], correct_page_kind, graph["owner"], "no-such-page", "tool")
    with pytest.raises(InvalidRequest, match="'database' is not a kind of page; use one of: person, organisation"):
        db.write(graph["driver"], correct_page_kind, graph["owner"], "jira", "database")
    with pytest.raises(InvalidRequest, match="your own page"):
        db.write(graph["driver"], correct_page_kind, graph["owner"], "you", "tool")
    result = _cli(graph, "pages", "kind", "jira", "gadget")
    assert result.returncode == 1 and "'gadget' is not a kind of page" in result.stderr
    assert db.write(graph["driver"], correct_page_kind, graph["owner"], "jira", "Organization")[1].value == "organisation"


def test_a_corrected_kind_survives_changed_and_new_documents(graph):
    ingest_paths([write(graph["upload"], "tracker.md", TRACKER)])
    db.write(graph["driver"], correct_page_kind, graph["owner"], "jira", "topic")
    # The file changes and another names it too: the model's label is a guess, the person's is not.
    write(graph["upload"], "tracker.md", TRACKER_EDITED)
    write(graph["upload"], "standup.md", "Dana Ruiz moved the open tickets in Jira to next sprint.\n")
    ingest_paths([graph["upload"]])
    assert _page(graph, "jira")["kind"] == "topic"
    assert _titled(graph, "Jira") == ["jira"]


def test_a_corrected_page_is_not_removed_when_its_document_stops_naming_it(graph):
    ingest_paths([write(graph["upload"], "tracker.md", TRACKER)])
    db.write(graph["driver"], correct_page_kind, graph["owner"], "jira", "tool")
    ingest_paths([write(graph["upload"], "tracker.md", WITHOUT_TRACKER)])
    page = _page(graph, "jira")
    assert page is not None and page["kind"] == "tool" and page["by_hand"]


def test_a_corrected_page_is_not_folded_into_a_page_of_another_kind(graph):
    ingest_paths([write(graph["upload"], "misread.md", GUIDO_MISREAD)])
    assert _page(graph, "guido") is not None
    db.write(graph["driver"], correct_page_kind, graph["owner"], "guido", "tool")
    ingest_paths([write(graph["upload"], "full-name.rst", GUIDO_HEADER)])
    assert (_page(graph, "guido") or {}).get("kind") == "tool"
    assert (_page(graph, "guido-van-rossum") or {}).get("kind") == "person"


QUILLSOFT_MET = ("Priya met Marta Oyelaran from Quillsoft in Leeds. Quillsoft signed the reseller agreement on "
                 "Monday and Quillsoft will send the invoice.\n")  # read as an organisation
QUILLSOFT_USED = [  # read as a tool
    "Sofia installed the Quillsoft CLI on the build server. The Quillsoft plugin crashed twice during the nightly build.\n",
    "Ravi Menon saw the Quillsoft plugin crash again, so Ravi Menon will reinstall the Quillsoft plugin tonight.\n",
]


def test_a_page_takes_the_kind_its_later_sources_read_it_as(graph):
    # Notes arrive one at a time: the first reads Quillsoft as a company, the next two use it as software.
    write(graph["upload"], "notes/met.md", QUILLSOFT_MET)
    ingest_paths([graph["upload"]])
    assert _page(graph, "quillsoft")["kind"] == "organisation"
    write(graph["upload"], "notes/used-1.md", QUILLSOFT_USED[0])
    ingest_paths([graph["upload"]])
    assert _page(graph, "quillsoft")["kind"] == "organisation"  # one reading against one keeps the first
    write(graph["upload"], "notes/used-2.md", QUILLSOFT_USED[1])
    ingest_paths([graph["upload"]])
    page = _page(graph, "quillsoft")  # seen failing: the first note's guess stayed for good
    assert page["kind"] == "tool" and "Tool" in page["labels"] and "Organisation" not in page["labels"]
    assert _titled(graph, "Quillsoft") == ["quillsoft"]

    # The graph says what its live sources say: with the two notes gone, the company reading is back.
    (graph["upload"] / "notes" / "used-1.md").unlink()
    (graph["upload"] / "notes" / "used-2.md").unlink()
    assert {o.status for o in run_ingest(["notes/used-1.md", "notes/used-2.md"]).outcomes} == {"retired"}
    assert _page(graph, "quillsoft")["kind"] == "organisation"

    # The person's own correction is never undone by what sources read.
    db.write(graph["driver"], correct_page_kind, graph["owner"], "quillsoft", "project")
    for i, text in enumerate(QUILLSOFT_USED * 2):
        write(graph["upload"], f"notes/again-{i}.md", text)
    ingest_paths([graph["upload"]])
    page = _page(graph, "quillsoft")
    assert (page["kind"], sorted(page["labels"]), page["by_hand"]) == ("project", ["Page", "Project"], True)


def test_a_reading_a_rule_gives_outweighs_the_models_readings_of_earlier_notes(graph, tmp_path):
    # seen failing on fresh notes 4 ingested one at a time: two notes read the code name as a firm,
    # and the board update's 'PROGRAMMES:' field, one source against two, changed nothing
    for i, text in enumerate(["**Warehouse.** Teodoro says the Driftwood cutover at the Ashby site is on track for 16 Nov.\n",
                              "- Bill wants a cost baseline for the next Driftwood site before anyone books the temps.\n"]):
        ingest_paths([write(graph["upload"], f"notes/sync-{i}.md", text)])
    assert _page(graph, "driftwood")["kind"] != "project"
    ingest_paths([write(graph["upload"], "notes/board.md", "BOARD UPDATE Q4\n\nPROGRAMMES: DRIFTWOOD, MARLIN, LODESTAR\n\n"
                                                          "DRIFTWOOD (warehouse system replacement): cutover completed 16 Nov.\n")])
    [page] = _titled(graph, "Driftwood")  # one page: the earlier one folds into the project's
    assert _page(graph, page)["kind"] == "project"
    # the reading by rule travels with an export, so an imported graph retypes the same way
    export = tmp_path / "graph.jsonl"
    with export.open("w", encoding="utf-8") as handle:
        db.in_session(graph["driver"], write_export, graph["owner"], handle)
    records = parse_records(export.read_text(encoding="utf-8").splitlines(), str(export))
    ruled = [r for r in records if getattr(r, "kind_read_by_rule", None)]
    assert page in {r.page for r in ruled}


def test_export_and_import_keep_the_correction(graph, tmp_path):
    ingest_paths([write(graph["upload"], "tracker.md", TRACKER)])
    db.write(graph["driver"], correct_page_kind, graph["owner"], "jira", "tool")
    other = export_then_import(graph, tmp_path)
    page = _page(graph, "jira", owner=other)
    assert page["kind"] == "tool" and page["by_hand"] and "Tool" in page["labels"]


def test_a_reading_by_rule_outweighs_two_guesses_not_many_sources():
    # found in review: one rule's reading (a mail header's display name) overrode nine sources
    from graph_schema.kinds import PageKind
    from pipeline.merge import kind_by_sources

    organisation, project, tool, person = PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.PERSON
    assert kind_by_sources(organisation, [organisation, organisation, project], 2, [project], 3) is project
    assert kind_by_sources(tool, [tool] * 9 + [person], 2, [person], 3) is None
    assert kind_by_sources(organisation, [organisation, tool], 2) is None  # one guess against one keeps the first


def test_a_page_retyped_by_an_earlier_transaction_of_the_run_takes_the_rest_of_its_documents(graph, monkeypatch):
    # seen failing on SoftNER's 787 documents in one ingest: the run's first transactions retyped a
    # page its later documents were resolved against under the first kind, and the whole run stopped
    # with 'is the page of a tool, not of a person' (every run again did the same)
    met = "Priya met Marta Oyelaran from Quillsoft Labs in Leeds. Quillsoft Labs signed the reseller agreement.\n"
    for i, text in enumerate([met, *QUILLSOFT_USED, QUILLSOFT_USED[0].replace("Sofia", "Tomás")]):
        write(graph["upload"], f"notes/{i}.md", text)
    monkeypatch.setenv("SUBTEXT_MERGE_MAX_DOCUMENTS_PER_TRANSACTION", "1")
    reset_settings()
    try:
        report = ingest_paths([graph["upload"]])
    finally:
        monkeypatch.undo()
        reset_settings()
    assert {o.status for o in report.outcomes} == {"ingested"}
    with graph["driver"].session() as session:
        slugs = session.run("MATCH (p:Page {owner: $owner}) WHERE 'quillsoft' IN p.name_keys RETURN collect(p.slug) AS s",
                            owner=graph["owner"]).single()["s"]
    assert len(slugs) == 1 and _page(graph, slugs[0])["kind"] == "tool"

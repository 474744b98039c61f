"""Person resolution on 150 real PEPs against their header gold (tests/data/peps, public domain)."""

from __future__ import annotations

from graph_schema.settings import PROJECT_ROOT, get_settings
from pipeline.quality import format_report, read_gold
from pipeline.quality_run import ingest_and_score

CORPUS = PROJECT_ROOT / "tests" / "data" / "peps"


def test_header_people_resolve_to_one_page_each(graph):
    gold = read_gold(CORPUS / "gold.jsonl")
    assert len(gold) == 150
    report = ingest_and_score(CORPUS / "docs", gold, get_settings())
    print(format_report(report))  # shown with -s, and in the CI log on failure

    assert report.documents_ingested == 150
    assert report.gold_people == 161  # 162 spellings in the gold; "Marc-Andre"/"Marc-André" Lemburg is one person
    assert report.recall >= 0.95, [r.name for r in report.missed]
    assert report.duplicate_rate <= 0.02, [(r.name, r.pages) for r in report.duplicated]
    assert report.wrong_merges == {}
    # In-document coreference carried the short forms to the right person.
    guido = next(f for f in report.short_forms if f.surface == "Guido")
    assert max(guido.pages, key=guido.pages.get) == "Guido van Rossum (person)"

"""Pure parts, without a database: the plan of what one document writes to the graph (real spaCy
and embedder, resolved into an empty graph), and how compile packs pages into its token budget."""

from __future__ import annotations

from graph_schema.kinds import FactKind, PageKind
from graph_schema.models import PageRef, ParsedDocument
from graph_schema.settings import get_settings
from pipeline.embedding import embed_texts
from pipeline.extract import extract_documents
from pipeline.merge import plan_document_write
from pipeline.parse import chunk_text
from pipeline.resolve import resolve_documents

NOTES = """# Harbour pitch kickoff
Date: 3 March 2026

Priya Natarajan is leading the Harbour pitch for Acme Corporation.
Daniel Okafor from Northwind Logistics will send the shipping volumes to Priya by Friday.
We agreed to keep the data in PostgreSQL.
"""


def _planned(text: str, focus: str | None = None):
    parsed = ParsedDocument(source_id="src-1", key="harbour/kickoff.md", text=text, focus=focus,
                            chunks=chunk_text(text, 1500))
    [resolved] = resolve_documents(extract_documents([parsed], embed=embed_texts), [], get_settings(), embed_texts)
    return plan_document_write("someone", resolved)


def test_the_write_plan_holds_each_page_once_and_every_span_indexes_the_document():
    plan = _planned(NOTES, focus="harbour")
    slugs = [p.slug for p in plan.pages]
    assert len(slugs) == len(set(slugs))
    assert {"priya-natarajan", "acme-corporation", "daniel-okafor", "northwind-logistics", "harbour"} <= set(slugs)
    assert {p.slug: p.kind for p in plan.pages}["harbour"] is PageKind.FOCUS
    # every mention and fact is a span of the document's own text
    for mention in plan.mentions:
        assert [NOTES[s:e] for s, e in zip(mention.starts, mention.ends, strict=True)] == mention.surfaces
    for fact in plan.facts:
        assert NOTES[fact.start:fact.end] == fact.text and fact.slugs
    # 'Priya' alone is Priya Natarajan's mention, not a page of its own
    priya = next(m for m in plan.mentions if m.slug == "priya-natarajan")
    assert "Priya" in priya.surfaces and "priya" not in slugs
    # pages named in one fact relate; the focus area holds the document's pages
    assert ("acme-corporation", "priya-natarajan") in plan.relations
    assert set(plan.in_context) == set(slugs) - {"harbour", "you"}
    # the decision and the action are typed, the heading is no fact
    kinds = {f.text: f.kind for f in plan.facts}
    assert kinds["We agreed to keep the data in PostgreSQL."] is FactKind.DECISION
    assert any(kind is FactKind.ACTION and "Daniel Okafor" in text for text, kind in kinds.items())
    assert not [t for t in kinds if "kickoff" in t]
    # the chunks cover the text, and the source is the document's
    assert plan.chunks[0].start == 0 and plan.chunks[-1].end == len(NOTES)
    assert (plan.source.key, plan.source.focus_slug) == ("harbour/kickoff.md", "harbour")


def test_a_sentence_two_documents_share_is_one_fact_id_per_person():
    first, again = _planned(NOTES), _planned(NOTES)
    assert [f.id for f in first.facts] == [f.id for f in again.facts]  # re-planning the same text writes the same facts
    assert len({f.id for f in first.facts}) == len(first.facts)


def test_compile_packs_in_rank_order_keeps_members_without_facts_then_leaves_out_and_says_so():
    from knowledge.compile_gather import pack_members
    from knowledge.types import CompiledPackage

    rows = [{"slug": f"p{i}", "title": f"Page {i}", "kind": "person", "relation": "related", "weight": 5 - i}
            for i in range(5)]
    facts = {f"p{i}": ([{"text": f"Page {i} did something rather long and detailed number {n}.",
                         "first_seen": None, "sources": ["a.md"]} for n in range(4)], 4) for i in range(5)}
    package = CompiledPackage(target=PageRef(slug="t", title="Target", kind=PageKind.PERSON), depth="deep")
    used, left_out, facts_cut = pack_members(package, rows, facts, "deep", set(), False, budget=120, used=0,
                                             per_token=4.0)
    kept = [item.slug for item in package.items]
    assert kept == [f"p{i}" for i in range(len(kept))]  # rank order, nothing skipped ahead
    assert package.items[0].facts and facts_cut >= 1  # the first with its facts, later ones without
    assert not package.items[-1].facts
    assert left_out == [f"Page {i}" for i in range(len(kept), 5)] and left_out  # the rest named, not dropped
    assert used <= 120


def test_a_page_folded_in_a_batch_passes_on_what_the_person_said_of_it():
    from graph_schema.models import KnownPage
    from pipeline.resolve import PageIndex

    pages = PageIndex.build([
        KnownPage(slug="guido", title="Guido", kind=PageKind.PERSON, name_keys=["guido"], not_same=["guido-van-rossum"]),
        KnownPage(slug="guido-v", title="Guido V", kind=PageKind.PERSON, name_keys=["guido v"]),
        KnownPage(slug="guido-van-rossum", title="Guido van Rossum", kind=PageKind.PERSON, name_keys=["guido van rossum"],
                  not_same=["guido"]),
    ])
    pages.fold("guido", "guido-v")
    # seen failing (found in review): the fold kept the answer on the page that no longer exists
    assert pages.kept_apart("guido-v", "guido-van-rossum") and pages.kept_apart("guido-van-rossum", "guido-v")


def test_the_scan_reads_names_as_names_of_one_thing_only_where_they_can_be():
    from collections import Counter

    from graph_schema.models import KnownPage
    from pipeline.duplicate_scan import _ambiguous, _full_names_by_word, names_alike

    def page(title: str, kind: PageKind = PageKind.TOOL) -> KnownPage:
        return KnownPage(slug=title.lower().replace(" ", "-"), title=title, kind=kind, name_keys=[title.lower()])

    settings = get_settings()
    assert names_alike(page("webhook"), page("webhooks"), settings).same
    # found in review: these were 'one name, singular and plural', recorded even within one document
    assert not names_alike(page("HTTP"), page("HTTPS"), settings).same
    # the lone name is the part, whichever title is longer (found in review: 'Li Chen' was taken for it)
    professor, li = page("Professor Chen", PageKind.PERSON), page("Li Chen", PageKind.PERSON)
    assert names_alike(professor, li, settings).part == "professor-chen"
    # a lone name that fits two people of the graph fits neither, even when only one pair was found
    chen, mark, lily = page("Chen", PageKind.PERSON), page("Mark Chen", PageKind.PERSON), page("Lily Chen", PageKind.PERSON)
    pages = {p.slug: p for p in (chen, mark, lily)}
    likeness = names_alike(chen, mark, settings)
    assert _ambiguous(likeness, pages, _full_names_by_word(pages), Counter({"chen": 1}))
    del pages["lily-chen"]
    assert not _ambiguous(likeness, pages, _full_names_by_word(pages), Counter({"chen": 1}))


def test_a_document_over_the_chunk_limit_keeps_only_the_text_its_chunks_cover(tmp_path, monkeypatch):
    # The rest is never read for names or facts; carried along, a 20 MB file's text went through
    # every rule and every stage file of the run, three minutes of a run that reads 40 chunks.
    from graph_schema.settings import reset_settings
    from pipeline.parse import parse_document

    monkeypatch.setenv("SUBTEXT_MAX_CHUNKS_PER_DOCUMENT", "3")
    reset_settings()
    paragraph = "Priya Natarajan leads the Harbour pitch for Corvane. " * 20 + "\n\n"
    path = tmp_path / "long.md"
    path.write_text("# Long notes\n\n" + paragraph * 200)
    parsed = parse_document(path, "long.md", "bench", get_settings())
    assert len(parsed.chunks) == 3 and "only the first 3 of" in parsed.truncated_reason
    assert parsed.text == ("# Long notes\n\n" + paragraph * 200)[: parsed.chunks[-1].end]
    assert parsed.title == "Long notes"
    monkeypatch.undo()
    reset_settings()

"""Names the graph and the batch already know are found where the model misses them
(pipeline/gazetteer.py): the rules on their own, the batch through real spaCy, and two ingests
through the real pipeline into Neo4j."""

from __future__ import annotations

from graph_schema.kinds import PageKind
from graph_schema.models import DocumentEntity, EntityMention, ExtractedDocument, KnownPage, ParsedDocument
from graph_schema.queries.pages import get_page
from graph_schema.settings import get_settings
from pipeline.extract import extract_documents
from pipeline.gazetteer import recognise_known_names
from pipeline.parse import chunk_text
from pipeline.run import ingest_paths
from tests.conftest import write


def _document(text: str, key: str = "notes.md") -> ExtractedDocument:
    return ExtractedDocument(parsed=ParsedDocument(source_id=key, key=key, text=text), units=[(0, len(text))])


def _page(slug: str, title: str, kind: PageKind, *names: str) -> KnownPage:
    return KnownPage(slug=slug, title=title, kind=kind, name_keys=[title.lower(), *names])


def _mentioned(document: ExtractedDocument) -> dict[str, list[str]]:
    return {e.name: [m.surface for m in e.mentions] for e in document.entities}


def test_a_page_name_becomes_a_mention_and_its_sentence_a_fact():
    text = "Renewal with Smith-Barney slipped again."
    known = [_page("smith-barney", "Smith Barney", PageKind.ORGANISATION)]
    [found] = recognise_known_names([_document(text)], known, get_settings())
    assert _mentioned(found) == {"Smith-Barney": ["Smith-Barney"]}
    assert found.entities[0].kind is PageKind.ORGANISATION  # the page's kind
    assert [(f.text, f.entities) for f in found.facts] == [(text, [0])]


def test_risky_names_are_not_looked_for():
    text = ("Chen called. Later apple pie was served at Apple. Mira was there. "
            "The lawyer from harbourview analytics left. Harvard Law School wrote.")
    known = [
        _page("mark-chen", "Mark Chen", PageKind.PERSON, "chen"),  # a name two pages share
        _page("lily-chen", "Lily Chen", PageKind.PERSON, "chen"),
        _page("apple", "Apple", PageKind.ORGANISATION),  # a word the text also writes in lower case
        _page("mira-sol", "Mira Sol", PageKind.PERSON, "mira"),  # a lone first name
        _page("harbourview-analytics", "Harbourview Analytics", PageKind.ORGANISATION),  # written in lower case
        _page("harvard", "Harvard", PageKind.ORGANISATION),  # the start of a longer name
    ]
    [found] = recognise_known_names([_document(text)], known, get_settings())
    assert found.entities == [] and found.facts == []


def test_a_batch_name_is_found_in_the_other_documents_of_the_batch():
    first = _document("Tidewell Robotics hired Marisol Quintero.", "a.md")
    first.entities = [
        DocumentEntity(name="Tidewell Robotics", kind=PageKind.ORGANISATION,
                       mentions=[EntityMention(start=0, end=17, surface="Tidewell Robotics")]),
    ]
    second = _document("The demo went well. Ping TIDEWELL ROBOTICS about it.", "b.md")
    _, found = recognise_known_names([first, second], [], get_settings())
    assert _mentioned(found) == {"TIDEWELL ROBOTICS": ["TIDEWELL ROBOTICS"]}
    assert [f.text for f in found.facts] == ["The demo went well. Ping TIDEWELL ROBOTICS about it."]


def test_names_already_mentioned_are_left_alone():
    text = "Smith Barney hired staff."
    document = _document(text)
    document.entities = [DocumentEntity(name="Smith Barney", kind=PageKind.ORGANISATION,
                                        mentions=[EntityMention(start=0, end=12, surface="Smith Barney")])]
    known = [_page("smith-barney", "Smith Barney", PageKind.ORGANISATION)]
    [found] = recognise_known_names([document], known, get_settings())
    assert found == document


def test_a_place_the_model_saw_is_not_an_organisation_page():
    text = "Dvorak moved to the United States."
    document = _document(text)
    document.other_names = [(16, 33)]  # the model read 'the United States' as a place here
    known = [_page("united-states", "United States", PageKind.ORGANISATION)]
    [found] = recognise_known_names([document], known, get_settings())
    assert found.entities == []


# The model finds the company in the first document, and misses it in both lines of the second
# (a list item and an imperative sentence); `test_the_model_alone_misses_the_follow_ups` shows it.
CONTRACT = "Priya Natarajan signed the contract with Harbourview Analytics on Monday.\n"
FOLLOW_UPS = "# Follow-ups\n\n- Harbourview Analytics: renewal due in March\n- Ask Harbourview Analytics about the invoice.\n"


def _extract(text: str, key: str) -> ExtractedDocument:
    parsed = ParsedDocument(source_id=key, key=key, text=text, chunks=chunk_text(text, 1500))
    return extract_documents([parsed])[0]


def test_the_model_alone_misses_the_follow_ups():
    assert "Harbourview Analytics" in {e.name for e in _extract(CONTRACT, "contract.md").entities}
    assert not [e for e in _extract(FOLLOW_UPS, "follow-ups.md").entities if "Harbourview" in e.name]


def test_a_name_found_in_one_document_of_a_batch_is_found_in_the_others():
    from pipeline.embedding import embed_texts
    from pipeline.resolve import resolve_documents

    extracted = [_extract(CONTRACT, "contract.md"), _extract(FOLLOW_UPS, "follow-ups.md")]
    _, follow_ups = resolve_documents(extracted, [], get_settings(), embed_texts)
    entities = follow_ups.extracted.entities
    landed = {r.slug: entities[r.entity] for r in follow_ups.resolutions}
    assert [m.surface for m in landed["harbourview-analytics"].mentions] == ["Harbourview Analytics"] * 2
    index = entities.index(landed["harbourview-analytics"])
    assert [f.text for f in follow_ups.extracted.facts if index in f.entities] == [
        "Harbourview Analytics: renewal due in March", "Ask Harbourview Analytics about the invoice."]


def test_a_page_of_the_graph_is_found_in_a_later_document_the_model_misreads(graph):
    ingest_paths([write(graph["upload"], "contract.md", CONTRACT)])
    ingest_paths([write(graph["upload"], "follow-ups.md", FOLLOW_UPS)])
    page = graph["db"].read(graph["driver"], get_page, graph["owner"], "harbourview-analytics", 50)
    assert page.kind is PageKind.ORGANISATION
    facts = {f.text: {s.key for s in f.sources} for f in page.facts}
    assert facts["Ask Harbourview Analytics about the invoice."] == {"follow-ups.md"}
    assert facts["Harbourview Analytics: renewal due in March"] == {"follow-ups.md"}


def test_a_unit_that_becomes_a_fact_here_is_typed_like_any_other():
    """Seen failing first with IndexError (the new entity was not yet in the list the fact was typed
    against), and before that the fact stayed a statement."""
    text = "Smith-Barney will send the invoice by Friday."
    known = [_page("smith-barney", "Smith Barney", PageKind.ORGANISATION)]
    [found] = recognise_known_names([_document(text)], known, get_settings())
    [fact] = found.facts
    assert fact.kind.value == "action" and fact.owner == "Smith-Barney" and fact.due == "by Friday"


def test_a_header_field_name_or_metadata_value_is_no_mention_of_a_page():
    """Seen failing first: every PEP header's 'Post-History:' was a mention of the page PEP 1's prose made."""
    text = ("PEP: 9\nTitle: Nine\nType: Standards Track\nPost-History: 1 May 2020\n\n"
            "The Post-History field lists dates. Standards Track proposals need a reference implementation.\n")
    known = [_page("post-history", "Post-History", PageKind.ORGANISATION),
             _page("standards-track", "Standards Track", PageKind.PROJECT)]
    [found] = recognise_known_names([_document(text)], known, get_settings())
    spans = {(m.start, m.end) for e in found.entities for m in e.mentions}
    header_end = text.index("\n\n")
    assert spans and all(start > header_end for start, _ in spans), spans  # the prose's mentions only

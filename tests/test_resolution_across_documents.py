"""Resolution across separate ingests: acronyms, the model's wrong labels, shared surnames."""

from __future__ import annotations

from graph_schema.queries.navigation import rename_page
from graph_schema.queries.pages import get_page
from graph_schema.settings import get_settings
from mcp_server.service import GraphService
from pipeline.run import ingest_paths
from tests.conftest import write


def page(graph, slug):
    return graph["db"].read(graph["driver"], get_page, graph["owner"], slug, 50)


def slugs_with_kind(graph, kind):
    query = "MATCH (p:Page {owner: $owner, kind: $kind}) RETURN collect(p.slug) AS slugs"
    return set(graph["db"].read(graph["driver"], lambda tx: tx.run(query, owner=graph["owner"], kind=kind).single()["slugs"]))


def test_an_acronym_page_folds_into_the_organisation_that_defines_it(graph):
    write(graph["upload"], "a-board.md", "The PSF board approved the grant for Priya Natarajan.\nThe PSF will announce it.\n")
    ingest_paths([graph["upload"] / "a-board.md"])
    assert page(graph, "psf") is not None

    write(graph["upload"], "b-charter.md",
          "The Python Software Foundation (PSF) runs PyCon US.\nThe Python Software Foundation hired Daniel Okafor.\n")
    report = ingest_paths([graph["upload"] / "b-charter.md"])
    assert report.count("ingested") == 1

    # One organisation page holds both names, the facts of both documents, and both sources' mentions.
    assert page(graph, "psf") is None or page(graph, "python-software-foundation") is None
    merged = page(graph, "python-software-foundation") or page(graph, "psf")
    names = {merged.title, *merged.aliases}
    assert {"PSF", "Python Software Foundation"} <= names
    texts = " ".join(f.text for f in merged.facts)
    assert "approved the grant" in texts and "hired Daniel Okafor" in texts
    assert len({s.key for f in merged.facts for s in f.sources}) == 2


GUIDO_HEADER = ("Title: One\nAuthor: Guido van Rossum <guido@python.org>\nStatus: Final\n\n"
                "Guido van Rossum wrote this. Later, Guido explained the grammar.\n")
# en_core_web_sm labels this "Guido" an organisation.
GUIDO_MISREAD = "In his email, Guido explained why the proposal was rejected.\n"


def _guido_pages(graph) -> set[str]:
    kinds = ("person", "organisation", "tool", "project", "topic")
    return {s for kind in kinds for s in slugs_with_kind(graph, kind) if s.startswith("guido")}


def test_a_later_wrong_label_lands_on_the_existing_page(graph):
    ingest_paths([write(graph["upload"], "full-name.rst", GUIDO_HEADER)])
    ingest_paths([write(graph["upload"], "misread.md", GUIDO_MISREAD)])
    assert _guido_pages(graph) == {"guido-van-rossum"}
    guido = page(graph, "guido-van-rossum")
    assert any("explained why the proposal was rejected" in f.text for f in guido.facts)


def test_an_earlier_misread_page_folds_into_the_full_name(graph):
    ingest_paths([write(graph["upload"], "misread-first.md", GUIDO_MISREAD)])
    assert _guido_pages(graph) == {"guido"}
    ingest_paths([write(graph["upload"], "full-name-later.rst", GUIDO_HEADER)])
    assert _guido_pages(graph) == {"guido-van-rossum"}
    guido = page(graph, "guido-van-rossum")
    assert guido.kind.value == "person" and "Guido" in guido.aliases
    assert {s.key for f in guido.facts for s in f.sources} == {"misread-first.md", "full-name-later.rst"}

    # An assistant that kept the slug 'guido' still reaches the page it was folded into, and is told
    # so (seen failing: get_page said there was no such page, and traverse and link_pages refused it)
    assert page(graph, "guido").slug == "guido-van-rossum"
    service = GraphService(get_settings())
    answer = service.get_page(service.default_access, "guido")
    assert answer.page.slug == "guido-van-rossum" and "'guido' was merged into 'guido-van-rossum'" in answer.message
    assert service.traverse(service.default_access, "guido", "RELATES_TO", None, 5).start.slug == "guido-van-rossum"


def test_a_documents_own_body_is_no_name_for_later_documents(graph):
    # 'the Congress' of the first note is that note's own body (another note's 'the Congress' may be
    # another congress): the graph must not know its page by 'congress', or every later 'Congress'
    # lands on it, one note at a time, unlike in a batch.
    ingest_paths([write(graph["upload"], "own-body.md", "The bill went to the Congress in March. The Congress rejected it in April.\n")])
    [local] = [s for s in slugs_with_kind(graph, "organisation") if s.startswith("congress")]
    keys = graph["db"].read(graph["driver"], lambda tx: tx.run(
        "MATCH (p:Page {owner: $owner, slug: $slug}) RETURN p.name_keys AS keys", owner=graph["owner"], slug=local).single()["keys"])
    assert keys == []
    ingest_paths([write(graph["upload"], "budget.md", "Congress passed the budget on Friday after a long debate.\n")])
    ingest_paths([write(graph["upload"], "tariff.md", "Congress will debate the tariff next week, the senators said.\n")])
    named = {s for s in slugs_with_kind(graph, "organisation") if s.startswith("congress")} - {local}
    assert len(named) == 1
    texts = " ".join(f.text for f in page(graph, named.pop()).facts)
    assert "passed the budget" in texts and "debate the tariff" in texts

    # A name the person gives the page is one later documents find it by.
    with graph["driver"].session() as session:
        assert session.execute_write(rename_page, graph["owner"], local, "Tallinn City Congress")
    keys = graph["db"].read(graph["driver"], lambda tx: tx.run(
        "MATCH (p:Page {owner: $owner, slug: $slug}) RETURN p.name_keys AS keys", owner=graph["owner"], slug=local).single()["keys"])
    assert keys == ["tallinn city congress"]


def test_a_first_name_alone_is_the_colleague_named_with_the_same_people(graph):
    # Notes call colleagues by their first name. In a later note 'Maya' and 'Tomás' are the Maya and
    # Tomás of the first one: the only people of those names, named together before. 'Jonas' in
    # a note naming nothing he was named with stays a page of its own (a biography's 'Eve' is not
    # the linguist Eve Sweetser of another text).
    ingest_paths([write(graph["upload"], "kickoff.md",
                        "Attendees: Maya Lindqvist, Tomás Okonkwo, Jonas Weber\n\n"
                        "Maya Lindqvist and Tomás Okonkwo reviewed the migration plan with Jonas Weber.\n")])
    ingest_paths([write(graph["upload"], "weekly.md",
                        "On Friday Maya walked through the migration plan, and Tomás asked about the cutover date.\n")])
    ingest_paths([write(graph["upload"], "train.md", "Jonas read a novel on the train to Bergen.\n")])
    people = slugs_with_kind(graph, "person")
    assert {"maya", "tomas"}.isdisjoint(people), people
    assert any("walked through the migration plan" in f.text for f in page(graph, "maya-lindqvist").facts)
    assert any("asked about the cutover date" in f.text for f in page(graph, "tomas-okonkwo").facts)
    assert "jonas" in people and not any("novel" in f.text for f in page(graph, "jonas-weber").facts)


def test_a_first_name_read_as_a_tool_in_a_later_note_is_the_colleague(graph):
    # seen failing on fresh notes 3 ingested one at a time: the proposal's "Farah's renewal" was read
    # as a tool and made a page 'farah' beside the Farah Qureshi of the earlier email
    from graph_schema.settings import PROJECT_ROOT

    notes = PROJECT_ROOT / "bench" / "data" / "fresh_notes3" / "notes"
    for name in ("2026-10-09-fwd-corvane-sms-pricing.txt", "2026-10-14-proposal-tidepool.md"):
        ingest_paths([write(graph["upload"], name, (notes / name).read_text())])
    kinds = ("person", "organisation", "tool", "project", "topic")
    assert not {s for kind in kinds for s in slugs_with_kind(graph, kind) if s.startswith("farah") and s != "farah-qureshi"}
    assert any("renewal due Dec 1" in f.text for f in page(graph, "farah-qureshi").facts)


def test_a_code_name_one_note_read_as_a_person_is_the_project_later_notes_name(graph):
    # Notes arrive one at a time. The first reads 'Kestrel' as a person (the news model's guess at
    # a code name), the second as a project; the third reads it as a person again. One page, a
    # project, holds all three: no person page for a word that is no one's name.
    notes = [("1-offer.md", "Jonas said Pennine expects to issue the revised connection offer for Kestrel in early October.\n"),
             ("2-budget.md", "Ravi is covering the Kestrel project budget and the grid study this month.\n"),
             ("3-layers.md", "Tomasz will lock the Kestrel layers in postgis before the submission.\n")]
    for name, text in notes:
        ingest_paths([write(graph["upload"], name, text)])
    kinds = ("person", "organisation", "tool", "project", "topic")
    kestrel = {s for kind in kinds for s in slugs_with_kind(graph, kind) if s.startswith("kestrel")}
    assert len(kestrel) == 1, kestrel
    [slug] = kestrel
    project = page(graph, slug)
    assert project.kind.value == "project"
    texts = " ".join(f.text for f in project.facts)
    assert "connection offer" in texts and "project budget" in texts and "Kestrel layers" in texts


def test_a_person_an_attendee_list_names_is_not_folded_into_a_later_reading_of_the_word(graph):
    # The attendee list says Mendel is a person: that was no guess. A later note's 'the Mendel
    # contract' (read as a firm) does not make the person's page a firm's.
    notes = [("1-standup.md", "Attendees: Mendel, Ravi Shah\n\nMendel will send the tender pack to Pennine on Friday.\n"),
             ("2-contract.md", "Ravi reviewed the Mendel contract with Pennine. The Mendel contract renewal is due in March.\n")]
    for name, text in notes:
        ingest_paths([write(graph["upload"], name, text)])
    person = page(graph, "mendel")
    assert person is not None and person.kind.value == "person"
    assert any("tender pack" in f.text for f in person.facts)


def test_a_three_letter_acronym_is_the_organisation_of_those_initials_only_with_shared_context():
    # seen failing on fresh notes 5: 'WMI' in a group meeting stayed apart from the 'Wawel Materials
    # Institute' of a lab notebook that named the same project and people
    from graph_schema.models import ParsedDocument
    from graph_schema.settings import get_settings
    from pipeline.embedding import embed_texts
    from pipeline.extract import extract_documents
    from pipeline.parse import chunk_text
    from pipeline.resolve import resolve_documents

    def resolved(*texts: str):
        parsed = [ParsedDocument(source_id=f"s{i}", key=f"doc-{i}.md", text=t, chunks=chunk_text(t, 1500))
                  for i, t in enumerate(texts)]
        out = resolve_documents(extract_documents(parsed, embed=embed_texts), [], get_settings(), embed_texts)
        return [{document.extracted.entities[r.entity].name: r.slug for r in document.resolutions} for document in out]

    notebook = ("Lab notebook, Kestrel Polymers Institute, Gdańsk\n\nMarta Nowicka and Jonas Berg ran batch 7 for "
                "Project Heron on Monday.\n")
    meeting = "Group meeting, KPI\n\nMarta Nowicka and Jonas Berg showed the Project Heron results. KPI will fund two more batches.\n"
    stranger = "Quarterly review\n\nThe KPI dashboard moved to Grafana. Sales missed the KPI target.\n"
    first, second = resolved(notebook, meeting)
    assert second.get("KPI") == first["Kestrel Polymers Institute"], (first, second)
    _, third = resolved(notebook, stranger)
    assert third.get("KPI") != resolved(notebook)[0]["Kestrel Polymers Institute"]
    # found in review: 'the NDA' is a kind of document, whatever firm has those initials
    first, second = resolved("Kickoff\n\nNorthwind Data Associates Ltd met Halvorsen Bygg AS and Fjellheim Eiendom AS "
                             "in Bergen.\n", "Legal\n\nHalvorsen Bygg AS and Fjellheim Eiendom AS signed the NDA with us. "
                             "The NDA covers the drawings.\n")
    assert first.get("Northwind Data Associates Ltd") and second.get("NDA") != first["Northwind Data Associates Ltd"], (first, second)


def test_a_brands_product_is_found_by_its_own_name_in_another_note():
    # seen failing on blind notes 5: 'Apache Kafka' in an ADR and 'Kafka' in a debrief were two pages
    from graph_schema.models import ParsedDocument
    from graph_schema.settings import get_settings
    from pipeline.embedding import embed_texts
    from pipeline.extract import extract_documents
    from pipeline.parse import chunk_text
    from pipeline.resolve import resolve_documents

    texts = ["ADR-007: event bus\n\n| Option | Notes |\n|---|---|\n| Apache Kafka on Confluent Cloud | Replay, ordering |\n"
             "| Amazon SQS | Cheap, no replay |\n\nDecision: we adopt Apache Kafka for the invoice events.\n",
             "SRE interview debrief\n\nStrong on Kafka consumer groups and partition rebalancing; weak on Terraform.\n"]
    parsed = [ParsedDocument(source_id=f"s{i}", key=f"doc-{i}.md", text=t, chunks=chunk_text(t, 1500)) for i, t in enumerate(texts)]
    resolved = resolve_documents(extract_documents(parsed, embed=embed_texts), [], get_settings(), embed_texts)
    slugs = [{d.extracted.entities[r.entity].name: r.slug for r in d.resolutions} for d in resolved]
    assert slugs[0].get("Apache Kafka") and slugs[1].get("Kafka") == slugs[0]["Apache Kafka"], slugs

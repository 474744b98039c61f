"""Typing names by kind: software as tools, companies as organisations, "Project X" as a project.

Real spaCy and the real MiniLM embedder on short texts written for these tests (not from any
training corpus); the shipped classifier file is checked against the training script's format.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph_schema.kinds import PageKind
from graph_schema.models import DocumentEntity
from graph_schema.settings import get_settings
from pipeline.embedding import embed_texts
from pipeline.extract import extract_documents
from pipeline.kind_model import CLASSES, FEATURE_VERSION, MODEL_PATH, KindModel, load_kind_model
from pipeline.parse import parse_document
from pipeline.tool_candidates import is_code_shaped, shape_candidates


def _entities(tmp_path: Path, name: str, text: str) -> dict[str, DocumentEntity]:
    path = tmp_path / name
    path.write_text(text)
    [extracted] = extract_documents([parse_document(path, name, "test-kinds", get_settings())], embed=embed_texts)
    return {e.name: e for e in extracted.entities}


def _kinds(tmp_path: Path, text: str) -> dict[str, PageKind]:
    path = tmp_path / "notes.txt"
    path.write_text(text)
    parsed = parse_document(path, "notes.txt", "test-kinds", get_settings())
    [extracted] = extract_documents([parsed], embed=embed_texts)
    return {e.name: e.kind for e in extracted.entities}


def _batch_kinds(tmp_path: Path, texts: dict[str, str]) -> dict[tuple[str, str], PageKind]:
    """(file, name) -> kind for one batch of notes, extracted together as the pipeline does."""
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    parsed = [parse_document(tmp_path / name, name, "test-kinds", get_settings()) for name in texts]
    return {(document.parsed.key, e.name): e.kind for document in extract_documents(parsed, embed=embed_texts)
            for e in document.entities}


def test_software_in_work_notes_is_typed_tool(tmp_path):
    kinds = _kinds(
        tmp_path,
        "Weekly sync, platform team\n\n"
        "Marta Lindqvist moved the nightly exports from MongoDB to ClickHouse last week.\n"
        "The Airflow DAG that loads the invoices still fails on Mondays; Tomasz will add a retry.\n"
        "We agreed to keep Redis as the cache and to upgrade Terraform to 1.9 before the audit.\n",
    )
    assert kinds.get("MongoDB") is PageKind.TOOL
    assert kinds.get("ClickHouse") is PageKind.TOOL
    assert PageKind.TOOL in (kinds.get("Airflow"), kinds.get("Airflow DAG"))  # spaCy's span may keep "DAG"
    assert kinds.get("Marta Lindqvist") is PageKind.PERSON


def test_software_a_curated_list_knows_is_a_tool_even_when_its_name_is_a_word(tmp_path):
    # seen failing on fresh notes: 'Notion', 'Okta' and 'Playwright' got no page or a person's
    # (the classifier never saw them); these names are others Simple Icons lists
    kinds = _kinds(
        tmp_path,
        "Retro notes\n\nNadia Brooks moved the launch checklist from Trello to Asana last week. "
        "Support recordings now go to Loom, and the signup form feeds Zapier. The invoices sync to Xero every night.\n",
    )
    assert {name: kinds.get(name) for name in ("Trello", "Asana", "Loom", "Zapier", "Xero")} == dict.fromkeys(
        ("Trello", "Asana", "Loom", "Zapier", "Xero"), PageKind.TOOL)
    assert kinds.get("Nadia Brooks") is PageKind.PERSON
    # spaCy reads 'Notion' here as a firm; the context reads it more as software
    assert _kinds(tmp_path, "Weekly\n\nKofi moved the team wiki to Notion and the backlog to Shortcut.\n").get(
        "Notion") is PageKind.TOOL
    # at a sentence's start: spaCy missed 'Okta' and read 'Jira' as a person
    opening = _kinds(tmp_path, "Weekly\n\nOkta shows the new SSO app. Jira is down again.\n")
    assert (opening.get("Okta"), opening.get("Jira")) == (PageKind.TOOL, PageKind.TOOL)


def test_a_brands_product_is_known_by_one_rare_word_not_by_a_plural_or_an_everyday_word():
    from pipeline.known_names import is_known_name

    # found in review: 'Apple Podcasts' made 'Podcasts' a known name, and so a tool
    assert is_known_name("Kafka") and is_known_name("DynamoDB")  # 'Apache Kafka', 'Amazon DynamoDB'
    assert not is_known_name("Podcasts") and not is_known_name("Analytics") and not is_known_name("on Rails")


def test_a_day_is_no_page_but_a_firm_in_capitals_or_a_titled_person_is(tmp_path):
    # found in review: 'DEC' (the firm) and 'Professor Sun' matched the calendar's 'Dec' and 'Sun'
    from graph_schema.models import DocumentEntity, EntityMention
    from pipeline.kind_model import _calendar_word

    def entity(*surfaces: str) -> DocumentEntity:
        return DocumentEntity(name=surfaces[0], kind=PageKind.PERSON, context=surfaces[0],
                              mentions=[EntityMention(surface=s, start=0, end=len(s)) for s in surfaces])

    assert _calendar_word(entity("Fri")) and _calendar_word(entity("Sept."))
    assert not _calendar_word(entity("DEC")) and not _calendar_word(entity("Sun", "Professor Sun"))


def test_known_names_of_several_words_and_rare_lower_case_ones_are_candidates():
    text = "The nightly build moved to GitHub Actions and the models to dbt. The linear scan is slow."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 71), (72, len(text))])}
    assert {"GitHub Actions", "dbt"} <= found and "GitHub" not in found and "linear" not in found


def test_a_name_closing_a_heading_and_opening_the_next_line_is_two_mentions(tmp_path):
    # seen failing on a fresh debrief: spaCy returned 'Aarav Kulkarni\n\nAarav Kulkarni' as one
    # span, which no name can be, and the person got no page at all
    kinds = _kinds(tmp_path, "# Debrief: Aarav Kulkarni\n\nAarav Kulkarni did well in the design round. Hana Ito wants to hire him.\n")
    assert kinds.get("Aarav Kulkarni") is PageKind.PERSON


def test_company_with_a_descriptive_last_word_is_an_organisation(tmp_path):
    kinds = _kinds(
        tmp_path,
        "Call notes\n\n"
        "Jonas Berg from Halvorsen Retail asked for a quote on the loyalty programme. "
        "Halvorsen Retail wants the first delivery in May and will sign the contract next week.\n",
    )
    assert kinds.get("Halvorsen Retail") is PageKind.ORGANISATION
    assert kinds.get("Jonas Berg") is PageKind.PERSON
    # seen failing on fresh notes 3: the classifier gave 'person' 0.61 here; a plural trade is no surname
    kinds = _kinds(tmp_path, "4. Partner channel. Tovar Partners wants to resell Dispatch to two regional lab groups incl. "
                             "Sunbeck Labs. Linnea cautious: Tovar's last implementation (2025) needed heavy support from us.\n\n"
                             "Decisions\n- D3: Tovar pilot limited to Sunbeck; no second lab group this year.\n\n"
                             "Actions\n- Yusuf: margin bridge for Ostrander board pack (by 15 Nov)\n")
    assert kinds.get("Tovar Partners") is PageKind.ORGANISATION, kinds
    # seen failing on fresh notes 4: a haulier's trade was no known head, and the firm read as a person
    kinds = _kinds(tmp_path, "- Own fleet only. Bluefin Haulage loads come in phase 2 once their telematics upgrade is live.\n"
                             "- Position and temperature from the gateways, streamed into the warehouse.\n")
    assert kinds.get("Bluefin Haulage") is PageKind.ORGANISATION, kinds
    # seen failing on blind notes: a civil-engineering contractor's trade was no known head either
    kinds = _kinds(tmp_path, "Subcontractors\n- Dunmore Civils finished the drainage runs on Tuesday.\n"
                             "- Dunmore are back on site for the kerbs in June.\n")
    assert kinds.get("Dunmore Civils") is PageKind.ORGANISATION, kinds


def test_a_hyphenated_given_name_alone_is_the_person_of_the_attendee_list(tmp_path):
    # seen failing on fresh notes 4: 'Sun-hee' (keyed as two words) was no short name, and became a tool
    entities = _entities(tmp_path, "sync.md", "# Weekly sync\n\nAttendees: Rose Adeyemi, Sun-hee Park, Grace Mwangi\n\n"
                                              "**Reporting.** Sun-hee has rebuilt the depot performance pack in Tableau.\n\n"
                                              "- [Sun-hee] Publish the depot pack and send the link round.\n")
    assert "Sun-hee" not in entities and "Sun-hee" in entities["Sun-hee Park"].aliases, entities


def test_apposition_and_usage_say_what_a_name_is(tmp_path):
    kinds = _kinds(
        tmp_path,
        "Sync notes\n\nOrla Nyberg said Moraine Cart, our own booking widget, goes live in May. "
        "Saltmarsh, our biggest customer, wants it first. The exports land in an R2 bucket.\n",
    )
    assert kinds.get("Moraine Cart") is PageKind.TOOL
    assert kinds.get("Saltmarsh") is PageKind.ORGANISATION
    assert kinds.get("R2") is PageKind.TOOL


def test_one_name_gets_one_kind_across_the_notes_of_a_batch():
    from graph_schema.models import DocumentEntity, ExtractedDocument, ParsedDocument
    from pipeline.kind_model import _agree_on_kinds

    def note(kind: PageKind, certain: bool = False, name: str = "Harrow Metrics") -> ExtractedDocument:
        entity = DocumentEntity(name=name, kind=kind, kind_certain=certain, context=name)
        return ExtractedDocument(parsed=ParsedDocument(source_id="s", key="k.md", text=name), entities=[entity])

    # a table's organisation column in one note outweighs the classifier's reading of two others
    notes = [note(PageKind.TOOL), note(PageKind.ORGANISATION, certain=True), note(PageKind.TOOL)]
    _agree_on_kinds(notes, {})
    assert {n.entities[0].kind for n in notes} == {PageKind.ORGANISATION}
    # no rule: the kind with most probability over all contexts, not the most frequent label
    notes = [note(PageKind.TOOL), note(PageKind.TOOL), note(PageKind.ORGANISATION)]
    chances = [{"person": 0.0, "organisation": 0.3, "tool": 0.35}, {"person": 0.0, "organisation": 0.3, "tool": 0.35},
               {"person": 0.0, "organisation": 0.9, "tool": 0.05}]
    _agree_on_kinds(notes, {id(n.entities[0]): c for n, c in zip(notes, chances, strict=True)})
    assert {n.entities[0].kind for n in notes} == {PageKind.ORGANISATION}
    # people are each document's own reading: one name may be a person here and a firm there
    notes = [note(PageKind.PERSON, name="Jordan"), note(PageKind.ORGANISATION, name="Jordan")]
    _agree_on_kinds(notes, {})
    assert [n.entities[0].kind for n in notes] == [PageKind.PERSON, PageKind.ORGANISATION]


@pytest.mark.parametrize(("text", "not_pages"), [
    ("# Roadmap sync\n\nAttendees: Nadia Osei, Piet Hauge\n\nNadia opened with the quarter's priorities.\n",
     {"Roadmap", "Attendees"}),  # a heading's word, a field's key
    ("# Customer call\n\nNadia Osei spoke with the buyer from Saltmarsh Freight about the renewal.\n", {"Customer"}),
    ("Trip notes\n\nNadia Osei flew to Rotterdam on Monday to meet the port team.\n", {"Rotterdam"}),  # a place
    ("# Vendor sync: Q1 data platform\n\nAttendees: Nadia Osei, Piet Hauge\n\nNadia opened the meeting.\n", {"Vendor"}),
    # seen failing on a fresh debrief: spaCy read 'Hire' (a verdict opening lines) and 'Fri' as people
    ("# Debrief\n\nPanel: Nadia Osei, Elin Berg\n\n**Values (Elin):** Good collaborator, asked thoughtful questions. Hire.\n\n"
     "**HM (Hana):** Hire. He wants an answer by Fri.\n", {"Hire", "Fri"}),
    # seen on 20 PEPs: spaCy's person 'Acronyms' opening a sentence became the owner of a task
    ("Section Headings\n----------------\n\nNadia Osei wrote this. PEP headings must begin in column zero and the "
     "initial letter of each\nword must be capitalized as in book titles.  Acronyms should be in all\ncapitals.\n",
     {"Acronyms"}),
    # seen failing on fresh notes: spaCy's 'CSV' and 'SRE' were organisations
    ("Weekly\n\n3 beta blockers (CSV export, SSO redirect loop, timezone on reports).\n"
     "Nadia Osei wants the SRE role filled by Friday.\n", {"CSV", "SSO", "SRE"}),
    # seen on fresh notes 3: a time zone was a firm (the classifier said 'not a page' at 0.82, under the
    # old 0.85 bar for short capitals)
    ("# Escalation\n\nPresent: Nadia Osei\n\nReminders went out 1h off after the DST change on Sun.\n\n**Timeline**\n"
     "- Sun 25 Oct: clocks change; reminder job uses cached UTC offsets\n- Mon 07:55 first ticket, 6 more by 08:30\n"
     "- Margin slipped to 68% (infra + SMS).\n- Three beta blockers: CSV export, login loop, reports.\n",
     {"UTC", "SMS", "CSV"}),
    # seen on fresh notes 3: spaCy read 'ERD' (an entity-relationship diagram) as a person
    ("# Sprint 14\n\nPresent: Nadia Osei\n\n- Lantern: replica + ERD (JF, 5)\n- JF: share ERD + table list by Mon\n",
     {"ERD"}),
    # seen on fresh notes 5: a status report's RAG values, units, quarter, reference, item labels and
    # the first words of table cells were firms, tools and people
    ("# Marlowe — status report\n\nProject manager: Nadia Osei\nOverall status: AMBER (was GREEN)\n\n"
     "| Workstream | RAG | Comment |\n|---|---|---|\n| Grid study | AMBER | 30 MW battery study two weeks late. |\n"
     "| Stakeholder engagement | GREEN | Update the landowner log every week. |\n\n"
     "| ID | Risk | Mitigation |\n|---|---|---|\n| R7 | Duplicate records | Separate review of the log |\n\n"
     "- D2: phase 2 deferred until phase 1 signs off.\n\n"
     "The fund is paid per MW installed, spend grew 61% YoY, and the connection moves to Q3 2029 (ref CO-4471).\n",
     {"AMBER", "GREEN", "RAG", "MW", "YoY", "Q3", "CO-4471", "R7", "D2", "Update", "Separate"}),
    # seen on fresh notes 4: 'Cutover' opening a sentence was a firm, where the retro speaks of the cutover
    ("# Retro\n\nNadia Osei moved the warehouse to the new system. Cutover was 16 Nov.\n\n"
     "- The cutover checklist gave every step an owner.\n- Pickers saw the new screens four days before cutover.\n",
     {"Cutover", "cutover"}),
    # seen on 20 PEPs: the sections 'Reference Implementation' and '4. Backwards Compatibility -- …' were
    # people, and the graph then found 'Reference Implementation' in eight PEPs
    ("Sections\n\nNadia Osei wrote this template.\n\n4. Backwards Compatibility -- All PEPs that introduce "
     "backwards incompatibilities must include a section describing them.\n\n5. Change History -- A list of "
     "changes.\n\nReference Implementation\n========================\n\nThe code is on GitHub.\n",
     {"Backwards Compatibility", "Change History", "Reference Implementation"}),
    # seen on 20 PEPs: a release schedule's title was a person in the brief's sources
    ("PEP: 361\nTitle: Python 2.6 and 3.0 Release Schedule\nAuthor: Nadia Osei\nStatus: Final\n\n"
     "Abstract\n========\n\nThis document describes the development and release schedule for Python 2.6 "
     "and 3.0. Nadia Osei is the release manager.\n\n\nRelease Schedule\n================\n\n"
     "- Feb 29 2008: Python 2.6a1 and 3.0a3 are released\n- Apr 02 2008: Python 2.6a2 and 3.0a4 are released\n",
     {"Release Schedule"}),
    # seen on fresh notes 6: a greeting and a request opening a table cell or a list item were part of the name
    ("Dear Agnieszka,\n\nNadia Osei read the draft.\n\n| # | Action | Owner |\n|---|---|---|\n"
     "| 3 | Ask Tidewell to serve cached slots | Agnieszka |\n\n- Remind Javier Ortega about the replica.\n",
     {"Dear Agnieszka", "Ask Tidewell", "Remind Javier Ortega"}),
    # seen in the 20-PEP brief: a plural noun opening list items was a person ('Bugs (person)'), and a
    # sentence's opening 'The' stayed on a name the text also writes alone ('The Windows (tool)')
    ("Nadia Osei wrote this.  Bugs may be fixed until the final release.\n\nOpen issues\n===========\n\n"
     "- Bugs that need resolving before release, ie, they block release:\n\n  None\n\n"
     "- Bugs deferred until 2.5.1 (or later):\n\n  * https://bugs.python.org/issue1544279 - ``Socket`` module is "
     "not thread-safe\n  * https://bugs.python.org/issue1475523 - gettext.py bug (owner: Martin v. Loewis)\n",
     {"Bugs"}),
    ("Nadia Osei wrote this.\n\nFor this reason we want to have a higher coordination between the\nthree major "
     "releases: Windows, Mac, and source.  The Windows and\nsource releases benefit from the close proximity of the "
     "respective\nrelease-bots.  But the Mac-bot, Jack Jansen, is 6 hours away.  So\nwe add this extra step to the "
     "release process for a final\nrelease:\n\n1. Hold up the final release until Jack approves, or until we\n"
     "   lose patience <wink>.\n", {"The Windows"}),
])
def test_heading_words_field_keys_and_places_are_no_pages(tmp_path, text, not_pages):
    """Seen failing before: 'Roadmap' and 'Customer' were people, 'Attendees' an organisation, 'Rotterdam' a person."""
    kinds = _kinds(tmp_path, text)
    assert kinds.get("Nadia Osei") is PageKind.PERSON
    assert not not_pages & set(kinds), kinds


def test_a_job_alone_is_whoever_holds_it_never_a_firm(tmp_path):
    # seen failing: spaCy read 'CTO' as an organisation, and the classifier kept it
    kinds = _kinds(tmp_path, "# Budget\n\nNadia Osei presented the plan. The CTO will review it with our VP of "
                             "Sales, and the CEO signs off.\n")
    assert kinds.get("Nadia Osei") is PageKind.PERSON
    assert {kinds[job] for job in ("CTO", "VP", "CEO") if job in kinds} <= {PageKind.PERSON}, kinds


@pytest.mark.parametrize(("text", "word", "nothing"), [
    ("The battery grows from 20 MW to 30 MW.", "MW", True), ("paid per MW installed", "MW", True),
    ("spend grew 61% YoY", "YoY", True), ("moves to Q3 2029 (ref CO-4471)", "CO-4471", True),
    ("| R7 | Duplicate records | M |", "R7", True), ("- D2: phase 2 deferred", "D2", True),
    ("Overall status: AMBER", "AMBER", True), ("| Update the landowner log | Friday |", "Update", True),
    # seen on fresh notes 3: an OKR review's objectives under their numbered labels
    ("## O1 Make Dispatch boringly reliable: 0.6\n## O2 Faster customer onboarding: 0.4", "O1 Make Dispatch", True),
    ("## O1 Make Dispatch boringly reliable: 0.6\n## O2 Faster customer onboarding: 0.4", "O2", True),
    ("- KR3 Reduce churn to 2%\n- KR4 Ship the app", "KR3", True),
    # found in review: a product, a summit or a network named once at an item's start stays a name
    ("- GPT4 launch went well", "GPT4", False), ("- G20 summit in Rome", "G20", False),
    ("## GPT4 Turbo rollout", "GPT4 Turbo", False), ("- O2 contract renewal due", "O2", False),
    # found in review: counts of things, 'as per' someone, known products as labels and people in cells stay names
    ("We hired 3 IBM consultants.", "IBM", False), ("As per John, the deadline moved.", "John", False),
    ("the 2018 FIFA World Cup", "FIFA", False), ("- S3: bucket policy reviewed", "S3", False),
    ("| Mark to send the deck to finance | Friday |", "Mark", False), ("Tom Green joined.", "Green", False),
    ("## S3 Glacier migration", "S3 Glacier", False), ("- B2 Retail signed the renewal", "B2 Retail", False),
    ("C11 supported compiler for the platform", "C11", False),  # seen on SoftNER: a plain line's standard
    ("- O1 \u00a0Make it\n- O2 Ship it", "O1 \u00a0", False),  # seen in CI on the PEPs: a span ending in a no-break space
    # seen on fresh notes 6: a header row's labels and a rating in its column were a firm, a person and a tool
    ("| Owner | Item | Due |\n|---|---|---|\n| Chidi | Switch to incremental | 13 Nov |", "Owner", True),
    ("| Owner | Item | Due |\n|---|---|---|\n| Chidi | Switch to incremental | 13 Nov |", "Item", True),
    ("| Risk | Impact |\n|---|---|\n| Lag at 31 clinics | High |\n| Credit burn | Medium |", "Medium", True),
    # a header row of products, a product alone in a cell, and a person in a cell stay names
    ("| Criterion | Looker | Slack |\n|---|---|---|\n| Semantic layer | strong | none |", "Looker", False),
    ("| Criterion | Looker | Slack |\n|---|---|---|\n| Semantic layer | strong | none |", "Slack", False),
    ("| Tool | Use |\n|---|---|\n| Medium | blog |\n| Slack | chat |", "Medium", False),
    ("| Owner | Due |\n|---|---|\n| Maya | 7 Dec |", "Maya", False),
    # found in review: people in an owner column, products and projects heading columns, products in a column
    ("| Owner | Item |\n|---|---|\n| Grace | Switch |\n| Dean | Merge |", "Dean", False),
    ("| Criterion | Harbour | Beacon |\n|---|---|---|\n| Cost | low | high |", "Harbour", False),
    ("| Criterion | Harbour | Beacon |\n|---|---|---|\n| Cost | low | high |", "Beacon", False),
    ("| Channel | Owner |\n|---|---|\n| Teams | Maya Patel |\n| Slack | Ben Ito |", "Teams", False),
    # seen on fresh notes 7: a status with its colour mark was a person and a tool
    ("| Workstream | RAG |\n|---|---|\n| Atlas | 🟢 Green |\n| Halo | 🔴 Red |", "Green", True),
    ("| Workstream | RAG |\n|---|---|\n| Atlas | 🟢 Green |\n| Halo | 🔴 Red |", "Red", True),
    ("| Workstream | RAG |\n|---|---|\n| Atlas | 🟢 Green |\n| Halo | 🔴 Red |", "Halo", False),
])
def test_units_labels_and_status_words_name_nothing(text, word, nothing):
    from pipeline.not_names import names_nothing

    start = text.index(word)
    assert names_nothing(text, start, start + len(word)) is nothing


def test_short_capitals_named_as_an_institution_stay_an_organisation(tmp_path):
    # seen failing in CI after the short-capitals rule: the classifier gave 'not a page' 0.93 to
    # 'PSF' here; 'The PSF will announce' names it as institutions are named, unlike 'the SRE role'
    kinds = _kinds(tmp_path, "The PSF board approved the grant for Priya Natarajan.\nThe PSF will announce it.\n")
    assert kinds.get("PSF") is PageKind.ORGANISATION, kinds  # 'the SRE role' stays none: see the test above


def test_work_kept_in_a_tool_in_one_note_types_it_tool_in_every_note_of_the_batch(tmp_path):
    # seen failing on fresh notes 4: the classifier read 'Tableau' as a firm in the notes that only
    # name it, and the batch's agreement made it a firm everywhere
    texts = {"sync.md": "**Reporting.** Sun-hee has rebuilt the depot performance pack in Tableau.\n",
             "one-on-one.txt": "He said the Tableau support for Sun-hee could wait two weeks.\n",
             "retro.md": "- Hunter: list every downstream consumer of the stock tables (Airflow, Tableau, the exports).\n"}
    kinds = {k: v for k, v in _batch_kinds(tmp_path, texts).items() if k[1] == "Tableau"}
    assert kinds == {("sync.md", "Tableau"): PageKind.TOOL, ("one-on-one.txt", "Tableau"): PageKind.TOOL,
                     ("retro.md", "Tableau"): PageKind.TOOL}, kinds
    from pipeline.tool_candidates import kept_in_a_tool

    # found in review: work done in a place is no work kept in a tool
    for text in ("The lawsuit was filed in Delaware", "The phones are built in Shenzhen", "the board in London"):
        assert not kept_in_a_tool(text, text.rindex(" ") + 1), text


def test_a_product_compared_in_a_table_row_with_products_is_one_too(tmp_path):
    # seen failing on fresh notes 4: 'Onfleet' in a vendor table beside two tools was a firm, in both notes
    texts = {"eval.md": "# Route optimisation vendor evaluation\n\n| | OptimoRoute | Routific | Onfleet |\n|---|---|---|---|\n"
                        "| Price per vehicle | £28 | £31 | £35 |\n| Samsara integration | Native | Via API | Native |\n\n"
                        "Dario at Whitlock & Co reviewed the contracts; the only concern was Onfleet's 24-month minimum.\n",
             "retro.md": "- Lodestar restarts in January with a smaller scope. We still won't buy Onfleet for this.\n"}
    kinds = {k: v for k, v in _batch_kinds(tmp_path, texts).items() if k[1] in ("OptimoRoute", "Routific", "Onfleet")}
    assert set(kinds.values()) == {PageKind.TOOL} and ("retro.md", "Onfleet") in kinds, kinds
    # found in review: a data row's cells are of different columns (a carrier, a telematics box, a router)
    kinds = _kinds(tmp_path, "| Carrier | Telematics | Routing |\n|---|---|---|\n| Fenwick Haulage | Samsara | Routific |\n")
    assert kinds.get("Fenwick Haulage") is PageKind.ORGANISATION, kinds


def test_a_copula_that_says_what_a_name_is_is_usage_evidence():
    from pipeline.tool_candidates import in_strong_tool_cue

    text = "Onfleet is really a last-mile dispatch and proof-of-delivery product. Ada is a lead of the ordering system."
    assert in_strong_tool_cue(text, 0, len("Onfleet"))
    assert not in_strong_tool_cue(text, text.index("Ada"), text.index("Ada") + 3)
    # found in review: a role, a clause or a place between the copula and the noun
    for text in ("Sam is a product manager.", "Kenya is a country whose political system is young.",
                 "Priya is an engineer on the platform team.", "Today is a big product day."):
        name = text.split()[0]
        assert not in_strong_tool_cue(text, 0, len(name)), text


def test_a_projects_field_names_projects_in_every_note_of_the_batch(tmp_path):
    # seen failing on fresh notes 4: the code names read as a firm and a tool, here and in other notes
    texts = {"board.md": "QUILLMOOR FREIGHT: BOARD UPDATE\n\nPROGRAMMES: DRIFTWOOD, MARLIN, LODESTAR\n\n"
                         "DRIFTWOOD (warehouse system replacement): cutover completed 16 Nov at Ashby.\n\n"
                         "LODESTAR (driver app): paused until January.\n",
             "sync.md": "**Warehouse.** Teodoro says the Driftwood cutover at the Ashby site is still on track.\n\n"
                        "Their driver app is excellent and could overlap with Lodestar.\n"}
    kinds = {(key, name.lower()): kind for (key, name), kind in _batch_kinds(tmp_path, texts).items()
             if name.lower() in ("driftwood", "lodestar")}
    assert len(kinds) == 4 and set(kinds.values()) == {PageKind.PROJECT}, kinds
    # found on SoftNER: a config key's 'project: Redmine project identifier …' lists no projects
    from graph_schema.models import DocumentEntity, EntityMention
    from pipeline.kind_model import listed_as_a_project

    text = "project: Redmine project identifier where issues should be created\nProjects: Atlas (payments), Heron\n"
    def named(name: str) -> DocumentEntity:
        start = text.index(name)
        return DocumentEntity(name=name, kind=PageKind.TOOL, mentions=[EntityMention(start=start, end=start + len(name), surface=name)])
    assert not listed_as_a_project(text, named("Redmine"))
    assert listed_as_a_project(text, named("Atlas")) and listed_as_a_project(text, named("Heron"))
    # found in review: the next field on the line, and software a rollout is named by, are no projects
    text = "Project: Atlas. Lead: Ada Park\nProjects: Salesforce, Workday\n"
    assert listed_as_a_project(text, named("Atlas")) and not listed_as_a_project(text, named("Ada Park"))
    assert not listed_as_a_project(text, named("Salesforce"))


def test_a_tool_fields_value_is_software_and_capitals_are_no_everyday_word(tmp_path):
    # seen failing on fresh notes 3: 'Power BI' opened its clauses, so it read as everyday words
    # ('Open Access to the logs'), and the classifier made it a firm
    kinds = _kinds(tmp_path, "# Q3 OKR review\nHeld on Fri 30 Oct. Scores 0-1.0. Dashboard: Power BI \"Eng OKRs\" "
                             "(still fed from the old export).\n\n- Joaquín: Power BI -> warehouse cutover w/ Pinecrest in Nov\n")
    assert kinds.get("Power BI") is PageKind.TOOL, kinds

    from pipeline.tool_candidates import value_of_a_tool_field

    assert value_of_a_tool_field("- **Tracker:** Linear", len("- **Tracker:** "))
    assert not value_of_a_tool_field("Owner: Ada", len("Owner: "))


def test_a_name_an_email_address_is_at_is_a_firm_in_every_note_of_the_batch(tmp_path):
    # seen failing on fresh notes 3: 'Kestrava' was a person here, and so were its minutes' capitals
    mail = tmp_path / "mail.txt"
    mail.write_text("From: Farah Qureshi <farah.qureshi@corvane.example>\nTo: Yusuf Demirci <yusuf@kestrava.example>\n\n"
                    "Hi Yusuf,\n\nVolume tiers above 2M/mo remain available if Kestrava commits to 12 months.\n")
    minutes = tmp_path / "minutes.md"
    minutes.write_text("KESTRAVA: STEERING COMMITTEE MINUTES\n\nPresent: Linnea Strand (CEO, chair), Yusuf Demirci (CFO)\n")
    parsed = [parse_document(p, p.name, "test-kinds", get_settings()) for p in (mail, minutes)]
    kinds = [(document.parsed.key, e.kind) for document in extract_documents(parsed, embed=embed_texts)
             for e in document.entities if e.name.lower() == "kestrava"]
    assert kinds == [("mail.txt", PageKind.ORGANISATION), ("minutes.md", PageKind.ORGANISATION)], kinds
    # seen on 20 PEPs: spaCy's 'The Python' beside python.org addresses made Python a firm in every PEP
    from graph_schema.models import EntityMention
    from pipeline.kind_model import _named_by_an_email_domain

    text = "Author: Barry Warsaw <barry@python.org>\n\nThe Python standard library is conservative.\n"
    start = text.index("The Python")
    python = DocumentEntity(name="The Python", kind=PageKind.ORGANISATION, aliases=["Python"],
                            mentions=[EntityMention(start=start, end=start + 10, surface="The Python")])
    assert not _named_by_an_email_domain(text, python)


def test_a_brands_product_is_a_tool_and_so_is_its_short_name_in_other_notes(tmp_path):
    # seen failing on fresh notes 3: spaCy's firms 'Google Sheets', 'Microsoft Teams' and 'Teams' stayed firms
    call = tmp_path / "call.md"
    call.write_text("# Call w/ Pinecrest Data\n2026-10-02, 30 min, Teams\n\nAttendees: Ines Carvalho (Pinecrest), Joaquín Ferreyra\n\n"
                    "- Ines confirmed 2 data engineers from their side starting 10/12\n")
    review = tmp_path / "review.md"
    review.write_text("# Q3 OKR review\nHeld on Microsoft Teams, Fri 30 Oct.\n\n- Siosaia Taufa, Ops Manager, Sunbeck: "
                      "\"We spent three weeks in Google Sheets before anyone could book a draw.\"\n")
    parsed = [parse_document(p, p.name, "test-kinds", get_settings()) for p in (call, review)]
    kinds = {(d.parsed.key, e.name): e.kind for d in extract_documents(parsed, embed=embed_texts) for e in d.entities}
    assert kinds.get(("review.md", "Google Sheets")) is PageKind.TOOL, kinds
    assert kinds.get(("review.md", "Microsoft Teams")) is PageKind.TOOL, kinds
    assert kinds.get(("call.md", "Teams")) in (PageKind.TOOL, None), kinds


def test_a_weak_firm_reading_of_a_persons_given_name_joins_the_person(tmp_path):
    # seen failing on fresh notes 3: spaCy's firm 'Mai' (classifier: organisation 0.03) beside
    # 'Nguyen Thi Mai' made a page of its own
    by_name = _entities(tmp_path, "deck.txt", "Slide 1 - Title\n  Halyard: new-clinic onboarding in a day, not a month\n"
                        "  Priyanka Sethi, Product / Nguyen Thi Mai, Design\n\nSlide 3 - What Halyard does\n"
                        "  - self-serve invite flow, roles, site setup\n  - timezone + opening hours picker (Mai's designs)\n")
    assert "Mai" not in by_name, list(by_name)
    assert by_name["Nguyen Thi Mai"].kind is PageKind.PERSON and "Mai" in by_name["Nguyen Thi Mai"].aliases


def test_a_first_name_is_the_person_the_batch_names_in_full_whatever_handles_and_pairs_say(tmp_path):
    # seen on fresh notes 6: a chat handle ('chidi.ob', a shape the classifier dropped) and 'Chidi and
    # Seun' (read as a work) counted as other things called Chidi, so the 1:1's Chidi stayed a firm
    # and none of his tasks there was his
    kinds = _batch_kinds(tmp_path, {
        "log.md": "# Decision log\n\nPresent: Maya Kowalczyk, Chidi Okonkwo-Bello\n\nChidi to turn it off by Friday.\n",
        "chat.txt": "[09:11] chidi.ob: that's mine, sorry. the sync didn't finish overnight\n"
                    "[09:12] maya.k: ok. Chidi and Seun are running the trials anyway\n",
        "one-to-one.txt": "Maya / Chidi 1:1\n\n- Chidi is pleased with where the models are.\n"
                          "- Chidi asked whether requests could go through Jira instead. Chidi to add it from next Monday's report.\n",
    })
    assert kinds[("one-to-one.txt", "Chidi")] is PageKind.PERSON


def test_a_colleague_spacy_read_as_a_work_of_art_is_a_person(tmp_path):
    # seen failing on fresh notes 3 one note at a time: 'Yusuf' was a project, and two later notes'
    # readings turned the page of Yusuf Demirci into a project
    by_name = _entities(
        tmp_path, "call.md",
        '# Call w/ Pinecrest Data: Lantern kickoff follow-up\n'
        '2026-10-02, 30 min, Teams\n'
        '\n'
        'Attendees: Ines Carvalho (Pinecrest), Joaquín Ferreyra, Adaeze Nwosu, me\n'
        '\n'
        '- Ines confirmed 2 data engineers from their side starting 10/12, ~8 wks\n'
        '- scope for Project Lantern phase 1: replicate the 40-odd core postgres tables into Snowflake, nightly to start, CDC later\n'
        '- Pinecrest wants to own the dbt models for billing + visits; we keep scheduling models in-house (Joaquín pushed for this, agreed)\n'
        "- they asked for read creds. NOT prod primary. Adaeze ok'd a dedicated replica\n"
        '- open q: who pays for Snowflake credits during the backfill? Ines guesses ~$4k. need Yusuf to sign off\n'
        '- Joaquín worried about row counts on visit_events (~900M). Pinecrest suggests partitioning by month for the backfill\n'
        '\n'
        'Next\n'
        '- JF: share ERD + table list by Mon\n'
        '- Ines: SOW v2 w/ revised timeline\n'
        '- me: ask Yusuf re credits budget\n',
    )
    assert by_name["Yusuf"].kind is PageKind.PERSON


def test_a_firms_coined_word_read_as_a_person_joins_the_firm(tmp_path):
    # seen failing on fresh notes 3: 'Sunbeck' (the classifier: person 0.96) beside 'Sunbeck Labs', and 'Ops Manager' a person
    by_name = _entities(tmp_path, "deck.txt", "Halyard for Sunbeck Labs: onboarding pilot\n\nSlide 2 - Why\n"
                        "  - Siosaia Taufa, Ops Manager, Sunbeck: \"We spent three weeks before anyone could book.\"\n"
                        "Slide 4 - Pilot plan\n  - 4 Sunbeck sites, Dec-Jan\n")
    assert "Sunbeck" not in by_name, list(by_name)
    assert "Sunbeck" in by_name["Sunbeck Labs"].aliases
    assert "Ops Manager" not in by_name  # her role, no one's name


def test_a_numbered_items_first_word_and_an_opening_verb_are_not_names(tmp_path):
    # seen failing on fresh notes 3: 'Partner' became a tool (its item number hid the line's start)
    # and 'Discussed Tomasz' a person
    kinds = _kinds(tmp_path, "Minutes\n\nPresent: Linnea Strand, Yusuf Demirci\n\n3. Budget. Discussed Tomasz's draft. Linnea supportive.\n"
                             "4. Partner channel. Tovar Partners wants to resell our app.\n")
    assert "Partner" not in kinds and "Discussed Tomasz" not in kinds, kinds
    assert kinds.get("Tomasz") is PageKind.PERSON, kinds


def test_a_person_opening_sentences_is_still_a_person(tmp_path):
    # seen failing with the heading rule's first form: every line here opens with 'Maya', an
    # everyday word the nickname data does not know, but these are sentences, not headings
    kinds = _kinds(tmp_path, "# Weekly\n\nMaya walked through the migration plan.\nMaya asked for the numbers by Friday.\n")
    assert kinds.get("Maya") is PageKind.PERSON, kinds


def test_partners_names_joined_by_an_ampersand_are_a_firm(tmp_path):
    # seen failing on a fresh email: the classifier was sure 'Halvorsen & Reyes' was a person
    kinds = _kinds(tmp_path, "I spoke with Daniel Achebe at Halvorsen & Reyes yesterday; they can run the background checks.\n")
    assert kinds.get("Halvorsen & Reyes") is PageKind.ORGANISATION, kinds
    assert kinds.get("Daniel Achebe") is PageKind.PERSON


def test_project_x_is_a_project(tmp_path):
    kinds = _kinds(
        tmp_path,
        "Planning\n\nProject Lighthouse starts in June. Amira Haddad leads Project Lighthouse "
        "and reports the budget to the steering group every month.\n",
    )
    assert kinds.get("Project Lighthouse") is PageKind.PROJECT
    assert kinds.get("Amira Haddad") is PageKind.PERSON
    # seen writing the contradictions test: spaCy read 'Project Harbour' as a nationality, the
    # candidate kept the sentence's 'The', and the note named no project at all
    assert _kinds(tmp_path, "Notes\n\nThe Project Harbour budget is £40,000.\n") == {"Project Harbour": PageKind.PROJECT}


def test_a_name_the_text_calls_a_piece_of_work_is_a_project(tmp_path):
    # seen on fresh notes 6: 'Bramble, our clinic network refresh' was a person
    kinds = _kinds(tmp_path, "WAN renewal\n\nWe will not sign a five-year term. We're in the middle of Bramble, "
                             "our clinic network refresh, and need the option to move sites in 2028.\n")
    assert kinds.get("Bramble") is PageKind.PROJECT
    from pipeline.kind_model import project_cue

    text = "Kafka, our event streaming platform, is down. Acme, our migration partner, called."
    assert project_cue(text, 0, 5) == 0 and project_cue(text, text.index("Acme"), text.index("Acme") + 4) == 0
    for text in ("Datadog, the vendor for the refresh, called.", "Kafka, the backbone of the migration\nwork"):
        assert project_cue(text, 0, text.index(",")) == 0, text  # review: what the work is for, a wrapped line


def test_an_edition_of_a_product_is_the_product(tmp_path):
    # seen on fresh notes 6: 'Metabase Cloud' was a page beside 'Metabase'
    entities = _entities(tmp_path, "eval.md", "BI tools\n\nChidi is leaning towards Metabase on cost. We recommend "
                                              "Metabase Pro on Metabase Cloud, about £9k a year, over Looker.\n")
    assert "Metabase Cloud" not in entities and "Metabase Pro" not in entities
    assert entities["Metabase"].kind is PageKind.TOOL and "Metabase Cloud" in entities["Metabase"].aliases


def test_a_name_with_phases_or_an_approval_as_a_project_is_a_project_in_every_note(tmp_path):
    # seen on fresh notes 3 and 5: a programme's code name read as a tool, or dropped as no name
    texts = {"plan.md": "# Marlowe — phase 1 planning\n\nAttendees: Nadia Osei, Piet Hauge\n\n"
                        "- Nadia: load the Marlowe backlog into Jira by Wednesday.\n"
                        "- Piet: move the survey data into Marlowe before the audit.\n",
             "board.md": "# Steering minutes\n\nDecision: Marlowe approved as an internal project with a budget of £60k.\n\n"
                         "Piet asked who pays for read access to Marlowe.\n",
             "proposal.md": "# Proposal: Quenby (cut hosting spend 20% by Q2)\n\nNadia Osei drafted it.\n\n"
                            "- D1: Quenby approved, 6 wks, starts 2 Nov.\n",
             "news.md": "Congress approved the budget on Friday. Nadia Osei said Orbitz approved, too.\n"}
    kinds = _batch_kinds(tmp_path, texts)
    assert {k: v for k, v in kinds.items() if k[1] in ("Marlowe", "Quenby")} == {
        ("plan.md", "Marlowe"): PageKind.PROJECT, ("board.md", "Marlowe"): PageKind.PROJECT,
        ("proposal.md", "Quenby"): PageKind.PROJECT}, kinds
    assert kinds.get(("news.md", "Congress")) is not PageKind.PROJECT, kinds  # an active 'approved' is someone's act
    # found in review: a firm's trial phase and a firm's approval in minutes make no project of the firm
    kinds = _batch_kinds(tmp_path, {
        "trial.md": "Novavax said on Monday that the Novavax phase 3 trial enrolled 30,000 people. Novavax shares rose.\n",
        "minutes.md": "# Vendor minutes\n\nAttendees: Nadia Osei, Piet Hauge\n\n- Corvane approved, purchase order to follow.\n"
                      "- Piet Hauge to send Corvane Logistics the signed contract.\n"})
    assert kinds.get(("trial.md", "Novavax")) is not PageKind.PROJECT, kinds
    assert PageKind.PROJECT not in {kind for (_, name), kind in kinds.items() if name.startswith("Corvane")}, kinds


def test_known_software_spacy_took_for_a_work_is_a_tool(tmp_path):
    # seen on fresh notes 5: 'Airtable' (spaCy's work of art) was a project in every note
    kinds = _kinds(tmp_path, "# CRM options\n\nPrepared by: Nadia Osei\n\nContact records currently live in three places: an "
                             "Excel workbook kept by the community team, an Airtable base set up for the Marlowe "
                             "consultation, and email.\n")
    assert kinds.get("Airtable") is PageKind.TOOL, kinds


def test_shape_candidates_find_code_shaped_and_cued_names_only():
    text = "We deployed the service with Node.js and nginx. Then we run install webpack today."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 46), (47, len(text))])}
    assert {"Node.js", "webpack"} <= found
    assert "We" not in found and "Then" not in found and "today" not in found
    assert is_code_shaped("Neo4j") and is_code_shaped("jQuery") and not is_code_shaped("Monday")


def test_a_function_word_opening_a_run_is_not_part_of_the_name():
    text = "IC: Then Quorra Board first, and we pilot it in May."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, len(text))])}
    assert "Quorra Board" in found and "Then Quorra Board" not in found  # seen failing: 'Then Quorra Board'


def test_an_everyday_word_is_no_mention_of_a_name_written_with_its_capital(tmp_path):
    # seen on 20 PEPs: 'The Author header lists the names' made every 'author' of PEP 1 a mention, and
    # 'author' a person page holding 33 facts; 'python' beside 'Python' is still the language
    text = ("Nadia Osei wrote this in Python.\n\nIf the PEP isn't ready, an editor will send it back to the author "
            "for revision. The PEP author is responsible for building consensus.\n\nThe Author header lists the "
            "names, and optionally the email addresses\nof all the authors/owners of the PEP.  The format of the "
            "Author header\nvalues must be:\n\n    Random J. User <random@example.com>\n\nIt is up to the author "
            "to keep it current, and to run it with python 3.\n")
    surfaces = {m.surface for e in _entities(tmp_path, "pep.txt", text).values() for m in e.mentions}
    assert "author" not in surfaces and "python" in surfaces, surfaces


def test_a_sentences_opening_article_joins_a_name_only_where_the_text_never_writes_the_name_alone():
    text = "The Windows and source releases wait. Users of Windows do not. The Hague rules today."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 38), (39, 62), (63, len(text))])}
    assert "Windows" in found and "The Windows" not in found  # seen failing in the 20-PEP brief
    assert "The Hague" in found  # never written alone: the article is part of the name
    # found in review: a question's first word is no name written alone
    text = "The Who played Leeds on Friday night. Who would miss it? Roger Daltrey sang."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 37), (38, 56), (57, len(text))])}
    assert "The Who" in found and "Who" not in found


def test_a_pronoun_before_a_usage_cue_is_no_name():
    # seen failing on a biography: 'his command' made 'his' a candidate, and every 'his' one page
    text = "With the troops under his command Gordon won the day. We run webpack command builds."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 53), (54, len(text))])}
    assert "his" not in found and "webpack" in found


def test_a_coined_lower_case_word_is_a_candidate_an_everyday_one_is_not():
    text = "We moved the nightly loads onto dagster and kubectl now runs them. The loads are fine."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 68), (69, len(text))])}
    assert {"dagster", "kubectl"} <= found and not {"loads", "nightly", "fine"} & found


def test_initials_that_spell_a_function_word_do_not_spread_to_it():
    # seen failing on minutes: 'Tomás Okonkwo (TO)' made every lower-case 'to' a mention of him
    text = "Attendees: Tomás Okonkwo (TO). TO to open a ticket by Friday, and to close it in May."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, 30), (31, len(text))])}
    assert "TO" in found and "to" not in found


def test_a_common_noun_capitalised_only_by_its_place_does_not_spread_to_its_lower_case_uses():
    text = "Homeopathy is popular. Critics say homeopathy fails. We run Python and install python 3."
    sentences = [(0, 22), (23, 52), (53, len(text))]
    homeopathy, python = text.index("Homeopathy"), text.index("Python")
    found = {text[s:e] for s, e in shape_candidates(text, [(homeopathy, homeopathy + 10), (python, python + 6)], sentences)}
    assert "homeopathy" not in found  # seen failing: every lower-case 'homeopathy' became a candidate
    assert "python" in found  # 'Python' inside a sentence is a name's spelling


def test_shipped_model_loads_in_the_training_scripts_format(tmp_path):
    model = load_kind_model()
    assert model.classes == CLASSES
    dimensions = model.weights.shape[1]
    assert model.weights.shape == (len(CLASSES), dimensions) and model.bias.shape == (len(CLASSES),)
    with np.load(MODEL_PATH) as data:
        assert int(data["feature_version"]) == FEATURE_VERSION
    # what the training script writes, read back, predicts the same probabilities
    copy = tmp_path / "kind_model.npz"
    KindModel(model.weights, model.bias, model.classes).save(copy)
    again = load_kind_model.__wrapped__(copy)
    rows = np.random.default_rng(0).normal(size=(3, dimensions)).astype(np.float32)
    assert np.allclose(again.probabilities(rows), model.probabilities(rows))
    assert np.allclose(model.probabilities(rows).sum(axis=1), 1.0)


@pytest.fixture(scope="module")
def demo_kinds() -> dict[str, PageKind]:
    path = Path(__file__).resolve().parents[1] / "samples" / "uploads"
    files = sorted(p for p in path.rglob("*") if p.is_file())
    parsed = [parse_document(p, str(p.relative_to(path)), "test-kinds-demo", get_settings()) for p in files]
    return {e.name: e.kind for doc in extract_documents(parsed, embed=embed_texts) for e in doc.entities}


@pytest.mark.parametrize("name", ["Neo4j", "Kafka", "Grafana", "PostgreSQL"])
def test_demo_software_is_a_tool(demo_kinds, name):
    assert demo_kinds.get(name) is PageKind.TOOL


@pytest.mark.parametrize("name", ["Acme Corporation", "Northwind Logistics"])
def test_demo_companies_are_organisations(demo_kinds, name):
    assert demo_kinds.get(name) is PageKind.ORGANISATION


def test_dropping_a_candidate_keeps_indexes_and_unnamed_decisions_right():
    """Seen failing before the fix: a works_at relation kept the dropped entity's index (KeyError
    in the merge), and a decision that never named anyone was dropped with the candidate."""
    from graph_schema.kinds import FactKind
    from graph_schema.models import CandidateFact, DocumentEntity, EntityRelation, ExtractedDocument, ParsedDocument
    from pipeline.kind_model import _drop_entities

    document = ExtractedDocument(
        parsed=ParsedDocument(source_id="s", key="notes.md", text="x" * 100),
        entities=[DocumentEntity(name=n, kind=PageKind.PERSON) for n in ("Wiki", "Ada Park", "Greenleaf Retail")],
        facts=[
            CandidateFact(text="Ada Park and the Wiki.", start=0, end=10, entities=[0, 1]),
            CandidateFact(text="Only the Wiki.", start=10, end=20, entities=[0]),
            CandidateFact(text="We agreed to ship in May.", start=20, end=30, entities=[], kind=FactKind.DECISION),
        ],
        relations=[EntityRelation(subject=1, object=2, type="works_at"), EntityRelation(subject=0, object=2, type="works_at")],
    )
    _drop_entities(document, {0: None})

    assert [e.name for e in document.entities] == ["Ada Park", "Greenleaf Retail"]
    assert [(f.text, f.entities) for f in document.facts] == [
        ("Ada Park and the Wiki.", [0]), ("We agreed to ship in May.", [])
    ]
    assert [(r.subject, r.object) for r in document.relations] == [(0, 1)]


def test_an_acronym_used_as_a_countable_noun_is_no_name():
    """'an API', 'two APIs', 'a BDFL': a common noun written in capitals, not the name of a tool or a body.
    Seen failing before: 'API' was a tool and 'BDFL' an organisation in a brief's who-matters list."""
    from graph_schema.models import ParsedDocument
    from pipeline.parse import chunk_text

    texts = {
        "design.md": "Marta Klein designed an API for the billing data at Norvik Bank. Two older APIs stay private. "
                     "Every open project needs a BDFL who settles disputes.\n",
        "review.md": "The API now serves the Norvik Bank app. The BDFL approved the change on Monday. "
                     "Later Marta Klein met a BBC reporter and an FBI agent in Brussels about the NATO summit.\n",
    }
    parsed = [ParsedDocument(source_id=k, key=k, text=t, chunks=chunk_text(t, 1500)) for k, t in texts.items()]
    design, review = extract_documents(parsed, embed=embed_texts)
    assert not {e.name for e in design.entities} & {"API", "APIs", "BDFL"}, design.entities
    # seen on 20 PEPs: 'the API' (no countable use in that document) was a tool in the who-matters list;
    # a software part's generic name in capitals ('API', 'SDK', 'CLI') names nothing in particular
    assert "API" not in {e.name for e in review.entities}, review.entities
    names = {e.name for d in (design, review) for e in d.entities}
    # an acronym before a noun it qualifies ('a BBC reporter') is still a name
    assert {"Norvik Bank", "BBC", "FBI", "NATO"} <= names, names


def test_taken_spans_overlap_as_a_scan_of_every_span_would_say():
    import random

    from pipeline.tool_candidates import _TakenSpans

    rng = random.Random(3)
    spans = [(s, s + rng.randint(0, 12)) for s in (rng.randint(0, 400) for _ in range(80))]
    taken = _TakenSpans(spans)
    for start in range(0, 420, 3):
        for length in (0, 1, 5, 20):
            end = start + length
            assert taken.overlaps(start, end) == any(s < end and start < e for s, e in spans), (start, end)
    assert not _TakenSpans([]).overlaps(0, 10)


def test_a_surname_with_particles_is_one_name_not_its_last_word(tmp_path):
    # seen on fresh notes 5: spaCy tagged nothing here, the capitalised run stopped at 'de', and
    # 'Cruz' became a person page of its own while Isabel got none
    kinds = _kinds(tmp_path, "# Options\n\nPrepared by: Amara Okonkwo, with input from Callum MacLeod and Isabel de la Cruz\n")
    assert "Cruz" not in kinds, kinds
    text = "Minutes: input from Isabel de la Cruz and Pieter van der Berg on the route."
    found = {text[s:e] for s, e in shape_candidates(text, [], [(0, len(text))])}
    assert {"Isabel de la Cruz", "Pieter van der Berg"} <= found, found


def test_a_person_named_last_on_a_line_is_still_a_person(tmp_path):
    # found in review: a section title that ends its line counts only beside its own heading
    kinds = _kinds(tmp_path, "# Hiring\n\nNadia Osei met the candidates.\n\n- Follow up with Grant Baker\n"
                             "- The candidate today was Wade Miller\n")
    assert kinds.get("Grant Baker") is PageKind.PERSON and kinds.get("Wade Miller") is PageKind.PERSON, kinds


def test_a_list_of_people_with_their_roles_is_no_headline(tmp_path):
    from pipeline import names

    settings = get_settings()
    assert names.is_headline("Celtics Sign Star Guard From Rival", settings.headline_min_words, settings.headline_capital_share)
    line = "- Harrowgate: Mira Solberg (VP, Patient Services), Dr. Tobi Okeke (Security), Lena Vask"
    assert not names.is_headline(line, settings.headline_min_words, settings.headline_capital_share)
    # found in review: a title's date in brackets and a numbered section heading are still headlines
    for title in ("Fernway Renewal Call Notes (Oct 12)", "1. Getting Started With The Harbour Pitch",
                  "SENATE PASSES BUDGET BILL (VIDEO)"):
        assert names.is_headline(title, settings.headline_min_words, settings.headline_capital_share), title
    # seen on fresh notes 7: the attendee line read as a headline, and each person became two pages
    entities = _entities(tmp_path, "call.md", "Customer call summary: Harrowgate Clinics\n\nAttendees\n" + line + "\n"
                         "- Corvane: Ines Duarte, Hannah Lindqvist (Product)\n\nWhat we heard\n"
                         "- Mira asked for the export before the board meets. Dr. Okeke needs SCIM first.\n")
    assert {"Mira Solberg", "Tobi Okeke", "Lena Vask", "Hannah Lindqvist"} <= set(entities), sorted(entities)
    assert not {"Solberg", "Okeke", "Lindqvist", "Vask"} & set(entities), sorted(entities)


def test_a_name_described_in_brackets_as_a_piece_of_work_is_a_project(tmp_path):
    # seen on fresh notes 7: 'Halo (the new mobile onboarding)' was a tool
    kinds = _kinds(tmp_path, "## Summary\nOrchid finished its first production cutover on Thursday. Wayfarer (the new "
                             "mobile onboarding) is on track.\n")
    assert kinds.get("Wayfarer") is PageKind.PROJECT, kinds
    # found in review: without its article a bracket says what a firm or a person is doing, not what it is
    kinds = _kinds(tmp_path, "Harrowgate Clinics (EHR migration) asked for the export. New hires: Okafor (onboarding).\n")
    assert kinds.get("Harrowgate Clinics") is not PageKind.PROJECT and kinds.get("Okafor") is not PageKind.PROJECT, kinds


def test_a_firm_named_like_a_person_is_a_firm_where_the_text_says_so_in_every_note(tmp_path):
    # seen on fresh notes 7: a consultancy named like a person stayed a person (0.94 to the classifier)
    kinds = _batch_kinds(tmp_path, {
        "call.md": "Attendees: Elena Marsh (Ravel Stroud, an engineering consultancy)\n\n"
                   "Elena said Ravel Stroud is running the upgrade in parallel.\n",
        "status.md": "## Decisions needed\n- Marcus: approve a contractor from Ravel Stroud to cover the backend gap.\n",
    })
    assert kinds[("call.md", "Ravel Stroud")] is PageKind.ORGANISATION, kinds
    assert kinds[("status.md", "Ravel Stroud")] is PageKind.ORGANISATION, kinds
    assert kinds[("call.md", "Elena Marsh")] is PageKind.PERSON, kinds
    # found in review: what a person may be too ('our new contractor', 'a long-time client') says nothing
    kinds = _batch_kinds(tmp_path, {"hire.md": "Priya Sharma, our new contractor, starts Monday. Priya Sharma will own "
                                               "the billing migration.\n"})
    assert kinds[("hire.md", "Priya Sharma")] is PageKind.PERSON, kinds


def test_a_name_with_a_legal_form_is_a_firm_known_by_its_short_names_and_initials(tmp_path):
    # seen on fresh notes 7: 'Brisk Metrics Inc.' had no page at all, 'Quarry Lane Software Ltd' was a tool,
    # and 'HFL', 'Halden' went nowhere
    entities = _entities(tmp_path, "vendors.md", "# Vendor evaluation\n\n## Candidates\n"
                         "1. **Pellow Metrics Inc.** (Denver): newest; bundles logs with metrics.\n"
                         "2. **Corvid Freight Logistics Ltd** (Leeds): cheapest at our volume.\n\n"
                         "| Criterion | Pellow Metrics | Corvid |\n|---|---|---|\n| Cost | 3 | 5 |\n\n"
                         "## Notes\n- CFL: no Terraform provider, so every alert would be click-ops.\n"
                         "- Sign with Corvid. The target is within 10% of CFL's quote.\n")
    pellow = entities.get("Pellow Metrics Inc.")
    assert pellow is not None and pellow.kind is PageKind.ORGANISATION and "Pellow Metrics" in pellow.aliases, sorted(entities)
    corvid = entities.get("Corvid Freight Logistics Ltd")
    assert corvid is not None and corvid.kind is PageKind.ORGANISATION, sorted(entities)
    assert {"CFL", "Corvid"} <= set(corvid.aliases), corvid.aliases
    from pipeline.names import has_legal_form

    assert [has_legal_form(n) for n in ("Acme Company", "Volvo AB", "C#", "Ubuntu®", "WinRT+", "the company")] == [
        True, True, False, False, False, False]
    # found in review: cleanco's list also ends product names and places; a comma may come before the form
    assert [has_legal_form(n) for n in ("Kindle Unlimited", "Java EE", "Azure AD", "Denver CO", "Palo Alto CA",
                                        "Acme, Inc.")] == [False, False, False, False, False, True]
    # found in review: common capitals the shape rules found are no firm's initials ('US', 'PR')
    entities = _entities(tmp_path, "ozone.md", "Researchers at the University of Sheffield found that US surface "
                         "ozone has dropped. Product Review Ltd audited the code; every PR needs two approvals.\n")
    aliases = {a for e in entities.values() for a in e.aliases}
    assert not {"US", "PR"} & aliases, {n: e.aliases for n, e in entities.items()}


def test_spacys_kind_the_classifier_finds_several_times_less_likely_than_another_is_replaced():
    from pipeline.kind_model import decide_kind

    settings = get_settings()
    # seen on fresh notes 7: an in-house service spaCy read as a person in every note; the classifier
    # gave person 0.04, tool 0.12 and 'no page' 0.73, and the margin rule alone kept the person
    service = DocumentEntity(name="Ledgerline", kind=PageKind.PERSON)
    chances = {"person": 0.04, "organisation": 0.06, "tool": 0.12, "place": 0.05, "other": 0.73}
    assert decide_kind(service, chances, settings.kind_candidate_min_probability, settings.kind_retype_margin,
                       settings.kind_not_a_page_probability) is PageKind.TOOL
    # found in review: never for a place the classifier finds likelier, nor between two alike kinds
    place = DocumentEntity(name="Baie-Mahault", kind=PageKind.ORGANISATION)
    chances = {"person": 0.127, "organisation": 0.02, "tool": 0.05, "place": 0.364, "other": 0.44}
    assert decide_kind(place, chances, settings.kind_candidate_min_probability, settings.kind_retype_margin,
                       settings.kind_not_a_page_probability) is PageKind.ORGANISATION
    chances = {"person": 0.139, "organisation": 0.04, "tool": 0.159, "place": 0.02, "other": 0.64}
    assert decide_kind(place, chances, settings.kind_candidate_min_probability, settings.kind_retype_margin,
                       settings.kind_not_a_page_probability) is PageKind.ORGANISATION
    # a kind the classifier finds merely a little likelier does not replace spaCy's
    chances = {"person": 0.2, "organisation": 0.06, "tool": 0.24, "place": 0.05, "other": 0.45}
    assert decide_kind(service, chances, settings.kind_candidate_min_probability, settings.kind_retype_margin,
                       settings.kind_not_a_page_probability) is PageKind.PERSON


def test_a_name_opening_with_a_speakers_given_name_is_that_person(tmp_path):
    # seen on fresh notes 7: the distribution list's 'Marcus Bell' was a firm beside the speaker 'Marcus'
    entities = _entities(tmp_path, "status.md", "# Engineering Weekly Status\n\n**Prepared by:** Hannah Lindqvist\n"
                         "**Distribution:** Marcus Bell, Zhang Wei, Rachel Okafor\n\n## Decisions needed\n"
                         "- Marcus: approve a contractor to cover the backend gap (4 weeks).\n"
                         "- Wei: confirm Pathfinder can drop its Postgres dependency.\n")
    marcus = entities.get("Marcus Bell")
    assert marcus is not None and marcus.kind is PageKind.PERSON and "Marcus" in marcus.aliases, {
        n: (e.kind, e.aliases) for n, e in entities.items()}
    assert "Marcus" not in entities


def test_a_firms_product_in_apposition_is_a_tool(tmp_path):
    # seen failing on held-out notes: an apposition owned by a firm ("Clausewise's … engine") said nothing
    kinds = _kinds(
        tmp_path,
        "Partnership summary\n\nSince October, Whitcombe Rhys LLP has been trialling Quill, Clausewise's "
        "clause-extraction engine, on 2,000 leases. Quill currently reads from manual exports.\n",
    )
    assert kinds.get("Quill") is PageKind.TOOL, kinds


def test_a_coined_capitalised_word_the_classifier_finds_likeliest_software_is_a_tool(tmp_path):
    # seen failing on fresh notes 5: 'Benchling' got no page ('not a page' was the classifier's best
    # guess for a word it never saw); lower-case jargon stays no page
    kinds = _kinds(
        tmp_path,
        "Group meeting, 3 June\n\nPawel\n- Extruder down for 4 days; back in use Friday.\n"
        "- Wants to move all group data from the shared drive to Benchling.\n"
        "- The cutover of the freezer inventory is planned for July.\n",
    )
    assert kinds.get("Benchling") is PageKind.TOOL, kinds
    assert "cutover" not in kinds
    # found in review: a misspelt word and a place's name are no products
    kinds = _kinds(tmp_path, "Expenses\n\nLena uploaded the Reciept to the system. The samples are stored in Trzcianka.\n")
    assert kinds.get("Reciept") is not PageKind.TOOL and kinds.get("Trzcianka") is not PageKind.TOOL, kinds


def test_money_with_its_currency_code_is_no_name(tmp_path):
    # seen failing on fresh notes 5: 'USD 1.2' became a tool page (spaCy's product, with its 'version')
    kinds = _kinds(tmp_path, "Settlement call\n\nThe charterer has withheld USD 1.2m and offers EUR 600k. "
                             "Dana Whitlock will reply on Monday.\n")
    assert not [name for name in kinds if name.startswith(("USD", "EUR"))], kinds
    # found in review: a code that is also software's name, with its release, stays software
    assert _kinds(tmp_path, "Platform notes\n\nWe upgrade to PHP 8.3 next sprint.\n").get("PHP") is PageKind.TOOL
    from pipeline.tool_candidates import is_currency_amount

    def money(text: str, code: str) -> bool:
        return is_currency_amount(text, text.index(code), text.index(code) + 3)

    assert money("budget NOK 1 200 000", "NOK") and money("USD 50 each", "USD") and money("EUR 3.5M", "EUR")
    assert not money("ALL 100 staff", "ALL") and not money("CVE 2024-1234", "CVE")


def test_a_product_and_its_release_are_one_name(tmp_path):
    # seen failing on fresh notes 5: 'RouteMax 3.2' was a page apart from 'RouteMax'
    kinds = _kinds(tmp_path, "Dispatch review\n\nBrightline runs 340 vans from three depots. They currently plan routes "
                             "in RouteMax 3.2 plus a lot of manual fixing in Excel.\n")
    assert "RouteMax 3.2" not in kinds and kinds.get("RouteMax") is PageKind.TOOL, kinds


def test_a_known_product_spacy_reads_as_a_firm_is_a_tool_unless_the_classifier_is_clearly_surer(tmp_path):
    # seen failing on fresh notes 5: 'Kubernetes' in a comparison table was a firm's page
    kinds = _kinds(tmp_path, "Observability vendor evaluation\n\n| | Datadog | Grafana Cloud | Kestrel |\n|---|---|---|---|\n"
                             "| Logs | Good, expensive at our volume | Good (Loki) | Good |\n"
                             "| Kubernetes support | Mature | Mature | Beta |\n\n"
                             "Kestrel quote from Jonas is the cheapest, but their Kubernetes agent is still beta.\n")
    assert kinds.get("Kubernetes") is PageKind.TOOL, kinds
    # found in review: a known name spaCy read as a person stays a firm where the classifier reads a firm
    kinds = _kinds(tmp_path, "Race report\n\nFerrari won in Monza while McLaren struggled. Puma and Adidas sponsor the teams.\n")
    assert kinds.get("McLaren") is not PageKind.TOOL, kinds
    # what Simple Icons knows only as a brand's product ('Kafka' of 'Apache Kafka') is software all the same
    from pipeline.known_names import is_a_brands_product

    assert is_a_brands_product("Kafka") and not is_a_brands_product("McLaren")


def test_a_firm_named_with_its_dotted_legal_form_in_one_note_is_a_firm_in_every_note_of_the_batch(tmp_path):
    # seen failing on fresh notes 5: 'Prepared by Cumbre Digital S.A.S. for …' lost its last full stop and with
    # it its legal form, and 'Cumbre Digital' in the other notes became a tool
    kinds = _batch_kinds(tmp_path, {
        "status.md": "Bluebell status report\nPrepared by Quebrada Digital S.A.S. for Orinoco Health Partners\n\n"
                     "Summary: development is complete.\n",
        "ops.md": "Clinic ops\n\nCR reported the Bluebell beta is delayed again; Quebrada Digital now says mid-June.\n",
    })
    assert kinds.get(("status.md", "Quebrada Digital S.A.S.")) is PageKind.ORGANISATION, kinds
    assert kinds.get(("ops.md", "Quebrada Digital")) is PageKind.ORGANISATION, kinds
    # found in review: a known product's maker named with its legal form leaves the product a tool
    kinds = _batch_kinds(tmp_path, {"invoices.md": "Finance\n\nInvoices from Postman, Inc. and Airtable, Inc. are due.\n",
                                    "api.md": "API review\n\nImport the Postman collection and run it against staging.\n"})
    assert kinds.get(("api.md", "Postman")) is not PageKind.ORGANISATION, kinds


def test_a_name_opening_with_capitals_then_a_word_is_a_candidate_but_an_acronyms_plural_is_not(tmp_path):
    # seen failing on fresh notes 5: 'SQLMesh' and 'REDCap' were no candidates at all
    from pipeline.tool_candidates import capitals_then_a_word

    assert capitals_then_a_word("SQLMesh") and capitals_then_a_word("REDCap")
    assert not any(capitals_then_a_word(w) for w in ("KPIs", "CCed", "DMing", "PRs", "NASA", "GitHub"))
    assert not is_code_shaped("SQLMesh")  # the classifier's feature keeps the shape it was trained on
    kinds = _kinds(tmp_path, "Data platform 1:1\n\n- Wants to try SQLMesh but the migration cost is high.\n")
    assert kinds.get("SQLMesh") is PageKind.TOOL, kinds

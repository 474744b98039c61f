"""Minutes type their items by heading, not by sentence: bullets under "Action items" are actions
with the owner the list's markup names, under "Decisions" decisions, under "Open questions" or
"Decisions requested" open points; an action table's Owner and Due cells are the owner and due
date; a document without a Date: field is dated by its opening lines or its file name. Through
real spaCy extraction."""

from __future__ import annotations

from datetime import date

import pytest

from graph_schema.kinds import FactKind
from graph_schema.models import ParsedDocument
from pipeline.extract import extract_documents
from pipeline.note_sections import heading_kind, listed_owner
from pipeline.parse import chunk_text
from pipeline.stated_dates import file_name_date

D, A, Q, S = FactKind.DECISION, FactKind.ACTION, FactKind.QUESTION, FactKind.STATEMENT


def _facts(text: str, key: str = "notes.md") -> dict[str, object]:
    parsed = ParsedDocument(source_id="s", key=key, text=text, chunks=chunk_text(text, 1500))
    return {f.text: f for f in extract_documents([parsed])[0].facts}


def _fact(facts: dict, start: str):
    return next(f for t, f in facts.items() if t.startswith(start))


@pytest.mark.parametrize(("title", "kind"), [
    ("Action items", A), ("NEXT STEPS", A), ("Follow-ups", A), ("Actions (owner, due)", A),
    ("Committed: 21 pts", A), ("Sprint commitments", A),  # a sprint planning's tasks taken on
    ("Decisions", D), ("Agreed", D), ("Key decisions", D),
    ("Open questions", Q), ("DECISIONS REQUESTED", Q), ("Parking lot", Q), ("For decision", Q),
    ("Decisions and actions", None), ("Risks", None), ("What went well", None), ("Updates", None),
])
def test_a_heading_says_what_its_items_are(title, kind):
    assert heading_kind(title) is kind


@pytest.mark.parametrize(("item", "owner", "marked"), [
    ("[Hunter] Add retries to the DAG.", "Hunter", True),
    ("@ravi check the invoices", "ravi", True),
    ("Mireille — chase Bluefin on the missed collections.", "Mireille", False),
    ("Rose - confirm with Faisal whether Hunter can lead.", "Rose", False),
    ("Share the mock-ups with the client (Grace)", "Grace", False),
    ("Book the venue, owner: Ana Sousa", "Ana Sousa", True),
    ("Book the venue for the offsite", None, None),
])
def test_a_list_item_names_its_owner_by_markup(item, owner, marked):
    found = listed_owner(item)
    assert (found.name, found.marked) == (owner, marked) if owner else found is None


def test_items_under_headings_are_typed_by_their_heading_with_their_owners():
    text = (
        "# Ops weekly sync — Mon 2 Nov 2026\n\n"
        "Attendees: Rose Adeyemi, Hunter Okafor, Mireille Dufresne, Kofi Mensah\n\n"
        "## Updates\n\n"
        "Mireille reported on-time delivery of 94% for October.\n\n"
        "## Decisions\n\n"
        "- Freeze the old Excel pack from the end of the month.\n\n"
        "## Action items\n\n"
        "- [Hunter] Add retries and alerting to the scan-event DAG.\n"
        "- Mireille — chase the haulier about the two missed collections by Thursday.\n"
        "- Kofi — scanner health dashboards before the next site goes live.\n"
        "- Training — start two weeks earlier next time.\n"
        "- [x] Book the room for the retro.\n\n"
        "## Open questions\n\n"
        "- Budget for the second data engineer.\n"
    )
    facts = _facts(text)
    assert _fact(facts, "Mireille reported").kind is S
    assert _fact(facts, "Freeze the old Excel pack").kind is D
    retries = _fact(facts, "[Hunter] Add retries")
    assert (retries.kind, retries.owner) == (A, "Hunter Okafor")
    chase = _fact(facts, "Mireille — chase")
    # the document's date is its title's, so 'by Thursday' is the Thursday after 2 Nov 2026
    assert (chase.kind, chase.owner, chase.stated_on, chase.due_on) == (A, "Mireille Dufresne", date(2026, 11, 2),
                                                                         date(2026, 11, 5))
    assert (_fact(facts, "Kofi —").kind, _fact(facts, "Kofi —").owner) == (A, "Kofi Mensah")
    training = _fact(facts, "Training —")
    assert (training.kind, training.owner) == (A, None)  # a topic before the dash, not an owner
    assert not any(t.startswith("[x] Book the room") and f.kind is A for t, f in facts.items())  # ticked off
    assert _fact(facts, "Budget for the second").kind is Q


def test_an_action_tables_owner_and_due_cells_and_the_file_names_date():
    text = (
        "# Postmortem: stale positions\n\n"
        "## Actions\n\n"
        "| Action | Owner | Due |\n|---|---|---|\n"
        "| Route all consumer-lag alerts to PagerDuty | Rahul Venkataraman | 16 Nov |\n"
        "| Status note to the client | Grace Mwangi | done |\n"
    )
    facts = _facts(text, key="2026-11-13-postmortem.md")
    route = _fact(facts, "Route all consumer-lag alerts")
    # no date inside: the file name's date is the document's, and '16 Nov' is the one after it
    assert (route.kind, route.owner, route.stated_on, route.due_on) == (A, "Rahul Venkataraman", date(2026, 11, 13),
                                                                        date(2026, 11, 16))
    assert not any(t.startswith("Status note to the client") and f.kind is A for t, f in facts.items())


def test_a_file_names_date_is_read_in_its_common_shapes():
    assert file_name_date("2026-11-02-weekly-sync.md") == date(2026, 11, 2)
    assert file_name_date("minutes_20261102.txt") == date(2026, 11, 2)
    assert file_name_date("notes/2026-13-40-x.md") is None
    assert file_name_date("pep-0477.rst") is None


@pytest.mark.parametrize(("sentence", "kind", "owner"), [
    ("Agreed: Pieter to prepare the match-funding letter by 28 October.", A, "Pieter"),
    ("Agreed: the code moves to the shared repo server.", D, None),
    ("Could you chase that internally?", Q, None),  # a task of its addressee only in a mail (below)
    ("Can you use widgets with Python 3.8?", Q, None),  # a FAQ asks
    ("Decision: We will move the data warehouse to Postgres.", D, "we"),
    ("You'll get the signed acceptance form from us by next Friday.", S, None),
    ("Pieter signed the acceptance form on Tuesday.", D, "Pieter"),
])
def test_agreed_tasks_requests_and_adjectives(sentence, kind, owner):
    from pipeline.fact_kinds import classify_sentence

    typing = classify_sentence(sentence)
    assert (typing.kind, typing.owner) == (kind, owner)


def test_a_plain_text_heading_types_the_lines_under_it_and_a_mail_request_is_its_addressees():
    one_to_one = (
        "1:1 Ana / Ravi\n\n"
        "Tools\n"
        "Ravi Subramanian keeps the load-flow code on his laptop.\n\n"
        "Next steps\n"
        "Ravi: two-page note on the reinforcement cost split, to Ana by Friday\n"
        "me: check the central training budget for the course\n\n"
        "Next 1:1 on 1 October.\n"
    )
    facts = _facts(one_to_one, key="2026-09-17-ana-ravi.txt")
    note = _fact(facts, "Ravi: two-page note")
    assert (note.kind, note.owner, note.due_on) == (A, "Ravi Subramanian", date(2026, 9, 18))
    assert (_fact(facts, "me: check").kind, _fact(facts, "me: check").owner) == (A, "I")
    assert not any(t.startswith("Next 1:1") and f.kind is A for t, f in facts.items())  # prose ends the list
    mail = (
        "From: Ravi Subramanian <ravi@hollowmere.example>\n"
        "To: Jonas Becker <jonas.becker@pennine.example>\n"
        "Date: Fri, 2 Oct 2026 09:12\n"
        "Subject: Re: revised offer\n\n"
        "Hi Jonas,\n\n"
        "Could you chase the metering question internally?\n\n"
        "Best,\nRavi\n"
    )
    chase = _fact(_facts(mail, key="re-offer.txt"), "Could you chase")
    assert (chase.kind, chase.owner) == (A, "Jonas Becker")


def test_the_end_of_the_month_is_the_last_day_of_the_documents_month():
    from pipeline.stated_dates import resolve_due

    assert resolve_due("before the end of the month", date(2026, 10, 14)) == date(2026, 10, 31)
    assert resolve_due("end of the month", date(2026, 9, 8)) == date(2026, 9, 30)
    # seen failing: 'the end of January' in notes of November was the January already past
    assert resolve_due("by end of January", date(2026, 11, 2)) == date(2027, 1, 31)
    assert resolve_due("by the end of November", date(2026, 11, 2)) == date(2026, 11, 30)


def test_a_wrapped_paragraph_under_a_typed_heading_is_discussion_not_a_list_of_items():
    text = (
        "Open Issues\n===========\n\n"
        "The proposal leaves the coercion rules as they are. Several reviewers asked for a\n"
        "cleaner story, and the author expects to revisit it. The reference implementation\n"
        "is complete.\n\n"
        "- Whether the new operator applies to sets.\n"
    )
    facts = _facts(text, key="pep-9999.rst")
    assert not any(f.kind is Q for t, f in facts.items() if t.startswith(("The proposal", "The reference")))
    assert _fact(facts, "Whether the new operator").kind is Q


@pytest.mark.parametrize(("text", "key", "typed"), [
    # prose after the list, a mail's closing and a quoted mail keep their own reading
    ("## Action items\n\n- Ana Sousa to send the deck by Friday.\n\nNext meeting is on 9 Nov in the usual room.\n"
     "The notes were taken by Bob Lee.\n", "a.md", {"Ana Sousa to send the deck by Friday.": (A, "Ana Sousa")}),
    ("From: Ana Sousa <ana@x.example>\nTo: Bob Lee <bob@y.example>\nDate: 2 Nov 2026\nSubject: next\n\nHi Bob,\n\n"
     "NEXT STEPS\n- send me the volumes\n\nBest,\nAna\n\nOn 30 Oct 2026, Carla Diaz wrote:\n"
     "> Could you ask the haulier about the trailers?\n", "b.txt",
     {"send me the volumes": (A, None), "> Could you ask the haulier about the trailers?": (Q, None)}),
    # a news section, an encyclopedic 'Outcome', a proposal's 'Open Issues' and a sentence ending in 'agreed'
    ("## What's next\n\nCritics argue the measure is too costly.\n", "c.md", {}),
    ("Battle\n\nOutcome\n-------\n\nThe battle ended the War of the Third Coalition.\n", "d.txt", {}),
    ("Open Issues\n===========\n\nGuido van Rossum reviewed an earlier draft in 2019.\n"
     "Performance on PyPy has been measured.\n", "e.rst", {}),
    # finished work, tags and links are no open tasks or owners; a decision log and an agenda are no task lists
    ("## Completed actions\n\n- Send the shipping volumes to the haulier\n", "g.md", {}),
    ("## Actions\n\n- [DONE] Book the room\n- [Design doc](https://x.example) review by Friday\n"
     "- Fix the login bug (P1)\n- Q3 — ship the beta\n", "h.md",
     {"[Design doc](https://x.example) review by Friday": (A, None), "Fix the login bug (P1)": (A, None),
      "Q3 — ship the beta": (A, None)}),
    ("# Log\n\n| Date | Owner | Decision |\n|---|---|---|\n| 28 Oct | Priya Shah | Move the warehouse to Leeds |\n\n"
     "| When | Who | What |\n|---|---|---|\n| 09:00 | Priya Shah | Welcome and introductions |\n", "j.md", {}),
])
def test_what_a_heading_does_not_type(text, key, typed):
    facts = _facts(text, key=key)
    found = {t: (f.kind, f.owner) for t, f in facts.items() if f.kind is not S}
    assert found == typed


def test_a_task_typed_on_a_name_that_is_dropped_is_a_statement_and_one_naming_no_one_stays():
    from graph_schema.models import CandidateFact, DocumentEntity, EntityMention, ExtractedDocument
    from pipeline.kind_model import _drop_entities

    text = "Whitespace must precede the footnote reference.\n\nIsabel to review the agreement before the demo.\n"
    parsed = ParsedDocument(source_id="s", key="n.md", text=text, chunks=chunk_text(text, 1500))
    whitespace = DocumentEntity(name="Whitespace", kind="organisation", mentions=[EntityMention(start=0, end=10, surface="Whitespace")])
    isabel = DocumentEntity(name="Isabel", kind="person", mentions=[EntityMention(start=50, end=56, surface="Isabel")])
    facts = [CandidateFact(text="Whitespace must precede the footnote reference.", start=0, end=47, entities=[0],
                           kind=A, owner="Whitespace"),
             CandidateFact(text="Isabel to review the agreement before the demo.", start=50, end=99, entities=[1],
                           kind=A, owner="Isabel")]
    document = ExtractedDocument(parsed=parsed, entities=[whitespace, isabel], facts=facts)
    _drop_entities(document, {0: None, 1: None})
    assert [(f.text[:10], f.kind, f.owner) for f in document.facts] == [("Isabel to ", A, "Isabel")]


@pytest.mark.parametrize(("sentence", "kind"), [
    ("Driver app beta paused until after peak; no change.", D),
    ("We still won't buy Onfleet for this.", D),
    ("Heads up: we're moving the Heron beta from the 21st to the 28th.", D),
    ("Adaeze ok'd a dedicated replica.", D),
    ("Out of scope: route optimisation and driver app changes.", D),
    ("Revenue dropped in October.", S),
    ("The trailers were held at the gate for a day.", S),
    # news and prose: no one's decision of the person's work
    ("Thousands of flights were cancelled because of the strike.", S),
    ("The game was postponed due to rain.", S),
    ("She paused before answering.", S),
    ("We won't know the results until Friday.", S),
    ("We're moving on to the next item.", S),
    ("We have moving parts from many teams.", S),
])
def test_work_stopped_moved_or_ruled_out_is_a_decision(sentence, kind):
    from pipeline.fact_kinds import classify_sentence

    assert classify_sentence(sentence).kind is kind


def test_each_line_of_a_plain_text_action_list_is_a_task_of_its_own():
    text = (
        "1:1 notes\nWed 4 Nov 2026, 30 min\n\nAttendees: Rose Adeyemi, Hunter Okafor\n\n"
        "ACTIONS\n"
        "Hunter - one-page handover of the Airflow DAGs and dbt project, by 13 Nov.\n"
        "Hunter - write up the read-replica proposal with Kofi.\n"
    )
    facts = _facts(text)
    handover = _fact(facts, "Hunter - one-page handover")
    assert (handover.kind, handover.owner, handover.due_on) == (A, "Hunter Okafor", date(2026, 11, 13))
    assert handover.text.endswith("by 13 Nov.")  # not glued to the next line ('Nov.' is no sentence end to spaCy)
    assert _fact(facts, "Hunter - write up").kind is A


def test_a_sprints_committed_list_is_its_tasks_with_their_owners():
    text = ("Sprint 14 planning\nMon 5 Oct 2026\n\nPresent: Hunter Okafor, Rose Adeyemi\n\n"
            "Rose: capacity is down this sprint.\n\n"
            "Committed: 21 pts\n- Halyard invite flow (Hunter, 8)\n- terraform staging split (Rose, 3)\n")
    facts = _facts(text)
    assert (_fact(facts, "Halyard invite flow").kind, _fact(facts, "Halyard invite flow").owner) == (A, "Hunter Okafor")
    assert (_fact(facts, "terraform staging split").kind, _fact(facts, "terraform staging split").owner) == (A, "Rose Adeyemi")


def test_milestones_are_dated_tasks():
    text = ("# Project Lantern — kickoff\n\n**Milestones**\n- 25 Sep: staging + intermediate models merged\n"
            "- 9 Oct: first score in Looker for the two pilot accounts\n\nDiscussion in Slack, tracking in Jira.\n")
    facts = _facts(text, key="2026-09-14-lantern-kickoff.md")
    first = _fact(facts, "25 Sep: staging")
    assert (first.kind, first.due_on) == (A, date(2026, 9, 25))
    assert _fact(facts, "9 Oct: first score").due_on == date(2026, 10, 9)
    assert not any(t.startswith("Discussion in Slack") and f.kind is A for t, f in facts.items())
    # a company history's milestones are records of the past, no tasks
    history = _facts("History\n\nMilestones\n- 12 March 2004: the company listed on NASDAQ\n"
                     "- 5 June 2010: opened a new plant in Texas\n", key="acme.txt")
    assert not any(f.kind is A for f in history.values())


def test_a_heading_below_a_list_starts_its_own_section_and_a_who_what_when_table_is_a_task_list():
    text = "ACTIONS\nHunter Okafor - send the deck\nDECISIONS\nUse Postgres for the event store\nOPEN QUESTIONS\nBudget for Q3\n"
    facts = _facts(text)
    assert [(t, f.kind) for t, f in facts.items() if f.kind is not S] == [
        ("Hunter Okafor - send the deck", A), ("Use Postgres for the event store", D), ("Budget for Q3", Q)]
    table = _facts("## Actions\n\n| Who | What | When |\n|---|---|---|\n| Hunter Okafor | Send the revised deck | Fri 14 Nov |\n",
                   key="2026-11-10-sync.md")
    row = _fact(table, "Hunter Okafor | Send the revised deck")
    assert (row.kind, row.owner, row.due_on) == (A, "Hunter Okafor", date(2026, 11, 14))


def test_an_outlook_mails_sent_line_dates_it_and_a_deadline_field_does_not():
    from datetime import datetime

    from pipeline.stated_dates import opening_date

    now = datetime(2026, 12, 4)
    assert opening_date("From: Anna Berg\nSent: Monday, 2 November 2026 10:00\nTo: Tom Hale\n", now, 4, 20) == date(2026, 11, 2)
    assert opening_date("Project: Atlas\nDeadline: 30 Nov 2026\n", now, 4, 20) is None
    assert opening_date("Weekly sync\nNext meeting: 9 Nov\n", now, 4, 20) is None


def test_a_decision_word_in_a_conditions_list_decides_nothing():
    from pipeline.fact_kinds import classify_sentence

    # a condition runs on through 'i.e.' and its list: the decision words in it decide nothing
    guide = 'Only add this header if the older PEP is in "final" form, i.e. is either Accepted, Final, or Rejected.'
    assert classify_sentence(guide).kind is S
    assert classify_sentence("If it is late, the board rejected it last time.").kind is D


def test_what_a_speaker_says_they_will_do_is_their_task():
    # seen failing on fresh notes 2 (a retro in speaker lines): statements, and 'I' as the owner
    text = ("# Retro — Sat 12 Sep\n\nPresent: Hana Ito (HI), Rahul Menon (RM), Tomasz Wierzbicki (TW)\n\n"
            "TW: friday's change lowered memory limits on the ingest deployment.\n"
            "TW: alert routing still points at the old service, will fix\n"
            "RM: write the note to Northwind Logistics, cc Grace\n"
            "HI: I'll update the runbook.\n")
    facts = _facts(text)
    assert (_fact(facts, "TW: alert routing").kind, _fact(facts, "TW: alert routing").owner) == (A, "Tomasz Wierzbicki")
    assert (_fact(facts, "RM: write").kind, _fact(facts, "RM: write").owner) == (A, "Rahul Menon")
    assert (_fact(facts, "HI: I'll").kind, _fact(facts, "HI: I'll").owner) == (A, "Hana Ito")
    said = next((f for t, f in facts.items() if t.startswith("TW: friday")), None)
    assert said is None or said.kind is not A  # what happened is no task


def test_several_peoples_tasks_in_one_sentence_are_a_task_each():
    # seen failing on fresh notes 2: one fact owned by the first name, the others' tasks and dates lost
    text = ("# QBR — Mon 14 Sep 2026\n\nNext steps: Sofia Marquez will send the invite list to Calderon, Grace Okafor "
            "will check the Snowflake share, and Priya Raghavan will send over the metric definitions.\n\n"
            "Hana Ito to call Aarav Mehta tomorrow; Nadia Petrova to send the comp band today.\n\n"
            "In May, Sofia Marquez will retire and Grace Okafor will take over.\n")
    facts = _facts(text)
    owners = {t: (f.kind, f.owner) for t, f in facts.items()}
    assert owners["Grace Okafor will check the Snowflake share"] == (A, "Grace Okafor"), owners
    assert owners["Priya Raghavan will send over the metric definitions."] == (A, "Priya Raghavan")
    assert _fact(facts, "Next steps: Sofia Marquez").owner == "Sofia Marquez"
    assert (_fact(facts, "Nadia Petrova to send").owner, _fact(facts, "Nadia Petrova to send").due_on) == (
        "Nadia Petrova", date(2026, 9, 14))
    assert _fact(facts, "Hana Ito to call").due_on == date(2026, 9, 15)
    assert "In May, Sofia Marquez will retire and Grace Okafor will take over." in facts  # one clause of that kind

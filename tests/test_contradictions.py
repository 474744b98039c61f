"""Contradictions scoped to a page (issue 19 item 3): facts of two documents that disagree are
flagged, newest first, with their sources and days, and never deleted; a restatement, a fact that
says more, one document's own table rows and a recurring date are no conflict.

The rules run on plain facts first (no database); then on the real stack: documents ingested
through the pipeline into Neo4j, read through get_page, compile and find_contradictions over MCP,
and the `subtext conflicts` command."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from graph_schema.models import ConflictingFact
from graph_schema.settings import PROJECT_ROOT, get_settings
from knowledge.contradictions import find_conflicts
from pipeline.run import ingest_paths
from tests.conftest import make_key, write


def _conflicts(*texts: str, name: str = "Harbour pitch", days: list[date] | None = None,
               sources: list[str] | None = None) -> list[tuple[str, list[str]]]:
    facts = [ConflictingFact(id=str(i), text=text, day=(days or [date(2026, 3, 1 + i) for i in range(len(texts))])[i],
                             sources=[(sources or [f"note-{i}.md" for i in range(len(texts))])[i]])
             for i, text in enumerate(texts)]
    found = find_conflicts(facts, set(name.lower().split()), get_settings())
    return [(c.kind, [f.text for f in c.facts]) for c in found]


def test_different_numbers_in_the_same_place_conflict_a_restatement_does_not():
    assert _conflicts("The Harbour pitch budget is £40,000.", "The Harbour pitch budget is now £55,000.") == [
        ("numbers", ["The Harbour pitch budget is now £55,000.", "The Harbour pitch budget is £40,000."])]  # newest first
    assert _conflicts("The Harbour pitch budget is £40,000.", "The Harbour pitch budget is £40k.") == []
    # saying more is no conflict; nor a number in another place of the sentence
    assert _conflicts("The Harbour pitch budget is £40,000.",
                      "The Harbour pitch budget is £40,000, of which £10,000 is spent.") == []
    assert _conflicts("The budget is £40,000.", "Twelve people joined; the budget is £40,000 for 3 teams.") == []
    # units differ: a share is no amount
    assert _conflicts("The budget grew 40% this year.", "The budget grew £40,000 this year.") == []


def test_a_moved_date_conflicts_and_a_recurring_one_does_not():
    assert _conflicts("The Harbour pitch launch is on 3 March.", "The Harbour pitch launch moved to 10 March.")[0][0] == "dates"
    assert _conflicts("The launch is on 3 March.", "The launch is on 3 March 2026.") == []  # the year unsaid
    # an annual vote: each document, a year after the other, names its own year's day
    assert _conflicts("Voting starts on December 1, 2020.", "Voting starts on December 1, 2021.",
                      name="Vote", days=[date(2020, 10, 29), date(2021, 10, 4)]) == []
    assert _conflicts("Acme was founded in 2019.", "Acme was founded in 2021.", name="Acme")[0][0] == "dates"


def test_a_negation_conflicts_only_with_the_same_statement():
    assert _conflicts("Acme will renew the Harbour contract.", "Acme will not renew the Harbour contract.") == [
        ("negation", ["Acme will not renew the Harbour contract.", "Acme will renew the Harbour contract."])]
    assert _conflicts("Acme will renew the contract.", "Nobody at Acme has no view on the new office plans.") == []


def test_numbered_names_code_links_and_one_documents_rows_are_no_conflict():
    # 'PEP 572' and 'Python 3.8' are names with numbers, about two things
    assert _conflicts("PEP 572 was accepted by Guido.", "PEP 573 was accepted by Guido.", name="Guido") == []
    assert _conflicts("Python 3.8 ships the walrus operator.", "Python 3.9 ships the walrus operator.", name="x") == []
    # a traceback's line numbers, an address's digits
    assert _conflicts('Traceback (most recent call last): File "<stdin>", line 4, in <module>',
                      'Traceback (most recent call last): File "<stdin>", line 1, in <module>', name="x") == []
    assert _conflicts("Guido's decision: https://mail.python.org/pipermail/python-dev/2012-January/115962.html",
                      "Guido's decision: https://mail.python.org/pipermail/python-dev/2006-February/061909.html",
                      name="x") == []
    # one document's rows differ by design: only facts of two documents can conflict
    assert _conflicts("slowpickle | 4896 kb", "slowpickle | 3448 kb", name="x", sources=["a.md", "a.md"]) == []


@pytest.fixture()
def disagreeing_notes(graph):
    """Two notes a week apart giving Project Harbour two budgets, and a third restating one."""
    write(graph["upload"], "harbour/kickoff.md",
          "# Harbour pitch kickoff\nDate: 3 March 2026\n\nThe Project Harbour budget is £40,000. Priya Natarajan leads it.\n")
    write(graph["upload"], "harbour/review.md",
          "# Harbour pitch review\nDate: 10 March 2026\n\nThe Project Harbour budget is £55,000 after the review.\n")
    write(graph["upload"], "finance.md",
          "# Finance sync\nDate: 5 March 2026\n\nDaniel Okafor confirmed the Project Harbour budget is £40k.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    return graph


async def test_get_page_compile_and_find_contradictions_show_both_facts_newest_first(disagreeing_notes, served_with_upkeep):
    graph = disagreeing_notes
    upkeep = served_with_upkeep.mcp(make_key(graph, "upkeep", upkeep=True))
    plain = served_with_upkeep.mcp(make_key(graph, "plain"))
    other_area = served_with_upkeep.mcp(make_key(graph, "harbour only", scope="focus:harbour", upkeep=True))

    async with Client(plain) as client:
        answer = (await client.call_tool("get_page", {"slug": "project-harbour"})).structured_content
        conflicts = answer["page"]["conflicts"]
        # two conflicts, each of the £55,000 note with one of the £40,000 ones; the restatement is none
        assert len(conflicts) == 2 and {c["kind"] for c in conflicts} == {"numbers"}, conflicts
        assert all(c["facts"][0]["sources"] == ["harbour/review.md"] for c in conflicts)
        assert {c["facts"][1]["sources"][0] for c in conflicts} == {"harbour/kickoff.md", "finance.md"}
        assert [c["facts"][0]["day"] for c in conflicts] == ["2026-03-10", "2026-03-10"]
        assert conflicts[0]["facts"][1]["day"] == "2026-03-05"  # the newer of the two older facts first
        assert "disagree" in answer["message"]
        # nothing deleted: all three facts stay on the page
        assert sum("budget" in f["text"] for f in answer["page"]["facts"]) == 3

        compiled = (await client.call_tool("compile", {"intent": "budget", "target": "project-harbour"})).structured_content
        assert "Facts that disagree" in compiled["text"] and "£55,000" in compiled["text"]
        with pytest.raises(ToolError):  # not a key made for the upkeep tools
            await client.call_tool("find_contradictions", {"target": "project-harbour"})

    async with Client(upkeep) as client:
        found = (await client.call_tool("find_contradictions", {"target": "project-harbour", "limit": 1})).structured_content
        assert len(found["conflicts"]) == 1 and "showing the newest 1" in found["message"]
        assert "differ" in found["conflicts"][0]["reason"]
        none = (await client.call_tool("find_contradictions", {"target": "priya-natarajan"})).structured_content
        assert none["conflicts"] == [] and "No facts" in none["message"]

    async with Client(other_area) as client:  # a focus key reads only its area's facts: the finance note is outside
        found = (await client.call_tool("find_contradictions", {"target": "project-harbour"})).structured_content
        assert [{f["sources"][0] for f in c["facts"]} for c in found["conflicts"]] == [
            {"harbour/review.md", "harbour/kickoff.md"}]


def test_the_conflicts_command_lists_them_and_names_a_missing_page(disagreeing_notes):
    graph = disagreeing_notes
    env = {**os.environ, "SUBTEXT_OWNER": graph["owner"], "NEO4J_URI": get_settings().bolt_uri, "COLUMNS": "250"}
    listed = subprocess.run([sys.executable, "-m", "subtext.cli", "conflicts", "project-harbour"], cwd=PROJECT_ROOT,
                            env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert "2 pairs of facts about 'Project Harbour' disagree" in listed.stdout and "£55,000" in listed.stdout
    missing = subprocess.run([sys.executable, "-m", "subtext.cli", "conflicts", "no-such-page"], cwd=PROJECT_ROOT,
                             env=env, capture_output=True, text=True, timeout=300)
    assert missing.returncode == 1 and "No page has the slug 'no-such-page'" in missing.stderr


def test_odd_numbers_and_impossible_dates_never_break_a_page():
    # found in review: '£500' after a day was read as its year, and impossible days reached date()
    assert _conflicts("On 3 March £500 was paid.", "By 3 March 400k users signed up.", "On March 3 1.25 litres spilled.") == []
    impossible = ["The launch is on 2026-02-31.", "The launch is on 31 February 2026.", "The launch is on 2026-13-01."]
    found = _conflicts(*impossible, "The launch is on 2027-03-01.", "The launch is on 3 March 0000.",
                       days=[date(2026, 1, 1), date(2026, 1, 2), date(2026, 1, 4), date(2026, 12, 1), date(2026, 1, 3)])
    # impossible days are no days; '3 March' (of a year no one writes) still differs from 1 March 2027
    assert [texts for _, texts in found] == [["The launch is on 2027-03-01.", "The launch is on 3 March 0000."]]


def test_a_slip_as_long_as_the_gap_between_two_notes_is_still_a_conflict():
    # found in review: a launch moved by three months in a note three months later read as recurring
    assert _conflicts("The launch is on 1 March 2026.", "The launch is on 1 June 2026.",
                      days=[date(2026, 1, 1), date(2026, 4, 1)])[0][0] == "dates"
    assert _conflicts("Acme was founded in 2019.", "Acme was founded in 2021.", name="Acme",
                      days=[date(2020, 1, 1), date(2022, 1, 1)])[0][0] == "dates"
    # a capitalised word by its place is no name's: 'In 2019', 'Budget:'
    assert _conflicts("In 2019 Acme moved its office.", "In 2021 Acme moved its office.", name="Acme")[0][0] == "dates"
    assert _conflicts("Budget: £40,000", "Budget: £55,000")[0][0] == "numbers"
    # a year before a noun says which one: two elections, two budgets, no conflict
    assert _conflicts("Title: 2022 Term Steering Council election", "Title: 2021 Term Steering Council election",
                      name="x", days=[date(2021, 10, 4), date(2020, 10, 29)]) == []
    # 'may' the verb is no month
    assert _conflicts("A team of 5 may join the pilot.", "A team of 8 may join the pilot.")[0][0] == "numbers"


def test_a_models_judgement_drops_a_compatible_pair_and_explains_an_exclusive_one():
    from datetime import date

    from graph_schema.models import ConflictingFact, FactConflict
    from knowledge.compile import conflict_line
    from knowledge.contradictions import with_judgements

    def pair(a: str, b: str) -> FactConflict:
        return FactConflict(kind="numbers", reason="The numbers differ.", facts=[
            ConflictingFact(id=a, text=f"fact {a}", day=date(2026, 3, 10)), ConflictingFact(id=b, text=f"fact {b}")])

    found = [pair("a", "b"), pair("c", "d"), pair("e", "f"), pair("g", "h")]
    judgements = {frozenset("ba"): {"exclusive": False, "strength": 0.1, "explanation": "a part and a whole"},
                  frozenset("cd"): {"exclusive": True, "strength": 0.9, "explanation": "one budget, two figures"},
                  frozenset("ef"): {"exclusive": None, "strength": None, "explanation": "the model gave no valid answer"}}
    kept = with_judgements(found, judgements)
    assert [c.facts[0].id for c in kept] == ["c", "e", "g"]  # the compatible pair goes; unjudged ones stay
    assert (kept[0].strength, kept[0].explanation) == (0.9, "one budget, two figures")
    assert kept[1].strength is None and kept[2].explanation is None
    assert conflict_line(kept[0]).endswith("— one budget, two figures (strength 0.9)")
    assert "—" not in conflict_line(kept[1])
    # an explanation without a strength is shown without one (found in review: it raised TypeError)
    assert conflict_line(kept[0].model_copy(update={"strength": None})).endswith("— one budget, two figures")

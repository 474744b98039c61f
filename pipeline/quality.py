"""Scoring person resolution against header gold (the PEP corpus in `../shared/corpora/peps`).

The scorer reads the graph the way `subtext export` writes it, so it judges exactly what a person
would back up. For every gold person of every document it finds the page their header mention
landed on (by the mention's surface form in that document's MENTIONS), plus any other person
page known by their full name. From those:

    recall          share of gold people whose own mentions landed on a person page
    duplicate rate  share of gold people spread over more than one page
    wrong merges    pages holding two different gold people

It also lists where shortened forms in body text ("Guido", "GvR", "PSF"…) ended up, which the
gold cannot label.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from graph_schema.kinds import PageKind
from graph_schema.slugs import normalise_name

SHORT_FORMS = ("Guido", "GvR", "BDFL", "PSF", "Barry", "Tim", "Brett", "Alyssa")


class GoldDocument(BaseModel):
    file: str
    people: list[str]


class PersonResult(BaseModel):
    name: str
    documents: int
    pages: list[str]  # slugs of the pages holding this person
    found: bool


class ShortForm(BaseModel):
    surface: str
    pages: dict[str, int]  # "Title (kind)" -> mentions landing there


class QualityReport(BaseModel):
    documents: int
    documents_ingested: int
    gold_people: int
    found: int
    duplicated: list[PersonResult] = Field(default_factory=list)
    missed: list[PersonResult] = Field(default_factory=list)
    wrong_merges: dict[str, list[str]] = Field(default_factory=dict)  # page title -> gold people on it
    short_forms: list[ShortForm] = Field(default_factory=list)
    person_pages: int = 0
    pages: int = 0

    @property
    def recall(self) -> float:
        return self.found / self.gold_people if self.gold_people else 0.0

    @property
    def duplicate_rate(self) -> float:
        return len(self.duplicated) / self.gold_people if self.gold_people else 0.0


def read_gold(path: Path) -> list[GoldDocument]:
    documents = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            people = [*row.get("authors", []), *row.get("sponsor", []), *row.get("delegate", [])]
            documents.append(GoldDocument(file=row["file"], people=list(dict.fromkeys(people))))
    return documents


def score_people(records: Iterable[dict[str, Any]], gold: list[GoldDocument], key_prefix: str = "") -> QualityReport:
    """Score an export (its records, in any order) against header gold; keys are `key_prefix + file`."""
    pages: dict[str, dict[str, Any]] = {}
    sources: dict[str, dict[str, Any]] = {}
    mentions: dict[str, list[dict[str, Any]]] = defaultdict(list)  # source key -> mention records
    for record in records:
        if record["type"] == "page":
            pages[record["slug"]] = record
        elif record["type"] == "source":
            sources[record["key"]] = record
        elif record["type"] == "mention":
            mentions[record["key"]].append(record)

    persons_by_key: dict[str, set[str]] = defaultdict(set)
    for slug, page in pages.items():
        if page["kind"] == PageKind.PERSON.value:
            for key in {normalise_name(page["title"]), *page.get("name_keys", [])}:
                persons_by_key[key].add(slug)

    # Gold people are told apart by their normalised name: the gold spells one person both
    # "Marc-Andre Lemburg" and "Marc-André Lemburg", and that is one person.
    spelled: dict[str, str] = {}
    landed: dict[str, set[str]] = defaultdict(set)  # gold name -> pages their mentions landed on
    counts: dict[str, int] = defaultdict(int)
    ingested = 0
    for document in gold:
        key = key_prefix + document.file
        if sources.get(key, {}).get("status") == "ingested":
            ingested += 1
        for written in document.people:
            wanted = normalise_name(written)
            person = spelled.setdefault(wanted, written)
            counts[person] += 1
            for mention in mentions.get(key, []):
                if any(normalise_name(surface) == wanted for surface in mention["surfaces"]):
                    landed[person].add(mention["page"])

    # Found: a mention of the person in a document that names them landed on a person page.
    # Spread over pages: where their mentions landed, plus any other person page by their name.
    results = [
        PersonResult(
            name=person,
            documents=counts[person],
            pages=sorted(landed[person] | persons_by_key.get(normalise_name(person), set())),
            found=any(pages.get(s, {}).get("kind") == PageKind.PERSON.value for s in landed[person]),
        )
        for person in sorted(counts)
    ]
    on_page: dict[str, set[str]] = defaultdict(set)
    for result in results:
        for slug in result.pages:
            on_page[slug].add(result.name)

    short_forms = []
    for surface in SHORT_FORMS:
        landed: dict[str, int] = defaultdict(int)
        for document_mentions in mentions.values():
            for mention in document_mentions:
                hits = sum(1 for s in mention["surfaces"] if s == surface)
                if hits:
                    page = pages.get(mention["page"], {})
                    landed[f"{page.get('title', mention['page'])} ({page.get('kind', '?')})"] += hits
        short_forms.append(ShortForm(surface=surface, pages=dict(sorted(landed.items(), key=lambda kv: -kv[1]))))

    return QualityReport(
        documents=len(gold),
        documents_ingested=ingested,
        gold_people=len(results),
        found=sum(r.found for r in results),
        duplicated=[r for r in results if len(r.pages) > 1],
        missed=[r for r in results if not r.found],
        wrong_merges={pages[s]["title"]: sorted(names) for s, names in on_page.items() if len(names) > 1},
        short_forms=short_forms,
        person_pages=sum(1 for p in pages.values() if p["kind"] == PageKind.PERSON.value),
        pages=len(pages),
    )


def format_report(report: QualityReport) -> str:
    lines = [
        f"documents ingested     {report.documents_ingested} of {report.documents}",
        f"pages                  {report.pages} ({report.person_pages} people)",
        f"header people          {report.gold_people}",
        f"recall                 {report.recall:.3f}  ({report.found} of {report.gold_people} have a person page)",
        f"duplicate-page rate    {report.duplicate_rate:.3f}  ({len(report.duplicated)} people on more than one page)",
        f"wrong merges           {len(report.wrong_merges)}  (pages holding two different header people)",
    ]
    for result in report.duplicated:
        lines.append(f"  duplicated: {result.name} -> {', '.join(result.pages)}")
    for result in report.missed:
        lines.append(f"  missed: {result.name} ({result.documents} documents)")
    for title, names in report.wrong_merges.items():
        lines.append(f"  wrong merge: {title!r} holds {', '.join(names)}")
    lines.append("shortened forms in body text (no gold; where their mentions landed):")
    for form in report.short_forms:
        where = ", ".join(f"{page} x{n}" for page, n in list(form.pages.items())[:4]) or "not found as a mention"
        lines.append(f"  {form.surface:<8} {where}")
    return "\n".join(lines)

"""The brief: a few plain paragraphs about the person, written from their graph without any model.

What it says, in reading order: who you are; what arrived since the previous brief (the first
brief says what is there); each active focus area, most recently active first, with what it is,
its latest decisions (dated) and what is open (actions with owner and due date, open questions);
and who and what matters lately, each with why in a few words taken from the facts. Every
statement is a `BriefLine` carrying the pages and documents it rests on.

The brief is packed into `brief_token_budget` tokens (estimated like compile's, characters /
`chars_per_token`): statements are taken by importance (who you are, then every focus area's
heading, then each area's newest decision and open item, then the people and things around them,
then the rest) and written in reading order; what did not fit is said at the end and listed in
`omitted`.

An action or question that a later report of work done matches, by shared words ("Daniel will
share the volumes", then "Daniel sent the shipping volumes") or by meaning (their sentences'
embeddings at least `closing_min_similarity` alike), is shown as closed, not as open, and counted
among what changed since the last brief.

`current_brief` returns the cached brief when the graph has not changed since it was written,
and rebuilds (and caches) it otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from graph_schema import db
from graph_schema.kinds import FactKind, PageKind
from graph_schema.models import PageRef
from graph_schema.queries.brief import brief_material, load_brief, store_brief, store_narrative
from graph_schema.settings import Settings, get_settings
from knowledge.brief_narrative import narrate_brief
from knowledge.compile import one_line, tokens_of
from knowledge.llm import LlmClient
from knowledge.types import BriefLine, BriefView, Embed, FocusStatus
from knowledge.words import FUNCTION_WORDS, stem

EMPTY_BRIEF = (
    "Nothing here yet: this graph has no documents or notes. Drop files into the upload folder "
    "or send what was decided with edit_page_body, and the brief will describe it."
)
MATTERS_HEADING = "Who and what matters lately:"

# Importance when packing into the budget (lower first).
# A closed item comes last: what is still open matters more, and what changed already counts it.
_RANK_YOU, _RANK_FOCUS, _RANK_FIRST_ITEMS, _RANK_MATTERS, _RANK_MORE_ITEMS, _RANK_MORE_MATTERS, _RANK_CLOSED = range(7)

_LABEL = re.compile(r"^\W*(?:open\s+questions?|open\s+issues?|questions?|q|action(?:\s+items?)?|todo|"
                    r"decisions?|decided|agreed)\s*(?:\([^)]*\))?\s*(?::|—|[-–](?=\s))\s*", re.IGNORECASE)  # 'Q-learning' is a word
# The owner a list item's markup puts before the task ('[Hunter] ', '@ravi ', 'Mireille — ', 'Ravi: '):
# the line names the owner already, in full.
_OWNER_MARKUP = re.compile(r"^(?:\[(?P<bracketed>[^\]]{1,40})\]\s*:?|@(?P<handle>[\w.-]+)|"
                           r"(?P<dashed>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})\s*(?:—|–|-|:))\s+")
_ROLE = re.compile(
    r"\bI(?:'m|’m| am)\s+(?:the\s+|a\s+|an\s+)?(?P<role>[a-z][\w -]{1,40}?)\s+(?:at|of|for|with)\s+"
    r"(?P<org>[A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*){0,4})"
)
_WORD = re.compile(r"[a-z][a-z0-9'’-]{3,}")
# Words too common to say two sentences are about the same piece of work: function words, and
# the words every report or open item uses.
_COMMON = FUNCTION_WORDS | {
    "done", "sent", "shared", "closed", "resolved", "finished", "completed", "complete", "answered", "fixed",
    "need", "needs", "asked", "want", "wants", "open", "question", "action", "item", "today",
}
_FIELD_LINE = re.compile(r"^[A-Za-z][\w -]{0,30}:\s")
# A sentence that opens with a pronoun goes on from an earlier one ('He's going to use this …'): it
# says nothing on its own about what an area is.
# ('This PEP proposes …' and 'IT replaces the laptops' say what something is.)
_REFERS_BACK = re.compile(r"^[\"'“‘]?(?:(?:He|She|They|His|Her|Their|Its)\b|(?:It|This|That|These|Those)(?:['’]s\b|\s+"
                          r"(?:is|was|are|were|will|would|has|have|had|can|could|should|must|also|then|means?)\b))")
_TITLE_FILLER = frozenset({"the", "and", "for", "our", "its", "was", "are", "has", "had", "not", "but", "you", "all",
                           "any", "can", "with", "from", "into", "this", "that", "these", "those", "their"})
_SENTENCE = re.compile(r"^[\"'“‘]?[A-Z].*\w.*[.!)\"'”’]$")
# A comma ends the clause only where another clause begins after it: 'was pulled between Driftwood,
# the 12 Nov outage and Marlin' is one list, 'sent the volumes, which …' is two clauses.
_CLAUSE_END = re.compile(r"[;:(]|\s(?:and|but|because|while|which|who|so)\s|\.\s|\.$"
                         r"|,(?=\s+(?:and|but|or|so|yet|which|who|whose|where|when|while|because|although|though|"
                         r"as|after|before|since|if|then|not|he|she|they|it|we|i|you|this|that)\b)", re.IGNORECASE)


@dataclass
class _Candidate:
    rank: int
    order: int  # position in reading order
    line: BriefLine
    omitted_as: str  # how it is counted when it does not fit: "decision", "open item", …
    area: str | None = None  # the focus area it belongs to
    needs: int | None = None  # the order of the line it cannot stand without (its area's heading)
    tokens: int = 0
    shown_at: tuple = ()  # where it is read when not at `order`: an area's items grouped by kind


@dataclass
class _Packed:
    lines: list[_Candidate] = field(default_factory=list)
    left_out: list[_Candidate] = field(default_factory=list)


LOOSE_AREA = "your other notes"  # what the brief calls the documents in no focus area when it leaves some out
_LOOSE_HEADING = "notes outside a focus folder"


def _ref(page: dict) -> PageRef:
    return PageRef(slug=page["slug"], title=page["title"], kind=PageKind(page["kind"]))


def _names(titles: list[str]) -> str:
    if len(titles) <= 1:
        return "".join(titles)
    return ", ".join(titles[:-1]) + " and " + titles[-1]


def _day(when: date | datetime | None) -> str:
    return f"{when.day} {when:%b %Y}" if when else "undated"


def _when(fact: dict) -> date | None:
    """The date the document gives a fact, else the day it arrived."""
    if fact.get("stated_on"):
        return fact["stated_on"]
    return fact["first_seen"].date() if isinstance(fact.get("first_seen"), datetime) else fact.get("first_seen")


def _content_words(text: str, names: set[str]) -> set[str]:
    """The words that say what a sentence is about, by their stems, names of its pages left out."""
    words = {w.strip("'’-") for w in _WORD.findall(text.lower())}
    return {stem(w) for w in words - _COMMON - names}


def _similar(item: dict, report: dict, vectors: dict[str, np.ndarray], min_similarity: float) -> bool:
    """Whether the two sentences say much the same (unit vectors: the dot product is the cosine)."""
    a, b = vectors.get(item["id"]), vectors.get(report["id"])
    return a is not None and b is not None and float(np.dot(a, b)) >= min_similarity


def closing_report(item: dict, reports: list[dict], min_overlap: int,
                   vectors: dict[str, np.ndarray] | None = None, min_similarity: float = 2.0) -> dict | None:
    """The report of work done that closes an open item: no older than the item (later in the
    same document), sharing at least `min_overlap` content words, a page both are about counting
    as one word ('Daniel will share the 2025 shipping volumes' / 'Daniel Okafor sent the shipping
    volumes' share 'shipping', 'volumes' and Daniel's page), or saying the same in other words: their
    sentences' `vectors` at least `min_similarity` alike ('Marta will get the insurance quote' /
    'Marta has shared the quote from the insurer')."""
    item_pages = {p["slug"] for p in item["about"] if p["kind"] != PageKind.FOCUS.value}
    names = {w for p in item["about"] for w in _WORD.findall(p["title"].lower())}
    words = _content_words(item["text"], names)
    item_day, item_docs = _when(item), set(item["documents"])
    for report in reports:
        if report["id"] == item["id"]:
            continue
        same_document = bool(item_docs & set(report["documents"]))
        if same_document and (report["position"] or 0) <= (item["position"] or 0):
            continue
        report_day = _when(report)
        if not same_document and item_day and report_day and report_day < item_day:
            continue
        shared_page = bool(item_pages & {p["slug"] for p in report["about"]})
        report_names = names | {w for p in report["about"] for w in _WORD.findall(p["title"].lower())}
        overlap = len(words & _content_words(report["text"], report_names)) + int(shared_page)
        if overlap >= min_overlap or _similar(item, report, vectors or {}, min_similarity):
            return report
    return None


def who_you_are(name: str, you_facts: list[str]) -> str:
    """'You are Priya Natarajan, product lead at Acme.' — the role where their own words state it."""
    unnamed = name == "You"  # the default title: the graph does not know the person's name
    for fact in you_facts:
        match = _ROLE.search(fact)
        if match:
            return f"You are{'' if unnamed else ' ' + name + ','} {match.group('role').strip()} at {match.group('org')}."
    return "" if unnamed else f"You are {name}."


# Words after a thing's name that start no predicate of it: 'PEP as proposed offers…', 'Python in 2.5'.
_NOT_A_PREDICATE = frozenset("as in for and or but on by if when that which who than into onto per via".split())
# What a predicate after a thing's name opens with when it is no verb ending in -s or -ed, no
# adverb in -ly and no negated auxiliary ("won't", "didn't").
_PREDICATE_OPENERS = frozenset(
    "is was are were be been has had have will would can could should may might must shall did does do cannot "
    "to also now still just then never already again soon no not "
    "ran led met made built took gave sent got went came kept left paid sold bought brought held lost won "
    "began became broke chose drew fell found grew knew rose saw set shut spent split stood told wrote "
    "hit cut put let read said thought sought spoke felt fed caught taught fought meant heard understood "
    "forgot withdrew drove rode wore struck".split())


def _opens_a_predicate(word: str, person: bool) -> bool:
    """Whether `word`, right after a name, begins what is said of it. After a person's name a lower-case
    word nearly always does ('sent the volumes', 'to review the draft', 'in finance approved…');
    after a thing's name it is often more of the name ('the BDFL pronouncement for inclusion in 2.5',
    'Grafana dashboard'), so there it must read as a verb."""
    if person:
        return True
    word = word.lower().rstrip(",;:.!?")
    if word in _NOT_A_PREDICATE:
        return False
    if word in _PREDICATE_OPENERS or word.endswith(("n't", "n’t")) or (len(word) > 4 and word.endswith("ly")):
        return True
    return len(word) > 3 and word.endswith(("s", "ed")) and not word.endswith(("ss", "us", "is", "ics"))


def why_it_matters(title: str, aliases: list[str], facts: list[str], max_words: int = 10,
                   person: bool = True) -> str | None:
    """A few words on why a page matters, from the first fact that has it as the subject:
    'Daniel Okafor from Northwind Logistics joined the call' -> 'from Northwind Logistics joined the call'.
    `person` False: the page is a thing, whose name is often a modifier ('the BDFL pronouncement')."""
    names = sorted({title, *aliases}, key=len, reverse=True)
    for fact in facts:
        text = fact.strip()
        if text[:4].lower() == "the ":
            text = text[4:]
        for name in names:
            if len(name) < 2 or not text.startswith(name):
                continue
            rest = text[len(name) :]
            if not rest.startswith(" ") or rest.lstrip()[:2] in ("'s", "’s") or not rest.lstrip()[:1].islower():
                continue  # a predicate follows the name ('sent the volumes'), not more name or an address
            rest = rest.strip()
            if not _opens_a_predicate(rest.split()[0], person):
                continue
            # an 'and' after a list's commas closes the list, not the clause
            end = next((m for m in _CLAUSE_END.finditer(rest)
                        if not (m.group().strip().lower() == "and" and "," in rest[: m.start()])), None)
            words = (rest[: end.start()] if end else rest).split()
            if any(c in " ".join(words[:max_words]) for c in "`<>[]{}|"):
                continue  # 'discusses `why operators are useful <https://…>`_': markup, not a reading
            if len(words) >= 2:
                phrase = " ".join(words[:max_words])
                return phrase + ("…" if len(words) > max_words else "")
    return None


def _without_owner_markup(text: str, owner: str | None) -> str:
    """'Teodoro — write the cutover playbook' → 'write the cutover playbook' when the line shows
    Teodoro Villanueva as its owner; anything else stays as written."""
    match = _OWNER_MARKUP.match(text)
    if not match or not owner:
        return text
    named = (match.group("bracketed") or match.group("handle") or match.group("dashed")).lower().split()
    rest = text[match.end():]
    if named and named == owner.lower().split()[: len(named)] and rest:
        return rest[0].upper() + rest[1:]
    return text


def _without_owner_and_due_cells(text: str, owner: str | None, due: str | None) -> str:
    """'Route alerts to PagerDuty | Rahul | 16 Nov |' → 'Route alerts to PagerDuty' when the line
    shows Rahul Venkataraman as its owner and 16 Nov as its date: a table row's other cells stay."""
    if "|" not in text:
        return text
    owner_words = set((owner or "").lower().split())
    cells = [c.strip() for c in text.strip().strip("|").split("|")]
    kept = [c for c in cells if c and c != due and not (c.lower().split() and set(c.lower().split()) <= owner_words)]
    return " — ".join(kept) if kept else text


def _fact_line(fact: dict, section: str, line_chars: int) -> BriefLine:
    text = one_line(_LABEL.sub("", fact["text"]) or fact["text"], line_chars)
    if section == "decision":
        said = f"Decided ({_day(_when(fact))}): {text}"
    elif section == "action":
        owner = (fact.get("owner_page") or {}).get("title") or fact.get("owner")
        text = _without_owner_markup(text, owner)
        due = fact.get("due")
        text = _without_owner_and_due_cells(text, owner, due)
        if due and fact.get("due_on") and not any(ch.isdigit() for ch in due):
            due = f"{due}, {_day(fact['due_on'])}"  # 'before Friday, 6 Mar 2026': counted from the document's date
        details = ", ".join(x for x in (owner, due) if x)
        said = f"To do ({details}): {text}" if details else f"To do: {text}"
    else:
        said = f"Open question: {text}"
    return BriefLine(section=section, text=said, sources=[_ref(p) for p in fact["about"]],
                     documents=sorted(set(fact["documents"])))


def _candidates(material: dict, settings: Settings, embed: Embed) -> list[_Candidate]:
    out: list[_Candidate] = []

    def add(rank: int, line: BriefLine, omitted_as: str, area: str | None = None, needs: int | None = None) -> int:
        out.append(_Candidate(rank, len(out), line, omitted_as, area, needs))
        return len(out) - 1

    you_sources = [PageRef(slug="you", title=material["name"], kind=PageKind.YOU)] if material["you_facts"] else []
    count = material["sources"]
    who = who_you_are(material["name"], material["you_facts"])
    holds = f"Your graph holds {count} source{'s' if count != 1 else ''}."
    add(_RANK_YOU, BriefLine(section="you", text=f"{who} {holds}" if who else holds,
                             sources=you_sources), "who you are")

    # Open items a later report of work done closes: shown as closed, counted among what changed.
    closing = _closing_reports(material, settings, embed)
    changed = _changed_line(material.get("changed"), list(closing.values()), material.get("since"),
                            material.get("first", False))
    if changed is not None:
        add(_RANK_FOCUS, changed, "what changed")

    owed: dict[str, int] = {}  # open actions per owner page, for why people matter
    listed: set[str] = set()  # the facts an earlier area lists
    folders = any(f["kind"] != "loose" for f in material["focus"])
    for focus in material["focus"]:
        members = [m for m in focus["members"] if m and m.get("slug")]
        shown = members[:4]
        with_whom = f"; with {_names([m['title'] for m in shown])}" if shown else ""
        n = focus["source_count"]
        loose = focus["kind"] == "loose"  # the documents at the top of the upload folder, in no focus area
        area = LOOSE_AREA if loose else focus["title"]
        heading = (f"{'In your notes outside a focus folder' if loose else 'Working on: ' + focus['title']} "
                   f"({n} source{'s' if n != 1 else ''}, last active {_day(focus['last_activity'])}{with_whom}).")
        # beside focus folders, the notes in none come after every area's first items
        first_rank, more_rank = (_RANK_MORE_ITEMS, _RANK_MORE_ITEMS) if loose and folders else (_RANK_FIRST_ITEMS, _RANK_MORE_ITEMS)
        head = add(_RANK_MORE_ITEMS if loose and folders else _RANK_FOCUS, BriefLine(section="focus", text=heading,
                                          sources=[*([] if loose else [_ref(focus)]), *map(_ref, shown)]),
                   _LOOSE_HEADING if loose else "focus area", area if loose else focus["title"])
        about = None if loose else _what_it_is(focus, settings.brief_about_min_words)
        if about:
            add(_RANK_FIRST_ITEMS, BriefLine(section="about", text=one_line(about["text"], settings.brief_line_chars),
                                             sources=[_ref(p) for p in about["about"]],
                                             documents=sorted(set(about["documents"]))),
                "description", area, head)
        # a fact two areas hold (a hand-filed page's, from a folder's document) is listed under the first
        by_kind = {kind: [f for f in facts if f["id"] not in listed] for kind, facts in _typed_by_kind(focus).items()}
        listed.update(f["id"] for facts in by_kind.values() for f in facts)
        for fact in by_kind[FactKind.ACTION]:
            if fact.get("owner_page") and fact["id"] not in closing:
                owed[fact["owner_page"]["slug"]] = owed.get(fact["owner_page"]["slug"], 0) + 1
        for fact in (f for facts in by_kind.values() for f in facts if f["id"] in closing):
            add(_RANK_CLOSED, _closed_line(fact, closing[fact["id"]], settings.brief_line_chars), "closed item", area, head)
        still = {kind: [f for f in facts if f["id"] not in closing] for kind, facts in by_kind.items()}
        # the n-th decision, task and question before the (n+1)-th of any: five decisions must not
        # leave the budget no room for what is open
        # (chosen in that order, read grouped by kind)
        first_item = len(out)
        for n in range(max(map(len, still.values()), default=0)):
            for k, (kind, facts) in enumerate(still.items()):
                if n < len(facts):
                    at = add(first_rank if n == 0 else more_rank, _fact_line(facts[n], kind.value, settings.brief_line_chars),
                             "decision" if kind is FactKind.DECISION else "open item", area, head)
                    out[at].shown_at = (first_item, k, n)

    for i, page in enumerate(material["top"]):
        why = why_it_matters(page["title"], page["aliases"], page["facts"], person=page["kind"] == PageKind.PERSON.value)
        details = [why] if why else []
        if owed.get(page["slug"]):
            details.append(f"{owed[page['slug']]} open action{'s' if owed[page['slug']] != 1 else ''}")
        if not details:
            details.append(f"in {page['recent']} recent source{'s' if page['recent'] != 1 else ''}")
        text = f"{page['title']} ({page['kind']}): {'; '.join(details)}."
        add(_RANK_MATTERS if i < settings.brief_first_matters else _RANK_MORE_MATTERS,
            BriefLine(section="matters", text=text, sources=[_ref(page)]), "person or thing")
    return out


def _fact_vectors(items: list[dict], reports: list[dict], settings: Settings, embed: Embed) -> dict[str, np.ndarray]:
    """{fact id: its sentence embedded}, for closing an open item by meaning (one batch; none when
    there is nothing to compare or closing by meaning is off)."""
    if not items or not reports or settings.closing_min_similarity > 1:
        return {}
    texts = {f["id"]: f["text"] for f in (*items, *reports)}
    # the callers hand over an embedder that remembers across rebuilds: after a write only the new
    # sentences are embedded (model work was 86 % of a rebuild on a 2,600-page graph)
    return dict(zip(texts, np.asarray(embed(list(texts.values()))), strict=True))


def _closing_reports(material: dict, settings: Settings, embed: Embed) -> dict[str, dict]:
    """{open item's fact id: the later report of work done that closes it}."""
    items = [f for focus in material["focus"] for f in focus["typed"] if f["kind"] != FactKind.DECISION.value]
    reports = material.get("reports", [])
    vectors = _fact_vectors(items, reports, settings, embed)
    return {fact["id"]: report for fact in items
            for report in [closing_report(fact, reports, settings.closing_min_overlap, vectors,
                                          settings.closing_min_similarity)] if report}


def _typed_by_kind(focus: dict) -> dict[FactKind, list[dict]]:
    """An area's decisions, actions and questions, newest first; an action with a due date comes
    before one without (what is due is what a reader must not miss)."""
    typed = {k: [f for f in focus["typed"] if f["kind"] == k.value]
             for k in (FactKind.DECISION, FactKind.ACTION, FactKind.QUESTION)}
    typed[FactKind.ACTION].sort(key=lambda f: f.get("due_on") is None)
    return typed


def focus_status(material: dict, settings: Settings, embed: Embed) -> FocusStatus | None:
    """The status of the one focus area `material` was read for (brief_material's `only_focus`):
    the same lines the brief writes for it, none left out for the brief's budget."""
    if not material["focus"]:
        return None
    focus = material["focus"][0]
    closing = _closing_reports(material, settings, embed)
    about = _what_it_is(focus, settings.brief_about_min_words)
    status = FocusStatus(source_count=focus["source_count"], last_activity=focus["last_activity"])
    if about:
        status.what_it_is = BriefLine(section="about", text=one_line(about["text"], settings.brief_line_chars),
                                      sources=[_ref(p) for p in about["about"]], documents=sorted(set(about["documents"])))
    for kind, facts in _typed_by_kind(focus).items():
        for fact in facts:
            if fact["id"] in closing:
                status.closed.append(_closed_line(fact, closing[fact["id"]], settings.brief_line_chars))
            elif kind is FactKind.DECISION:
                status.decided.append(_fact_line(fact, kind.value, settings.brief_line_chars))
            else:
                status.open.append(_fact_line(fact, kind.value, settings.brief_line_chars))
    return status


def _closed_line(item: dict, report: dict, line_chars: int) -> BriefLine:
    """'Closed (5 Mar 2026): Daniel will share their 2025 shipping volumes.' — with both sources."""
    text = one_line(_LABEL.sub("", item["text"]) or item["text"], line_chars)
    refs = {p["slug"]: _ref(p) for p in (*item["about"], *report["about"])}
    return BriefLine(section="closed", text=f"Closed ({_day(_when(report))}): {text}", sources=list(refs.values()),
                     documents=sorted(set(item["documents"]) | set(report["documents"])))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _first_line(changed: dict, closed: list[dict]) -> BriefLine:
    """'First brief: 4 documents, 3 decisions, 5 open items and 1 item closed.' There is no earlier
    brief to compare with, so the first one says what the graph starts from."""
    parts = [_plural(len(changed["keys"]), "document"), _plural(changed["decisions"], "decision"),
             _plural(changed["open_items"], "open item")]
    if closed:
        parts.append(f"{_plural(len(closed), 'item')} closed")
    return BriefLine(section="changed", text=f"First brief: {', '.join(parts[:-1])} and {parts[-1]}.",
                     documents=sorted(changed["keys"]))


def _changed_line(changed: dict | None, closed: list[dict], since: datetime | None,
                  first: bool = False) -> BriefLine | None:
    """'Since the last brief: 1 new source (…); 1 new decision; 1 item closed.'"""
    if not changed:
        return None
    if first:
        return _first_line(changed, closed)
    newly_closed = [r for r in closed if since is None or (r["first_seen"] and r["first_seen"] > since)]
    parts = []
    if changed["keys"]:
        keys = changed["keys"]
        shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        parts.append(f"{_plural(len(keys), 'new source')} ({shown})")
    if changed["decisions"]:
        parts.append(_plural(changed["decisions"], "new decision"))
    if changed["open_items"]:
        parts.append(_plural(changed["open_items"], "new open item"))
    if newly_closed:
        parts.append(f"{_plural(len(newly_closed), 'item')} closed")
    if not parts:
        return None
    documents = sorted(set(changed["keys"]) | {d for r in newly_closed for d in r["documents"]})
    return BriefLine(section="changed", text="Since the last brief: " + "; ".join(parts) + ".", documents=documents)


def _what_it_is(focus: dict, min_words: int) -> dict | None:
    """The area's first sentence that names it (its earliest source, in document order), or its first
    sentence; a header line ('PEP: 817', 'Author: …'), a fragment of code or a sentence the area's
    documents share says what a document is filed as or holds, not what the area is; nor does a
    fragment of fewer than `min_words` words."""
    statements = sorted(focus["statements"], key=lambda f: (f["earliest"] or datetime.max, f["position"] or 0))
    sentences = [f for f in statements if _SENTENCE.match(f["text"]) and not _FIELD_LINE.match(f["text"])
                 and not _REFERS_BACK.match(f["text"]) and "`" not in f["text"]
                 and len(f["text"].split()) >= min_words]  # 'Ruby.' from a list says nothing of an area
    # a sentence several documents share word for word is their template (a licence, a footer,
    # a signature), not what any of them is about
    sentences = [f for f in sentences if len(set(f["documents"])) < 2]
    words = _title_words(focus["title"])
    naming = [f for f in sentences if words & _title_words(f["text"])]
    return (naming or sentences or [None])[0]


def _title_words(text: str) -> set[str]:
    """The words an area's title is compared by, each in the singular: an area 'peps' is named by
    'This PEP proposes …', 'proposals' by 'the proposal'."""
    words = [w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _TITLE_FILLER]
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in words}


def _pack(candidates: list[_Candidate], budget: int, reserved: int, chars_per_token: float) -> _Packed:
    packed = _Packed()
    kept: set[int] = set()
    used = reserved
    for candidate in sorted(candidates, key=lambda c: (c.rank, c.order)):
        candidate.tokens = tokens_of(candidate.line.text + "\n- ", chars_per_token)
        if (candidate.needs is None or candidate.needs in kept) and used + candidate.tokens <= budget:
            kept.add(candidate.order)
            used += candidate.tokens
            packed.lines.append(candidate)
        else:
            packed.left_out.append(candidate)
    packed.lines.sort(key=lambda c: c.shown_at or (c.order,))
    return packed


def _omitted(left_out: list[_Candidate]) -> list[str]:
    """'2 decisions and 3 open items of harbour-pitch.' — what did not fit, in sentences."""
    counts: dict[tuple[str | None, str], int] = {}
    if any(c.omitted_as == _LOOSE_HEADING for c in left_out):  # the area is left out whole: name it once
        left_out = [c for c in left_out if c.area != LOOSE_AREA or c.omitted_as == _LOOSE_HEADING]
    for c in left_out:
        counts[(c.area if c.omitted_as != "focus area" else None, c.omitted_as)] = \
            counts.get((c.area if c.omitted_as != "focus area" else None, c.omitted_as), 0) + 1
    plural = {"decision": "decisions", "open item": "open items", "description": "descriptions",
              "person or thing": "more people and things", "focus area": "focus areas", "what changed": "what changed",
              "closed item": "closed items",
              "who you are": "who you are"}
    areas: dict[str | None, list[str]] = {}
    for (area, what), n in counts.items():
        if what == _LOOSE_HEADING:
            areas.setdefault(None, []).append("the notes outside a focus folder")
            continue
        areas.setdefault(area, []).append(f"{n} {what if n == 1 and what != 'person or thing' else plural[what]}")
    sentences = []
    for area, parts in areas.items():
        where = f" of {area}" if area else ""
        sentences.append(f"{_names(parts)}{where}.")
    # each a sentence of its own after the first: 'the notes outside …' opens with a capital there
    return sentences[:1] + [s[:1].upper() + s[1:] for s in sentences[1:]]


def render_brief(material: dict, embed: Embed, settings: Settings | None = None) -> BriefView:
    """Turn brief material (see queries.brief.brief_material) into text, its lines with their sources,
    packed into the token budget; `embed` compares open items with reports of work done."""
    settings = settings or get_settings()
    version = material["version"]
    if material["sources"] == 0 and not material["you_facts"]:
        return BriefView(text=EMPTY_BRIEF, sources=[], graph_version=version)

    packed = _pack(_candidates(material, settings, embed), settings.brief_token_budget, settings.brief_reserved_tokens,
                   settings.chars_per_token)
    view = _written(packed, version, settings)
    while view.estimated_tokens > settings.brief_token_budget:
        # the sentence saying what was left out grew past the reserve: leave out one more line (never who you are)
        needed = {c.needs for c in packed.lines}
        spare = [c for c in packed.lines if c.order not in needed and c.rank != _RANK_YOU]
        if not spare:
            break
        last = max(spare, key=lambda c: (c.rank, c.order))
        packed.lines.remove(last)
        packed.left_out.append(last)
        view = _written(packed, version, settings)
    return view


def _written(packed: _Packed, version: int, settings: Settings) -> BriefView:
    paragraphs: list[list[str]] = []
    previous = None
    for c in packed.lines:
        section = c.line.section
        if section in ("decision", "action", "question", "closed"):
            paragraphs[-1].append(f"- {c.line.text}")
        elif section == "about" or (section == "changed" and previous == "you"):
            paragraphs[-1].append(c.line.text)
        elif section == "matters":
            if previous != "matters":
                paragraphs.append([MATTERS_HEADING])
            paragraphs[-1].append(f"- {c.line.text}")
        else:
            paragraphs.append([c.line.text])
        previous = section
    omitted = _omitted(packed.left_out)
    if omitted:
        paragraphs.append([f"Left out to stay within about {settings.brief_token_budget} tokens: " + " ".join(omitted)
                           + " compile on a focus area (or on 'you') gives the rest."])
    text = "\n\n".join("\n".join(_joined(p)) for p in paragraphs)
    sources: dict[str, PageRef] = {}
    for c in packed.lines:
        for ref in c.line.sources:
            sources.setdefault(ref.slug, ref)
    return BriefView(text=text, sources=list(sources.values()), lines=[c.line for c in packed.lines],
                     omitted=omitted, estimated_tokens=tokens_of(text, settings.chars_per_token),
                     graph_version=version)


def _joined(paragraph: list[str]) -> list[str]:
    """A heading and the sentences after it share a line; bullets keep lines of their own."""
    out: list[str] = []
    for line in paragraph:
        if out and not line.startswith("- ") and not out[-1].startswith("- ") and out[-1] != MATTERS_HEADING:
            out[-1] += " " + line
        else:
            out.append(line)
    return out


def _cached_view(stored: dict) -> BriefView:
    """The brief as the graph keeps it (graph_schema.queries.brief.load_brief)."""
    return BriefView(text=stored["text"], sources=[PageRef(**s) for s in stored["sources"]],
                     lines=[BriefLine(**line) for line in stored["lines"]], omitted=stored["omitted"],
                     narrative=stored["narrative"],
                     estimated_tokens=stored["estimated_tokens"], graph_version=stored["graph_version"],
                     built_at=stored["built_at"], cached=True)


def current_brief(graph: db.GraphSession, owner: str, embed: Embed, llm: LlmClient | None = None) -> BriefView:
    """The cached brief if the graph is unchanged since it was built; otherwise rebuild and cache it
    (with `llm`, with its narrative)."""
    version, cached = graph.read_single(load_brief, owner)
    if cached is None or cached["graph_version"] != version:
        return rebuild_brief(graph, owner, embed, llm)
    view = _cached_view(cached)
    if llm is not None and view.narrative is None and cached["narrated_by"] != llm.settings.llm_model and not llm.unavailable():
        # built without asking this model (none configured then, or its run had used it up): asked
        # once now, and recorded as asked whatever it answers, so a dead server costs one call a version
        narrative = narrate_brief(view, llm, get_settings())
        graph.write(store_narrative, owner, version, narrative, llm.settings.llm_model)
        view = view.model_copy(update={"narrative": narrative})
    return view


def _narrated(brief: BriefView, llm: LlmClient, settings: Settings) -> str | None:
    """The model's narrative of the brief, or None (no model call once the run's calls are used up)."""
    return None if llm.unavailable() else narrate_brief(brief, llm, settings)


def rebuild_brief(graph: db.GraphSession, owner: str, embed: Embed, llm: LlmClient | None = None) -> BriefView:
    """Build the brief from the graph and store it: a read, the writing (no transaction open
    meanwhile; with `llm`, the model's narrative of it too), then a write."""
    settings = get_settings()
    _, previous = graph.read(load_brief, owner)
    since = previous["built_at"] if previous else None
    material = graph.read(brief_material, owner, settings, None, since, first=previous is None)
    brief = render_brief(material, embed, settings)
    narrated_by = None
    calls_before = llm.usage.calls if llm is not None else 0
    if llm is not None:
        brief = brief.model_copy(update={"narrative": _narrated(brief, llm, settings)})
        # asked (whatever came of it): not asked again for this version; not asked because the run
        # had used the model up: a later read asks
        narrated_by = llm.settings.llm_model if brief.narrative or llm.usage.calls > calls_before else None
    stored = brief.model_dump(mode="json", include={"text", "sources", "lines", "omitted", "estimated_tokens",
                                                     "graph_version", "narrative"})
    stored["narrated_by"] = narrated_by
    built_at = graph.write(store_brief, owner, stored)
    return brief.model_copy(update={"built_at": built_at or brief.built_at, "cached": False})


def focus_material(tx: db.Tx, owner: str, slug: str, settings: Settings, visible: list[str] | None = None,
                   areas: list[str] | None = None) -> dict:
    """What `focus_status` reads of one focus area. A read."""
    return brief_material(tx, owner, settings, visible, None, slug, areas=areas)


def scoped_brief(graph: db.GraphSession, owner: str, visible: list[str], embed: Embed,
                 areas: list[str] | None = None) -> BriefView:
    """The brief of what one access key's scope can see (not stored: the cache holds the full one);
    `areas`: a focus key's areas (`graph_schema.queries.sight`). A read, then the writing (model
    work never runs inside a transaction: a retried one would repeat it)."""
    settings = get_settings()
    return render_brief(graph.read(brief_material, owner, settings, visible, areas=areas), embed, settings)


def brief_is_stale(tx: db.Tx, owner: str) -> bool:
    """Whether the graph changed since the stored brief was built. A read."""
    version, cached = load_brief(tx, owner)
    return cached is None or cached["graph_version"] != version

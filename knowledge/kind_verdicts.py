"""An LLM's verdict on what a page is, where its sources disagree, when an LLM is configured
(issue 18 use 2).

A page some documents read as one kind and others as another ('Quillsoft' a firm in one note, a
tool in the next) keeps the kind most of its sources read, by rule (pipeline.merge.kind_by_sources).
With a model, the page's name, other names, facts and the kinds its sources read it as are shown
to it, and it chooses one of those kinds with a reason. The page takes that kind, and keeps it
while its sources read it as the same kinds (a new reading asks again); a kind the person set
(`subtext pages kind`) is never asked about or changed. The model only ever answers about the one
page it is shown, and only among the kinds the documents read, so nothing a document says can
make it change another page or invent a kind. A page is asked once per set of readings (two calls
when the first answer is not valid); with no valid answer it keeps the kind its sources give it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from graph_schema import db
from graph_schema.kinds import PageKind
from graph_schema.models import Model
from graph_schema.queries.documents import kinds_read, retype_pages
from graph_schema.queries.kind_checks import kinds_in_doubt, mark_kind_answer
from graph_schema.queries.owners import bump_version, lock_graph
from graph_schema.settings import Settings
from knowledge.llm import LlmClient

_TASK = ("You keep a personal knowledge graph of someone's work notes. Each page names one thing. The documents "
         "disagree on what kind of thing this page names. From its names and facts, choose its kind, one of those "
         "listed as read: person; organisation (a company, a team, a public body); project (a piece of work with a "
         "goal and an end); tool (software, a product or a service people use); topic (a subject). Give a short "
         "reason.")
_REASON_CHARS = 200


class KindVerdict(BaseModel):
    """The model's answer, as it must write it (a JSON object of exactly these fields)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["person", "organisation", "project", "tool", "topic"]
    reason: str = Field(min_length=1, max_length=_REASON_CHARS)


class JudgedKind(Model):
    slug: str
    was: PageKind
    now: PageKind | None  # the page's kind after the answer; None when it is gone or the person set it
    answer: str  # the kind the model chose, or "no answer"
    reason: str


class KindVerdicts(Model):
    """What the LLM answered about pages in doubt, and what was done with each answer."""

    judged: list[JudgedKind] = Field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(1 for j in self.judged if j.now is not None and j.now is not j.was)


def describe_page(page: dict) -> str:
    """The page as the model reads it: its title, kind, other names, the kinds read (how many
    sources read each, and which a rule read) and its facts."""
    readings = [f"{kind} ({count} source{'s' if count > 1 else ''}"
                + (", one read by a rule such as an attendee list" if kind in page["ruled"] else "") + ")"
                for kind, count in zip(page["read"], page["sources"])]
    lines = [f"Page: {page['title']} (now a {page['kind']})", "Read by the documents as: " + ", ".join(readings)]
    if page["aliases"]:
        lines.append("Also called: " + ", ".join(page["aliases"][:5]))
    lines += [f"- {fact}" for fact in page["facts"]]
    return "\n".join(lines)


def act_on_kind_verdict(tx: db.Tx, owner: str, page: dict, answer: KindVerdict | None, model: str) -> PageKind | None:
    """Record the answer and give the page the kind chosen, in one transaction under the person's
    write lock, only while the page is as it was shown: the same kind, read as the same kinds, and
    not set by the person. Only a kind the documents read is taken. Returns the page's kind after
    it, or None when it changed meanwhile (then nothing is recorded: the next run asks again)."""
    lock_graph(tx, owner)
    was = PageKind(page["kind"])
    current = kinds_read(tx, owner, [page["slug"]]).get(page["slug"])  # None: gone, or its kind set by hand
    if current is None or current[0] is not was or sorted({k.value for k in current[1]}) != page["read"]:
        return None
    chosen = PageKind(answer.kind) if answer is not None and answer.kind in page["read"] else None
    reason = answer.reason if answer is not None else "the model gave no valid answer"
    if answer is not None and chosen is None:
        reason = f"chose {answer.kind}, which no document read: {answer.reason}"[:_REASON_CHARS]
    mark_kind_answer(tx, owner, page["slug"], chosen, page["read"], model, reason)
    if chosen is None or chosen is was:
        return was
    retype_pages(tx, owner, {page["slug"]: (was, chosen)})
    bump_version(tx, owner)  # the brief and every page listing it show its kind
    return chosen


def judge_kinds(graph: db.GraphSession, owner: str, settings: Settings, client: LlmClient) -> KindVerdicts:
    """Ask the model about the pages whose sources disagree on their kind (at most
    `llm_kind_max_pages`, most facts first) and act on each answer; the calls are counted on
    `client.usage`."""
    verdicts = KindVerdicts()
    pages = graph.read(kinds_in_doubt, owner, settings.llm_kind_max_pages, settings.llm_review_facts_per_page)
    for page in pages:
        if why := client.unavailable():
            client.fall_back(why)
            break
        answer = client.ask(_TASK, describe_page(page), KindVerdict)
        if answer is None and (why := client.unavailable()):  # a failed call or the cap: asked again next run
            verdicts.judged.append(JudgedKind(slug=page["slug"], was=PageKind(page["kind"]), now=None,
                                              answer="no answer", reason=why[:_REASON_CHARS]))
            break
        now = graph.write(act_on_kind_verdict, owner, page, answer, settings.llm_model or "")
        verdicts.judged.append(JudgedKind(
            slug=page["slug"], was=PageKind(page["kind"]), now=now, answer=answer.kind if answer else "no answer",
            reason=answer.reason if answer else "the model gave no valid answer; the page keeps its kind"))
    return verdicts

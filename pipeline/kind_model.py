"""Which kind a name is: a small classifier over MiniLM embeddings, the name's shape and how it is used.

spaCy's en_core_web_sm labels come from news: on technical text and work notes it files software
as organisations or people and misses lower-case or code-shaped names. After extraction, each
entity whose kind no rule fixed is classified from
- the MiniLM embedding of its bare name, of its last word ("… Retail") and of its context
  ("Name. first facts…", the vector extraction already made for resolution),
- its shape (inner capitals, digits, dots, all lower, all capitals, word count),
- usage cues around its mentions ("install X", "the X cluster", "X 3.2", "Mr. X", "X Inc"),
- what spaCy said (its label, or that it found nothing and the name is a shape candidate),
- whether Simple Icons knows the name as software or a brand (known_names.py).

The classes are person, organisation, tool, place and other (not a page). A candidate spaCy did
not tag becomes an entity only when a page kind wins with `kind_candidate_min_probability`; spaCy's
own entities are re-typed only when another page kind beats spaCy's by `kind_retype_margin`; a
kind set by a rule (`kind_certain`) is never changed. "Project X" and "the X project" are projects
by rule: the corpora have no projects to learn them from.

The weights are a multinomial logistic regression trained by bench/train_kind_model.py on SoftNER
and GUM (never on samples/ or tests/data), shipped as pipeline/data/kind_model.npz; prediction is
one matrix product in numpy.
"""

from __future__ import annotations

import calendar
import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from graph_schema.kinds import FactKind, PageKind, SourceKind
from graph_schema.models import DocumentEntity, ExtractedDocument, KnownPage
from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name
from knowledge.types import Embed
from pipeline.fact_kinds import untask_things
from pipeline.known_names import is_a_brands_product, is_known_name
from pipeline import names
from pipeline.not_names import in_a_header_row
from pipeline.names import (ends_in_organisation_head, has_legal_form, is_common_word, is_given_name, office_of, org_base,
                            project_short_form)
from pipeline.speakers import is_a_role_alone, is_job_title
from pipeline.units import line_start_near, starts_a_sentence
from pipeline.tool_candidates import (
    FIRM_ONLY_APPOSITION,
    ORGANISATION_APPOSITION,
    TOOL_AFTER,
    TOOL_AFTER_STRONG,
    TOOL_BEFORE,
    capitals_then_a_word,
    has_version_after,
    in_strong_tool_cue,
    in_usage_cue,
    is_code_shaped,
    is_coined,
    next_word,
    previous_word,
)

MODEL_PATH = Path(__file__).parent / "data" / "kind_model.npz"
FEATURE_VERSION = 3
CLASSES = ("person", "organisation", "tool", "place", "other")
PAGE_CLASSES = {"person": PageKind.PERSON, "organisation": PageKind.ORGANISATION, "tool": PageKind.TOOL}
SOURCE_KINDS = (PageKind.PERSON, PageKind.ORGANISATION, PageKind.TOOL, PageKind.PROJECT, PageKind.TOPIC)

# Words beside a name that say who or what it is; short and general, not names of anything.
PERSON_BEFORE = {"mr", "mrs", "ms", "dr", "prof", "professor", "sir", "dame", "president", "minister", "senator",
                 "judge", "justice", "father", "mother", "son", "daughter", "wife", "husband", "brother", "sister",
                 "colleague", "manager", "engineer", "director", "ceo", "founder", "author", "by", "thanks", "@"}
PERSON_AFTER = {"said", "says", "told", "asked", "explained", "added", "who", "himself", "herself", "thinks",
                "wrote", "replied", "agreed", "joined", "leads", "reports", "expects", "owns"}
ORGANISATION_AFTER = {"inc", "ltd", "llc", "corp", "corporation", "company", "gmbh", "plc", "group", "team",
                      "announced", "acquired", "employees", "staff", "headquarters", "customers", "signed",
                      "contract", "account", "partnership", "spokesperson", "spokesman", "board", "university"}
PLACE_BEFORE = {"in", "at", "near", "to", "from", "across", "around", "visit", "visiting", "north", "south",
                "east", "west", "downtown", "city", "island"}
# Kinds one name should not switch between from one note to the next (people are another matter).
AGREEING_KINDS = frozenset({PageKind.ORGANISATION, PageKind.TOOL, PageKind.PROJECT})
_PROJECT_NAME = re.compile(r"^project\s+\S|\S\s+project$", re.IGNORECASE)
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_DIGIT = re.compile(r"\d")


def is_project_name(text: str, entity: DocumentEntity) -> bool:
    """'Project Atlas', 'the Atlas project': a project by how it is named."""
    if _PROJECT_NAME.search(entity.name):
        return True
    return any(next_word(text, m.end) == "project" and previous_word(text, m.start) == "the" for m in entity.mentions)


# How a team speaks of its projects. Strongest, a name given as the work itself: '# Proposal: Tidepool
# (cut spend …)', 'Lantern approved as an internal project'. Then its stages: 'Lantern — phase 1 planning',
# 'Kestrel stage 2', 'the Heron kickoff', 'Brightwater — Project Status Report' (not a 'phase 3 trial',
# a drug's). Weakest, an elliptic approval as a line's item: 'D1: Tidepool approved, 6 wks' ('Congress
# approved the bill' is an act of Congress; 'Okafor approved, with conditions' is one of Okafor).
_STAGE_AFTER = re.compile(
    r"[ \t]*(?:[—–:-][ \t]*)?(?:phase|stage)[ \t]+(?:\d+|[IVX]+|one|two|three)\b(?![ \t]+(?:trials?|study|studies|clinical))"
    r"|[ \t]*[—–:-][ \t]*project\b"  # not 'the GoDoRP project': in technical text that is the software
    r"|[ \t]+(?:kick-?off|go-live|milestones?)\b",
    re.IGNORECASE)
_APPROVED_AS_PROJECT = re.compile(r"[ \t]+approved[ \t]+as[ \t]+(?:an?[ \t]+)?(?:[\w-]+[ \t]+){0,2}project\b", re.IGNORECASE)
_APPROVED_ALONE = re.compile(r"[ \t]+approved[ \t]*[,.;]", re.IGNORECASE)
_LINE_ITEM_OPENING = re.compile(r"[ \t]*(?:[-*•]|\d+[.)])?[ \t]*(?:\**[A-Z][\w ]{0,20}:\**[ \t]*)?$")
_PROPOSAL_BEFORE = re.compile(r"(?:^|\n)[ \t#*]*(?:proposal|pitch|charter|project brief)[ \t]*:[ \t]*$", re.IGNORECASE)
# 'Bramble, our clinic network refresh', 'Heron (the data warehouse project)': the text says the name is a piece of work
# 'Halo (the new mobile onboarding)'; not 'Harrowgate Clinics (EHR migration)', what a firm is doing
_PROJECT_APPOSITION = re.compile(
    r"[ \t]*[,(][ \t]*(?:our|the|a|an|their)[ \t]+(?:(?!(?:of|for|to|from|in|on|at|with|by)[ \t])[\w-]+[ \t]+){0,3}"
    r"(?:project|programme|program|initiative|workstream|refresh|migration|rollout|roll-out|overhaul|rebuild|"
    r"replacement|redesign|revamp|pilot|launch|upgrade|onboarding|cutover)(?=[ \t]*[,.;:)!?]|[ \t]+(?:that|which)\b|[ \t]*\Z)",
    re.IGNORECASE)
_TITLE, _STAGE, _APPROVAL = 3, 2, 1  # how strongly a cue says 'project'


def project_cue(text: str, start: int, end: int) -> int:
    """How strongly one mention is spoken of as a project: _TITLE, _STAGE, _APPROVAL or 0."""
    line_start = line_start_near(text, start)
    if ((line_start is not None and _PROPOSAL_BEFORE.search(text, max(0, line_start - 1), start))
            or _APPROVED_AS_PROJECT.match(text, end) or _PROJECT_APPOSITION.match(text, end)):
        return _TITLE
    if _STAGE_AFTER.match(text, end):
        return _STAGE
    if line_start is not None and _APPROVED_ALONE.match(text, end) and _LINE_ITEM_OPENING.fullmatch(text, line_start, start):
        return _APPROVAL
    return 0


def _project_cue_share(text: str, entity: DocumentEntity) -> float:
    """The share of the name's mentions spoken of as a project as strongly as its reading requires:
    spaCy's firm only as the work itself, a person also by its stages, anything else by any cue."""
    needed = {PageKind.ORGANISATION: _TITLE, PageKind.PERSON: _STAGE}.get(entity.kind, _APPROVAL)
    return _cue_share(text, entity, lambda s, e: project_cue(text, s, e) >= needed)


def _may_be_a_project(entity: DocumentEntity) -> bool:
    """A project's code name is no known product and no person's full or given name."""
    if entity.kind_certain or is_known_name(entity.name):
        return False
    words = entity.name.split()
    return not (entity.kind is PageKind.PERSON and (len(words) > 1 or is_given_name(normalise_name(entity.name))))


# A field whose values are projects: 'PROGRAMMES: DRIFTWOOD, MARLIN, LODESTAR', '**Workstreams:** …'.
_PROJECT_FIELD = re.compile(r"[ \t>*_#-]*(?:projects?|programmes?|programs?|workstreams?|initiatives?)[*_]*[ \t]*:",
                            re.IGNORECASE)




# Where a field's value ends on its line: a sentence's end, a divider, or the next field ('Lead: …').
_VALUE_END = re.compile(r"[.;·|•](?:\s|$)|\s(?=[A-Z][\w-]*:)")


def listed_as_a_project(text: str, entity: DocumentEntity) -> bool:
    """Whether a mention is a value of a projects field whose values are names only: 'Projects:
    Atlas, Heron (payments)', not a config key's 'project: Redmine project identifier …', nor
    'Lead: Ada Park' after 'Project: Atlas.', nor software a rollout is named by ('Projects:
    Salesforce, Workday': names Simple Icons knows)."""
    if is_known_name(entity.name):
        return False
    for mention in entity.mentions:
        line_start = text.rfind("\n", 0, mention.start) + 1
        field = _PROJECT_FIELD.match(text, line_start)
        if not field or field.end() > mention.start:
            continue
        line_end = text.find("\n", mention.end)
        value = text[field.end() : line_end if line_end >= 0 else len(text)]
        end = _VALUE_END.search(value)
        if end and field.end() + end.start() < mention.end:
            continue  # the mention is past the field's value
        if names.is_list_of_names(value[: end.start()] if end else value):
            return True
    return False


def _cue_share(text: str, entity: DocumentEntity, test: Callable[[int, int], bool]) -> float:
    mentions = entity.mentions or []
    return sum(test(m.start, m.end) for m in mentions) / len(mentions) if mentions else 0.0


def shape_and_cue_features(text: str, entity: DocumentEntity) -> list[float]:
    """Features beside the two embeddings, in a fixed order (FEATURE_VERSION names it)."""
    name = entity.name
    words = name.split()
    letters = [ch for ch in name if ch.isalpha()]
    line_starts = sum(m.start == 0 or text[max(0, m.start - 1)] == "\n" for m in entity.mentions)
    return [
        float(len(words) == 1),
        float(len(words) == 2),
        float(len(words) >= 3),
        float(bool(_INNER_CAPITAL.search(name))),
        float(bool(_DIGIT.search(name))),
        float("." in name.strip(".")),
        float(is_code_shaped(name)),
        float(bool(letters) and all(ch.islower() for ch in letters)),
        float(len(letters) >= 2 and all(ch.isupper() for ch in letters)),
        float(all(w[:1].isupper() for w in words)),
        float(len(name) <= 3),
        math.log1p(len(entity.mentions)) / 3,
        line_starts / max(1, len(entity.mentions)),
        _cue_share(text, entity, lambda s, e: previous_word(text, s) in TOOL_BEFORE),
        _cue_share(text, entity, lambda s, e: next_word(text, e) in TOOL_AFTER),
        _cue_share(text, entity, lambda s, e: has_version_after(text, e)),
        _cue_share(text, entity, lambda s, e: previous_word(text, s) in PERSON_BEFORE),
        _cue_share(text, entity, lambda s, e: next_word(text, e) in PERSON_AFTER),
        _cue_share(text, entity, lambda s, e: next_word(text, e) in ORGANISATION_AFTER),
        _cue_share(text, entity, lambda s, e: previous_word(text, s) in PLACE_BEFORE),
        *(float(not entity.candidate and entity.kind is kind) for kind in SOURCE_KINDS),
        float(entity.candidate),
        float(is_known_name(entity.name)),
    ]


def feature_rows(
    documents: list[ExtractedDocument], embed: Embed
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """(document index, entity index) of every entity to type, and its feature row."""
    where = [
        (d, e)
        for d, document in enumerate(documents)
        for e, entity in enumerate(document.entities)
        if entity.kind is not PageKind.YOU and not entity.kind_certain
    ]
    if not where:
        return [], np.zeros((0, 0), dtype=np.float32)
    entities = [documents[d].entities[e] for d, e in where]
    distinct_names = sorted({entity.name for entity in entities})
    name_vectors = dict(zip(distinct_names, embed(distinct_names), strict=True))
    # the last word of a longer name says what it is: "… Retail", "… Analytics" are firms, not surnames
    last_words = sorted({entity.name.split()[-1] for entity in entities if len(entity.name.split()) > 1})
    last_vectors = dict(zip(last_words, embed(last_words), strict=True)) if last_words else {}
    no_last_word = [0.0] * len(next(iter(name_vectors.values())))
    # extraction embeds one context per name and kind in a batch; its twins share that vector
    context_of = {normalise_name(x.name): x.embedding for x in entities if x.embedding is not None}
    missing = sorted({x.context for x in entities if x.embedding is None and normalise_name(x.name) not in context_of})
    missing_vectors = dict(zip(missing, embed(missing), strict=True)) if missing else {}
    rows = []
    for (d, _), entity in zip(where, entities, strict=True):
        context = entity.embedding or context_of.get(normalise_name(entity.name)) or missing_vectors[entity.context]
        last = last_vectors.get(entity.name.split()[-1], no_last_word) if len(entity.name.split()) > 1 else no_last_word
        rows.append([*name_vectors[entity.name], *last, *context, *shape_and_cue_features(documents[d].parsed.text, entity)])
    return where, np.asarray(rows, dtype=np.float32)


class KindModel:
    """Multinomial logistic regression: probabilities over CLASSES for each feature row."""

    def __init__(self, weights: np.ndarray, bias: np.ndarray, classes: tuple[str, ...]) -> None:
        self.weights = weights
        self.bias = bias
        self.classes = classes

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        scores = rows @ self.weights.T + self.bias
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:  # np.savez on a handle keeps the exact file name
            np.savez_compressed(handle, weights=self.weights.astype(np.float32), bias=self.bias.astype(np.float32),
                                classes=np.array(self.classes), feature_version=np.array(FEATURE_VERSION))


@lru_cache(maxsize=1)
def load_kind_model(path: Path = MODEL_PATH) -> KindModel:
    with np.load(path) as data:
        if int(data["feature_version"]) != FEATURE_VERSION:
            raise ValueError(f"{path} was trained on feature version {int(data['feature_version'])}, "
                             f"the code computes version {FEATURE_VERSION}: rebuild it with bench/train_kind_model.py")
        return KindModel(data["weights"], data["bias"], tuple(str(c) for c in data["classes"]))


# What spaCy reads short capitals as: a firm most often, but also a product ('CRM') or a person ('ERD').
_ACRONYM_READINGS = frozenset({PageKind.ORGANISATION, PageKind.TOOL, PageKind.PERSON})


def decide_kind(entity: DocumentEntity, probabilities: dict[str, float], min_probability: float,
                margin: float, not_a_page: float = 1.1, line_opener: bool = False,
                institution: bool = False, coined_software: bool = False) -> PageKind | None:
    """The entity's kind after classification; None drops a candidate that is not a page."""
    best = max(PAGE_CLASSES, key=lambda c: probabilities[c])
    if entity.candidate:
        if probabilities[best] >= min_probability:
            return PAGE_CLASSES[best]
        # 'marked up in Bluebeam', 'the Trackwise renewal': a coined word written as a name, shaped like a
        # product's or used like one, is one; neither model has seen most of the software a team names,
        # so 'not a page' is the classifier's ignorance there. Software when it finds that likelier than
        # any other page or a place.
        if coined_software and best == "tool" and probabilities["tool"] >= probabilities["place"]:
            return PageKind.TOOL
        return None
    current = next((c for c, k in PAGE_CLASSES.items() if k is entity.kind), None)
    held = probabilities[current] if current else probabilities["other"]
    # 'Rotterdam' read as a person, a heading's 'Roadmap': the classifier is sure it is no page. An
    # acronym spaCy tagged ('the PSF board') keeps its kind unless the classifier is surer still.
    # 'Not a page' only for a word that opens its lines ('# Roadmap sync'): the classifier knows few
    # invented names ('Zelda Quint', 'ships builds with Mercury'), so elsewhere only 'place' drops one.
    no_page = max(probabilities["place"], probabilities["other"]) if line_opener else probabilities["place"]
    # 'SRE', 'SSO', 'CSV', 'CRM', a 'KM' of initials: short capitals in work notes are more often a
    # term than a firm or a product; only when the classifier is that sure, and never one named as institutions are ('the PSF said')
    settings = get_settings()
    if (entity.kind in _ACRONYM_READINGS and entity.name.isupper() and len(entity.name) <= settings.kind_acronym_max_chars
            and probabilities["other"] >= settings.kind_acronym_not_a_page_probability and not institution):
        return None
    if current and no_page >= not_a_page:
        return None
    # 'need Yusuf to sign off' read as a work of art (a project): the classifier has no class for
    # those, so a person it finds about as likely as 'not a page' is a person
    if (current is None and best == "person" and len(entity.name.split()) == 1
            and probabilities["person"] >= settings.kind_unclassed_person_min_probability):
        return PageKind.PERSON
    if PAGE_CLASSES[best] is not entity.kind and probabilities[best] - held >= margin:
        return PAGE_CLASSES[best]
    # The classifier finds spaCy's kind unlikely and another page kind several times likelier, though
    # it thinks most of all that the name is no page: the name is one (spaCy found it), of that kind.
    runner_up = max(probabilities[c] for c in (*PAGE_CLASSES, "place") if c not in (best, current))
    if (PAGE_CLASSES[best] is not entity.kind and current is not None and probabilities[best] >= settings.kind_retype_ratio * held
            and probabilities[best] - max(held, runner_up) >= settings.kind_retype_min_gain):
        return PAGE_CLASSES[best]  # never for a place ('Baie-Mahault'), nor between two alike kinds
    return entity.kind


def _drop_entities(document: ExtractedDocument, dropped: dict[int, int | None]) -> None:
    """Remove entities by index, each folded into another entity or into none.

    Facts and relations are renumbered (a fact about a folded entity is about the one it joined);
    a plain statement that was about dropped entities only goes too (a decision, task or open point
    stays, as one that never named anyone does: it is a fact of its focus area), and so does a
    relation with a dropped side.
    """
    if not dropped:
        return
    new_index = {}
    kept = []
    for index, entity in enumerate(document.entities):
        if index not in dropped:
            new_index[index] = len(kept)
            kept.append(entity)
    for index, into in dropped.items():
        if into is not None:
            new_index[index] = new_index[into]
    facts = []
    dropped_names = {document.entities[i].name for i, into in dropped.items() if into is None}
    for fact in document.facts:
        named = bool(fact.entities)
        fact.entities = sorted({new_index[i] for i in fact.entities if i in new_index})
        if fact.owner in dropped_names and fact.kind is FactKind.ACTION and not is_given_name(fact.owner.split()[0].lower()):
            # typed on the strength of a name that is none ('Whitespace must precede …' read
            # 'Whitespace' as someone who must act): a plain statement
            fact.kind, fact.owner = FactKind.STATEMENT, None
        typed = fact.kind is not FactKind.STATEMENT or fact.done  # a decision or task stays, named or not
        if fact.entities or not named or typed or document.parsed.kind is SourceKind.SUBMISSION:
            facts.append(fact)
    document.relations = [
        r.model_copy(update={"subject": new_index[r.subject], "object": new_index[r.object]})
        for r in document.relations
        if r.subject in new_index and r.object in new_index and new_index[r.subject] != new_index[r.object]
    ]
    document.entities = kept
    document.facts = facts


def type_entities(documents: list[ExtractedDocument], embed: Embed | None) -> None:
    """Set each entity's kind from the classifier (in place); drop candidates that are not pages."""
    settings = get_settings()
    if embed is None:  # no embedder: nothing to classify with, so only spaCy's entities stay
        for document in documents:
            _drop_entities(document, {i: None for i, e in enumerate(document.entities) if e.candidate})
        return
    where, rows = feature_rows(documents, embed)
    probabilities = load_kind_model().probabilities(rows) if where else np.zeros((0, len(CLASSES)))
    dropped: dict[int, dict[int, int | None]] = {}
    candidates = {(d, e) for d, e in where if documents[d].entities[e].candidate}
    model = load_kind_model()
    chances_of: dict[int, dict[str, float]] = {}  # id(entity) -> the classifier's probabilities
    for (d, e), row in zip(where, probabilities, strict=True):
        entity, text = documents[d].entities[e], documents[d].parsed.text
        chances = dict(zip(model.classes, row.tolist(), strict=True))
        chances_of[id(entity)] = chances
        if (_heading_word_read_as_person(text, entity) or _calendar_word(entity) or names.names_a_document_type(entity.name)
                or _a_software_parts_generic_name(entity)) or (
                not entity.kind_certain and is_job_title(entity.name) and _in_apposition_to_a_name(text, entity)
                and not office_of(entity.name)):  # 'Ops Manager' is a role; an office ('Vice President') may join its holder later
            kind = None  # '# Vendor sync': an everyday word capitalised by its place, no one's name
        elif _heading_phrase_read_as_person(text, entity) and max(chances, key=chances.get) != PageKind.TOOL.value:
            kind = None  # 'Reference Implementation' over its underline; 'Write Javascript' is left to the classifier
        elif _opening_word_read_as_person(text, entity) and chances["other"] >= settings.kind_not_a_page_probability:
            kind = None  # 'Hire.', 'Strong.' opening a debrief's lines: no one's name
        elif _capitalised_only_by_its_place(text, entity) and chances["other"] >= settings.kind_not_a_page_probability:
            kind = None  # 'Cutover was 16 Nov.' where the notes speak of 'the cutover checklist', and the classifier agrees
        elif not entity.kind_certain and not entity.candidate and is_a_role_alone(entity.name):
            kind = PageKind.PERSON  # 'the CTO' read as a firm: whoever holds the job here (an office joins its holder later)
        elif (by_rule := bool(_PROJECT_NAME.search(entity.name)) or listed_as_a_project(text, entity)) or is_project_name(
                text, entity):
            # 'Project Lantern' and a projects field are rules, like a header's field: other notes follow them;
            # 'the Maven project' (in SoftNER's questions, the software) is only usage
            kind, entity.kind_certain = PageKind.PROJECT, by_rule
        elif _may_be_a_project(entity) and _project_cue_share(text, entity) >= settings.kind_project_cue_share:
            kind = PageKind.PROJECT  # 'Lantern — phase 1 planning', 'D1: Tidepool approved, 6 wks'
        elif _named_by_an_email_domain(text, entity):
            kind, entity.kind_certain = PageKind.ORGANISATION, True  # 'farah@corvane.example': Corvane is her firm
        elif _partners_name(entity):
            kind = PageKind.ORGANISATION
        elif (_named_for_a_trade(entity) or _organisation_apposition(text, entity)) and (
            (chances["person"] < _trade_name_max_person(entity) or _firm_by_apposition_alone(text, entity))
            and _strong_tool_cue_share(text, entity) < settings.kind_tool_cue_share
        ):
            kind = PageKind.ORGANISATION  # "Bellhaven Retail", "Fernway, our biggest customer"
            entity.kind_certain = entity.kind_certain or _firm_by_apposition_alone(text, entity)
        elif _known_unnamed_name(text, entity) and chances["other"] < settings.kind_known_name_max_other:
            # 'share it in Notion', 'SSO through Okta': software or a firm Simple Icons knows, which
            # spaCy left untagged and the classifier rarely saw. Most of its names are software, so
            # a firm only when the context says so by the retyping margin.
            firm = (chances["organisation"] - chances["tool"] >= settings.kind_retype_margin
                    and _strong_tool_cue_share(text, entity) < settings.kind_tool_cue_share)
            kind = PageKind.ORGANISATION if firm else PageKind.TOOL
        elif _known_software_read_as_firm(entity, chances):
            entity.kind_certain = entity.kind_certain or _a_brands_product(entity.name)
            kind = PageKind.TOOL  # 'a ticket in Linear', 'Jira is down': spaCy's news reading of a product's name
        elif (
            _strong_tool_cue_share(text, entity) >= settings.kind_tool_cue_share
            and chances["person"] < 0.5
            and not (entity.candidate and entity.name.islower())  # a lower-case word needs the classifier's word
        ):
            kind = PageKind.TOOL  # "the Kafka migration": how it is used outweighs a news model's guess
        else:
            kind = decide_kind(entity, chances, settings.kind_candidate_min_probability, settings.kind_retype_margin,
                               settings.kind_not_a_page_probability, _opens_its_lines(text, entity),
                               _named_as_an_institution(text, entity),
                               entity.candidate and _coined_software_name(text, entity))  # it weighs only for candidates
        if kind is None:
            dropped.setdefault(d, {})[e] = None
        else:
            entity.kind, entity.candidate = kind, False
    listed = {id(entity): kind for document in documents for entity, kind in _kinds_of_their_lists(document)}
    for document in documents:
        for entity in document.entities:
            entity.kind = listed.get(id(entity), entity.kind)
    _agree_on_kinds(documents, chances_of, listed)
    for d, document in enumerate(documents):
        weak = {e for e, entity in enumerate(document.entities) if _weak_firm_or_tool(entity, chances_of.get(id(entity)))}
        folded = _fold_name_parts(document, {e for dd, e in candidates if dd == d} | weak)
        dropped.setdefault(d, {}).update({k: v for k, v in folded.items() if v not in dropped.get(d, {})})
    for d, indexes in dropped.items():
        _drop_entities(documents[d], indexes)
    for document in documents:
        document.facts = untask_things(document.facts, document.parsed.text, document.entities)


# Only a cell border between two names of one table row: '| Routific | Onfleet |'. (Lists in prose were
# tried too: on GUM they spread the classifier's errors, 'Sweden' and a university became tools.)
_BETWEEN_LISTED = re.compile(r"[\s*_]*\|[\s*_]*$")


def _kinds_of_their_lists(document: ExtractedDocument) -> list[tuple[DocumentEntity, PageKind]]:
    """A firm or a tool named in a table's header row whose other names all agree on the other kind
    of the two takes theirs: '| | OptimoRoute | Routific | Onfleet |' heads the columns of three
    products compared. Only a header: the cells of a data row are of different columns ('| Fenwick
    Haulage | Samsara | Routific |': carrier, telematics, routing). Rules' kinds are never changed."""
    text = document.parsed.text
    min_others = get_settings().kind_table_header_min_others
    mentions = sorted((m.start, m.end, e) for e, entity in enumerate(document.entities) for m in entity.mentions)
    runs: list[list[int]] = []
    for (_, end, e), (start, _, f) in zip(mentions, mentions[1:]):
        if (start > end and _BETWEEN_LISTED.match(text[end:start]) and "\n" not in text[end:start]
                and in_a_header_row(text, end)):
            if runs and runs[-1][-1] == e:
                runs[-1].append(f)
            else:
                runs.append([e, f])
    changed = []
    for run in runs:
        members = list(dict.fromkeys(run))
        for e in members:
            entity = document.entities[e]
            others = {document.entities[o].kind for o in members if o != e}
            if (len(members) > min_others and len(others) == 1 and entity.kind in _LISTED_KINDS and not entity.kind_certain
                    and (kind := next(iter(others))) in _LISTED_KINDS and kind is not entity.kind):
                changed.append((entity, kind))
    return changed


_LISTED_KINDS = frozenset({PageKind.ORGANISATION, PageKind.TOOL})


def _agree_on_kinds(documents: list[ExtractedDocument], chances: dict[int, dict[str, float]],
                    listed: dict[int, PageKind] | None = None) -> None:
    """One name, one kind across the batch, for things other than people.

    Notes name a firm or a tool in passing, and one note's context may say organisation where
    another's says tool ("Corvid Analytics"); split kinds would make two pages. A kind a rule set
    in any document (a table's organisation column) wins; otherwise the kind most documents gave.
    People are left alone: the same word names different people and places in different texts.
    """
    _name_projects_by_their_code_names(documents)
    _read_first_names_as_people(documents)
    _read_named_speakers_as_people(documents)
    _read_certain_firms_as_firms(documents)
    _read_lone_words_as_projects(documents)
    by_name: dict[str, list[DocumentEntity]] = {}
    # id(entity) -> the kind its own note's usage gives: 'the pack in X', 'X webhooks', a list of tools
    evidenced: dict[int, PageKind] = dict(listed or {})
    share, project_share = get_settings().kind_tool_cue_share, get_settings().kind_project_cue_share
    for document in documents:
        for entity in document.entities:
            if entity.kind in AGREEING_KINDS:
                by_name.setdefault(normalise_name(entity.name), []).append(entity)
                if entity.kind is PageKind.TOOL and _strong_tool_cue_share(document.parsed.text, entity) >= share:
                    evidenced[id(entity)] = PageKind.TOOL
                if (entity.kind is PageKind.PROJECT and _may_be_a_project(entity)
                        and _project_cue_share(document.parsed.text, entity) >= project_share):
                    evidenced[id(entity)] = PageKind.PROJECT
                if entity.kind_certain and _a_brands_product(entity.name):  # 'Teams' in one note, 'Microsoft Teams' in another
                    by_name.setdefault(normalise_name(entity.name.split()[-1]), []).append(entity)
                if (entity.kind_certain and entity.kind is PageKind.ORGANISATION and has_legal_form(entity.name)
                        and not is_known_name(org_base(entity.name))):
                    # 'Cumbre Digital S.A.S.' in one note, 'Cumbre Digital' in others ('Postman, Inc.' makes no
                    # firm of the 'Postman' collection: a known product keeps its own reading)
                    by_name.setdefault(normalise_name(org_base(entity.name)), []).append(entity)
    for group in by_name.values():
        if len({entity.kind for entity in group}) < 2:
            continue
        certain = [entity.kind for entity in group if entity.kind_certain]
        if certain:
            kind = Counter(certain).most_common(1)[0][0]
        elif PageKind.PROJECT in (used := {evidenced[id(entity)] for entity in group if id(entity) in evidenced}):
            kind = PageKind.PROJECT  # a thing with phases and approvals is the work, even where notes use it like a tool
        elif len(used) == 1:
            kind = used.pop()  # how one note uses it outweighs a news-trained guess in others ('Tableau' the firm)
        else:  # the kind the classifier gave most probability over all the name's contexts
            weights = [chances.get(id(entity)) for entity in group]
            if any(w is None for w in weights):
                continue
            totals = {k: sum(w[c] for w in weights) for c, k in PAGE_CLASSES.items() if k in AGREEING_KINDS}
            kind = max(totals, key=totals.__getitem__)
            if kind not in {entity.kind for entity in group}:
                continue
        for entity in group:
            if not entity.kind_certain:
                entity.kind = kind


def _name_projects_by_their_code_names(documents: list[ExtractedDocument]) -> None:
    """'Heron' is the project where the batch also says 'Project Heron' ('**Heron**: designs are
    in Figma', 'the Heron beta'): a code name alone reads as a firm or a tool to the classifier."""
    code_names = {normalise_name(short) for document in documents for entity in document.entities
                  if entity.kind is PageKind.PROJECT and (short := project_short_form(entity.name))}
    for document in documents:
        for entity in document.entities:
            if (entity.kind in AGREEING_KINDS and not entity.kind_certain
                    and normalise_name(entity.name) in code_names):
                entity.kind = PageKind.PROJECT


def _read_lone_words_as_projects(documents: list[ExtractedDocument]) -> None:
    """'Kestrel' read as a person in six notes and as a project in one ('the Kestrel project
    budget'), where no one in the batch is called Kestrel anything and the nickname data knows no
    given name Kestrel: the word names the project in the others too. (A firm read as a person,
    'Kelbrook sent two CVs', is left to the batch's agreement on kinds.)"""
    people_words = {w for document in documents for entity in document.entities
                    if entity.kind is PageKind.PERSON and len(entity.name.split()) > 1
                    for w in normalise_name(entity.name).split()}
    readings: dict[str, Counter] = {}
    for document in documents:
        for entity in document.entities:
            key = normalise_name(entity.name)
            if len(key.split()) == 1 and entity.kind is PageKind.PROJECT:
                readings.setdefault(key, Counter())[entity.kind] += 1
    for document in documents:
        for entity in document.entities:
            key = normalise_name(entity.name)
            if (entity.kind is PageKind.PERSON and not entity.kind_certain and key in readings
                    and key not in people_words and not is_given_name(key)):
                entity.kind = readings[key].most_common(1)[0][0]


def read_lone_words_as_the_graph_does(documents: list[ExtractedDocument], known: list[KnownPage]) -> None:
    """'Kestrel' read as a person in a new note, where the graph holds one page of that name, a
    project (or a firm, or a tool), and no person it knows is called Kestrel anything: the note
    means that page, and reads it so. Notes come one at a time; each one's guess would otherwise
    outvote the page's kind and start a person page of its own. A given name stays a person's."""
    holders: dict[str, set[str]] = {}
    for page in known:
        for key in {normalise_name(page.title), *page.name_keys}:
            holders.setdefault(key, set()).add(page.slug)
    kind_of = {page.slug: page.kind for page in known}
    people_words = {w for page in known if page.kind is PageKind.PERSON and len(page.title.split()) > 1
                    for w in normalise_name(page.title).split()}
    people_words |= {w for document in documents for entity in document.entities
                     if entity.kind is PageKind.PERSON and len(entity.name.split()) > 1
                     for w in normalise_name(entity.name).split()}
    for document in documents:
        for entity in document.entities:
            key = normalise_name(entity.name)
            # an earlier note's own guess, a person page of this one word, is no person the graph knows
            things = [slug for slug in holders.get(key, ()) if kind_of[slug] is not PageKind.PERSON]
            if (entity.kind is PageKind.PERSON and not entity.kind_certain and len(key.split()) == 1
                    and len(things) == 1 and kind_of[things[0]] in AGREEING_KINDS
                    and key not in people_words and not is_given_name(key)):
                entity.kind = kind_of[things[0]]


def _read_certain_firms_as_firms(documents: list[ExtractedDocument]) -> None:
    """'KESTRAVA: STEERING COMMITTEE MINUTES' read as a person, where another note of the batch
    gives it by rule as a firm (an address at kestrava.example, a table's organisation column,
    'Calloway Brandt, their implementation partner'): a one-word name is that firm, and so is one
    of several words that opens with no given name. 'Morgan Hale' may be a person's; it stays."""
    firms = {normalise_name(entity.name) for document in documents for entity in document.entities
             if entity.kind is PageKind.ORGANISATION and entity.kind_certain}
    for document in documents:
        for entity in document.entities:
            key = normalise_name(entity.name)
            if (entity.kind is PageKind.PERSON and not entity.kind_certain and key in firms
                    and (len(key.split()) == 1 or not is_given_name(key.split()[0]))):
                entity.kind = PageKind.ORGANISATION


def _read_named_speakers_as_people(documents: list[ExtractedDocument]) -> None:
    """'**Distribution:** Marcus Bell, Zhang Wei' read as a firm, where the same note gives 'Marcus'
    as a person by rule ('- Marcus: approve a contractor'): a name that opens with that given name
    is that person's, unless it is a firm's by its trade, its legal form or a brand's."""
    for document in documents:
        given = {normalise_name(e.name) for e in document.entities
                 if e.kind is PageKind.PERSON and e.kind_certain and len(normalise_name(e.name).split()) == 1}
        for entity in document.entities:
            words = normalise_name(entity.name).split()
            if (entity.kind in (PageKind.ORGANISATION, PageKind.TOOL) and not entity.kind_certain and len(words) >= 2
                    and words[0] in given and is_given_name(words[0]) and not _named_for_a_trade(entity)
                    and not names.has_legal_form(entity.name) and not is_known_name(entity.name)):
                entity.kind = PageKind.PERSON


_JOINED_NAMES = re.compile(r"\s(?:and|&)\s")


def _read_first_names_as_people(documents: list[ExtractedDocument]) -> None:
    """'good signal from Aarav's loop': a rare word alone that the classifier read as a firm or a
    tool is a person when it is the first name of exactly one person the batch names in full
    ('Aarav Kulkarni') and nothing else of the batch is called so."""
    given: dict[str, set[str]] = {}
    others: Counter[str] = Counter()
    for document in documents:
        for entity in document.entities:
            words = normalise_name(entity.name).split()
            if entity.kind is PageKind.PERSON and len(words) >= 2:
                given.setdefault(words[0], set()).add(normalise_name(entity.name))
            elif (entity.kind is not PageKind.PERSON and (len(words) != 1 or entity.kind_certain)
                  and not entity.candidate  # a shape the classifier found no page in ('chidi.ob', a chat handle)
                  and not _JOINED_NAMES.search(entity.name)):  # 'Chidi and Seun' (read as a work) is no other Chidi
                others[words[0] if words else ""] += 1
    for document in documents:
        for entity in document.entities:
            key = normalise_name(entity.name)
            if (entity.kind in AGREEING_KINDS and not entity.kind_certain and len(key.split()) == 1
                    and len(given.get(key, ())) == 1 and not others[key] and not is_common_word(key)
                    and not is_known_name(entity.name)):
                entity.kind = PageKind.PERSON


_INSTITUTION_FOLLOWER = re.compile(
    r"['’]s\b|\s*[.,;:!?)]|\s*$|\s+(?:will|would|has|had|have|is|was|are|were|can|could|should|may|might|must"
    r"|does|did|do|and|or|itself)\b"
)


def _in_apposition_to_a_name(text: str, entity: DocumentEntity) -> bool:
    """'Siosaia Taufa, Ops Manager, Sunbeck': every mention follows a full name (two capitalised
    words) and a comma or a line break (software is named so too, 'the Layout Manager', but not after a name)."""
    return bool(entity.mentions) and all(
        re.search(r"[A-Z][\w'’-]+\s+[A-Z][\w'’-]+(?:,[ \t]*|[ \t]*\n[ \t]*)$", text[max(0, m.start - 60):m.start])
        for m in entity.mentions)  # or on the line under it, as a signature gives it: 'Ravi Subramanian\nGrid Connections Engineer'


def _named_as_an_institution(text: str, entity: DocumentEntity) -> bool:
    """'The PSF will announce', 'the UN and the EU', 'the PSF's board': short capitals as a determined head.

    A modifier ('the SRE role', 'CSV export') is a term; institutions are named with 'the' as heads.
    Only closed-class words may follow (no tagger runs, so this reads the spelling).
    """
    for mention in entity.mentions:
        before = text[max(0, mention.start - 4):mention.start].lower()
        if before.endswith("the ") and _INSTITUTION_FOLLOWER.match(text, mention.end):
            return True
    return False


def _heading_word_read_as_person(text: str, entity: DocumentEntity) -> bool:
    """A 'person' named by one everyday word that only ever opens headings ('# Vendor sync: Q1
    data platform') and is no given name the nickname data knows. Only headings: a sentence
    opening with 'Maya' is about Maya, everyday word or not."""
    return (entity.kind is PageKind.PERSON and _opens_its_lines(text, entity) and is_common_word(entity.name)
            and not is_given_name(entity.name.lower()) and all(_in_heading(text, m.start) for m in entity.mentions))


_LINE_LABEL = re.compile(r"^[ \t]*(?:[#*>-]+|\d{1,3}[.)])?[ \t]*$")  # '## ', '- ', '9. ' before a line's first word


def _heading_phrase_read_as_person(text: str, entity: DocumentEntity) -> bool:
    """A 'person' of two or more everyday words, none a given name or a title, that only ever
    opens or ends a line: a section's name ('Reference Implementation' over its underline, '9. Backwards
    Compatibility -- …' in a list of sections, 'Title: Python 2.6 and 3.0 Release Schedule'). Once a page, the graph would find it in every
    later document with such a section. 'Rose Hunter' opens lines with given names."""
    words = entity.name.split()
    if (entity.kind is not PageKind.PERSON or entity.kind_certain or not 2 <= len(words) <= 4 or not entity.mentions
            or _PROJECT_NAME.search(entity.name) or ends_in_organisation_head(words)):
        return False  # 'Project Lantern', 'Bellhaven Retail' name things the rules below read
    if not all(w.isalpha() and w[0].isupper() and is_common_word(w) and not is_given_name(w.lower())
               and not names.is_title_word(w.lower()) for w in words):
        return False
    opens = [bool(_LINE_LABEL.match(text[text.rfind("\n", 0, m.start) + 1 : m.start])) for m in entity.mentions]
    # one that ends a line counts beside a heading of its own ('Title: … Release Schedule'); alone it may
    # be a person a wrapped line or a list item names last ('- Follow up with Grant Baker')
    return any(opens) and all(o or _LINE_END.match(text, m.end) for o, m in zip(opens, entity.mentions, strict=True))


_LINE_END = re.compile(r"[ \t*_]*(?:\n|$)")


def _opening_word_read_as_person(text: str, entity: DocumentEntity) -> bool:
    """A 'person' named by one everyday word, no given name, that only ever opens a sentence or a
    line ('Hire.', 'Lean hire.' in a debrief): capitalised by its place."""
    if entity.kind is not PageKind.PERSON or len(entity.name.split()) != 1 or entity.name.isupper():
        return False
    capitalised = [m for m in entity.mentions if m.surface[:1].isupper()]  # 'Lean hire.' is the word itself
    return (bool(capitalised) and (is_common_word(entity.name) or _plural_of_a_word(entity.name))
            and not is_given_name(entity.name.lower()) and all(starts_a_sentence(text, m.start) for m in capitalised))


def _capitalised_only_by_its_place(text: str, entity: DocumentEntity) -> bool:
    """One word, capitalised only where a sentence, a line or a table cell opens ('Cutover was 16
    Nov.', '| Export study |'), that the same document also writes in lower case as a word of its
    own ('the cutover checklist'): a common noun, whatever the model read it as. A name is
    capitalised wherever it stands. Only the news model's person and firm readings: what it or the
    tool finder read as software ('Excel', 'kafka') is left to the classifier, software known by
    name too, and a given name ('Rose', 'Will') to the person rules."""
    word = entity.name.lower()
    if entity.kind_certain or entity.candidate or entity.kind is PageKind.TOOL or len(word.split()) != 1 or not word.isalpha() or is_given_name(word) \
            or is_known_name(entity.name) or is_known_name(word):
        return False
    capitalised = [m for m in entity.mentions if m.surface[:1].isupper()]
    if not capitalised or any(m.surface[1:] != m.surface[1:].lower() for m in capitalised):
        return False
    if not all(starts_a_sentence(text, m.start) for m in capitalised):
        return False
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def _plural_of_a_word(name: str) -> bool:
    """'Acronyms', 'Headings': the plural of an English noun ('acronym'), whose singular is no given
    name ('Roberts', 'Evans' are surnames)."""
    lowered = name.lower()
    if not lowered.endswith("s") or lowered.endswith("ss"):
        return False
    singular = lowered[:-1]
    return is_common_word(singular, get_settings().kind_plural_singular_min_zipf) and not is_given_name(singular)


_CALENDAR_WORDS = frozenset(
    word.lower() for word in (*calendar.day_name, *calendar.day_abbr, *calendar.month_abbr[1:], "Sept", "Tues", "Thur", "Thurs")
    if not is_given_name(word.lower())
)  # full month names stay out: 'April', 'June', 'March' are people's names too


def _calendar_word(entity: DocumentEntity) -> bool:
    """'Fri', 'Tuesday', 'Sept': a day or a month's short form, whatever spaCy read it as."""
    # written as a day is written ('DEC' is a firm), and never with a title ('Professor Sun')
    return not entity.kind_certain and all(
        m.surface.rstrip(".").capitalize() == m.surface.rstrip(".") and m.surface.rstrip(".").lower() in _CALENDAR_WORDS
        for m in entity.mentions) and bool(entity.mentions)


def _in_heading(text: str, start: int) -> bool:
    """Whether the line at `start` is a heading: Markdown's '#', or a short line that ends
    without a sentence's full stop."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)].strip()
    return line.startswith("#") or (len(line.split()) <= get_settings().heading_max_words and not line.endswith((".", "?", "!")))


def _opens_its_lines(text: str, entity: DocumentEntity) -> bool:
    """Whether a one-word name only ever opens a line ('# Roadmap sync', 'Customer call'): capitalised by its place."""
    if len(entity.name.split()) != 1 or entity.name.isupper() or not entity.mentions:
        return False
    return all(not text[text.rfind("\n", 0, m.start) + 1 : m.start].strip(" \t#*->") for m in entity.mentions)


_EMAIL_DOMAIN = re.compile(r"[\w.+-]+@((?:[\w-]+\.)+)[a-z]{2,}\b", re.IGNORECASE)


def _named_by_an_email_domain(text: str, entity: DocumentEntity) -> bool:
    """'Corvane' where the text has an address at corvane.example: the domain is a firm's, written
    as its name. Not a mail service's ('Gmail'), which Simple Icons knows as a product."""
    key = re.sub(r"[^a-z0-9]", "", normalise_name(entity.name))
    if not key or any(is_known_name(re.sub(r"^[Tt]he\s+", "", name)) for name in (entity.name, *entity.aliases)):
        return False  # 'The Python' beside python.org addresses: the language, not the firm
    return key in _email_domain_labels(text)


@lru_cache(maxsize=8)
def _email_domain_labels(text: str) -> frozenset[str]:
    """The labels of the email domains a document writes ('corvane' of ada@corvane.example), read once
    per document rather than once per name."""
    if "@" not in text:
        return frozenset()
    return frozenset(label for match in _EMAIL_DOMAIN.finditer(text) for label in match.group(1).lower().split("."))


def _trade_name_max_person(entity: DocumentEntity) -> float:
    """How sure of a person the classifier must be to overrule a trade: 'Tovar Partners wants…'
    reads as a person to it, but a plural trade ('Partners', 'Labs') is no surname."""
    settings = get_settings()
    last = entity.name.split()[-1].lower()
    if _named_for_a_trade(entity) and last.endswith("s") and len(last) > 3:
        return settings.kind_plural_trade_name_max_person
    return settings.kind_trade_name_max_person


def _named_for_a_trade(entity: DocumentEntity) -> bool:
    """'Bellhaven Retail', 'Larkspur Systems'. A run spaCy did not tag that opens with an everyday
    word ('Ask Harbourview Analytics') may have its sentence's first word in it: the classifier decides."""
    words = entity.name.split()
    return ends_in_organisation_head(words) and not (entity.candidate and is_common_word(words[0]))


def _known_unnamed_name(text: str, entity: DocumentEntity) -> bool:
    """A candidate spaCy did not tag that Simple Icons knows and that is no given name ('Ruby' may be
    a person), nor everyday words that only open sentences ('Open Access to the logs…')."""
    # 'Open Access' opening a sentence is everyday words; 'Power BI' is not (a word in capitals is no everyday word)
    everyday = all(is_common_word(w) and not (len(w) > 1 and w.isupper()) for w in entity.name.split())
    return (entity.candidate and is_known_name(entity.name) and not is_given_name(entity.name.lower())
            and not (everyday and all(starts_a_sentence(text, m.start) for m in entity.mentions)))


def _known_software_read_as_firm(entity: DocumentEntity, chances: dict[str, float]) -> bool:
    """A firm, a person or a work by spaCy's label that Simple Icons knows (and no given name), in a
    context the classifier reads more as software than as spaCy's kind ('Jira is down again';
    news contexts keep 'Google' a firm)."""
    # spaCy's 'work of art' ('an Airtable base') has no class of the classifier's to weigh, and 'McLaren'
    # read as a person is a firm's name: the rival is the strongest reading that is no software
    if not (entity.kind in (PageKind.ORGANISATION, PageKind.PERSON)
            or (entity.kind is PageKind.PROJECT and not entity.kind_certain)):
        return False
    rival = max(chances["organisation"], chances["person"])
    # most names Simple Icons knows are software: a firm's or a person's reading holds only by the
    # retyping margin, as for a name spaCy left untagged ('Kubernetes support' read as a firm's)
    margin = get_settings().kind_retype_margin
    return (not entity.candidate and is_known_name(entity.name)
            and not is_given_name(entity.name.lower())
            and (chances["tool"] + margin > rival or _a_brands_product(entity.name) or is_a_brands_product(entity.name)))


def _a_brands_product(name: str) -> bool:
    """'Google Sheets', 'Microsoft Teams', 'Apple Music': a known name that is a known brand and one
    more word, not a trade ('Deutsche Bank' is a firm). 'Red Hat' reads as a product too: a known
    limitation, Simple Icons says nothing of which names are firms."""
    words = name.split()
    return len(words) == 2 and is_known_name(words[0]) and not ends_in_organisation_head(words) and words[1][:1].isupper()


def _partners_name(entity: DocumentEntity) -> bool:
    """'Halvorsen & Reyes', 'Procter & Gamble': names joined by '&' that stayed one name (two people
    the document names alone come apart earlier, extract's conjoined parts) are a firm's."""
    words = entity.name.split()
    return len(words) >= 3 and "&" in words[1:-1]


def _firm_by_apposition_alone(text: str, entity: DocumentEntity) -> bool:
    """'Calloway Brandt, an engineering consultancy': a firm named like a person, which the
    classifier reads as one, where the text calls it what only a firm is and the name opens with no
    given name. 'Priya Sharma, our new contractor' and 'their implementation partner' may be people
    (and the nickname data knows few given names beyond English ones)."""
    first = normalise_name(entity.name).split()[:1]
    return bool(first) and not is_given_name(first[0]) and any(FIRM_ONLY_APPOSITION.match(text, m.end) for m in entity.mentions)


def _organisation_apposition(text: str, entity: DocumentEntity) -> bool:
    """'Fernway, a new customer': a mention the text itself calls a firm."""
    return any(ORGANISATION_APPOSITION.match(text, m.end) for m in entity.mentions)


def _coined_software_name(text: str, entity: DocumentEntity) -> bool:
    """A word no English text uses, written with a capital as names are ('runbook' in lower case is a
    team's jargon) and in ASCII as software names are ('Zielińska' is no product), that is shaped like a
    product's name ('SQLMesh'; 'Bluebeam', two everyday words) or used like one ('the Trackwise
    renewal'); not a misspelt word ('Reciept') or a place ('Trzcianka')."""
    from wordfreq import zipf_frequency

    name = entity.name
    if not (name[:1].isupper() and name.isascii() and " " not in name and is_coined(name)
            and not is_given_name(name.lower())):
        return False
    word, floor = name.lower(), get_settings().coined_compound_part_min_zipf
    compound = any(zipf_frequency(word[:i], "en") >= floor and zipf_frequency(word[i:], "en") >= floor
                   for i in range(3, len(word) - 2))
    return (is_code_shaped(name) or capitals_then_a_word(name) or compound
            or any(in_usage_cue(text, m.start, m.end) or in_strong_tool_cue(text, m.start, m.end) for m in entity.mentions))


def _strong_tool_cue_share(text: str, entity: DocumentEntity) -> float:
    """How often the name is used as software; a name ending in such a word ("Airflow DAG") always is."""
    words = entity.name.lower().split()
    if len(words) > 1 and words[-1] in TOOL_AFTER_STRONG:
        return 1.0
    return _cue_share(text, entity, lambda s, e: in_strong_tool_cue(text, s, e))


def _a_software_parts_generic_name(entity: DocumentEntity) -> bool:
    """'the API', 'the SDK', 'a CLI': what a piece of software has, in capitals, not a name of one."""
    return entity.name.isupper() and entity.name.lower() in TOOL_AFTER_STRONG and not entity.kind_certain


def _weak_firm_or_tool(entity: DocumentEntity, chances: dict[str, float] | None) -> bool:
    """'Mai' beside 'Nguyen Thi Mai' ('Mai's designs'): spaCy's firm or tool that the classifier
    gives that kind little chance, so a part of a person's name may claim it ('Ford' of a carmaker stays)."""
    label = {PageKind.ORGANISATION: "organisation", PageKind.TOOL: "tool"}.get(entity.kind)
    return (label is not None and chances is not None and not entity.kind_certain and not is_known_name(entity.name)
            and chances[label] < get_settings().kind_name_part_max_chance)


def _first_and_last(name: str) -> tuple[str, str]:
    """A person's first and last name words, titles off: 'Major General Lafayette' -> ('lafayette', 'lafayette')."""
    words = (names.name_key(name, True) or normalise_name(name)).split()
    return words[0], words[-1]


def _fold_name_parts(document: ExtractedDocument, candidates: set[int]) -> dict[int, int]:
    """A one-word candidate that is the first or last name of exactly one person joins that person.

    spaCy found "Sofia Marquez" once and missed the later "Sofia": extraction's own coreference ran
    before the candidate was typed, so it is done here for candidates ({candidate: person}).
    """
    people = [i for i, e in enumerate(document.entities) if e.kind is PageKind.PERSON and len(e.name.split()) > 1]
    folded = {}
    for index, entity in enumerate(document.entities):
        key = normalise_name(entity.name)
        if len(key.split()) != 1 or entity.kind_certain:
            continue
        if index not in candidates:  # spaCy's own people were joined by extraction already
            continue
        if names.is_title_word(key):
            continue  # 'promoted to Major' names a rank, not Major General Lafayette's first name
        fits = [p for p in people if p != index and key in _first_and_last(document.entities[p].name)]
        if len(fits) == 1:
            person = document.entities[fits[0]]
            person.mentions = sorted(person.mentions + entity.mentions, key=lambda m: m.start)
            person.aliases = sorted(set(person.aliases) | {m.surface for m in entity.mentions} - {person.name})
            folded[index] = fits[0]
    return folded

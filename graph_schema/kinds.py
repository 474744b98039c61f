"""The kinds of page, and the Neo4j label each one carries beside `Page`."""

from __future__ import annotations

from enum import Enum


class PageKind(str, Enum):
    YOU = "you"
    FOCUS = "focus"
    PERSON = "person"
    ORGANISATION = "organisation"
    PROJECT = "project"
    TOOL = "tool"
    TOPIC = "topic"

    @property
    def label(self) -> str:
        """The Neo4j label; labels only ever come from this enum, never from user text."""
        return self.value.capitalize()


class SourceKind(str, Enum):
    DOCUMENT = "document"  # a file from the upload folder
    SUBMISSION = "submission"  # prose an assistant sent through edit_page_body


class SourceStatus(str, Enum):
    INGESTED = "ingested"
    FAILED = "failed"  # could not be read or parsed; `reason` says why
    RETIRED = "retired"  # the file was deleted; its facts are kept but hidden


# Kinds an entity found in text may take; `you` and `focus` pages are made by the pipeline itself.
ENTITY_KINDS = (PageKind.PERSON, PageKind.ORGANISATION, PageKind.PROJECT, PageKind.TOOL, PageKind.TOPIC)


class FactKind(str, Enum):
    """What a sentence is, read from its wording by rule (pipeline.fact_kinds)."""

    DECISION = "decision"  # agreed, decided, approved, signed, chose…
    ACTION = "action"  # someone will do something, often by a date
    QUESTION = "question"  # open: a question, "whether…", "TBD", a decision still to take
    STATEMENT = "statement"  # anything else

"""A person's own corrections of their pages, with error sentences a person can act on."""

from __future__ import annotations

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.kinds import ENTITY_KINDS, PageKind
from graph_schema.queries.navigation import page_kind, set_page_kind

KIND_CHOICES = ", ".join(k.value for k in ENTITY_KINDS)
# Spellings people use for a kind; the page kinds themselves are the enum's values.
KIND_SPELLINGS = {"organization": PageKind.ORGANISATION, "org": PageKind.ORGANISATION,
                  "company": PageKind.ORGANISATION, "software": PageKind.TOOL, "product": PageKind.TOOL}


def parse_entity_kind(text: str) -> PageKind:
    """The kind a person named ('tool', 'Organisation', 'organization'), or a sentence saying which exist."""
    word = text.strip().lower()
    kind = KIND_SPELLINGS.get(word) or next((k for k in ENTITY_KINDS if k.value == word), None)
    if kind is None:
        raise InvalidRequest(f"{text!r} is not a kind of page; use one of: {KIND_CHOICES}.")
    return kind


def correct_page_kind(tx: db.Tx, owner: str, slug: str, kind_text: str) -> tuple[PageKind, PageKind]:
    """Set a page's kind by hand, so that later runs keep it; returns (the kind it had, the kind it
    has). A write: the check and the change are one transaction."""
    kind = parse_entity_kind(kind_text)
    before = page_kind(tx, owner, slug)
    if before is None:
        raise InvalidRequest(f"There is no page with the slug {slug!r}; `subtext export -` or an assistant's "
                             "search lists the slugs there are.")
    if before not in ENTITY_KINDS:
        raise InvalidRequest(f"{slug!r} is {'your own page' if before is PageKind.YOU else 'a focus area'}; "
                             f"only pages of the kinds {KIND_CHOICES} can be given another kind.")
    if not set_page_kind(tx, owner, slug, kind):
        raise InvalidRequest(f"The page {slug!r} was removed or merged into another while its kind was being set; "
                             "look its name up again.")
    return before, kind

"""Recent activity and related focus areas (issue 19 item 5; seed 003's `recent` and `related_tags`).

What changed lately is read from the sources themselves: each document added, changed, deleted
from the upload folder or left unread, and each piece of prose an assistant sent, with what it
brought (the pages it names, its decisions and open items). Nothing is stored for it: the
sources' own times say it, so it can never drift from the graph.
"""

from __future__ import annotations

from datetime import datetime

from graph_schema import db
from graph_schema.kinds import PageKind
from graph_schema.models import PageRef
from graph_schema.queries import activity as queries
from graph_schema.settings import Settings
from knowledge.types import ActivityItem, RelatedArea


def _ref(row: dict) -> PageRef:
    return PageRef(slug=row["slug"], title=row["title"], kind=PageKind(row["kind"]))


def change_of(row: dict) -> str:
    """'new', 'changed' (its content changed after it was first written), 'deleted' or 'failed'."""
    if row["status"] == "retired":
        return "deleted"
    if row["status"] == "failed":
        return "failed"
    return "changed" if row.get("changed_at") else "new"


def why(row: dict, change: str) -> str:
    """The change in a few words, as a person would say it."""
    if change == "failed":
        return f"could not be read: {row.get('reason') or 'no reason was recorded'}"
    if change == "deleted":
        return "deleted from the upload folder; its facts are kept but hidden"
    if row["kind"] == "submission":
        by = row.get("author") or "an assistant"
        return f"{'sent' if change == 'new' else 'sent again'} by {by}" + (" (assistant)" if row.get("author") else "")
    return "new document" if change == "new" else "changed document"


def activity_item(row: dict) -> ActivityItem:
    change = change_of(row)
    return ActivityItem(
        source=row["key"], title=row["title"] or row["key"], kind=row["kind"], change=change, why=why(row, change),
        at=row["at"], focus=_ref(row["focus"]) if row.get("focus") else None,
        pages=[_ref(p) for p in row["pages"]], more_pages=max(row["page_count"] - len(row["pages"]), 0),
        facts=row["facts"], decisions=row["decisions"], open_items=row["open_items"],
        latest_decision=row["latest_decision"],
    )


def recent_activity(tx: db.Tx, owner: str, since: datetime | None, focus: str | None, limit: int, settings: Settings,
                    visible: list[str] | None = None, areas: list[str] | None = None) -> tuple[list[ActivityItem], int]:
    """The sources that changed since `since` (everything when None), newest first: at most `limit`
    of them, and how many there are in all. `focus`: only those filed under that focus area."""
    rows, total = queries.recent_sources(tx, owner, since, focus, limit, settings.activity_pages_per_source,
                                         visible, areas)
    return [activity_item(row) for row in rows], total


def related_areas(tx: db.Tx, owner: str, slug: str, settings: Settings,
                  visible: list[str] | None = None) -> list[RelatedArea]:
    """The focus areas that share member pages with `slug`, most shared first."""
    return [RelatedArea(area=_ref(row["area"]), together=row["together"], members=row["members"],
                        shared=[_ref(p) for p in row["shared"]])
            for row in queries.related_areas(tx, owner, slug, settings.related_areas_max,
                                             settings.related_areas_shared_shown, visible)]


def activity_line(item: ActivityItem) -> str:
    """'- 2026-03-10 harbour/review.md (changed document): names Project Harbour, Priya Natarajan; 1 decision'."""
    named = ", ".join(p.title for p in item.pages) + (f" and {item.more_pages} more" if item.more_pages else "")
    counts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in ((item.decisions, "decision"), (item.open_items, "open item")) if n]
    said = "; ".join(x for x in ((f"names {named}" if named else ""), ", ".join(counts)) if x)
    return f"- {item.at:%Y-%m-%d} {item.source} ({item.why})" + (f": {said}" if said else "")

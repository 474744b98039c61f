"""What `subtext status` reports about each person's graph (the CLI adds the database and Dagster)."""

from __future__ import annotations

from graph_schema import db
from graph_schema.queries.access import list_owners
from graph_schema.queries.brief import load_brief
from graph_schema.queries.pages import graph_counts
from graph_schema.queries.status import source_counts, source_problems
from knowledge.types import OwnerStatus, SourceProblem


def owner_status(tx: db.Tx, owner: str, name: str, problems_shown: int) -> OwnerStatus:
    """One person's counts, sources, brief and problems, read in the caller's transaction."""
    counts = graph_counts(tx, owner)
    by_status, truncated = source_counts(tx, owner)
    version, brief = load_brief(tx, owner)  # one read gives both the version and the brief's
    return OwnerStatus(
        owner=owner,
        name=name,
        pages=counts["pages"],
        facts=counts["facts"],
        sources=by_status,
        truncated=truncated,
        graph_version=version,
        brief_current=brief is not None and brief["graph_version"] == version,
        problems=[SourceProblem(**row) for row in source_problems(tx, owner, problems_shown)],
    )


def everyone_status(tx: db.Tx, problems_shown: int) -> list[OwnerStatus]:
    """`owner_status` of every person, in one transaction (one consistent picture)."""
    return [owner_status(tx, o["id"], o["name"] or o["id"], problems_shown) for o in list_owners(tx)]

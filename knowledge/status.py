"""What `subtext status` reports about each person's graph (the CLI adds the database and Dagster)."""

from __future__ import annotations

import neo4j

from graph_schema import db
from graph_schema.queries.access import list_owners
from graph_schema.queries.brief import load_brief
from graph_schema.queries.pages import graph_counts
from graph_schema.queries.status import source_counts, source_problems
from knowledge.types import OwnerStatus, SourceProblem


def owner_status(driver: neo4j.Driver, owner: str, name: str, problems_shown: int) -> OwnerStatus:
    counts = db.read(driver, graph_counts, owner)
    by_status, truncated = db.read(driver, source_counts, owner)
    version, brief = db.read(driver, load_brief, owner)  # one read gives both the version and the brief's
    return OwnerStatus(
        owner=owner,
        name=name,
        pages=counts["pages"],
        facts=counts["facts"],
        sources=by_status,
        truncated=truncated,
        graph_version=version,
        brief_current=brief is not None and brief["graph_version"] == version,
        problems=[SourceProblem(**row) for row in db.read(driver, source_problems, owner, problems_shown)],
    )


def everyone_status(driver: neo4j.Driver, problems_shown: int) -> list[OwnerStatus]:
    return [owner_status(driver, o["id"], o["name"] or o["id"], problems_shown) for o in db.read(driver, list_owners)]

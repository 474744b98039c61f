"""What `subtext status` reads: how a person's sources fared, and the ones that need attention."""

from __future__ import annotations

import neo4j

from graph_schema.queries.pages import to_native

SOURCE_COUNTS = """
MATCH (s:Source {owner: $owner})
RETURN s.status AS status, count(*) AS sources, count(s.truncated_reason) AS truncated
"""

# Failed sources and truncated ones, newest first.
SOURCE_PROBLEMS = """
MATCH (s:Source {owner: $owner})
WHERE s.status = 'failed' OR (s.status = 'ingested' AND s.truncated_reason IS NOT NULL)
RETURN s.key AS key, s.status AS status, coalesce(s.reason, s.truncated_reason) AS reason,
       s.ingested_at AS at
ORDER BY s.ingested_at DESC
LIMIT $limit
"""


def source_counts(tx: neo4j.ManagedTransaction, owner: str) -> tuple[dict[str, int], int]:
    """(sources per status, how many of them were truncated)."""
    counts: dict[str, int] = {}
    truncated = 0
    for record in tx.run(SOURCE_COUNTS, owner=owner):
        counts[record["status"] or "unknown"] = record["sources"]
        truncated += record["truncated"] if record["status"] == "ingested" else 0
    return counts, truncated


def source_problems(tx: neo4j.ManagedTransaction, owner: str, limit: int) -> list[dict]:
    """Sources that failed or were cut at a limit, newest first: key, status, reason, at."""
    return [
        {"key": r["key"], "status": "failed" if r["status"] == "failed" else "truncated",
         "reason": r["reason"] or "", "at": to_native(r["at"])}
        for r in tx.run(SOURCE_PROBLEMS, owner=owner, limit=limit)
    ]

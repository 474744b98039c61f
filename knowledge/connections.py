"""Connections nobody wrote down (issue 19 item 2): pages that keep coming up in the same documents
without a sentence naming both get a suggested link, marked as the system's, with its evidence.

Only shared context counts: named together in at least `connection_min_documents` documents, and
in at least `connection_min_share` of the documents naming either (a page named everywhere, such
as the person's main tool, shares documents with everything and so suggests nothing by that
alone). Page vectors were measured as a second signal on the GUM graph: of 3,025 unlinked nearest
pairs, 10 reached cosine 0.75, and those were near-duplicates or unrelated, so vectors are left to
the duplicate scan.

A page's suggestions are a function of the graph alone: whenever a merge writes a page, its
suggestions are dropped and worked out again in the same transaction, uncapped, so however the
documents were grouped into runs (or a killed run resumed), the same documents leave the same
suggestions. The person confirms one with link_pages (it becomes their own RELATES_TO); a
document that links the two answers it too.
"""

from __future__ import annotations

from graph_schema import db
from graph_schema.queries.connections import replace_suggestions, shared_context
from graph_schema.settings import Settings


def suggest_connections(tx: db.Tx, owner: str, slugs: list[str], settings: Settings) -> int:
    """Work out again the suggested links of the pages `slugs` (those a merge wrote, inside its
    transaction and write lock); returns how many they have now."""
    slugs = sorted(set(slugs))
    if not slugs:
        return 0
    rows = shared_context(tx, owner, slugs, settings.connection_min_documents, settings.connection_min_share)
    chosen: dict[tuple[str, str], dict] = {}
    for row in rows:
        a, b = sorted((row["slug"], row["other_slug"]))
        titles = ", ".join(repr(t) for t in row["shared"])
        more = f" and {row['documents'] - len(row['shared'])} more" if row["documents"] > len(row["shared"]) else ""
        chosen[(a, b)] = {"a": a, "b": b, "score": round(row["share"], 3),
                          "evidence": f"named together in {row['documents']} documents ({titles}{more}) "
                                      "but in no one sentence"}
    replace_suggestions(tx, owner, slugs, [chosen[pair] for pair in sorted(chosen)])
    return len(chosen)

"""Connections nobody wrote down (issue 19 item 2): pages that keep coming up in the same documents
without a sentence naming both get a suggested link, marked as the system's, with its evidence.

Only shared context counts: named together in at least `connection_min_documents` documents, and
in at least `connection_min_share` of the rarer page's documents (a page named everywhere, such
as the person's main tool, shares documents with everything and so suggests nothing by that
alone). Page vectors were measured as a second signal on the GUM graph: of 3,025 unlinked nearest
pairs, 10 reached cosine 0.75, and those were near-duplicates or unrelated, so vectors are left to
the duplicate scan. Each page gets at most `connection_max_per_page` new suggestions a run, the
strongest first. The person confirms one with link_pages (it becomes their own RELATES_TO) or
leaves it; a document that links the two answers it too.
"""

from __future__ import annotations

from collections import Counter

from graph_schema import db
from graph_schema.queries.connections import record_suggestions, shared_context
from graph_schema.queries.owners import lock_graph
from graph_schema.settings import Settings


def suggest_connections(tx: db.Tx, owner: str, slugs: list[str], settings: Settings) -> int:
    """Suggest links for the pages `slugs` (those a run wrote); returns how many are new."""
    if not slugs:
        return 0
    lock_graph(tx, owner)  # the person's write lock first, in the order every writer takes it
    rows = shared_context(tx, owner, sorted(set(slugs))[: settings.connection_max_pages_per_run],
                          settings.connection_min_documents, settings.connection_min_share)
    rows.sort(key=lambda r: (-r["documents"], -r["share"], r["slug"], r["other_slug"]))
    chosen: dict[tuple[str, str], dict] = {}
    per_page: Counter[str] = Counter()
    for row in rows:
        pair = tuple(sorted((row["slug"], row["other_slug"])))
        if pair in chosen or any(per_page[s] >= settings.connection_max_per_page for s in pair):
            continue
        titles = ", ".join(repr(t) for t in row["shared"])
        more = f" and {row['documents'] - len(row['shared'])} more" if row["documents"] > len(row["shared"]) else ""
        chosen[pair] = {"a": pair[0], "b": pair[1], "score": round(row["share"], 3),
                        "evidence": f"named together in {row['documents']} documents ({titles}{more}) "
                                    "but in no one sentence"}
        per_page.update(pair)
    return record_suggestions(tx, owner, list(chosen.values())) if chosen else 0

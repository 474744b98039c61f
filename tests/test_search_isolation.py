"""Search stays inside one person's graph even when other people's pages crowd the vector index."""

from __future__ import annotations

import uuid

from graph_schema.queries.search import fulltext_search, nearest_pages, vector_search
from pipeline.embedding import embed_text

ADD_PAGES = """
UNWIND $rows AS row
CREATE (p:Page {owner: $owner, slug: row.slug, title: row.title, kind: 'topic', body: row.body,
                aliases: [], name_keys: []})-[:HAS_VECTOR]->(:PageVector {owner: $owner, embedding: row.embedding})
"""


def test_other_owners_pages_never_crowd_out_this_owners_hits(graph):
    db, driver, owner = graph["db"], graph["driver"], graph["owner"]
    query = embed_text("berth schedule for the harbour")
    crowd = f"test-crowd-{uuid.uuid4().hex[:8]}"
    # 600 pages of someone else, each exactly at the query; this owner's one page is merely close.
    rows = [{"slug": f"c{n}", "title": f"Crowd {n}", "body": "", "embedding": query} for n in range(600)]
    mine = [{"slug": "berths", "title": "Berth schedule", "body": "- The quokka berth schedule is due Friday.",
             "embedding": embed_text("the harbour berth schedule is due on Friday")}]
    try:
        db.write(driver, lambda tx: tx.run(ADD_PAGES, owner=crowd, rows=rows).consume())
        db.write(driver, lambda tx: tx.run(ADD_PAGES, owner=owner, rows=mine).consume())
        db.write(driver, lambda tx: tx.run("CALL db.awaitIndexes(60)").consume())

        hits = db.read(driver, nearest_pages, owner, query, 5)
        assert [h["slug"] for h in hits] == ["berths"] and hits[0]["score"] > 0.5
        assert [h.slug for h in db.read(driver, vector_search, owner, query, 5, 0.3, 200)] == ["berths"]
        assert [h.slug for h in db.read(driver, fulltext_search, owner, "quokka", 5, 200)] == ["berths"]
        assert db.read(driver, fulltext_search, crowd, "quokka", 5, 200) == []
    finally:
        db.write(driver, lambda tx: tx.run("MATCH (p:Page {owner: $o}) OPTIONAL MATCH (p)-[:HAS_VECTOR]->(v) "
                                           "DETACH DELETE p, v", o=crowd).consume())

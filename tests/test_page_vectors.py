"""A page's vector lives on a node of its own (issue 15 item 10): Neo4j Browser shows a page's
title, kind and names, not 384 numbers, and no write path leaves a vector behind without its page."""

from __future__ import annotations

from graph_schema import db
from graph_schema.queries.schema import PAGE_VECTOR_INDEX, create_schema
from graph_schema.queries.search import nearest_pages
from graph_schema.settings import get_settings
from knowledge.page_merges import merge_pages
from pipeline.embedding import embed_text
from pipeline.run import ingest_paths
from tests.conftest import write

VECTORS = """
MATCH (p:Page {owner: $owner})
RETURN count(p) AS pages,
       sum(CASE WHEN p.embedding IS NULL THEN 0 ELSE 1 END) AS on_pages,
       sum(COUNT { (p)-[:HAS_VECTOR]->(:PageVector) }) AS with_vector,
       max(COUNT { (p)-[:HAS_VECTOR]->(:PageVector) }) AS most_on_one_page,
       COUNT { MATCH (v:PageVector {owner: $owner}) WHERE NOT EXISTS { (:Page)-[:HAS_VECTOR]->(v) } } AS orphans,
       COUNT { MATCH (v:PageVector {owner: $owner}) } AS vectors
"""


def _vectors(graph) -> dict:
    return db.read(graph["driver"], lambda tx: dict(tx.run(VECTORS, owner=graph["owner"]).single()))


def test_pages_keep_their_vector_on_a_node_of_its_own_through_merges_and_retired_files(graph):
    write(graph["upload"], "logistics.md", "Priya Natarajan met Acme Logistics about the Harbour pitch.\n")
    freight = write(graph["upload"], "freight.md", "Acme Freight sent the quote to Daniel Okafor in March.\n"
                                                    "Bellhaven Retail ordered crates from Acme Freight.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    counts = _vectors(graph)
    assert counts["on_pages"] == 0 and counts["orphans"] == 0 and counts["most_on_one_page"] == 1
    assert counts["with_vector"] == counts["vectors"] >= 4  # every named page has one; `you` has none

    # search by meaning finds pages through their vector node
    hits = db.read(graph["driver"], nearest_pages, graph["owner"], embed_text("Acme Logistics"), 3)
    assert hits and hits[0]["slug"] == "acme-logistics"

    # a fold deletes the folded page's vector with it
    db.write(graph["driver"], merge_pages, graph["owner"], "acme-freight", "acme-logistics", True)
    assert _vectors(graph)["orphans"] == 0
    # so does a page dropped when the only file that named it is gone
    freight.unlink()
    ingest_paths([freight])
    after = _vectors(graph)
    assert after["orphans"] == 0 and after["with_vector"] == after["vectors"] < counts["vectors"]


def test_a_graph_with_vectors_on_its_pages_moves_them_to_their_nodes_on_start(graph):
    settings = get_settings()
    vector = embed_text("the berth schedule of the harbour")
    old_index = ("CREATE VECTOR INDEX page_embedding IF NOT EXISTS FOR (p:Page) ON p.embedding OPTIONS "
                 f"{{indexConfig: {{`vector.dimensions`: {settings.embedding_dimensions}, "
                 "`vector.similarity_function`: 'cosine'}}")
    with graph["driver"].session(database=settings.neo4j_database) as session:
        session.run(old_index).consume()
        session.run("CREATE (:Page {owner: $owner, slug: 'berths', title: 'Berths', kind: 'topic', body: '', "
                    "aliases: [], name_keys: [], embedding: $vector})", owner=graph["owner"], vector=vector).consume()
    create_schema(graph["driver"])
    counts = _vectors(graph)
    assert (counts["on_pages"], counts["with_vector"], counts["vectors"]) == (0, 1, 1)
    with graph["driver"].session(database=settings.neo4j_database) as session:
        indexes = [r["name"] for r in session.run("SHOW VECTOR INDEXES YIELD name RETURN name")]
    assert PAGE_VECTOR_INDEX in indexes and "page_embedding" not in indexes
    hits = db.read(graph["driver"], nearest_pages, graph["owner"], vector, 1)
    assert [h["slug"] for h in hits] == ["berths"]

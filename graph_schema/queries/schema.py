"""Constraints and indexes, created idempotently by `graph_schema.db.ensure_ready()`."""

from __future__ import annotations

import neo4j

from graph_schema.settings import get_settings

# A page's vector lives on a node of its own, (:Page)-[:HAS_VECTOR]->(:PageVector {owner, embedding}):
# on the page itself its 384 numbers filled Neo4j Browser's property panel and every Page row of
# its table view (issue 15 item 10).
PAGE_VECTOR_INDEX = "page_vector"
_OLD_PAGE_VECTOR_INDEX = "page_embedding"  # the index on Page.embedding, before vectors had nodes
PAGE_FULLTEXT_INDEX = "page_text"

CONSTRAINTS = [
    "CREATE CONSTRAINT owner_id IF NOT EXISTS FOR (o:Owner) REQUIRE o.id IS UNIQUE",
    "CREATE CONSTRAINT page_slug IF NOT EXISTS FOR (p:Page) REQUIRE (p.owner, p.slug) IS UNIQUE",
    "CREATE CONSTRAINT source_id IF NOT EXISTS FOR (s:Source) REQUIRE (s.owner, s.id) IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE (f.owner, f.id) IS UNIQUE",
    "CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (c:Chunk) REQUIRE (c.owner, c.id) IS UNIQUE",
    "CREATE CONSTRAINT access_key_id IF NOT EXISTS FOR (k:AccessKey) REQUIRE k.id IS UNIQUE",
    "CREATE CONSTRAINT brief_owner IF NOT EXISTS FOR (b:Brief) REQUIRE b.owner IS UNIQUE",
]

INDEXES = [
    "CREATE INDEX page_owner_kind IF NOT EXISTS FOR (p:Page) ON (p.owner, p.kind)",
    "CREATE INDEX source_owner_key IF NOT EXISTS FOR (s:Source) ON (s.owner, s.key)",
    f"CREATE FULLTEXT INDEX {PAGE_FULLTEXT_INDEX} IF NOT EXISTS FOR (p:Page) ON EACH [p.title, p.aliases, p.body]",
]


def vector_index_statement(dimensions: int) -> str:
    # Index options cannot be parameters in Cypher; `dimensions` is an int from settings.
    return (
        f"CREATE VECTOR INDEX {PAGE_VECTOR_INDEX} IF NOT EXISTS FOR (v:PageVector) ON v.embedding "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dimensions)}, "
        "`vector.similarity_function`: 'cosine'}}"
    )


# A graph written before vectors had nodes of their own: each page's vector moves to its node, in
# batches, and the old index goes last. Run at start while the old index exists (again after a
# crash half-way). Each batch reads the page again: another process starting at the same moment
# may have moved it already, and a vector node a page has is never overwritten by the old vector.
MOVE_PAGE_VECTORS = """
MATCH (p:Page) WHERE p.embedding IS NOT NULL
CALL (p) {
  WITH p WHERE p.embedding IS NOT NULL
  MERGE (p)-[:HAS_VECTOR]->(v:PageVector)
    ON CREATE SET v.owner = p.owner, v.embedding = p.embedding
  REMOVE p.embedding
} IN TRANSACTIONS OF 1000 ROWS
"""
OLD_VECTOR_INDEX_EXISTS = "SHOW VECTOR INDEXES YIELD name WHERE name = $name RETURN count(*) > 0 AS found"


def create_schema(driver: neo4j.Driver) -> None:
    """Create every constraint and index (each statement is a no-op when it exists), move vectors
    stored the old way, then wait for the indexes."""
    statements = [*CONSTRAINTS, *INDEXES, vector_index_statement(get_settings().embedding_dimensions)]
    with driver.session(database=get_settings().neo4j_database) as session:
        for statement in statements:
            session.run(statement).consume()
        if session.run(OLD_VECTOR_INDEX_EXISTS, name=_OLD_PAGE_VECTOR_INDEX).single()["found"]:
            session.run(MOVE_PAGE_VECTORS).consume()  # CALL … IN TRANSACTIONS runs in an implicit transaction
            session.run(f"DROP INDEX {_OLD_PAGE_VECTOR_INDEX} IF EXISTS").consume()
        session.run("CALL db.awaitIndexes(300)").consume()

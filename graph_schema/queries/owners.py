"""A person's graph: the Owner node (holding the graph version) and their `you` page."""

from __future__ import annotations

import neo4j

from graph_schema.errors import InvalidRequest

ENSURE_OWNER = """
MERGE (o:Owner {id: $owner})
  ON CREATE SET o.owner = $owner, o.name = $name, o.version = 0, o.created_at = datetime()
MERGE (you:Page {owner: $owner, slug: 'you'})
  ON CREATE SET you:You, you.kind = 'you', you.title = $name, you.aliases = [], you.name_keys = [],
                you.body = '', you.created_at = datetime(), you.updated_at = datetime()
RETURN o.version AS version
"""

# Every write that changes what a reader can see bumps the version; caches (brief, compile)
# remember the version they were built from and are rebuilt only when it moved.
BUMP_VERSION = "MATCH (o:Owner {id: $owner}) SET o.version = o.version + 1 RETURN o.version AS version"

GRAPH_VERSION = "MATCH (o:Owner {id: $owner}) RETURN o.version AS version"

OWNER_EXISTS = "MATCH (o:Owner {id: $owner}) RETURN o.name AS name"

# The person's write lock. A write to their Owner node is locked by Neo4j until the transaction
# commits or rolls back, so a writer that runs this first waits for every other writer of the
# person, in any process, and no lock outlives a crashed process (its transaction is rolled back).
LOCK_GRAPH = """
MATCH (o:Owner {id: $owner})
SET o.last_write_at = datetime()
RETURN o.version AS version
"""


def ensure_owner(tx: neo4j.ManagedTransaction, owner: str, name: str) -> int:
    return tx.run(ENSURE_OWNER, owner=owner, name=name).single()["version"]


def bump_version(tx: neo4j.ManagedTransaction, owner: str) -> int:
    return tx.run(BUMP_VERSION, owner=owner).single()["version"]


def lock_graph(tx: neo4j.ManagedTransaction, owner: str) -> int:
    """Hold the person's write lock until `tx` ends; returns the graph version, which no other
    writer can move meanwhile. The Owner node must exist (`ensure_owner`)."""
    record = tx.run(LOCK_GRAPH, owner=owner).single()
    if record is None:
        raise InvalidRequest(f"There is no person {owner!r} in the graph to write to; `subtext init` adds the default one.")
    return record["version"]


def graph_version(tx: neo4j.ManagedTransaction, owner: str) -> int:
    record = tx.run(GRAPH_VERSION, owner=owner).single()
    return record["version"] if record else 0


# Every node of a person's graph carries their `owner`; deleted in batches so a large graph
# never needs one huge transaction.
DELETE_OWNER_BATCH = """
MATCH (n {owner: $owner})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
"""


def delete_owner_batch(tx: neo4j.ManagedTransaction, owner: str, batch: int = 5_000) -> int:
    return tx.run(DELETE_OWNER_BATCH, owner=owner, batch=batch).single()["deleted"]

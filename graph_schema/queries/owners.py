"""A person's graph: the Owner node (holding the graph version) and their `you` page."""

from __future__ import annotations

import neo4j

from graph_schema.errors import InvalidRequest
from graph_schema.plain_text import plain_name

ENSURE_OWNER = """
MERGE (o:Owner {id: $owner})
  ON CREATE SET o.owner = $owner, o.name = $name, o.version = 0, o.created_at = datetime(), o.plain_names = true
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


# A person by their id, or by their name (any case) when no id is the text.
FIND_PERSON = """
MATCH (o:Owner)
WHERE o.id = $text OR toLower(o.name) = toLower($text)
RETURN o.id AS id, o.name AS name
ORDER BY o.id = $text DESC, o.id
"""

# Nodes of a person without their Owner node: what an interrupted `subtext people remove` left.
HAS_NODES = "RETURN EXISTS { MATCH (n {owner: $owner}) } AS found"

# What removing a person takes: the labelled counts use the (owner, …) indexes; `nodes` is
# everything that carries their id, those included.
PERSON_CONTENTS = """
OPTIONAL MATCH (o:Owner {id: $owner})
RETURN o.name AS name,
       COUNT { MATCH (:Page {owner: $owner}) } AS pages,
       COUNT { MATCH (:Fact {owner: $owner}) } AS facts,
       COUNT { MATCH (:Source {owner: $owner}) } AS sources,
       COUNT { MATCH (:Chunk {owner: $owner}) } AS chunks,
       COUNT { MATCH (:AccessKey {owner: $owner}) } AS keys,
       COUNT { MATCH (n {owner: $owner}) } AS nodes
"""

# The first step of removing a person, in a transaction of its own: without the Owner node no
# key of theirs is accepted (FIND_KEY) and no writer can take their write lock (LOCK_GRAPH), so
# nothing reads or adds to the graph while the rest of it is deleted.
DELETE_OWNER = """
MATCH (o:Owner {id: $owner})
DETACH DELETE o
RETURN count(*) AS deleted
"""

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


def find_owner(tx: neo4j.ManagedTransaction, text: str) -> list[tuple[str, str | None]]:
    """(id, name) of the people whose id is `text` (listed first) or whose name it is."""
    return [(r["id"], r["name"]) for r in tx.run(FIND_PERSON, text=text)]


def has_nodes(tx: neo4j.ManagedTransaction, owner: str) -> bool:
    return tx.run(HAS_NODES, owner=owner).single()["found"]


def owner_contents(tx: neo4j.ManagedTransaction, owner: str) -> dict:
    """The person's name (None without an Owner node) and how many nodes of each kind they have."""
    return dict(tx.run(PERSON_CONTENTS, owner=owner).single())


def delete_owner(tx: neo4j.ManagedTransaction, owner: str) -> int:
    return tx.run(DELETE_OWNER, owner=owner).single()["deleted"]


# Names stored before titles and aliases were kept to one plain line (see graph_schema.plain_text)
# may hold control or format characters, or runs of spaces. A graph is looked through for them
# once (its Owner then carries `plain_names`), and what is found is stored as plain_name makes it.
# Java's regex: the joiners plain_name keeps (U+200C, U+200D) are taken out of the format class.
_UNPLAIN = r"(?s).*(\p{Cc}|[\p{Cf}&&[^\x{200C}\x{200D}]]|[\s\p{Z}]{2}|^[\s\p{Z}]|[\s\p{Z}]$|[\p{Z}&&[^ ]]).*"
UNPLAIN_NAMES = """
MATCH (o:Owner {id: $owner}) WHERE o.plain_names IS NULL
CALL (o) {
  MATCH (n:Page {owner: $owner})
  WHERE n.title =~ $pattern OR any(alias IN coalesce(n.aliases, []) WHERE alias =~ $pattern)
  RETURN elementId(n) AS id, n.title AS title, coalesce(n.aliases, []) AS aliases
  UNION
  MATCH (n:Source {owner: $owner}) WHERE n.title =~ $pattern
  RETURN elementId(n) AS id, n.title AS title, null AS aliases
  UNION
  WITH o WHERE o.name =~ $pattern
  RETURN elementId(o) AS id, o.name AS title, null AS aliases
}
RETURN id, title, aliases
"""
STORE_PLAIN_NAMES = """
UNWIND $rows AS row
MATCH (n) WHERE elementId(n) = row.id
FOREACH (_ IN CASE WHEN n:Owner THEN [1] ELSE [] END | SET n.name = coalesce(row.title, n.name))
FOREACH (_ IN CASE WHEN n:Owner THEN [] ELSE [1] END | SET n.title = coalesce(row.title, n.title))
FOREACH (_ IN CASE WHEN row.aliases IS NULL THEN [] ELSE [1] END | SET n.aliases = row.aliases)
"""
MARK_PLAIN_NAMES = "MATCH (o:Owner {id: $owner}) WHERE o.plain_names IS NULL SET o.plain_names = true"
OWNERS_WITH_UNPLAIN_NAMES = "MATCH (o:Owner) WHERE o.plain_names IS NULL RETURN o.id AS id ORDER BY id"


def owners_with_unplain_names(tx: neo4j.ManagedTransaction) -> list[str]:
    """The people whose graphs were not yet looked through for names stored before plain names."""
    return [record["id"] for record in tx.run(OWNERS_WITH_UNPLAIN_NAMES)]


def store_plain_names(tx: neo4j.ManagedTransaction, owner: str) -> int:
    """Make the names stored before plain names one plain line, once per graph; how many nodes
    changed. A change bumps the graph version, so cached briefs are rebuilt."""
    rows = []
    for record in tx.run(UNPLAIN_NAMES, owner=owner, pattern=_UNPLAIN):
        aliases = None
        if record["aliases"] is not None:
            aliases = list(dict.fromkeys(a for a in map(plain_name, record["aliases"]) if a))
        # a title that would be empty once plain (only control characters) is left as it is
        title = plain_name(record["title"] or "") or record["title"]
        rows.append({"id": record["id"], "title": title, "aliases": aliases})
    if rows:
        tx.run(STORE_PLAIN_NAMES, rows=rows)
        tx.run(BUMP_VERSION, owner=owner)
    tx.run(MARK_PLAIN_NAMES, owner=owner)
    return len(rows)

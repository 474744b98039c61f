"""People, their access keys, and which pages a key's scope lets it see."""

from __future__ import annotations

import json

import neo4j

from graph_schema.access import AccessKey, KeyScope, ScopeKind

CREATE_KEY = """
MATCH (o:Owner {id: $owner})
CREATE (k:AccessKey {id: $id, owner: $owner, name: $name, hash: $hash, scope: $scope,
                     can_write: $can_write, full_context: $full_context, upkeep: $upkeep, paused: false, revoked: false,
                     created_at: datetime()})
CREATE (o)-[:HAS_KEY]->(k)
RETURN k
"""

# A key counts only while its person exists: a key left over from a removed person (or from a
# removal cut short) must neither read nor, by writing, bring that person's graph back.
FIND_KEY = "MATCH (k:AccessKey {id: $id}) MATCH (:Owner {id: k.owner}) RETURN k"

LIST_KEYS = """
MATCH (k:AccessKey)
WHERE $owner IS NULL OR k.owner = $owner
RETURN k ORDER BY k.owner, k.created_at
"""

KEYS_BY_NAME = """
MATCH (k:AccessKey)
WHERE ($owner IS NULL OR k.owner = $owner) AND (k.name = $name OR k.id = $name)
RETURN k
"""

SET_KEY_STATE = """
MATCH (k:AccessKey {id: $id})
SET k.paused = $paused, k.revoked = k.revoked OR $revoke
RETURN k
"""

# Keys are checked on every request; the time of last use is written at most once a minute.
TOUCH_KEY = """
MATCH (k:AccessKey {id: $id})
WHERE k.last_used_at IS NULL OR k.last_used_at < datetime() - duration('PT1M')
SET k.last_used_at = datetime()
"""

LIST_OWNERS = """
MATCH (o:Owner)
OPTIONAL MATCH (p:Page {owner: o.id})
WITH o, count(p) AS pages
OPTIONAL MATCH (o)-[:HAS_KEY]->(k:AccessKey) WHERE NOT k.revoked
RETURN o.id AS id, o.name AS name, pages, count(k) AS keys
ORDER BY o.id
"""

OWNER_NAME = "MATCH (o:Owner {id: $owner}) RETURN o.name AS name"

# `me`: the you page, everything linked to it directly, and the focus areas (the you page's index).
VISIBLE_ME = """
MATCH (you:Page {owner: $owner, slug: 'you'})
OPTIONAL MATCH (you)-[:RELATES_TO|IN_CONTEXT]-(q:Page {owner: $owner})
WITH you, collect(DISTINCT q.slug) AS around
OPTIONAL MATCH (f:Page:Focus {owner: $owner})
WITH you, around, collect(DISTINCT f.slug) AS areas
RETURN [you.slug] + around + [a IN areas WHERE NOT a IN around] AS slugs
"""

# `focus:a,b`: those focus areas and the pages filed under them.
VISIBLE_FOCUS = """
UNWIND $focus AS wanted
MATCH (f:Page:Focus {owner: $owner, slug: wanted})
OPTIONAL MATCH (m:Page {owner: $owner})-[:IN_CONTEXT]->(f)
WITH collect(DISTINCT f.slug) AS areas, collect(DISTINCT m.slug) AS members
RETURN areas + [m IN members WHERE NOT m IN areas] AS slugs
"""


def _key(node) -> AccessKey:
    values = dict(node)
    values["scope"] = KeyScope(**json.loads(values["scope"]))
    for field in ("created_at", "last_used_at"):
        if values.get(field) is not None:
            values[field] = values[field].to_native()
    return AccessKey(**{k: v for k, v in values.items() if k != "hash"})


def create_key(tx: neo4j.ManagedTransaction, key: AccessKey, key_hash: str) -> AccessKey | None:
    """Store a key for an existing person (None if the person does not exist)."""
    record = tx.run(
        CREATE_KEY, owner=key.owner, id=key.id, name=key.name, hash=key_hash,
        scope=key.scope.model_dump_json(), can_write=key.can_write, full_context=key.full_context, upkeep=key.upkeep,
    ).single()
    return _key(record["k"]) if record else None


def find_key(tx: neo4j.ManagedTransaction, key_id: str) -> tuple[AccessKey, str] | None:
    """(the key, its stored hash) by id; None also when the key's person no longer exists."""
    record = tx.run(FIND_KEY, id=key_id).single()
    return (_key(record["k"]), record["k"]["hash"]) if record else None


def list_keys(tx: neo4j.ManagedTransaction, owner: str | None) -> list[AccessKey]:
    return [_key(r["k"]) for r in tx.run(LIST_KEYS, owner=owner)]


def keys_named(tx: neo4j.ManagedTransaction, owner: str | None, name: str) -> list[AccessKey]:
    """Keys whose name or id is `name` (of `owner`, when given)."""
    return [_key(r["k"]) for r in tx.run(KEYS_BY_NAME, owner=owner, name=name)]


def set_key_state(tx: neo4j.ManagedTransaction, key_id: str, *, paused: bool, revoke: bool = False) -> AccessKey | None:
    record = tx.run(SET_KEY_STATE, id=key_id, paused=paused, revoke=revoke).single()
    return _key(record["k"]) if record else None


def touch_key(tx: neo4j.ManagedTransaction, key_id: str) -> None:
    tx.run(TOUCH_KEY, id=key_id).consume()


def list_owners(tx: neo4j.ManagedTransaction) -> list[dict]:
    return [dict(r) for r in tx.run(LIST_OWNERS)]


def owner_name(tx: neo4j.ManagedTransaction, owner: str) -> str | None:
    record = tx.run(OWNER_NAME, owner=owner).single()
    return record["name"] if record else None


def visible_slugs(tx: neo4j.ManagedTransaction, owner: str, scope: KeyScope) -> list[str] | None:
    """The slugs a scope may see, or None for the whole graph."""
    if scope.kind is ScopeKind.FULL:
        return None
    if scope.kind is ScopeKind.ME:
        record = tx.run(VISIBLE_ME, owner=owner).single()
    else:
        record = tx.run(VISIBLE_FOCUS, owner=owner, focus=scope.focus).single()
    return list(record["slugs"]) if record and record["slugs"] else []

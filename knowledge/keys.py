"""People and access keys: adding a person, creating and changing keys, and checking a key.

Used by the CLI (`subtext people …`, `subtext keys …`) and by the servers that accept keys.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from graph_schema import db
from graph_schema.access import OWNER_ID, Access, AccessKey, KeyScope, NewKey, generate_key, hash_key, key_id_of, key_matches
from graph_schema.errors import InvalidRequest
from graph_schema.plain_text import plain_name
from graph_schema.settings import get_settings
from graph_schema.queries import access as queries
from graph_schema.queries.owners import ensure_owner
from graph_schema.slugs import slugify


def add_owner(tx: db.Tx, name: str, owner_id: str | None = None) -> str:
    """Create a person (their Owner node and "you" page); returns their id. Idempotent. A write."""
    name = plain_name(name)
    if not name:
        raise InvalidRequest("A person needs a name, e.g. `subtext people add \"Ada Lovelace\"`.")
    owner_id = owner_id or slugify(name)
    if not OWNER_ID.match(owner_id):
        raise InvalidRequest(
            f"{owner_id!r} cannot be a person's id: use lowercase letters, digits and hyphens (at most 63)."
        )
    ensure_owner(tx, owner_id, name)
    return owner_id


def create_key(
    tx: db.Tx, owner: str, name: str, scope: KeyScope, *, can_write: bool, full_context: bool, upkeep: bool = False
) -> NewKey:
    """A new key of `owner`, with its secret (shown once). A write."""
    name = " ".join(name.split())
    if not name or len(name) > 80:
        raise InvalidRequest("A key needs a name of 1 to 80 characters (it is shown as the author of what it writes).")
    if queries.owner_name(tx, owner) is None:
        raise InvalidRequest(f"There is no person {owner!r}; add them first with `subtext people add NAME`.")
    key_id, secret = generate_key()
    key = AccessKey(id=key_id, owner=owner, name=name, scope=scope, can_write=can_write, full_context=full_context,
                    upkeep=upkeep)
    stored = queries.create_key(tx, key, hash_key(secret))
    return NewKey(key=stored, secret=secret)


def find_key(tx: db.Tx, owner: str | None, name_or_id: str) -> AccessKey:
    """One key by its name or id (of `owner`, when given). A read."""
    keys = queries.keys_named(tx, owner, name_or_id)
    live = [k for k in keys if not k.revoked] or keys
    if not live:
        raise InvalidRequest(f"No key is named {name_or_id!r}; `subtext keys list` shows them.")
    if len(live) > 1:
        raise InvalidRequest(f"Several keys are named {name_or_id!r}; use the id from `subtext keys list`.")
    return live[0]


def set_paused(tx: db.Tx, key: AccessKey, paused: bool) -> AccessKey:
    """Pause or resume a key. A write."""
    if key.revoked:
        raise InvalidRequest(f"The key {key.name!r} is revoked; create a new one with `subtext keys create`.")
    return queries.set_key_state(tx, key.id, paused=paused)


def revoke(tx: db.Tx, key: AccessKey) -> AccessKey:
    """Revoke a key for good. A write."""
    return queries.set_key_state(tx, key.id, paused=key.paused, revoke=True)


_NO_SUCH_KEY_HASH = hash_key("no such key")


def authenticate(graph: db.GraphSession, secret: str) -> Access | None:
    """The caller a key stands for, or None for a malformed, unknown or revoked key, or a key
    whose person no longer exists (removed with `subtext people remove`).

    A paused key still authenticates: its calls are answered with the paused message."""
    key_id = key_id_of(secret)
    if key_id is None:
        return None
    found = graph.read_single(queries.find_key, key_id)
    if found is None:
        # Compared all the same, so an unknown id takes as long as a known one with a wrong secret.
        key_matches(secret, _NO_SUCH_KEY_HASH)
        return None
    key, stored_hash = found
    if not key_matches(secret, stored_hash) or key.revoked:
        return None
    now = datetime.now(timezone.utc)
    if key.last_used_at is None or now - key.last_used_at > timedelta(seconds=get_settings().key_last_used_every_seconds):
        graph.write(queries.touch_key, key.id)  # seldom: checks stay read-only
    return Access.of_key(key)

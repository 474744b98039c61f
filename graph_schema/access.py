"""Who is calling and what they may see: access keys, their scopes, and the caller (`Access`).

A key is `stx_<id>_<secret>`: the id finds the stored key, the whole key is compared by its
SHA-256 in constant time. Keys are 256-bit random, so a fast hash is enough (as for API tokens);
the key itself is shown once and never stored.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime
from enum import Enum

from pydantic import BaseModel, Field

from graph_schema.errors import InvalidRequest

KEY_PREFIX = "stx_"
_KEY_SHAPE = re.compile(r"^stx_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
_FOCUS_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
OWNER_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")

PAUSED_MESSAGE = (
    "This connection to subtext is paused by its owner, so nothing can be read or written through it. "
    "Ask them to resume it with `subtext keys resume {name}`."
)


class ScopeKind(str, Enum):
    FULL = "full"
    ME = "me"
    FOCUS = "focus"


class KeyScope(BaseModel):
    """`full` (the whole graph), `me` (the you page and what is directly around it) or
    `focus:<slug>[,<slug>…]` (those focus areas and their members)."""

    kind: ScopeKind = ScopeKind.FULL
    focus: list[str] = Field(default_factory=list)

    def __str__(self) -> str:
        return f"focus:{','.join(self.focus)}" if self.kind is ScopeKind.FOCUS else self.kind.value

    @classmethod
    def parse(cls, text: str) -> KeyScope:
        text = text.strip()
        if text in ("full", "me"):
            return cls(kind=ScopeKind(text))
        if text.startswith("focus:"):
            slugs = [s.strip() for s in text.removeprefix("focus:").split(",") if s.strip()]
            bad = [s for s in slugs if not _FOCUS_SLUG.match(s)]
            if slugs and not bad:
                return cls(kind=ScopeKind.FOCUS, focus=list(dict.fromkeys(slugs)))
        raise InvalidRequest(
            f"{text!r} is not a scope. Use 'full', 'me', or 'focus:<slug>[,<slug>…]' with the slugs of "
            "focus areas (see `subtext status` or scope('you'))."
        )


class AccessKey(BaseModel):
    """A stored key (never the key itself)."""

    id: str
    owner: str
    name: str
    scope: KeyScope
    can_write: bool
    full_context: bool
    upkeep: bool = False  # may use the graph-upkeep tools, when the server offers them
    paused: bool = False
    revoked: bool = False
    created_at: datetime | None = None
    last_used_at: datetime | None = None


class Access(BaseModel):
    """The caller of one tool call: whose graph, through which key, allowed to do what."""

    owner: str
    key_id: str | None = None  # None: the person themselves (stdio, CLI)
    key_name: str | None = None
    scope: KeyScope = Field(default_factory=KeyScope)
    can_write: bool = True
    full_context: bool = True
    upkeep: bool = True  # the person themselves may; a key only if created with --upkeep
    paused: bool = False

    @property
    def sees_everything(self) -> bool:
        return self.scope.kind is ScopeKind.FULL

    @property
    def areas(self) -> list[str] | None:
        """The focus areas whose documents this caller reads facts from, or None for no such limit."""
        return list(self.scope.focus) if self.scope.kind is ScopeKind.FOCUS else None

    @property
    def author(self) -> str:
        """Shown as the author of what this caller writes."""
        return self.key_name or "assistant"

    @classmethod
    def of_key(cls, key: AccessKey) -> Access:
        return cls(owner=key.owner, key_id=key.id, key_name=key.name, scope=key.scope,
                   can_write=key.can_write, full_context=key.full_context, upkeep=key.upkeep, paused=key.paused)


class NewKey(BaseModel):
    key: AccessKey
    secret: str  # the full key, shown once


def hash_key(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def generate_key() -> tuple[str, str]:
    """(key id, full key)."""
    key_id = secrets.token_hex(6)
    return key_id, f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"


def key_id_of(secret: str) -> str | None:
    """The id inside a well-formed key, or None for anything else."""
    match = _KEY_SHAPE.match(secret.strip())
    return match.group(1) if match else None


def key_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_key(secret.strip()), stored_hash)

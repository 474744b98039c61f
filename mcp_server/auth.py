"""Who is calling: access keys over HTTP (Authorization: Bearer), the person themselves over stdio.

A key checked in Neo4j is relied on until a subtext process on this machine writes to the graph
or `change_check_seconds` pass (see graph_schema.local_writes): pausing or revoking a key with
`subtext keys` is such a write, so it takes effect on the next call, while a cheap call no
longer pays a database round trip just to learn who is calling.
When Neo4j cannot be reached the key cannot be checked: the request goes on marked `unavailable`
and every tool answers that the graph database is unavailable (no data can be read then anyway),
rather than the client seeing a 500 or a 401 that would make it drop a good key.
"""

from __future__ import annotations

import anyio
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token

from graph_schema.access import Access, hash_key
from graph_schema.errors import AccessRefused, GraphUnavailable
from graph_schema.local_writes import RecentRead, written_stamp
from mcp_server.service import GraphService


class AccessKeyVerifier(TokenVerifier):
    """Accepts subtext access keys; anything else gets fastmcp's 401."""

    def __init__(self, service: GraphService) -> None:
        super().__init__()
        self.service = service
        self._verified: dict[str, RecentRead[Access]] = {}  # by the key's SHA-256, never the key itself

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = hash_key(token)
        verified = self._verified.get(digest)
        if verified is not None and verified.still_current():
            access = verified.value
        else:
            stamp = written_stamp()  # before asking Neo4j: a write during the check is noticed next time
            try:
                access = await anyio.to_thread.run_sync(lambda: self.service.authenticate(token))
            except GraphUnavailable as e:
                return AccessToken(token=token, client_id="", scopes=[], claims={"unavailable": str(e)})
            if access is None:  # unknown keys are never remembered: a new key works at once
                self._verified.pop(digest, None)
                return None
            self._verified[digest] = RecentRead.before_reading(access, stamp)
        return AccessToken(token=token, client_id=access.key_id or "", scopes=[], claims={"access": access})


def current_caller(service: GraphService) -> Access:
    """The caller of the tool call in progress."""
    token = get_access_token()
    if token is not None and "unavailable" in token.claims:
        raise GraphUnavailable(token.claims["unavailable"])
    if token is not None and isinstance(token.claims.get("access"), Access):
        return token.claims["access"]
    secret = service.settings.access_key
    if secret is None:
        return service.default_access  # stdio without a key: the person who started the process
    access = service.authenticate(secret.get_secret_value())
    if access is None:
        raise AccessRefused(
            "SUBTEXT_ACCESS_KEY is not a valid key (unknown, revoked or mistyped). Create one with "
            "`subtext keys create NAME` and put it in the client's configuration."
        )
    return access

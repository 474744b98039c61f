"""Who is calling: access keys over HTTP (Authorization: Bearer), the person themselves over stdio.

A key is checked on every request, so pausing or revoking one takes effect on the next call.
When Neo4j cannot be reached the key cannot be checked: the request goes on marked `unavailable`
and every tool answers that the graph database is unavailable (no data can be read then anyway),
rather than the client seeing a 500 or a 401 that would make it drop a good key.
"""

from __future__ import annotations

import anyio
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token

from graph_schema.access import Access
from graph_schema.errors import AccessRefused, GraphUnavailable
from graph_schema.keys import authenticate
from mcp_server.service import GraphService


class AccessKeyVerifier(TokenVerifier):
    """Accepts subtext access keys; anything else gets fastmcp's 401."""

    def __init__(self, service: GraphService) -> None:
        super().__init__()
        self.service = service

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            access = await anyio.to_thread.run_sync(lambda: authenticate(self.service.driver(), token))
        except GraphUnavailable as e:
            return AccessToken(token=token, client_id="", scopes=[], claims={"unavailable": str(e)})
        if access is None:
            return None
        return AccessToken(token=token, client_id=access.key_id or "", scopes=[],
                           claims={"access": access.model_dump(mode="json")})


def current_caller(service: GraphService) -> Access:
    """The caller of the tool call in progress."""
    token = get_access_token()
    if token is not None and "unavailable" in token.claims:
        raise GraphUnavailable(token.claims["unavailable"])
    if token is not None and "access" in token.claims:
        return Access(**token.claims["access"])
    secret = service.settings.access_key
    if secret is None:
        return service.default_access  # stdio without a key: the person who started the process
    access = authenticate(service.driver(), secret.get_secret_value())
    if access is None:
        raise AccessRefused(
            "SUBTEXT_ACCESS_KEY is not a valid key (unknown, revoked or mistyped). Create one with "
            "`subtext keys create NAME` and put it in the client's configuration."
        )
    return access

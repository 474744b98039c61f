"""How many Streamable HTTP sessions a key and a person may hold open at once (issue 16).

A client opens a session with its first request and may never close it; the MCP SDK keeps each one
(its memory, its task) until it has been idle for `mcp_session_idle_seconds`. Without a cap, one key
could open thousands and hold them for half an hour. This ASGI middleware sits behind the access-key
check: it counts the sessions each key and each person holds, and refuses the request that would
open one too many with a 429 and a sentence saying what to do. Only the initialize handshake opens
a session; a client of the stateless protocol, whose calls carry no session, is never counted. A
session counts until the client ends it (DELETE), the server answers that it no longer exists
(404), or it has been idle as long as the SDK allows: whichever comes first.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph_schema.access import Access
from graph_schema.settings import Settings

SESSION_HEADER = b"mcp-session-id"


@dataclass
class _Session:
    key_id: str
    owner: str
    last_seen: float
    in_flight: int = 0


class OpenSessions:
    """The sessions each key and person holds open (in this process's memory, as the SDK's own).

    A session being opened holds a place from the moment its request passes the cap until the server
    answers, so two requests racing for the last place cannot both take it.
    """

    def __init__(self, idle_seconds: float, clock=time.monotonic) -> None:
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()

    def _live(self, now: float) -> list[_Session]:
        for session_id in [s for s, held in self._sessions.items()
                           if held.in_flight == 0 and now - held.last_seen >= self.idle_seconds]:
            del self._sessions[session_id]  # the SDK has closed it by now
        return list(self._sessions.values())

    def reserve(self, access: Access, per_key: int, per_owner: int) -> tuple[str | None, str | None]:
        """(a place for the session this request opens, None) or (None, why the cap refuses it)."""
        with self._lock:
            live = self._live(self._clock())
            by_key = sum(s.key_id == (access.key_id or "") for s in live)
            by_owner = sum(s.owner == access.owner for s in live)
            if by_key >= per_key:
                return None, (f"This access key already holds {by_key} open MCP sessions, the most one key may "
                              f"hold (SUBTEXT_MCP_SESSIONS_PER_KEY). Close sessions the client no longer uses "
                              f"(HTTP DELETE with their mcp-session-id), or wait: an idle session closes after "
                              f"{int(self.idle_seconds)} s.")
            if by_owner >= per_owner:
                return None, (f"This person's keys already hold {by_owner} open MCP sessions, the most one "
                              f"person may hold (SUBTEXT_MCP_SESSIONS_PER_PERSON). Close sessions no client uses "
                              f"(HTTP DELETE with their mcp-session-id), or wait: an idle session closes after "
                              f"{int(self.idle_seconds)} s.")
            place = f"opening:{uuid.uuid4()}"
            self._sessions[place] = _Session(access.key_id or "", access.owner, self._clock(), in_flight=1)
            return place, None

    def settle(self, place: str, session_id: str | None) -> None:
        """The server has answered: the place becomes the session it opened, or is given back."""
        with self._lock:
            held = self._sessions.pop(place, None)
            if held is not None and session_id:
                held.in_flight, held.last_seen = 0, self._clock()
                self._sessions[session_id] = held

    def holder(self, session_id: str) -> str | None:
        """The key id that opened this session, or None when it is not (or no longer) counted."""
        with self._lock:
            held = self._sessions.get(session_id)
            return None if held is None else held.key_id

    def begin(self, session_id: str) -> None:
        with self._lock:
            held = self._sessions.get(session_id)
            if held is not None:
                held.in_flight += 1
                held.last_seen = self._clock()

    def end(self, session_id: str, closed: bool) -> None:
        with self._lock:
            held = self._sessions.get(session_id)
            if held is None:
                return
            if closed:
                del self._sessions[session_id]
                return
            held.in_flight = max(0, held.in_flight - 1)
            held.last_seen = self._clock()


class SessionCaps:
    """ASGI middleware: refuse a new session past `per_key` open ones of the key or `per_owner` of its person,
    and a request in a session that another key opened."""

    def __init__(self, app: ASGIApp, sessions: OpenSessions, per_key: int, per_owner: int, path: str = "/mcp") -> None:
        self.app = app
        self.sessions = sessions
        self.per_key = per_key
        self.per_owner = per_owner
        self.path = path.rstrip("/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        access = _caller(scope)
        if scope["type"] != "http" or access is None or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        session_id = dict(scope["headers"]).get(SESSION_HEADER, b"").decode("latin-1")
        if session_id:
            await self._within_session(access, session_id, scope, receive, send)
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        # Only the initialize handshake opens a session. A client of the stateless protocol (no
        # handshake, no mcp-session-id) sends every call without one: those calls hold no session.
        body, replay = await _read_body(receive)
        if _initializes(body):
            await self._opening(access, scope, replay, send)
        else:
            await self.app(scope, replay, send)

    async def _within_session(self, access: Access, session_id: str, scope: Scope, receive: Receive,
                              send: Send) -> None:
        holder = self.sessions.holder(session_id)
        if holder is not None and holder != (access.key_id or ""):
            # a session belongs to the key that opened it: another key may neither use it nor end it
            await _refuse(send, "This MCP session was opened with another access key. Open a session of your "
                                "own: send initialize without an mcp-session-id header.", status=403)
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        self.sessions.begin(session_id)
        try:
            await self.app(scope, receive, watch)
        finally:
            ended = status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300)
            self.sessions.end(session_id, closed=ended)

    async def _opening(self, access: Access, scope: Scope, receive: Receive, send: Send) -> None:
        place, refusal = self.sessions.reserve(access, self.per_key, self.per_owner)
        if place is None:
            await _refuse(send, refusal or "")
            return
        opened: str | None = None

        async def record(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                header = dict(message.get("headers", [])).get(SESSION_HEADER)
                opened = header.decode("latin-1") if header else None
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            self.sessions.settle(place, opened)


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a `receive` that hands the app the same body, then the client's
    later messages (a disconnect)."""
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away before its body arrived
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _initializes(body: bytes) -> bool:
    """Whether a JSON-RPC body (one message or a batch) holds an initialize request. A body that is
    no JSON is the SDK's to refuse, as the cap has nothing to count."""
    try:
        messages = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    messages = messages if isinstance(messages, list) else [messages]
    return any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages)


def _caller(scope: Scope) -> Access | None:
    """The access the key check found for this request (None before it, or with no valid key)."""
    token = getattr(scope.get("user"), "access_token", None)
    access = getattr(token, "claims", {}).get("access") if token is not None else None
    return access if isinstance(access, Access) else None


def session_middleware(settings: Settings) -> list:
    """The middleware `subtext serve` runs the HTTP app with, from the session settings."""
    from starlette.middleware import Middleware

    sessions = OpenSessions(settings.mcp_session_idle_seconds)
    return [Middleware(SessionCaps, sessions=sessions, per_key=settings.mcp_sessions_per_key,
                       per_owner=settings.mcp_sessions_per_person)]


async def _refuse(send: Send, message: str, status: int = 429) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})

"""Connecting to Neo4j and running transactions with retries.

Every read and write of the project goes through `read()` / `write()`: the driver's managed
transactions retry transient errors (deadlocks, leader switches) with backoff, and connection
failures, or transient errors that outlive the retries, come out as `GraphUnavailable` with a
sentence saying what to do; a statement Neo4j refuses (a constraint, a query error) comes out as
`GraphRefused`. No driver exception leaves this module. `ensure_ready()` makes
a graph usable (schema and the person's page) at the start of work, never from a getter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import AuthError, ServiceUnavailable, SessionExpired

from graph_schema.errors import GraphRefused, GraphUnavailable, SubtextError
from graph_schema.local_writes import mark_written
from graph_schema.queries.owners import ensure_owner, owners_with_unplain_names, store_plain_names
from graph_schema.queries.schema import create_schema
from graph_schema.settings import Settings, get_settings

T = TypeVar("T")

UNAVAILABLE = "The graph database is unavailable, try again in a moment."


def open_driver(settings: Settings | None = None, *, interactive: bool = False) -> neo4j.Driver:
    """A driver; `interactive` ones (the MCP server's) give up on an unreachable database sooner,
    so an assistant hears that it is unavailable in seconds, not half a minute."""
    settings = settings or get_settings()
    user, password = settings.neo4j_auth()
    retry = settings.neo4j_interactive_retry_seconds if interactive else settings.neo4j_retry_attempts * 6.0
    return neo4j.GraphDatabase.driver(
        settings.bolt_uri,
        auth=(user, password),
        max_transaction_retry_time=retry,
        connection_acquisition_timeout=min(30.0, max(retry, 5.0)),
        notifications_min_severity="OFF",
    )


def unavailable(error: Exception) -> GraphUnavailable:
    """The sentence for a driver error met outside `read()` and `write()`."""
    return _translate(error, get_settings().bolt_uri)


def _refused(error: neo4j.exceptions.Neo4jError, uri: str) -> SubtextError:
    """A Neo4j error that outlived the driver's retries, as one of subtext's errors."""
    if error.is_retryable():  # deadlocks, leader switches… still there after the retries
        return GraphUnavailable(
            f"The graph database stayed busy (Neo4j at {uri}: {error.code}); try again in a moment."
        )
    return GraphRefused(error.code or "Neo.Unknown", error.message or str(error))


def _translate(error: Exception, uri: str) -> GraphUnavailable:
    if isinstance(error, AuthError):
        return GraphUnavailable(
            f"Neo4j at {uri} refused the credentials. Check NEO4J_USERNAME and NEO4J_PASSWORD, "
            "or unset NEO4J_URI to use the local server that `subtext neo4j start` runs."
        )
    return GraphUnavailable(
        f"{UNAVAILABLE} (Neo4j at {uri} did not answer; `subtext neo4j start` starts the local one.)"
    )


# A transaction the caller opened (`read()` / `write()` hand one to their work): what the domain
# package's one-transaction functions take, so that an operation composes several in one.
Tx = neo4j.ManagedTransaction


class GraphSession:
    """A session the caller opened on the graph (`session(driver)`), for work that runs several
    transactions in turn: a brief read from its cache or rebuilt and stored, a removal in
    batches, an export streamed batch by batch. Its `read` / `write` / `read_single` are the
    module's, on this session: each transaction retried, every driver error translated."""

    def __init__(self, driver: neo4j.Driver, database: str | None = None) -> None:
        self.driver = driver
        self.database = database or get_settings().neo4j_database
        self._session: neo4j.Session | None = None

    def __enter__(self) -> GraphSession:
        self._session = self.driver.session(database=self.database)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None

    def _open(self) -> neo4j.Session:
        if self._session is None:
            raise RuntimeError("A GraphSession is used inside `with db.session(driver) as graph:`.")
        return self._session

    def read(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `work(tx, *args, **kwargs)` in one read transaction, retried on transient errors."""
        with _translated():
            return self._open().execute_read(work, *args, **kwargs)

    def write(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `work(tx, *args, **kwargs)` in one write transaction, retried on transient errors."""
        with _translated():
            result = self._open().execute_write(work, *args, **kwargs)
        mark_written()  # servers on this machine then re-read what they keep (see local_writes)
        return result

    def read_single(self, work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`read()` for `work` that runs exactly one query, on hot paths (the brief, key checks).

        It is sent as an auto-commit query: one round trip, where a managed transaction needs a
        second one to commit, which is a fifth of a cached brief's time over MCP. A transient
        or unreachable database falls back to `read()` and its retries."""
        try:
            with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as single:
                return work(single, *args, **kwargs)
        except AuthError as e:
            raise _translate(e, get_settings().bolt_uri) from e
        except (ServiceUnavailable, SessionExpired, OSError):
            pass  # `read()` retries these for a while, then says the database is unavailable
        except neo4j.exceptions.Neo4jError as e:
            if not e.is_retryable():
                raise _refused(e, get_settings().bolt_uri) from e
        return self.read(work, *args, **kwargs)


class _translated:
    """Driver errors met in a transaction, as subtext's errors (the module docstring says which)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _tb: object) -> bool:
        if isinstance(error, (ServiceUnavailable, SessionExpired, AuthError, OSError)):
            raise _translate(error, get_settings().bolt_uri) from error
        if isinstance(error, neo4j.exceptions.Neo4jError):
            raise _refused(error, get_settings().bolt_uri) from error
        return False


def session(driver: neo4j.Driver, database: str | None = None) -> GraphSession:
    """A session for several transactions in turn: `with db.session(driver) as graph: …`."""
    return GraphSession(driver, database)


def in_session(driver: neo4j.Driver, work: Callable[..., T], *args: Any, database: str | None = None, **kwargs: Any) -> T:
    """Run `work(graph, *args, **kwargs)` with a session of its own (`work` takes a GraphSession)."""
    with session(driver, database) as graph:
        return work(graph, *args, **kwargs)


def write(driver: neo4j.Driver, work: Callable[..., T], *args: Any, database: str | None = None, **kwargs: Any) -> T:
    """Run `work(tx, *args, **kwargs)` in one write transaction, retried on transient errors."""
    with session(driver, database) as graph:
        return graph.write(work, *args, **kwargs)


def read(driver: neo4j.Driver, work: Callable[..., T], *args: Any, database: str | None = None, **kwargs: Any) -> T:
    """Run `work(tx, *args, **kwargs)` in one read transaction, retried on transient errors."""
    with session(driver, database) as graph:
        return graph.read(work, *args, **kwargs)


def read_single(driver: neo4j.Driver, work: Callable[..., T], *args: Any, database: str | None = None, **kwargs: Any) -> T:
    """`GraphSession.read_single` without a session of the caller's."""
    with session(driver, database) as graph:  # its `read` is the fallback when the database hiccups
        return graph.read_single(work, *args, **kwargs)


def check_connection(driver: neo4j.Driver) -> str:
    """The server's version; raises GraphUnavailable when it cannot be reached."""
    try:
        info = driver.get_server_info()
        return info.agent
    except (ServiceUnavailable, SessionExpired, AuthError, OSError) as e:
        raise _translate(e, get_settings().bolt_uri) from e


def ensure_ready(driver: neo4j.Driver, settings: Settings | None = None, owner: str | None = None) -> None:
    """Make the graph ready for a person: every constraint and index, then their Owner node and
    `you` page; each already there is left as it is.

    Called where work on the graph starts (`subtext init`, the MCP server's start, the first step
    of a pipeline run), never from a getter, so that reading never writes. `owner` defaults to the
    configured person; anyone else's page is titled with their id until they are named
    (`subtext people add`). Raises GraphUnavailable when Neo4j cannot be reached."""
    settings = settings or get_settings()
    owner = owner or settings.owner
    check_connection(driver)
    try:
        create_schema(driver)  # runs its own session, outside write(), so its errors are translated here
    except (ServiceUnavailable, SessionExpired, AuthError, OSError) as e:
        raise _translate(e, settings.bolt_uri) from e
    write(driver, ensure_owner, owner, settings.owner_name if owner == settings.owner else owner)
    for stored in read(driver, owners_with_unplain_names):  # every graph, once: names stored before they were kept plain
        write(driver, store_plain_names, stored)

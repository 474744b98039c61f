"""No Neo4j driver exception leaves graph_schema.db: a refused statement is GraphRefused, a transient
error that outlives the retries is GraphUnavailable, each a sentence (real Neo4j, real driver)."""

from __future__ import annotations

import neo4j
import pytest

from graph_schema import db
from graph_schema.errors import GraphRefused, GraphUnavailable
from graph_schema.settings import get_settings


def _bad_statement(tx: neo4j.ManagedTransaction) -> None:
    tx.run("MATCH (n) RETURN n.missing(").consume()  # a syntax error: Neo4j refuses it every time


def _duplicate_page(tx: neo4j.ManagedTransaction, owner: str) -> None:
    tx.run("CREATE (:Page {owner: $owner, slug: 'twin'}), (:Page {owner: $owner, slug: 'twin'})", owner=owner).consume()


def _always_busy(tx: neo4j.ManagedTransaction) -> None:
    raise neo4j.exceptions.TransientError("ForsetiClient can't acquire lock")  # a deadlock that never clears


def test_refused_statements_and_lasting_transient_errors_are_subtext_errors(graph):
    with pytest.raises(GraphRefused, match="refused the operation .*Neo.ClientError.Statement.SyntaxError"):
        db.read(graph["driver"], _bad_statement)
    with pytest.raises(GraphRefused, match="ConstraintValidationFailed"):
        db.write(graph["driver"], _duplicate_page, graph["owner"])
    assert graph["driver"].execute_query("MATCH (p:Page {owner: $owner, slug: 'twin'}) RETURN count(p) AS n",
                                         owner=graph["owner"]).records[0]["n"] == 0
    user, password = get_settings().neo4j_auth()
    with neo4j.GraphDatabase.driver(get_settings().bolt_uri, auth=(user, password),
                                    max_transaction_retry_time=1.0) as impatient:
        with pytest.raises(GraphUnavailable, match="stayed busy"):
            db.write(impatient, _always_busy)


def test_a_single_read_that_meets_no_database_says_it_is_unavailable():
    """The hot-path read falls back to a retried read, which ends in the sentence (it raised an
    internal error instead when the fallback ran outside a session)."""
    import socket

    with socket.socket() as spare:  # a port on this machine where nothing listens
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    with neo4j.GraphDatabase.driver(f"neo4j://127.0.0.1:{port}", auth=("neo4j", "x"),
                                    max_transaction_retry_time=1.0, connection_acquisition_timeout=2.0) as nowhere:
        with pytest.raises(GraphUnavailable, match="did not answer"):
            db.read_single(nowhere, lambda session: session.run("RETURN 1").single())


def test_model_work_runs_outside_the_transaction_so_its_error_is_its_own(graph):
    """compile's gather embeds the intent between its reads: an embedder that fails (its files
    missing) fails as itself, not as 'the graph database is unavailable', and is called once."""
    from graph_schema.kinds import PageKind
    from graph_schema.models import PageRef
    from knowledge.compile_gather import gather

    db.ensure_ready(graph["driver"], owner=graph["owner"])
    calls = []

    def broken_embedder(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        raise OSError("the MiniLM model files are missing")

    you = PageRef(slug="you", title="You", kind=PageKind.YOU)
    with pytest.raises(OSError, match="model files are missing"):
        db.in_session(graph["driver"], gather, graph["owner"], you, "shallow", "harbour pitch", None, None,
                      get_settings(), broken_embedder)
    assert len(calls) == 1

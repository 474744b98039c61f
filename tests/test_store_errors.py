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

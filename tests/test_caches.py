"""Caches are bounded and never go back in time: compile's cache holds at most a set number of
packages (least recently used go first), and an older brief never replaces a newer one."""

from __future__ import annotations

from graph_schema.queries.brief import load_brief, store_brief
from graph_schema.queries.owners import ensure_owner
from graph_schema.settings import get_settings, reset_settings
from mcp_server.service import GraphService
from pipeline.run import ingest_paths
from tests.conftest import write


def _stored(text: str, version: int) -> dict:
    return {"text": text, "sources": [], "lines": [], "omitted": [], "estimated_tokens": 3, "graph_version": version}


def test_an_older_brief_never_overwrites_a_newer_one(graph):
    db, driver, owner = graph["db"], graph["driver"], graph["owner"]
    db.write(driver, ensure_owner, owner, owner)
    db.write(driver, store_brief, owner, _stored("built at version 5", 5))
    db.write(driver, store_brief, owner, _stored("built at version 3", 3))
    _, stored = db.read(driver, load_brief, owner)
    assert (stored["text"], stored["graph_version"]) == ("built at version 5", 5)
    db.write(driver, store_brief, owner, _stored("rebuilt at version 5", 5))
    db.write(driver, store_brief, owner, _stored("built at version 6", 6))
    _, stored = db.read(driver, load_brief, owner)
    assert (stored["text"], stored["graph_version"]) == ("built at version 6", 6)


def test_compile_cache_is_bounded_least_recently_used_first(graph, monkeypatch):
    write(graph["upload"], "harbour/kickoff.md", "Priya Natarajan is leading the Harbour pitch for Acme Corporation.")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    monkeypatch.setenv("SUBTEXT_COMPILE_CACHE_MAX_ENTRIES", "2")
    reset_settings()
    service = GraphService(get_settings())
    access = service.default_access

    def cached(intent: str) -> bool:
        return service.compile(access, intent, "harbour", "shallow", "summary", None).cached

    assert [cached(i) for i in ("first", "second", "first", "third")] == [False, False, True, False]
    # "second" was the least recently used of the three, so it went; "first" and "third" stay.
    assert [cached(i) for i in ("first", "third", "second")] == [True, True, False]

"""Neo4j Browser draws the graph with subtext's style from the moment it connects (issue 15 item 9):
a Fact reads as its sentence, a page as its title, and the schema view keeps its captions. Checked
in Debian's Chromium on the session's own Neo4j, whose neo4j.conf subtext generated."""

from __future__ import annotations

import pytest

from graph_schema.settings import get_settings
from pipeline.run import ingest_paths
from tests.conftest import write

SENTENCE = "Priya Natarajan is leading the Harbour pitch for Acme Corporation."


def _run(page, query: str) -> None:
    editor = page.locator(".monaco-editor textarea").first
    editor.click()
    page.keyboard.type(query)
    page.keyboard.press("Control+Enter")


def _captions(page) -> list[str]:
    return [t.strip() for t in page.locator("svg text").all_text_contents() if t and t.strip()]


def test_browser_captions_facts_by_their_sentence_and_pages_by_title(graph, chromium, tmp_path):
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        pytest.skip("NEO4J_URI points at a server this project did not start, so subtext wrote no neo4j.conf for it")
    from subtext.local_neo4j import LocalNeo4j

    ingest_paths([write(graph["upload"], "kickoff.md", SENTENCE)])
    local = LocalNeo4j(settings)
    page = chromium.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{local.browser_address}?dbms=neo4j://{local.bolt_address.split('://', 1)[1]}&preselectAuthMethod=BASIC")
    page.get_by_test_id("connect").wait_for(timeout=30_000)
    # Browser draws the username and password fields once an authentication type is chosen
    auth = page.locator("select").nth(1)
    auth.select_option(index=1)
    auth.select_option(label="Username / Password")
    page.locator("input[data-testid=username]").fill("neo4j")
    page.locator("input[data-testid=password]").fill(local.password())
    page.get_by_test_id("connect").click()
    page.get_by_text("neo4j$").first.wait_for(timeout=30_000)  # connected: the editor's prompt names the database

    _run(page, f"MATCH (f:Fact {{owner: '{graph['owner']}'}})-[r]->(p:Page:Person) RETURN f, r, p LIMIT 1")
    page.locator("svg text", has_text="Natarajan").first.wait_for(timeout=30_000)
    page.screenshot(path=tmp_path / "facts.png")
    captions = _captions(page)
    assert "is" in captions or "leading" in captions, captions  # the Fact's own words, not its owner id
    assert graph["owner"] not in " ".join(captions)

    _run(page, "CALL db.schema.visualization()")
    page.locator("svg text", has_text="Fact").first.wait_for(timeout=30_000)
    page.screenshot(path=tmp_path / "schema.png")
    assert {"Fact", "Page", "Source"} <= set(_captions(page)), _captions(page)
    page.close()

"""What the MCP tools do, over one person's graph; `server.py` only declares the tools.

Every method is bound to one owner; there is no call that reads across people.
"""

from __future__ import annotations

import threading

import neo4j
from pydantic import BaseModel, Field

from graph_schema import db
from graph_schema.brief import current_brief
from graph_schema.embedding import embed_text
from graph_schema.models import BriefView, PageDetail, PageRef, SearchResult
from graph_schema.queries.owners import ensure_owner
from graph_schema.queries.pages import get_page
from graph_schema.queries.schema import create_schema
from graph_schema.queries.search import fulltext_search, vector_search
from graph_schema.settings import Settings, get_settings


class PageAnswer(BaseModel):
    page: PageDetail | None = None
    message: str | None = None
    sources: list[PageRef] = Field(default_factory=list)


class SearchAnswer(SearchResult):
    query: str
    sources: list[PageRef] = Field(default_factory=list)


class GraphService:
    """The driver (opened on first use, reopened after an outage) and the owner the tools act for."""

    def __init__(self, owner: str | None = None, settings: Settings | None = None) -> None:
        self.settings = settings or get_settings()
        self.owner = owner or self.settings.owner
        self._driver: neo4j.Driver | None = None
        self._lock = threading.Lock()

    def driver(self) -> neo4j.Driver:
        with self._lock:
            if self._driver is None:
                driver = db.open_driver(self.settings)
                try:
                    db.check_connection(driver)
                    create_schema(driver)
                    db.write(driver, ensure_owner, self.owner, self.settings.owner_name)
                except Exception:
                    driver.close()
                    raise
                self._driver = driver
            return self._driver

    def close(self) -> None:
        with self._lock:
            if self._driver is not None:
                self._driver.close()
                self._driver = None

    # ------------------------------------------------------------------ reads

    def brief(self) -> BriefView:
        return current_brief(self.driver(), self.owner)

    def search(self, query: str, limit: int) -> SearchAnswer:
        limit = max(1, min(limit, 50))
        s = self.settings
        driver = self.driver()
        hits = db.read(driver, vector_search, self.owner, embed_text(query), limit, s.search_min_score, s.preview_chars)
        mode = "semantic"
        if not hits:
            hits = db.read(driver, fulltext_search, self.owner, query, limit, s.preview_chars)
            mode = "fulltext" if hits else "none"
        sources = [PageRef(slug=h.slug, title=h.title, kind=h.kind) for h in hits]
        return SearchAnswer(query=query, mode=mode, results=hits, sources=sources)

    def get_page(self, slug: str) -> PageAnswer:
        page = db.read(self.driver(), get_page, self.owner, slug, self.settings.get_page_max_facts)
        if page is None:
            return PageAnswer(
                message=f"No page has the slug {slug!r}. Do not guess slugs: look it up with search "
                "or graph_snapshot and use the slug they return."
            )
        message = None
        if page.facts_total > len(page.facts):
            message = (
                f"Showing the first {len(page.facts)} of {page.facts_total} facts; the body holds them all."
            )
        return PageAnswer(page=page, message=message, sources=[PageRef(slug=page.slug, title=page.title, kind=page.kind)])

"""The brief: a few plain paragraphs about the person, written from their graph without any model.

`current_brief` returns the cached brief when the graph has not changed since it was written,
and rebuilds (and caches) it otherwise.
"""

from __future__ import annotations

import neo4j

from graph_schema import db
from graph_schema.kinds import PageKind
from graph_schema.models import BriefView, PageRef
from graph_schema.queries.brief import brief_material, load_brief, store_brief
from graph_schema.settings import get_settings

EMPTY_BRIEF = (
    "Nothing here yet: this graph has no documents or notes. Drop files into the upload folder "
    "or send what was decided with edit_page_body, and the brief will describe it."
)

_KIND_PHRASES = {
    PageKind.PERSON: "People who come up most",
    PageKind.ORGANISATION: "Organisations",
    PageKind.PROJECT: "Projects",
    PageKind.TOOL: "Tools and products",
    PageKind.TOPIC: "Topics",
}


def _names(pages: list[dict], limit: int) -> str:
    names = [p["title"] for p in pages[:limit]]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def render_brief(material: dict) -> BriefView:
    """Turn brief material (see queries.brief.brief_material) into text plus the pages it names."""
    version = material["version"]
    sources: dict[str, PageRef] = {}

    def cite(page: dict) -> None:
        sources.setdefault(page["slug"], PageRef(slug=page["slug"], title=page["title"], kind=PageKind(page["kind"])))

    if material["sources"] == 0 and not material["you_facts"]:
        return BriefView(text=EMPTY_BRIEF, sources=[], graph_version=version)

    paragraphs: list[str] = []
    name = material["name"]
    owner_phrase = "Your graph" if name == "You" else f"{name}'s graph"
    who = f"{owner_phrase} holds {material['sources']} source{'s' if material['sources'] != 1 else ''}."
    if material["you_facts"]:
        who += " In their own words: " + " ".join(material["you_facts"][:3])
        cite({"slug": "you", "title": name, "kind": "you"})
    paragraphs.append(who)

    if material["focus"]:
        parts = []
        for focus in material["focus"]:
            cite(focus)
            members = [m for m in focus["members"] if m and m.get("slug")]
            for m in members[:4]:
                cite(m)
            around = f" (with {_names(members, 4)})" if members else ""
            parts.append(f"{focus['title']}{around}")
        paragraphs.append("Working on: " + "; ".join(parts) + ".")

    lines = []
    for kind, phrase in _KIND_PHRASES.items():
        pages = material["top"].get(kind.value, [])
        if not pages:
            continue
        for p in pages[:6]:
            cite(p)
        lines.append(f"{phrase}: {_names(pages, 6)}.")
    if lines:
        paragraphs.append(" ".join(lines))

    return BriefView(text="\n\n".join(paragraphs), sources=list(sources.values()), graph_version=version)


def current_brief(driver: neo4j.Driver, owner: str) -> BriefView:
    """The cached brief if the graph is unchanged since it was built; otherwise rebuild and cache it."""
    version, cached = db.read_single(driver, load_brief, owner)
    if cached is not None and cached.graph_version == version:
        return cached
    return rebuild_brief(driver, owner)


def rebuild_brief(driver: neo4j.Driver, owner: str) -> BriefView:
    material = db.read(driver, brief_material, owner, get_settings().brief_max_pages)
    brief = render_brief(material)
    return db.write(driver, store_brief, owner, brief).model_copy(update={"cached": False})


def scoped_brief(driver: neo4j.Driver, owner: str, visible: list[str]) -> BriefView:
    """The brief of what one access key's scope can see (not stored: the cache holds the full one)."""
    material = db.read(driver, brief_material, owner, get_settings().brief_max_pages, visible)
    return render_brief(material)


def brief_is_stale(driver: neo4j.Driver, owner: str) -> bool:
    version, cached = db.read(driver, load_brief, owner)
    return cached is None or cached.graph_version != version

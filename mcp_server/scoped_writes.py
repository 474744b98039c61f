"""How a key with a limited scope writes, so that scope holds on writes as it does on reads.

- A `focus:` key files everything it records under its focus area (the first one it names):
  edit_page_body submissions are filed there (new pages become members), and its uploads land
  in that focus area's folder. It cannot start a new focus area (new_project).
- No limited key's submission may touch a page outside its scope: before anything is written,
  the text is run through the pipeline's own extraction and resolution, and if any existing page
  it would add a fact to, fold or mark as a possible duplicate lies outside the scope, the call
  is refused and nothing is written. The refusal names no page.
- Answers name only pages the key can see (after the write, so new members are named).

The `you` page counts as inside every scope for writes: first-person sentences are about the
person whose graph it is, and every key can already see that page through scope('you').
"""

from __future__ import annotations

from pathlib import PurePosixPath

import neo4j

from graph_schema import db
from graph_schema.access import Access, ScopeKind
from graph_schema.errors import AccessRefused
from graph_schema.kinds import SourceKind
from graph_schema.models import ParsedDocument
from graph_schema.queries.navigation import focus_home
from graph_schema.settings import Settings
from knowledge.upload_folders import PERSON_FOLDER_PREFIX, key_within_owner

ALWAYS_WRITABLE = {"you"}

OUTSIDE_SCOPE = (
    "Nothing was recorded: the text is about something outside what the key {name!r} may see, and "
    "a limited key cannot add facts there. Send only what concerns {area}, or ask the person to "
    "record the rest themselves (or through a key with a wider scope)."
)
NO_NEW_PROJECT = (
    "The key {name!r} is limited to the focus area {area}, so it cannot start a new project (a new "
    "focus area). Record the text with slug set to a page inside {area}; it is filed there."
)
NO_NEW_PROJECT_ME = (
    "The key {name!r} is limited to the person's own page and what is around it, so it cannot start a new "
    "project (a new focus area). Record the text with slug set to 'you' or a page the key can see, or ask "
    "the person to use a key with the full graph."
)
NO_FOCUS_AREA = (
    "The key {name!r} is limited to focus areas that no longer exist, so nothing can be filed "
    "through it. Ask the person for a new key (`subtext keys create NAME --scope focus:SLUG`)."
)


def _area_name(access: Access) -> str:
    return ", ".join(access.scope.focus) or "its scope"


def home_focus(driver: neo4j.Driver, access: Access) -> dict | None:
    """The focus area a `focus:` key files under ({slug, title, folder}); None for other keys."""
    if access.scope.kind is not ScopeKind.FOCUS:
        return None
    for slug in access.scope.focus:  # the first of its focus areas that still exists
        home = db.read(driver, focus_home, access.owner, slug, SourceKind.DOCUMENT.value)
        if home is not None:
            return {"slug": slug, "title": home["title"], "folder": _folder_of(slug, home["title"], home["keys"])}
    raise AccessRefused(NO_FOCUS_AREA.format(name=access.key_name))


def _folder_of(slug: str, title: str, keys: list[str]) -> str:
    """The upload subfolder a document must sit in to be filed under this focus area: the folder
    its documents already come from, else its title when that is one plain folder name (the
    pipeline finds a focus area by its title), else its slug."""
    for key in keys:
        parts = PurePosixPath(key_within_owner(key)).parts
        if len(parts) > 1:
            return parts[0]
    plain = title.strip()
    if plain and plain == PurePosixPath(plain).name and not plain.startswith((".", PERSON_FOLDER_PREFIX)) \
            and "\\" not in plain:
        return plain
    return slug


def refuse_new_project(access: Access) -> None:
    """A limited key starts no project: a new one would lie outside what it sees, and naming one that
    exists would file the text under an area it may not see (and tell it the area exists)."""
    if access.scope.kind is ScopeKind.FOCUS:
        raise AccessRefused(NO_NEW_PROJECT.format(name=access.key_name, area=_area_name(access)))
    if access.scope.kind is ScopeKind.ME:
        raise AccessRefused(NO_NEW_PROJECT_ME.format(name=access.key_name))


def check_submission_in_scope(
    driver: neo4j.Driver, access: Access, visible: list[str], body: str, anchor_slug: str | None,
    focus_title: str | None, settings: Settings,
) -> None:
    """Refuse (AccessRefused) a limited key's text that would write on a page outside its scope.

    The text goes through the same extraction and resolution a run does, against the same graph,
    so the pages it would land on are exactly those the run would choose (unless another write
    changes the graph in between, which the answer's filtering still covers).
    """
    from pipeline.parse import chunk_text  # the pipeline's models load on first use, as for the run
    from pipeline.stages import extract_mentions, resolve_entities

    preview = ParsedDocument(
        source_id="scope-preview", key="submission:scope-preview", kind=SourceKind.SUBMISSION, format="text",
        title="scope preview", text=body, chunks=chunk_text(body, settings.chunk_target_chars), element_count=1,
        focus=focus_title, anchor_slug=anchor_slug, author=access.author,
    )
    resolved = resolve_entities(extract_mentions([preview]), access.owner, settings, driver)[0]
    touched = {r.slug for r in resolved.resolutions if r.method != "new"}
    touched |= {s for m in resolved.page_merges for s in (m.from_slug, m.into_slug)}
    touched |= {p.other_slug for p in resolved.review_pairs}
    new = {r.slug for r in resolved.resolutions if r.method == "new"}
    allowed = set(visible) | ALWAYS_WRITABLE | new
    if touched - allowed:
        raise AccessRefused(OUTSIDE_SCOPE.format(name=access.key_name, area=_area_name(access)))

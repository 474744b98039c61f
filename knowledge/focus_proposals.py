"""Focus areas from the graph, not only folders (issue 19 item 6).

Pages that documents keep naming in one sentence (RELATES_TO) form groups: a customer with its
contacts, project and tools; a proposal with its authors and the things it changes. The groups
are Louvain communities (networkx, BSD licence) over those links, each weighted by the documents
behind it. A group is proposed as a focus area when it is a real group, not a crowd:

- at least `focus_proposal_min_pages` pages, named together in `focus_proposal_min_documents`
  documents, and not most of the graph (`focus_proposal_max_share`); a group of more than
  `focus_proposal_max_pages` is split by Louvain again, within it, and dropped if it does not split;
- cohesive: at least `focus_proposal_min_cohesion` of its pages' link weight stays inside it;
- not already a focus area: under `focus_proposal_filed_share` of its pages filed under one area;
- not what the person turned down: under `focus_proposal_dismissed_overlap` alike a dismissed one.

Nothing is filed until the person accepts a proposal (`subtext focus accept`, or the upkeep tool
`accept_focus_area`); then a focus page is made and the group's pages are filed under it by hand.
Louvain is run with a fixed seed over the pages in slug order, so one graph gives one answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import networkx as nx

from graph_schema import db
from graph_schema.access import ScopeKind
from graph_schema.errors import InvalidRequest
from graph_schema.kinds import PageKind
from graph_schema.models import PageRef
from graph_schema.plain_text import plain_name
from graph_schema.queries import focus_proposals as queries
from graph_schema.queries.access import list_keys
from graph_schema.queries.owners import lock_graph
from graph_schema.settings import Settings
from graph_schema.slugs import normalise_name, slugify
from knowledge.types import FocusAcceptance, FocusProposal

_LOUVAIN_SEED = 19  # any fixed seed: the same graph must give the same groups in every run

_MAX_TITLE_CHARS = 200  # as a page's title set with rename_page
_MAX_SPLITS = 3  # how many times a group too large to propose is split again before it is dropped


def link_graph(links: list[dict]) -> tuple[nx.Graph, dict[tuple[str, str], set[str]]]:
    """Pages as nodes, a link's weight the documents behind it (a link made by hand counts one)."""
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    manual: set[tuple[str, str]] = set()
    for link in links:
        pair = tuple(sorted((link["a"], link["b"])))
        sources[pair].update(link["sources"])
        if link["manual"]:
            manual.add(pair)
    graph = nx.Graph()
    graph.add_nodes_from(sorted({slug for pair in sources for slug in pair}))
    for pair in sorted(sources):
        weight = len(sources[pair]) + (1 if pair in manual else 0)
        if weight:
            graph.add_edge(*pair, weight=weight)
    return graph, sources


def _cohesion(graph: nx.Graph, group: set[str]) -> tuple[float, dict[str, float]]:
    """The share of the group's link weight that stays inside it, and each member's weight inside."""
    inside: dict[str, float] = {slug: 0.0 for slug in group}
    total = 0.0
    for slug in group:
        for other, data in graph[slug].items():
            total += data["weight"]
            if other in group:
                inside[slug] += data["weight"]
    return (sum(inside.values()) / total if total else 0.0), inside


def page_groups(graph: nx.Graph, nodes: set[str], settings: Settings, splits: int = 0) -> list[set[str]]:
    """Louvain communities of `nodes`; one larger than `focus_proposal_max_pages` is split again
    within itself (it is too broad to be one area of work), and left out when it does not split."""
    found = nx.community.louvain_communities(graph.subgraph(sorted(nodes)), weight="weight",
                                             resolution=settings.focus_proposal_resolution, seed=_LOUVAIN_SEED)
    groups: list[set[str]] = []
    for group in found:
        if len(group) <= settings.focus_proposal_max_pages:
            groups.append(set(group))
        elif len(found) > 1 and splits < _MAX_SPLITS:
            groups.extend(page_groups(graph, set(group), settings, splits + 1))
    return groups


def _central_first(members: list[dict], inside: dict[str, float]) -> list[dict]:
    """The group's pages, the most linked inside it first; what it is about (a project, a firm, a
    tool) before the people who take part in it."""
    return sorted(members, key=lambda m: (m["kind"] == PageKind.PERSON.value, -inside[m["slug"]], m["title"]))


def _documents(group: set[str], sources: dict[tuple[str, str], set[str]]) -> set[str]:
    """The documents behind the links inside the group."""
    return set().union(*(ids for (a, b), ids in sources.items() if a in group and b in group))


def _free_slug(tx: db.Tx, owner: str, title: str, taken: set[str]) -> str:
    """A slug for the proposal's focus page that no page has (nor had) and no other proposal takes."""
    base = slugify(title)
    slug, n = base, 1
    while slug in taken or queries.slug_taken(tx, owner, slug):
        n += 1
        slug = f"{base}-{n}"
    return slug


def propose_focus_areas(tx: db.Tx, owner: str, settings: Settings) -> list[FocusProposal]:
    """Group the person's linked pages and record the groups worth a focus area as open proposals
    (replacing the previous open ones; dismissed ones stay). Returns them, largest first."""
    # The lock first: an accept or a dismissal meanwhile would otherwise be proposed again.
    lock_graph(tx, owner)
    graph, sources = link_graph(queries.thing_links(tx, owner))
    if graph.number_of_nodes() == 0:
        queries.replace_open_proposals(tx, owner, [])
        return []
    groups = page_groups(graph, set(graph.nodes), settings)
    pages = {p["slug"]: p for p in queries.pages_grouped(tx, owner, sorted(graph.nodes))}
    dismissed = queries.dismissed_member_sets(tx, owner)
    largest = settings.focus_proposal_max_share * graph.number_of_nodes()
    chosen: list[tuple[set[str], int, float, dict[str, float]]] = []
    for group in groups:
        group = {slug for slug in group if slug in pages}
        if len(group) < settings.focus_proposal_min_pages or len(group) > largest:
            continue
        documents = _documents(group, sources)
        if len(documents) < settings.focus_proposal_min_documents:
            continue
        cohesion, inside = _cohesion(graph, group)
        if cohesion < settings.focus_proposal_min_cohesion:
            continue
        filed = Counter(area for slug in group for area in pages[slug]["areas"])
        if filed and filed.most_common(1)[0][1] / len(group) >= settings.focus_proposal_filed_share:
            continue
        if any(len(group & old) / len(group | old) >= settings.focus_proposal_dismissed_overlap for old in dismissed):
            continue
        chosen.append((group, len(documents), cohesion, inside))
    chosen.sort(key=lambda c: (-len(c[0]), -c[2], min(c[0])))

    proposals: list[FocusProposal] = []
    taken: set[str] = set()
    for group, documents, cohesion, inside in chosen[: settings.focus_proposal_max]:
        members = _central_first([pages[slug] for slug in group], inside)
        title = " and ".join(m["title"] for m in members[:2])
        slug = _free_slug(tx, owner, title, taken)
        taken.add(slug)
        evidence = (f"{len(group)} pages named together in {documents} documents; "
                    f"{cohesion:.0%} of their links stay among them")
        proposals.append(FocusProposal(
            slug=slug, title=title, cohesion=round(cohesion, 3), evidence=evidence,
            pages=[PageRef(slug=m["slug"], title=m["title"], kind=PageKind(m["kind"])) for m in members],
        ))
    queries.replace_open_proposals(tx, owner, [
        {"slug": p.slug, "title": p.title, "members": [m.slug for m in p.pages], "cohesion": p.cohesion,
         "evidence": p.evidence} for p in proposals])
    return proposals


def list_focus_proposals(tx: db.Tx, owner: str, limit: int) -> list[FocusProposal]:
    """The open proposals, largest first, with their pages as they are now."""
    return [_proposal(row) for row in queries.open_proposals(tx, owner, limit)]


def _proposal(row: dict) -> FocusProposal:
    return FocusProposal(slug=row["slug"], title=row["title"], cohesion=row["cohesion"], evidence=row["evidence"],
                         pages=[PageRef(slug=p["slug"], title=p["title"], kind=PageKind(p["kind"])) for p in row["pages"]])


def accept_focus_proposal(tx: db.Tx, owner: str, proposal: str, title: str | None, apply: bool) -> FocusAcceptance:
    """Make the proposal a focus area (its title, or `title`) and file its pages under it by hand;
    with `apply` False only say what would be done."""
    if apply:
        lock_graph(tx, owner)  # before reading: what is checked is what is written
    rows = queries.open_proposals(tx, owner, 1, proposal)
    if not rows:
        raise InvalidRequest(f"No open focus-area proposal is called {proposal!r}: `subtext focus proposals` lists "
                             "them (each run of the proposals works them out again).")
    found = _proposal(rows[0])
    chosen_title = plain_name(title or found.title)  # no line break or bidi override reaches the brief's headings
    if not chosen_title:
        raise InvalidRequest("The focus area's title is empty: give it a name, or leave the title out to keep the proposed one.")
    if len(chosen_title) > _MAX_TITLE_CHARS:
        raise InvalidRequest(f"The focus area's title is over {_MAX_TITLE_CHARS} characters: give it a shorter name.")
    slug = slugify(chosen_title) if title else found.slug
    if queries.slug_taken(tx, owner, slug):
        raise InvalidRequest(f"A page already has the slug {slug!r}: give the focus area another title.")
    key = normalise_name(chosen_title) or slugify(chosen_title)  # as a folder's documents look their area up
    same_name = queries.focus_called(tx, owner, key)
    if same_name is not None:  # a folder's documents find their area by its name: two would split it
        raise InvalidRequest(f"The focus area {same_name!r} is called so already: give this one another title.")
    if not found.pages:
        raise InvalidRequest(f"The pages of proposal {proposal!r} are gone since it was made; run the proposals again.")
    acceptance = FocusAcceptance(focus=PageRef(slug=slug, title=chosen_title, kind=PageKind.FOCUS), pages=found.pages,
                                 applied=False)
    if not apply:
        return acceptance
    filed = queries.accept_proposal(tx, owner, proposal, slug, chosen_title, key,
                                    [p.slug for p in found.pages])
    if filed is None:  # only if it went between the read and the write, which the lock rules out
        raise InvalidRequest(f"The proposal {proposal!r} was answered meanwhile; `subtext focus proposals` lists those open.")
    return acceptance.model_copy(update={"applied": True})


def dismiss_focus_proposal(tx: db.Tx, owner: str, proposal: str, by: str = "person") -> None:
    """The person does not want this group as a focus area: it is never proposed again (nor one much like it)."""
    if not queries.dismiss_proposal(tx, owner, proposal, by):
        raise InvalidRequest(f"No open focus-area proposal is called {proposal!r}: `subtext focus proposals` lists them.")


def drop_accepted_focus(tx: db.Tx, owner: str, slug: str, by: str = "person") -> int:
    """Undo an accepted proposal: its pages are unfiled and its focus page goes; the group counts as
    dismissed from then on. Returns how many pages were unfiled."""
    lock_graph(tx, owner)
    # a key scoped to the area would see nothing, and then whatever area takes the slug next
    scoped = sorted(k.name for k in list_keys(tx, owner)
                    if not k.revoked and k.scope.kind is ScopeKind.FOCUS and slug in k.scope.focus)
    if scoped:
        raise InvalidRequest(f"The access key{'s' if len(scoped) > 1 else ''} {', '.join(map(repr, scoped))} "
                             f"{'are' if len(scoped) > 1 else 'is'} scoped to {slug!r}: revoke "
                             f"{'them' if len(scoped) > 1 else 'it'} (`subtext keys revoke NAME`) before dropping the area.")
    members = queries.drop_accepted_focus(tx, owner, slug, by)
    if members is None:
        raise InvalidRequest(f"{slug!r} is no focus area made from a proposal, or something else stands on it now "
                             "(a document filed in a folder of that name, a fact about it, a link you made): only an "
                             "accepted proposal nothing else stands on can be dropped.")
    return len(members)

"""compile's gather step: read the graph for one target and pack it into the token budget."""

from __future__ import annotations

from datetime import datetime

from graph_schema import db
from graph_schema.kinds import PageKind
from graph_schema.models import PageRef
from graph_schema.queries import compile as queries
from graph_schema.settings import Settings
from knowledge.activity import recent_activity, related_areas
from knowledge.brief import focus_material, focus_status
from knowledge.contradictions import page_conflicts
from knowledge.compile import (
    intent_words,
    item_line,
    one_line,
    rank_facts,
    render_narrative,
    tokens_of,
)
from knowledge.types import CompiledFact, CompiledItem, CompiledPackage, CompiledRelation, Depth, Embed, FactAuthor


def _authors(rows: list[dict]) -> list[FactAuthor]:
    """Each author once, in name order; a source that names no kind was a document's."""
    found = {(a["name"], "assistant" if a["kind"] == "assistant" else "document") for a in rows}
    return [FactAuthor(name=name, kind=kind) for name, kind in sorted(found)]


def _facts(rows: list[dict]) -> list[CompiledFact]:
    return [CompiledFact(text=r["text"], first_seen=r["first_seen"], sources=sorted(set(r["sources"])),
                         authors=_authors(r.get("authors", [])))
            for r in rows]


def _relation_sentence(a: PageRef, b: PageRef, row: dict) -> str:
    if row["shared"]:
        return f"{a.title} and {b.title}: {one_line(row['shared'][0], 240)}"
    if row["manual"]:
        return f"{a.title} and {b.title} were linked by hand."
    return f"{a.title} and {b.title} are named together in {row['weight']} source{'s' if row['weight'] != 1 else ''}."


def pack_members(package: CompiledPackage, rows: list[dict], member_facts: dict[str, tuple[list[dict], int]],
                 depth: Depth, words: set[str], newest_first: bool, budget: int, used: int,
                 per_token: float) -> tuple[int, list[str], int]:
    """Add the ranked members to `package` while they fit the budget: each with its facts, or
    without them when only its line fits, else left out by name. (tokens used, titles left out,
    members kept without their facts)."""
    left_out: list[str] = []
    facts_cut = 0
    for row in rows:
        found, count = member_facts.get(row["slug"], ([], 0))
        ranked = rank_facts(_facts(found), words, newest_first)
        item = CompiledItem(
            slug=row["slug"], title=row["title"], kind=PageKind(row["kind"]), relation=row["relation"],
            line=one_line(ranked[0].text) if ranked else "", facts_total=count, relevance=row.get("relevance"),
        )
        if depth != "shallow":
            item.facts = ranked
        cost = tokens_of(item_line(item), per_token) + sum(tokens_of(f.text, per_token) + 1 for f in item.facts)
        if used + cost > budget and item.facts:
            facts_cut += 1  # keep the member, without its facts
            item.facts = []
            cost = tokens_of(item_line(item), per_token)
        if used + cost > budget:
            left_out.append(item.title)
            continue
        used += cost
        package.items.append(item)
    return used, left_out, facts_cut


def _package_rows(tx: db.Tx, owner: str, target: PageRef, settings: Settings, since: datetime | None,
                  per_member: int, target_visible: bool, visible: list[str] | None,
                  areas: list[str] | None) -> tuple[list[dict], int, dict, dict, dict | None, list]:
    """The members of `target`, its facts and theirs, a focus area's status material (with its
    recent activity and related areas) and the target's conflicting facts: one read."""
    rows, total = queries.members(tx, owner, target.slug, settings.compile_max_members, visible, areas)
    target_facts = (queries.facts(tx, owner, [target.slug], since, settings.compile_facts_per_page, visible, areas)
                    if target_visible else {})
    member_facts = queries.facts(tx, owner, [r["slug"] for r in rows], since, per_member, visible, areas)
    material = (focus_material(tx, owner, target.slug, settings, visible, areas)
                if target.kind is PageKind.FOCUS and target_visible else None)
    conflicts = (page_conflicts(tx, owner, target.slug, settings, visible, areas)
                 if target_visible and target.kind is not PageKind.YOU else [])
    if material is not None:  # a focus area: its latest sources and the areas it shares pages with
        material["recent"], _ = recent_activity(tx, owner, since, target.slug, settings.compile_max_recent, settings,
                                                visible, areas)
        material["related_areas"] = related_areas(tx, owner, target.slug, settings, visible)
    return rows, total, target_facts, member_facts, material, conflicts


def gather(
    graph: db.GraphSession,
    owner: str,
    target: PageRef,
    depth: Depth,
    intent: str,
    freshness: str | None,
    since: datetime | None,
    settings: Settings,
    embed: Embed,
    visible: list[str] | None = None,
    areas: list[str] | None = None,
) -> CompiledPackage:
    """`visible`: the slugs an access key's scope may see (None: all). Only those pages are read; a
    target outside it (a focus key compiling "you") contributes its list, never its own facts.
    `areas`: a focus key's areas; only facts the scope rule lets it read are used
    (`graph_schema.queries.sight`). One read gives the target, its members and their facts (one
    graph for all of them), a second the links between those that fit; model work runs between
    them, never inside a transaction (a retried one would repeat it)."""
    budget = settings.deep_compile_token_budget - settings.compile_reserved_tokens
    per_token = settings.chars_per_token
    words = intent_words(intent)
    newest_first = since is not None

    per_member = settings.compile_facts_per_page if depth != "shallow" else 1
    target_visible = visible is None or target.slug in visible
    rows, total, target_facts, member_facts, material, conflicts = graph.read(
        _package_rows, owner, target, settings, since, per_member, target_visible, visible, areas)
    if words:
        [vector] = embed([intent])
        for row in rows:
            emb = row.get("embedding")
            row["relevance"] = round(sum(x * y for x, y in zip(vector, emb, strict=True)), 4) if emb else None
        rows.sort(key=lambda r: (r["relevance"] is None, -(r["relevance"] or 0.0), -r["weight"]))


    facts, facts_total = target_facts.get(target.slug, ([], 0))
    package = CompiledPackage(
        target=target, depth=depth, intent=intent, freshness=freshness, since=since,
        target_facts=rank_facts(_facts(facts), words, newest_first), target_facts_total=facts_total,
        # with a freshness window, only conflicts it brought (its newer fact is within the window)
        conflicts=[c for c in conflicts if since is None or (c.facts[0].day and c.facts[0].day >= since.date())][
            : settings.compile_max_conflicts],
    )
    if material is not None:
        package.status = focus_status(material, settings, embed)
        package.recent, package.related_areas = material["recent"], material["related_areas"]
    used = tokens_of(render_narrative(package), per_token)

    used, left_out, facts_cut = pack_members(package, rows, member_facts, depth, words, newest_first, budget, used,
                                             per_token)

    if depth == "deep":
        refs = {target.slug: target, **{i.slug: PageRef(slug=i.slug, title=i.title, kind=i.kind) for i in package.items}}
        relation_rows = graph.read(queries.relations, owner, list(refs), since, settings.compile_max_relations,
                                   settings.compile_sentences_per_relation, visible, areas)
        skipped = 0
        for row in relation_rows:
            a, b = refs[row["source"]], refs[row["target"]]
            relation = CompiledRelation(source=a, target=b, how=_relation_sentence(a, b, row))
            cost = tokens_of(relation.how, per_token) + 1
            if used + cost > budget:
                skipped += 1
                continue
            used += cost
            package.relations.append(relation)
        if skipped:
            package.omitted.append(f"{skipped} of the links between these pages.")

    unseen = total - len(rows)
    if left_out or unseen > 0:
        names = one_line(", ".join(left_out[:5]) + ("…" if len(left_out) > 5 else ""), 160)
        count = len(left_out) + max(unseen, 0)
        package.omitted.insert(0, f"{count} more connected page{'s' if count != 1 else ''}"
                                  + (f" ({names})" if names else "") + "; compile or scope them one at a time.")
    if facts_cut:
        package.omitted.insert(0, f"The facts of {facts_cut} page{'s' if facts_cut != 1 else ''} (listed with one line each).")
    package.estimated_tokens = tokens_of(render_narrative(package), per_token)
    return package

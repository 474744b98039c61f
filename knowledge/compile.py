"""`compile`: one package about a focus area, a thing or "you", instead of many lookups.

Two steps, so that asking again in another shape is cheap:

  gather   (per target, depth, freshness and intent; cached until the graph version moves)
           the target's page and facts; what is under or around it, ranked; at medium their
           facts; at deep the links between them with a sentence that shows each. Everything
           is packed into the token budget in rank order, and what did not fit is counted and
           named, never dropped silently.
  render   the gathered package as narrative (prose), structured (typed fields) or summary
           (a title and one line each).

Without an LLM, `intent` still steers: members are ranked by how close their page is to the
intent (MiniLM cosine), and facts that share the intent's words come first. `freshness` ("7d",
"2w", "12h", or an ISO date) keeps only facts first seen since then, newest first.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from graph_schema.errors import InvalidRequest
from graph_schema.kinds import PageKind
from graph_schema.models import ConflictingFact, FactConflict
from knowledge.activity import activity_line
from knowledge.types import CompiledFact, CompiledItem, CompiledPackage, FocusStatus, RelatedArea


_RELATIVE = re.compile(r"^\s*(\d{1,4})\s*([hdwm])\s*$", re.IGNORECASE)
_UNIT_HOURS = {"h": 1, "d": 24, "w": 24 * 7, "m": 24 * 30}
_WORD = re.compile(r"[a-z0-9]{3,}")
_STOPWORDS = {
    "the", "and", "for", "with", "that", "this", "from", "what", "about", "into", "are", "was", "were", "will",
    "have", "has", "had", "our", "you", "your", "their", "them", "who", "how", "why", "when", "which", "need",
    "want", "help", "prepare", "write", "draft", "tell", "give", "make", "get", "all", "any", "can",
}


def parse_freshness(freshness: str | None, now: datetime | None = None) -> datetime | None:
    """'7d' / '2w' / '12h' / '3m' (months of 30 days) / '2026-11-01' -> the cutoff; None keeps all."""
    if freshness is None or not freshness.strip():
        return None
    now = now or datetime.now(timezone.utc)
    match = _RELATIVE.match(freshness)
    if match:
        return now - timedelta(hours=int(match.group(1)) * _UNIT_HOURS[match.group(2).lower()])
    try:
        parsed = datetime.fromisoformat(freshness.strip())
    except ValueError:
        try:
            parsed = datetime.combine(date.fromisoformat(freshness.strip()), datetime.min.time())
        except ValueError:
            raise InvalidRequest(
                f"freshness {freshness!r} is not understood; use a span such as '7d', '2w' or '12h', "
                "or a date such as '2026-11-01'."
            ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def intent_words(intent: str) -> set[str]:
    return {w for w in _WORD.findall(intent.lower()) if w not in _STOPWORDS}


def rank_facts(facts: list[CompiledFact], words: set[str], newest_first: bool) -> list[CompiledFact]:
    """Facts sharing the intent's words first; then newest first (with freshness) or document order."""
    def key(pair: tuple[int, CompiledFact]):
        index, fact = pair
        overlap = len(words & set(_WORD.findall(fact.text.lower()))) if words else 0
        age = -(fact.first_seen.timestamp() if fact.first_seen and newest_first else 0)
        return (-overlap, age, index)

    return [f for _, f in sorted(enumerate(facts), key=key)]


def one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def tokens_of(text: str, chars_per_token: float) -> int:
    return int(len(text) / chars_per_token) + 1


# ---------------------------------------------------------------------------------- render


def item_line(item: CompiledItem) -> str:
    """An item's line in a narrative: title, kind and relation, and its one line when no facts follow."""
    line = f"- {item.title} ({item.kind.value}, {item.relation})"
    return f"{line}: {item.line}" if item.line and not item.facts else line


def _fact_lines(facts: list[CompiledFact], bullet: str = "- ") -> list[str]:
    """One line a fact; what an assistant sent says so, as the documents' own words need not."""
    def said_by(fact: CompiledFact) -> str:
        assistants = [f"{a.name} (assistant)" for a in fact.authors if a.kind == "assistant"]
        return f" (sent by {', '.join(assistants)})" if assistants else ""
    return [f"{bullet}{f.text}{said_by(f)}" for f in facts]


def _status_lines(status: FocusStatus) -> list[str]:
    """'- What it is: …', then 'Decided (3 Mar 2026): …', 'To do (Daniel, by Friday): …', 'Closed (…): …'."""
    lines = [f"- What it is: {status.what_it_is.text}"] if status.what_it_is else []
    lines += [f"- {line.text}" for line in (*status.decided, *status.open, *status.closed)]
    return lines or ["- Nothing decided or open is recorded yet."]


def conflict_line(conflict: FactConflict) -> str:
    """'- Conflicting (the numbers differ: …): "newer" (key, day) / "older" (key, day)'."""
    def said(fact: ConflictingFact) -> str:
        where = ", ".join(x for x in (", ".join(fact.sources[:2]), f"{fact.day:%Y-%m-%d}" if fact.day else "") if x)
        return f'"{one_line(fact.text)}"' + (f" ({where})" if where else "")
    strength = f" (strength {conflict.strength:.1f})" if conflict.strength is not None else ""
    judged = f" — {one_line(conflict.explanation)}{strength}" if conflict.explanation and conflict.explanation.strip() else ""
    return f"- Conflicting ({conflict.reason[:1].lower()}{conflict.reason[1:].rstrip('.')}): " + " / ".join(
        said(f) for f in conflict.facts) + judged


def _related_line(related: RelatedArea) -> str:
    """'- Finance (3 shared pages: Daniel Okafor, Project Harbour, …)'."""
    names = ", ".join(p.title for p in related.shared) + (", …" if related.together > len(related.shared) else "")
    return f"- {related.area.title} ({related.together} shared page{'s' if related.together != 1 else ''}: {names})"


def render_narrative(package: CompiledPackage) -> str:
    t = package.target
    lines = [f"# {t.title} ({t.kind.value})"]
    if package.intent:
        lines.append(f"Compiled for: {package.intent}")
    if package.since:
        lines.append(f"Only what was learnt since {package.since:%Y-%m-%d %H:%M} UTC ({package.freshness}).")
    if package.status is not None:
        lines += ["", "## Where it stands", *_status_lines(package.status)]
    if package.target_facts:
        lines += ["", *_fact_lines(package.target_facts)]
    elif t.kind is not PageKind.YOU and package.status is None:
        lines += ["", "No facts on this page yet" + (" in that time." if package.since else ".")]
    if package.conflicts:
        lines += ["", "## Facts that disagree (newest first; ask which holds)", *map(conflict_line, package.conflicts)]
    if package.recent:
        lines += ["", "## Lately (newest first)", *map(activity_line, package.recent)]
    if package.related_areas:
        lines += ["", "## Focus areas sharing pages with it", *map(_related_line, package.related_areas)]
    if package.items:
        heading = {
            PageKind.FOCUS: "What is in this focus area",
            PageKind.YOU: "Your focus areas",
        }.get(t.kind, "What it is connected to")
        lines += ["", f"## {heading}"]
        for item in package.items:
            lines.append(item_line(item))
            lines += _fact_lines(item.facts, bullet="  - ")
    if package.relations:
        lines += ["", "## How they relate"]
        lines += [f"- {r.how}" for r in package.relations]
    if package.omitted:
        lines += ["", "Not included (over the token budget): " + " ".join(package.omitted)]
    return "\n".join(lines)


def render_summary(package: CompiledPackage) -> str:
    t = package.target
    status = package.status
    first = status.what_it_is.text if status and status.what_it_is else package.target_facts[0].text if package.target_facts else ""
    lines = [f"{t.title} ({t.kind.value})" + (f": {one_line(first)}" if first else "")]
    if status is not None:
        for label, found in (("decided", status.decided), ("open", status.open), ("closed", status.closed)):
            if found:  # the newest of each, the rest counted
                more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
                lines.append(f"- {len(found)} {label}: {one_line(found[0].text)}{more}")
    if package.conflicts:
        more = f" (+{len(package.conflicts) - 1} more)" if len(package.conflicts) > 1 else ""
        lines.append(conflict_line(package.conflicts[0]) + more)
    if package.recent:
        more = f" (+{len(package.recent) - 1} more lately)" if len(package.recent) > 1 else ""
        lines.append("- Latest: " + activity_line(package.recent[0])[2:] + more)
    for item in package.items:
        lines.append(f"- {item.title} ({item.kind.value}): {item.line or item.relation}")
    for relation in package.relations:
        lines.append(f"- {relation.source.title} ↔ {relation.target.title}")
    if package.omitted:
        lines.append("Not included: " + " ".join(package.omitted))
    return "\n".join(lines)

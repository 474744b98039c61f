"""The work-notes score in seconds: the fixture's notes resolved in memory, scored like the test does.

`tests/test_speakers.py` scores the same notes through the real pipeline into Neo4j; this runs
parse → extract → resolve in memory (see `quick_entities.py`) so a rule change is scored at once.

    .venv/bin/python bench/quick_notes.py [tests/data/worknotes] [--one-at-a-time]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from quick_entities import resolve_in_memory, resolve_one_at_a_time  # noqa: E402

from pipeline.notes_quality import format_score, load_gold, score_notes  # noqa: E402


def main() -> None:
    one_at_a_time = "--one-at-a-time" in sys.argv  # each note its own batch, as a folder fills
    args = [a for a in sys.argv[1:] if a != "--one-at-a-time"]
    folder = Path(args[0]) if args else Path(__file__).parents[1] / "tests" / "data" / "worknotes"
    resolve = resolve_one_at_a_time if one_at_a_time else resolve_in_memory
    resolved, finals, kinds, words, seconds = resolve(sorted(p for p in (folder / "notes").glob("*") if not p.name.startswith(".")))
    names: dict[str, set[str]] = defaultdict(set)
    for document in resolved:
        entities = document.extracted.entities
        for r in document.resolutions:
            entity = entities[r.entity]
            page = finals[r.slug]
            names[page] |= {entity.name, *entity.aliases, *(m.surface for m in entity.mentions)}
    pages = [(slug, kinds.get(slug, "?"), forms) for slug, forms in sorted(names.items())]
    gold = load_gold(folder / "gold.jsonl")
    print(format_score(score_notes(gold, pages)))
    # pages no gold name is on: places and topics the gold leaves out, and junk ('AMBER', 'MW', 'RAG')
    forms = {form.lower() for thing in gold for form in thing.forms}
    extra = [f"{slug} ({kind})" for slug, kind, page_forms in pages if not {f.lower() for f in page_forms} & forms]
    print(f"pages of no gold name: {len(extra)}: {', '.join(extra)}")
    print(f"words {words} extract+resolve {seconds:.1f}s")


if __name__ == "__main__":
    main()

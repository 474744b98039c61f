"""The facts score of a notes set in seconds: decisions, actions and open questions read from the
notes in memory (parse → extract, see `quick_entities.py`), scored against `facts_gold.jsonl`.

    .venv/bin/python bench/quick_facts.py bench/data/fresh_notes4 [more sets…]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from quick_entities import CachedEmbedder, CachedNlp  # noqa: E402

from graph_schema.settings import get_settings  # noqa: E402
from pipeline.extract import extract_documents  # noqa: E402
from pipeline.facts_quality import format_facts_score, load_items, score_facts  # noqa: E402
from pipeline.notes_quality import load_gold  # noqa: E402
from pipeline.parse import parse_document  # noqa: E402


def score_set(folder: Path) -> str:
    paths = sorted(p for p in (folder / "notes").glob("*") if not p.name.startswith("."))
    parsed = [parse_document(path, path.name, "quick", get_settings()) for path in paths]
    embedder = CachedEmbedder()
    extracted = extract_documents(parsed, nlp=CachedNlp(), embed=embedder)
    embedder.save()
    facts = {document.parsed.key: document.facts for document in extracted}
    forms = {t.name: {t.name, *t.forms} for t in load_gold(folder / "gold.jsonl")}
    return format_facts_score(score_facts(load_items(folder / "facts_gold.jsonl"), facts, forms))


def main() -> None:
    for folder in map(Path, sys.argv[1:]):
        print(f"== {folder.name}")
        print(score_set(folder))


if __name__ == "__main__":
    main()

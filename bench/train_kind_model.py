"""Train the kind classifier (pipeline/kind_model.py) on SoftNER and GUM; write pipeline/data/kind_model.npz.

    QUICK_CACHE=/tmp/qc PYTHONPATH=. .venv/bin/python bench/train_kind_model.py \
        ../shared/corpora/softner ../shared/corpora/gum [--out pipeline/data/kind_model.npz] [--no-save]

Each corpus is parsed and extracted as the pipeline does (spaCy's entities plus the shape
candidates of tool_candidates.py, not yet typed); every entity gets the gold kind of the gold
mentions its own mentions overlap best (SoftNER: tool, organisation, person; GUM: person,
organisation, place), and "other" when they overlap a gold mention of another kind or none (a
code block, a version, a heading word). Cross-validation is grouped by document, so a document's
names are never scored by a model that saw them. Deterministic: same corpora, same weights.
Never train on samples/ or tests/data: the tests use them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quick_entities import CachedEmbedder, CachedNlp  # noqa: E402  (the same disk caches as the tuning loop)

from graph_schema.settings import get_settings  # noqa: E402
from pipeline.extract import extract_documents  # noqa: E402
from pipeline.kind_model import CLASSES, MODEL_PATH, KindModel, feature_rows  # noqa: E402
from pipeline.parse import parse_document  # noqa: E402

GOLD_CLASSES = {"person": "person", "organisation": "organisation", "tool": "tool", "place": "place"}
REGULARISATION = 1.0  # scikit-learn's C, chosen by the cross-validation below


def gold_by_document(corpus: Path) -> dict[str, list[dict]]:
    gold: dict[str, list[dict]] = defaultdict(list)
    for line in (corpus / "gold.jsonl").open():
        if line.strip():
            row = json.loads(line)
            gold[row["doc"]].append(row)
    return gold


def entity_label(entity, gold: list[dict]) -> str:
    """The gold class of the gold mentions this entity's mentions overlap best; 'other' if none."""
    votes: Counter[str] = Counter()
    for mention in entity.mentions:
        best, best_score = None, 0.0
        for row in gold:
            overlap = min(mention.end, row["end"]) - max(mention.start, row["start"])
            if overlap <= 0:
                continue
            score = overlap / (max(mention.end, row["end"]) - min(mention.start, row["start"]))
            if score > best_score:
                best, best_score = row, score
        if best is not None and best_score >= 0.5:
            votes[GOLD_CLASSES.get(best["kind"], "other")] += 1
        else:
            votes["other"] += 1
    return votes.most_common(1)[0][0]


def corpus_rows(corpus: Path, nlp, embedder) -> tuple[np.ndarray, list[str], list[str]]:
    settings = get_settings()
    gold = gold_by_document(corpus)
    names = sorted(gold)
    parsed = [parse_document(corpus / "docs" / n, n, "train", settings) for n in names]
    extracted = extract_documents(parsed, nlp=nlp, embed=embedder, classify_kinds=False)
    where, rows = feature_rows(extracted, embedder)
    labels = [entity_label(extracted[d].entities[e], gold[extracted[d].parsed.key]) for d, e in where]
    groups = [f"{corpus.name}/{extracted[d].parsed.key}" for d, _ in where]
    return rows, labels, groups


def cross_validate(rows: np.ndarray, labels: np.ndarray, groups: np.ndarray, c: float) -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import classification_report
    from sklearn.model_selection import GroupKFold

    predicted = np.empty_like(labels)
    for train, test in GroupKFold(n_splits=5).split(rows, labels, groups):
        model = LogisticRegression(C=c, max_iter=2000).fit(rows[train], labels[train])
        predicted[test] = model.predict(rows[test])
    print(f"cross-validated by document, C={c}:")
    print(classification_report(labels, predicted, digits=3, zero_division=0))


def main() -> None:
    from sklearn.linear_model import LogisticRegression

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--c", type=float, default=REGULARISATION)
    parser.add_argument("--no-cv", action="store_true")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    nlp, embedder = CachedNlp(), CachedEmbedder()
    parts = [corpus_rows(corpus.resolve(), nlp, embedder) for corpus in args.corpora]
    embedder.save()
    rows = np.vstack([p[0] for p in parts])
    labels = np.array([label for p in parts for label in p[1]])
    groups = np.array([group for p in parts for group in p[2]])
    print("entities by gold class:", dict(Counter(labels.tolist())))
    if not args.no_cv:
        cross_validate(rows, labels, groups, args.c)
    if args.no_save:
        return
    fitted = LogisticRegression(C=args.c, max_iter=2000).fit(rows, labels)
    order = [list(fitted.classes_).index(c) for c in CLASSES]
    KindModel(fitted.coef_[order], fitted.intercept_[order], CLASSES).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

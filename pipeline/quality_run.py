"""`subtext quality`: ingest a gold corpus into a graph of its own, then score it (see quality.py)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.queries.owners import delete_owner_batch
from graph_schema.settings import Settings, get_settings, reset_settings
from knowledge.transfer import export_records
from pipeline.entity_quality import EntityScore, find_scorer, predicted_mentions, run_scorer
from pipeline.quality import GoldDocument, QualityReport, read_gold, score_people
from pipeline.run import ingest_paths

CORPUS_FOLDER = "corpus"  # the corpus lands in this subfolder of the quality graph's upload folder


def ingest_and_score(docs: Path, gold: list[GoldDocument], settings: Settings) -> QualityReport:
    """Copy the gold documents into the upload folder, ingest them through Dagster, and score the graph."""
    target = settings.upload_dir / CORPUS_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    for document in gold:
        shutil.copy2(docs / document.file, target / document.file)
    ingest_paths([target], owner=settings.owner)
    with db.open_driver(settings) as driver, db.session(driver) as graph:
        records = list(export_records(graph, settings.owner))
    return score_people(records, gold, key_prefix=f"{CORPUS_FOLDER}/")


def run_quality(corpus: Path, owner: str) -> QualityReport:
    """Empty the `owner` graph, ingest the corpus into it, and score person resolution."""
    gold_path, docs = corpus / "gold.jsonl", corpus / "docs"
    if not gold_path.is_file() or not docs.is_dir():
        raise InvalidRequest(f"{corpus} has no gold.jsonl and docs/ folder; pass --corpus with the PEP corpus folder.")
    gold = read_gold(gold_path)
    missing = [d.file for d in gold if not (docs / d.file).is_file()]
    if missing:
        raise InvalidRequest(f"gold.jsonl names {len(missing)} files that {docs} lacks, first {missing[0]}.")

    return ingest_and_score(docs, gold, _fresh_graph(owner))


def _fresh_graph(owner: str) -> Settings:
    """Settings for an emptied graph of `owner` with an upload folder of its own.

    The quality graph has its own owner and upload folder, so the person's own graph and the
    upload-folder sensor never see the corpus."""
    quality_dir = (get_settings().state_dir / "quality").resolve()
    upload_dir = (quality_dir / owner).resolve()
    if upload_dir.parent != quality_dir or not owner.strip():
        raise InvalidRequest(f"{owner!r} cannot name a quality graph; use letters, digits and dashes (quality-gum).")
    os.environ["SUBTEXT_OWNER"] = owner
    os.environ["SUBTEXT_UPLOAD_DIR"] = str(upload_dir)
    reset_settings()
    settings = get_settings()
    shutil.rmtree(settings.upload_dir, ignore_errors=True)
    with db.open_driver(settings) as driver:
        while db.write(driver, delete_owner_batch, owner):
            pass
        db.ensure_ready(driver, settings)  # SUBTEXT_OWNER is `owner` now: their new, empty graph
    return settings


def run_entity_quality(corpus: Path, owner: str, kind_sets: list[list[str]]) -> list[EntityScore]:
    """Empty the `owner` graph, ingest a GUM-layout corpus into it, and score it once per kind set."""
    scorer = find_scorer(corpus)
    gold_docs = sorted({json.loads(line)["doc"] for line in (corpus / "gold.jsonl").open(encoding="utf-8") if line.strip()})
    missing = [d for d in gold_docs if not (corpus / "docs" / d).is_file()]
    if missing:
        raise InvalidRequest(f"gold.jsonl names {len(missing)} documents that {corpus / 'docs'} lacks, first {missing[0]}.")
    settings = _fresh_graph(owner)
    target = settings.upload_dir / CORPUS_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    words = 0
    for name in gold_docs:
        shutil.copy2(corpus / "docs" / name, target / name)
        words += len((target / name).read_text(encoding="utf-8").split())
    started = time.perf_counter()
    ingest_paths([target], owner=settings.owner)
    seconds = time.perf_counter() - started
    with db.open_driver(settings) as driver, db.session(driver) as graph:
        records = list(export_records(graph, settings.owner))
    predictions = settings.state_dir / "quality" / f"{owner}.predicted.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in predicted_mentions(records, f"{CORPUS_FOLDER}/")))
    return [
        EntityScore(corpus=corpus.name, kinds=kinds, documents=len(gold_docs), words=words, ingest_seconds=seconds,
                    report=run_scorer(scorer, corpus, predictions, kinds))
        for kinds in kind_sets
    ]

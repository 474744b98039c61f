"""`subtext quality`: ingest a gold corpus into a graph of its own, then score it (see quality.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.queries.owners import delete_owner_batch, ensure_owner
from graph_schema.queries.schema import create_schema
from graph_schema.settings import Settings, get_settings, reset_settings
from graph_schema.transfer import export_records
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
    with db.open_driver(settings) as driver:
        records = list(export_records(driver, settings.owner))
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

    # The quality graph has its own owner and upload folder, so the person's own graph and the
    # upload-folder sensor never see the corpus.
    state_dir = get_settings().state_dir
    os.environ["SUBTEXT_OWNER"] = owner
    os.environ["SUBTEXT_UPLOAD_DIR"] = str(state_dir / "quality" / owner)
    reset_settings()
    settings = get_settings()
    with db.open_driver(settings) as driver:
        create_schema(driver)
        while db.write(driver, delete_owner_batch, owner):
            pass
        db.write(driver, ensure_owner, owner, settings.owner_name)
    return ingest_and_score(docs, gold, settings)

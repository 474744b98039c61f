"""What the optional LLM costs per document: calls, tokens and time, with the local test model.

    .venv/bin/python bench/llm_cost.py [--docs 20] [--per-run 5] [--corpus DIR]

Ingests the first N documents (the PEP corpus by default) into an empty graph of its own, a few
per run as a folder fills, twice: once without an LLM and once with llama.cpp's llama-server
serving SmolLM2-135M (tests/local_llm.py; installed by ./install.sh --test-tools). For the LLM
runs it sums what each run's context_brief step recorded (review verdicts, kinds in doubt,
contradictions, the narrative brief)
and prints calls, tokens and seconds per document beside the same runs without the LLM. The
model is tiny, so the figures say what the path costs in calls and time on this machine, not
what a capable model would answer. Needs the local Neo4j; writes only to owners named bench-*.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_CORPUS = ROOT / "tests" / "data" / "peps" / "docs"


def ingest_in_runs(files: list[Path], per_run: int, owner: str) -> tuple[float, list[dict]]:
    """Copy the files into a fresh upload folder `per_run` at a time, ingesting after each copy;
    the seconds it took and each run's context_brief metadata."""
    from dagster import AssetKey, AssetRecordsFilter

    from graph_schema.settings import reset_settings
    from pipeline.run import dagster_instance, ingest_paths

    upload = Path(tempfile.mkdtemp(prefix="subtext-llm-bench-"))
    os.environ["SUBTEXT_UPLOAD_DIR"], os.environ["SUBTEXT_OWNER"] = str(upload), owner
    reset_settings()
    metadata, started = [], time.perf_counter()
    for start in range(0, len(files), per_run):
        for f in files[start : start + per_run]:
            shutil.copy(f, upload / f.name)
        report = ingest_paths([upload])
        records = dagster_instance().fetch_materializations(AssetRecordsFilter(asset_key=AssetKey("context_brief")),
                                                            limit=100).records
        # one record per partition of a run, all with the run's one metadata: counted once per run
        by_run = {r.run_id: r for r in records if r.run_id in report.run_ids}
        metadata += [{k: v.value for k, v in r.asset_materialization.metadata.items()} for r in by_run.values()]
    return time.perf_counter() - started, metadata


def delete_owner(owner: str) -> None:
    from graph_schema import db
    from graph_schema.queries.owners import delete_owner_batch
    from graph_schema.settings import get_settings

    with db.open_driver(get_settings()) as driver:
        while db.write(driver, delete_owner_batch, owner):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20)
    parser.add_argument("--per-run", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    files = sorted(p for p in args.corpus.iterdir() if p.is_file())[: args.docs]

    from graph_schema.settings import reset_settings
    from pipeline.embedding import embed_texts
    from pipeline.extract import load_nlp
    from tests.conftest import _free_port
    from tests.local_llm import ALIAS, start_local_llm

    load_nlp()
    embed_texts(["warm up"])  # models loaded before either clock starts
    os.environ.pop("SUBTEXT_LLM_MODEL", None)
    without_seconds, _ = ingest_in_runs(files, args.per_run, f"bench-nollm-{os.getpid()}")
    delete_owner(f"bench-nollm-{os.getpid()}")

    port = _free_port()
    server = start_local_llm(port)
    try:
        os.environ.update(SUBTEXT_LLM_MODEL=f"openai/{ALIAS}", SUBTEXT_LLM_API_BASE=f"http://127.0.0.1:{port}/v1",
                          SUBTEXT_LLM_API_KEY="local")
        reset_settings()
        with_seconds, runs = ingest_in_runs(files, args.per_run, f"bench-llm-{os.getpid()}")
        delete_owner(f"bench-llm-{os.getpid()}")
    finally:
        server.kill()

    def total(key: str) -> int:
        return sum(int(m.get(key, 0)) for m in runs)

    n = len(files)
    print(f"{n} documents from {args.corpus}, {args.per_run} per run ({len(runs)} runs), model openai/{ALIAS} (llama-server)")
    print(f"LLM calls: {total('llm_calls')} ({total('llm_calls') / n:.2f} per document); "
          f"tokens: {total('llm_prompt_tokens'):,} prompt + {total('llm_completion_tokens'):,} completion "
          f"({(total('llm_prompt_tokens') + total('llm_completion_tokens')) / n:,.0f} per document); "
          f"fallbacks: {total('llm_fallbacks')}")
    print(f"review verdicts: same {total('llm_review_same')}, different {total('llm_review_different')}, "
          f"unsure {total('llm_review_unsure')}, no answer {total('llm_review_no_answer')}; "
          f"narrative briefs written: {sum(1 for m in runs if m.get('llm_narrative'))} of {len(runs)} rebuilds")
    print(f"kinds in doubt asked: {total('llm_kind_asked')} (changed {total('llm_kind_changed')}); "
          f"contradictions judged: exclusive {total('llm_conflicts_exclusive')}, compatible "
          f"{total('llm_conflicts_compatible')}, no answer {total('llm_conflicts_no_answer')}")
    print(f"ingest seconds: {without_seconds:.1f} without the LLM, {with_seconds:.1f} with it "
          f"({with_seconds / without_seconds:.2f}x)")


if __name__ == "__main__":
    main()

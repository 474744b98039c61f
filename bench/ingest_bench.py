"""Bulk ingest against the raw limit, side by side in one run.

    .venv/bin/python bench/ingest_bench.py [--docs N] [--repeat R] [--corpus DIR]

Two measurements over the same documents (the PEP corpus by default), each in a fresh
subprocess so that peak RSS is its own, and each with its models loaded before the clock starts:

  raw       read the files, spaCy `nlp.pipe` over their chunks and the embedder over the same
            chunks: the models and nothing else, with the same pipeline settings ours uses;
  pipeline  `subtext ingest`'s path: a Dagster run of all four assets (parse, extract,
            resolve, merge into Neo4j), then the brief, into an empty graph of its own.

It prints documents/s, words/s and peak RSS for each (medians over the repeats), the
pipeline's time per stage, and the ratio pipeline / raw. It needs the local Neo4j (started
when it is not running) and writes only to owners named bench-*.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / "tests" / "data" / "peps" / "docs"


def corpus_files(corpus: Path, limit: int | None) -> list[Path]:
    files = sorted(p for p in corpus.iterdir() if p.is_file())
    return files[:limit] if limit else files


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_raw(files: list[Path]) -> dict:
    from graph_schema.embedding import embed_texts
    from graph_schema.settings import get_settings
    from pipeline.extract import load_nlp
    from pipeline.parse import chunk_text

    settings = get_settings()
    load_started = time.perf_counter()
    nlp = load_nlp()
    embed_texts(["warm up"])
    load_seconds = time.perf_counter() - load_started

    started = time.perf_counter()
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    pieces = [t[c.start : c.end] for t in texts for c in chunk_text(t, settings.chunk_target_chars)]
    entities = sum(len(doc.ents) for doc in nlp.pipe(pieces, batch_size=settings.spacy_batch_size))
    embed_texts(pieces)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "load_seconds": load_seconds, "words": sum(len(t.split()) for t in texts),
            "chunks": len(pieces), "entities": entities, "peak_rss_mb": peak_rss_mb()}


def measure_pipeline(files: list[Path]) -> dict:
    upload = Path(tempfile.mkdtemp(prefix="subtext-bench-"))
    owner = f"bench-{os.getpid()}"
    os.environ["SUBTEXT_UPLOAD_DIR"] = str(upload)
    os.environ["SUBTEXT_OWNER"] = owner
    folder = upload / "corpus"
    folder.mkdir()
    for f in files:
        (folder / f.name).write_bytes(f.read_bytes())

    from graph_schema import db
    from graph_schema.embedding import embed_texts
    from graph_schema.queries.owners import delete_owner_batch
    from graph_schema.settings import get_settings
    from pipeline.extract import load_nlp
    from pipeline.resources import ProgressReporter
    from pipeline.run import ingest_paths

    class StageClock(ProgressReporter):
        def __init__(self) -> None:
            self.started: dict[str, float] = {}
            self.seconds: dict[str, float] = {}

        def stage(self, name: str, done: int, total: int) -> None:
            now = time.perf_counter()
            self.started.setdefault(name, now)
            if done >= total:
                self.seconds[name] = now - self.started[name]

    load_started = time.perf_counter()
    load_nlp()
    embed_texts(["warm up"])
    load_seconds = time.perf_counter() - load_started

    clock = StageClock()
    started = time.perf_counter()
    report = ingest_paths([folder], progress=clock)
    seconds = time.perf_counter() - started

    with db.open_driver(get_settings()) as driver:
        while db.write(driver, delete_owner_batch, owner):
            pass
    words = sum(len(f.read_text(encoding="utf-8", errors="replace").split()) for f in files)
    return {"seconds": seconds, "load_seconds": load_seconds, "words": words,
            "ingested": report.count("ingested"), "failed": report.count("failed"),
            "stages": {k: round(v, 2) for k, v in clock.seconds.items()}, "peak_rss_mb": peak_rss_mb()}


def run_part(part: str, docs: int | None, corpus: Path) -> dict:
    """One measurement in a fresh interpreter; returns its JSON result."""
    command = [sys.executable, __file__, "--part", part, "--corpus", str(corpus)]
    if docs:
        command += ["--docs", str(docs)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"the {part} measurement failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=None, help="Use the first N documents (default: all).")
    parser.add_argument("--repeat", type=int, default=1, help="Measurements per side; medians are printed.")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--part", choices=["raw", "pipeline"], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.part:
        files = corpus_files(args.corpus, args.docs)
        result = measure_raw(files) if args.part == "raw" else measure_pipeline(files)
        result["documents"] = len(files)
        print(json.dumps(result))
        return

    subprocess.run([str(Path(sys.executable).parent / "subtext"), "neo4j", "start"], check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    files = corpus_files(args.corpus, args.docs)
    print(f"corpus: {len(files)} documents from {args.corpus}, {args.repeat} run(s) per side, alternating")
    results: dict[str, list[dict]] = {"raw": [], "pipeline": []}
    for _ in range(args.repeat):
        for part in ("raw", "pipeline"):
            results[part].append(run_part(part, args.docs, args.corpus))

    def median(part: str, field: str) -> float:
        return statistics.median(r[field] for r in results[part])

    print(f"{'':10}{'docs/s':>10}{'words/s':>11}{'seconds':>10}{'model load s':>14}{'peak RSS MB':>13}")
    for part in ("raw", "pipeline"):
        seconds = median(part, "seconds")
        documents, words = results[part][0]["documents"], results[part][0]["words"]
        print(f"{part:10}{documents / seconds:>10.2f}{words / seconds:>11.0f}{seconds:>10.1f}"
              f"{median(part, 'load_seconds'):>14.1f}{median(part, 'peak_rss_mb'):>13.0f}")
    ratio = median("raw", "seconds") / median("pipeline", "seconds")
    print(f"pipeline / raw throughput: {ratio:.2f}  (target >= 0.80)")
    stages = results["pipeline"][-1]["stages"]
    print("pipeline stages (last run, s): " + ", ".join(f"{k} {v}" for k, v in stages.items()))
    print(f"raw: {results['raw'][-1]['chunks']} chunks, {results['raw'][-1]['entities']} entities; "
          f"pipeline: {results['pipeline'][-1]['ingested']} ingested, {results['pipeline'][-1]['failed']} failed")


if __name__ == "__main__":
    main()

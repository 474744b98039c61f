"""Bulk ingest against the raw limit, side by side in one run.

    .venv/bin/python bench/ingest_bench.py [--docs N] [--repeat R] [--corpus DIR]

Two measurements over the same documents (the PEP corpus by default), each in a fresh
subprocess so that peak RSS is its own, and each with its models loaded before the clock starts:

  pipeline  `subtext ingest`'s path: a Dagster run of all four assets (parse, extract,
            resolve, merge into Neo4j), then the brief, into an empty graph of its own. While
            it runs, every text the pipeline hands to spaCy and to the embedder is recorded.
  raw       exactly that model work and nothing else, replayed from the recording: spaCy's
            `nlp.pipe` over the same chunks with the same batch size, on one thread, beside
            the embedder over the entity contexts extraction embedded on its second thread
            (the same overlap the pipeline has); then the embedder calls the pipeline made
            after (the kind classifier's names, resolution, the pages' vectors), in order.

So the ratio raw / pipeline is the share of the run that is model work; the rest is the
pipeline's own cost (rules, Dagster, Neo4j). The pipeline runs first in each repeat, since raw
replays its recording. It prints documents/s, words/s and peak RSS for each (medians over the
repeats) and the pipeline's time per stage. It needs the local Neo4j (started when it is not
running) and writes only to owners named bench-*.
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


def measure_raw(files: list[Path], recording: Path) -> dict:
    import threading

    from pipeline.embedding import embed_texts
    from pipeline.extract import load_nlp

    model_work = json.loads(recording.read_text())
    load_started = time.perf_counter()
    nlp = load_nlp()
    embed_texts(["warm up"])
    load_seconds = time.perf_counter() - load_started

    def alongside() -> None:  # extraction's second thread: the entity contexts, batch by batch
        for texts in model_work["embed_alongside"]:
            embed_texts(texts)

    started = time.perf_counter()
    thread = threading.Thread(target=alongside)
    thread.start()
    entities = sum(len(doc.ents) for doc in nlp.pipe(model_work["spacy"], batch_size=model_work["spacy_batch_size"]))
    thread.join()
    for texts in model_work["embed_after"]:
        embed_texts(texts)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "load_seconds": load_seconds,
            "words": sum(len(f.read_text(encoding="utf-8", errors="replace").split()) for f in files),
            "chunks": len(model_work["spacy"]), "entities": entities,
            "embedded": sum(map(len, model_work["embed_alongside"] + model_work["embed_after"])),
            "peak_rss_mb": peak_rss_mb()}


class ModelWorkRecorder:
    """Records the texts the pipeline hands to spaCy and to the embedder, as they are consumed."""

    def __init__(self) -> None:
        self.spacy: list[str] = []
        self.spacy_batch_size = 0
        self.embed_alongside: list[list[str]] = []
        self.embed_after: list[list[str]] = []

    def install(self) -> None:
        import threading

        import spacy.language

        from pipeline.embedding import _model

        recorder = self
        original_pipe = spacy.language.Language.pipe

        def pipe(nlp, texts, *args, **kwargs):
            def tapped():
                for item in texts:
                    text = item[0] if kwargs.get("as_tuples") else item
                    if isinstance(text, str):  # with as_tuples, spaCy calls pipe again on the Docs it made
                        recorder.spacy.append(text)
                    yield item
            recorder.spacy_batch_size = kwargs.get("batch_size") or recorder.spacy_batch_size
            yield from original_pipe(nlp, tapped(), *args, **kwargs)

        spacy.language.Language.pipe = pipe
        model = _model()
        original_encode = model.encode

        def encode(texts, *args, **kwargs):
            alongside = threading.current_thread().name.startswith("subtext-embed")
            (recorder.embed_alongside if alongside else recorder.embed_after).append(list(texts))
            return original_encode(texts, *args, **kwargs)

        model.encode = encode

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"spacy": self.spacy, "spacy_batch_size": self.spacy_batch_size,
                                    "embed_alongside": self.embed_alongside, "embed_after": self.embed_after}))


def measure_pipeline(files: list[Path], recording: Path) -> dict:
    upload = Path(tempfile.mkdtemp(prefix="subtext-bench-"))
    owner = f"bench-{os.getpid()}"
    os.environ["SUBTEXT_UPLOAD_DIR"] = str(upload)
    os.environ["SUBTEXT_OWNER"] = owner
    folder = upload / "corpus"
    folder.mkdir()
    for f in files:
        (folder / f.name).write_bytes(f.read_bytes())

    from graph_schema import db
    from pipeline.embedding import embed_texts
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

    recorder = ModelWorkRecorder()
    recorder.install()  # after the warm-up: only the run's own model work is recorded
    clock = StageClock()
    started = time.perf_counter()
    report = ingest_paths([folder], progress=clock)
    seconds = time.perf_counter() - started
    recorder.save(recording)

    with db.open_driver(get_settings()) as driver:
        while db.write(driver, delete_owner_batch, owner):
            pass
    words = sum(len(f.read_text(encoding="utf-8", errors="replace").split()) for f in files)
    return {"seconds": seconds, "load_seconds": load_seconds, "words": words,
            "ingested": report.count("ingested"), "failed": report.count("failed"),
            "stages": {k: round(v, 2) for k, v in clock.seconds.items()}, "peak_rss_mb": peak_rss_mb()}


def run_part(part: str, docs: int | None, corpus: Path, recording: Path) -> dict:
    """One measurement in a fresh interpreter; returns its JSON result."""
    command = [sys.executable, __file__, "--part", part, "--corpus", str(corpus), "--recording", str(recording)]
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
    parser.add_argument("--recording", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.part:
        files = corpus_files(args.corpus, args.docs)
        result = measure_raw(files, args.recording) if args.part == "raw" else measure_pipeline(files, args.recording)
        result["documents"] = len(files)
        print(json.dumps(result))
        return

    subprocess.run([str(Path(sys.executable).parent / "subtext"), "neo4j", "start"], check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    files = corpus_files(args.corpus, args.docs)
    print(f"corpus: {len(files)} documents from {args.corpus}, {args.repeat} run(s) per side, the pipeline first (raw replays its model work)")
    results: dict[str, list[dict]] = {"raw": [], "pipeline": []}
    with tempfile.TemporaryDirectory(prefix="subtext-bench-") as folder:
        recording = Path(folder) / "model-work.json"
        for _ in range(args.repeat):
            for part in ("pipeline", "raw"):  # raw replays what the pipeline's run recorded
                results[part].append(run_part(part, args.docs, args.corpus, recording))

    def median(part: str, field: str) -> float:
        return statistics.median(r[field] for r in results[part])

    print(f"{'':10}{'docs/s':>10}{'words/s':>11}{'seconds':>10}{'model load s':>14}{'peak RSS MB':>13}")
    for part in ("raw", "pipeline"):
        seconds = median(part, "seconds")
        documents, words = results[part][0]["documents"], results[part][0]["words"]
        print(f"{part:10}{documents / seconds:>10.2f}{words / seconds:>11.0f}{seconds:>10.1f}"
              f"{median(part, 'load_seconds'):>14.1f}{median(part, 'peak_rss_mb'):>13.0f}")
    ratio = median("raw", "seconds") / median("pipeline", "seconds")
    print(f"pipeline / raw throughput: {ratio:.2f}  (target >= 0.80; raw is the pipeline's own model work)")
    stages = results["pipeline"][-1]["stages"]
    outside = results["pipeline"][-1]["seconds"] - sum(stages.values())
    print("pipeline stages (last run, s): " + ", ".join(f"{k} {v}" for k, v in stages.items())
          + f"; outside them (Dagster's run and its events, the stage store, the brief) {outside:.1f}")
    print(f"raw: {results['raw'][-1]['chunks']} chunks, {results['raw'][-1]['entities']} entities, "
          f"{results['raw'][-1]['embedded']} texts embedded; "
          f"pipeline: {results['pipeline'][-1]['ingested']} ingested, {results['pipeline'][-1]['failed']} failed")


if __name__ == "__main__":
    main()

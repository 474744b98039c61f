"""Where extraction's time goes: `extract_documents` over a corpus, with real spaCy and MiniLM, no caches.

    .venv/bin/python bench/extract_profile.py [--corpus DIR] [--repeat R] [--profile FILE] [--dump FILE]

Prints, for each repeat, extract's seconds and every embedder call (how many texts, how many
distinct, seconds), then the median. The first repeat can be kept as a cProfile (`--profile`;
it sees the main thread only: the context embedder's thread shows as the wait in `finish`) and
its output as JSON lines (`--dump`), to check that a change leaves the output as it was.
Models are loaded before the clock starts; documents are parsed afresh for every repeat.
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import time
from pathlib import Path

from graph_schema.settings import get_settings
from pipeline.embedding import embed_texts
from pipeline.extract import extract_documents, load_nlp
from pipeline.parse import parse_document

ROOT = Path(__file__).resolve().parent.parent


class TimedEmbedder:
    """The real embedder, recording each call: (texts, distinct texts, seconds)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, float]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        vectors = embed_texts(texts)
        self.calls.append((len(texts), len(set(texts)), time.perf_counter() - started))
        return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "data" / "gum" / "docs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="Write the first repeat's cProfile here.")
    parser.add_argument("--dump", type=Path, help="Write the first repeat's extracted documents here (JSON lines).")
    args = parser.parse_args()

    settings = get_settings()
    paths = sorted(p for p in args.corpus.iterdir() if p.is_file())
    nlp = load_nlp()
    embed_texts(["warm up"])
    seconds = []
    for repeat in range(args.repeat):
        parsed = [parse_document(p, p.name, "bench", settings) for p in paths]
        embedder = TimedEmbedder()
        profile = cProfile.Profile() if repeat == 0 and args.profile else None
        started = time.perf_counter()
        if profile:
            profile.enable()
        extracted = extract_documents(parsed, nlp=nlp, embed=embedder)
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
        seconds.append(time.perf_counter() - started)
        if repeat == 0 and args.dump:
            args.dump.write_text("".join(e.model_dump_json() + "\n" for e in extracted))
        calls = ", ".join(f"{n}/{d} {s:.1f}s" for n, d, s in embedder.calls)
        print(f"repeat {repeat + 1}: extract {seconds[-1]:.2f} s; embedder calls (texts/distinct seconds): {calls}; "
              f"{sum(n for n, _, _ in embedder.calls)} texts", flush=True)
    print(f"{len(paths)} documents from {args.corpus}; extract median {statistics.median(seconds):.2f} s "
          f"over {args.repeat} ({', '.join(f'{s:.2f}' for s in seconds)})")


if __name__ == "__main__":
    main()

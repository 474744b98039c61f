"""A fast tuning loop for extraction and resolution: parse → extract → resolve in memory, then score.

`subtext quality` is the figure of record (the real pipeline through Dagster into Neo4j). This
runs the same functions without the database: one batch into an empty graph resolves exactly as
the quality run's one batch does (the vector index only holds stored pages, and there are none),
and page merges are applied as the merge stage applies them. spaCy's output and the embeddings
are cached on disk by text, so a change to the rules after extraction is scored in seconds.

    .venv/bin/python bench/quick_entities.py ../shared/corpora/gum [--kinds person,organisation] [--explain]

It prints the scorer's figures and writes the predictions to $QUICK_CACHE/predicted.<corpus>.jsonl.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import time
from pathlib import Path

from graph_schema.settings import get_settings
from pipeline.embedding import embed_texts
from pipeline.entity_quality import find_scorer, run_scorer
from pipeline.extract import extract_documents, load_nlp
from pipeline.parse import parse_document
from pipeline.resolve import resolve_documents

CACHE = Path(os.environ.get("QUICK_CACHE", "/tmp/subtext-quick-cache"))  # one per worktree when several tune at once


class CachedNlp:
    """spaCy's `pipe` with each chunk's Doc kept on disk, keyed by the pipeline and the text."""

    def __init__(self) -> None:
        self.nlp = load_nlp()
        self.tag = hashlib.sha1(repr((self.nlp.meta.get("name"), self.nlp.meta.get("version"), self.nlp.pipe_names)).encode()).hexdigest()[:10]
        self.path = CACHE / f"docs-{self.tag}.pickle"
        self.store: dict[str, bytes] = pickle.loads(self.path.read_bytes()) if self.path.exists() else {}

    def pipe(self, work, as_tuples=True, batch_size=32):
        from spacy.tokens import Doc

        work = list(work)
        todo = [text for text, _ in work if self._key(text) not in self.store]
        for doc in self.nlp.pipe(todo, batch_size=batch_size):
            self.store[self._key(doc.text)] = doc.to_bytes(exclude=["tensor", "user_data"])
        if todo:
            CACHE.mkdir(exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.store))
        for text, context in work:
            yield Doc(self.nlp.vocab).from_bytes(self.store[self._key(text)]), context

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()


class CachedEmbedder:
    def __init__(self) -> None:
        self.path = CACHE / "vectors.pickle"
        self.store: dict[str, list[float]] = pickle.loads(self.path.read_bytes()) if self.path.exists() else {}
        self.added = 0

    def __call__(self, texts: list[str]) -> list[list[float]]:
        todo = sorted({t for t in texts if t not in self.store})
        if todo:
            for text, vector in zip(todo, embed_texts(todo), strict=True):
                self.store[text] = vector
            self.added += len(todo)
        return [self.store[t] for t in texts]

    def save(self) -> None:
        if self.added:
            CACHE.mkdir(exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.store))


def resolve_in_memory(paths: list[Path]) -> tuple[list, dict[str, str], dict[str, str], int, float]:
    """Resolve `paths` as one batch into an empty graph: (resolved documents, final page of each slug,
    kind of each page, words, seconds spent in extract + resolve)."""
    settings = get_settings()
    parsed = [parse_document(path, path.name, "quick", settings) for path in paths]
    embedder = CachedEmbedder()
    started = time.perf_counter()
    extracted = extract_documents(parsed, nlp=CachedNlp(), embed=embedder)
    resolved = resolve_documents(extracted, [], settings, embedder, None)
    seconds = time.perf_counter() - started
    embedder.save()
    folded: dict[str, str] = {}
    for document in resolved:
        for merge in document.page_merges:
            folded[merge.from_slug] = merge.into_slug
    kinds: dict[str, str] = {}
    for document in resolved:  # the first kind a page is created with is the kind it keeps
        for r in document.resolutions:
            kinds.setdefault(r.slug, r.kind.value)

    def final(slug: str) -> str:
        while slug in folded:
            slug = folded[slug]
        return slug

    finals = {r.slug: final(r.slug) for document in resolved for r in document.resolutions}
    return resolved, finals, kinds, sum(len(p.text.split()) for p in parsed), seconds


def resolve_one_at_a_time(paths: list[Path]) -> tuple[list, dict[str, str], dict[str, str], int, float]:
    """As `resolve_in_memory`, but each document is its own batch against the pages the earlier
    ones left, as when a person drops notes into the folder one by one. Pages are kept as the merge
    stage stores them (title, kind, the names other documents find them by); the vector lookup
    compares with each page's first context vector (the pipeline refreshes it from its facts); a
    page's kind follows what its documents read it as, as the merge stage does (kind_by_sources)."""
    import numpy as np

    from pipeline.merge import kind_by_sources

    from graph_schema.models import KnownPage

    settings = get_settings()
    nlp, embedder = CachedNlp(), CachedEmbedder()
    known: dict[str, KnownPage] = {}
    vectors: dict[str, np.ndarray] = {}
    finals: dict[str, str] = {}
    read: dict[str, list] = {}  # slug -> the kind each document read it as
    ruled: dict[str, list] = {}  # slug -> the kinds rules gave it
    together: dict[str, set[str]] = {}  # slug -> the pages named in the same documents (pages_named_with)

    def lookup(vector, kinds, limit):
        query = np.asarray(vector)
        scored = [(slug, known[slug].title, known[slug].kind, float(query @ v / (np.linalg.norm(query) * np.linalg.norm(v))))
                  for slug, v in vectors.items() if slug in known and known[slug].kind in kinds]
        return sorted(scored, key=lambda row: -row[3])[:limit]

    resolved_all, words, seconds = [], 0, 0.0
    for path in paths:
        parsed = parse_document(path, path.name, "quick", settings)
        words += len(parsed.text.split())
        started = time.perf_counter()
        extracted = extract_documents([parsed], nlp=nlp, embed=embedder)
        [document] = resolve_documents(extracted, list(known.values()), settings, embedder, lookup,
                                       lambda slug: together.get(slug, set()))
        seconds += time.perf_counter() - started
        read_here: dict[str, object] = {}
        ruled_here: dict[str, object] = {}
        for r in document.resolutions:
            if r.kind.value == "you":
                continue
            entity = document.extracted.entities[r.entity]
            read_here.setdefault(r.slug, entity.kind)
            if entity.kind_certain:
                ruled_here.setdefault(r.slug, entity.kind)
            page = known.setdefault(r.slug, KnownPage(slug=r.slug, title=r.title, kind=r.kind, name_keys=[]))
            page.name_keys += [k for k in r.name_keys if k not in page.name_keys]  # as plan_document_write stores them
            if r.embedding is not None and r.slug not in vectors:
                vectors[r.slug] = np.asarray(r.embedding)
        for merge in document.page_merges:
            gone = known.pop(merge.from_slug, None)
            if gone is not None and merge.into_slug in known:
                known[merge.into_slug].name_keys.extend(k for k in gone.name_keys if k not in known[merge.into_slug].name_keys)
            # a folded page's slug may name a new page later (the graph frees it): map every slug
            # folded so far to where its page is now, and the page merged into to itself
            finals.pop(merge.into_slug, None)
            for slug in [s for s, into in finals.items() if into == merge.from_slug]:
                finals[slug] = merge.into_slug
            finals[merge.from_slug] = merge.into_slug
            read.setdefault(merge.into_slug, []).extend(read.pop(merge.from_slug, []))
            ruled.setdefault(merge.into_slug, []).extend(ruled.pop(merge.from_slug, []))
        for slug, kind in read_here.items():
            by_rule = ruled_here.get(slug)
            slug = finals.get(slug, slug)
            read.setdefault(slug, []).append(kind)
            if by_rule is not None:
                ruled.setdefault(slug, []).append(by_rule)
            if slug in known and known[slug].kind.value not in ("you", "focus"):
                new = kind_by_sources(known[slug].kind, read[slug], settings.page_retype_min_sources, ruled.get(slug, []),
                                      settings.page_retype_rule_weight)
                if new is not None:
                    known[slug] = known[slug].model_copy(update={"kind": new})
        named = {finals.get(r.slug, r.slug) for r in document.resolutions if r.kind.value != "you"}
        for slug in named:
            together.setdefault(slug, set()).update(named - {slug})
        resolved_all.append(document)
    embedder.save()

    result = {r.slug: finals.get(r.slug, r.slug) for document in resolved_all for r in document.resolutions}
    kinds = {slug: page.kind.value for slug, page in known.items()}
    return resolved_all, result, kinds, words, seconds


def predictions(corpus: Path, limit: int | None = None, one_at_a_time: bool = False) -> tuple[list[dict], int, float]:
    names = sorted(json.loads(line)["doc"] for line in (corpus / "gold.jsonl").open() if line.strip())
    names = sorted(set(names))[:limit]
    resolve = resolve_one_at_a_time if one_at_a_time else resolve_in_memory
    resolved, finals, kinds, words, seconds = resolve([corpus / "docs" / n for n in names])
    out = []
    for document in resolved:
        entities = document.extracted.entities
        for r in document.resolutions:
            page = finals[r.slug]
            for m in entities[r.entity].mentions:
                out.append({"doc": document.extracted.parsed.key, "start": m.start, "end": m.end, "page": page,
                            "kind": kinds.get(page, r.kind.value)})
    return out, words, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--kinds", default="person,organisation")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--one-at-a-time", action="store_true", help="each document its own batch, as a folder fills")
    args = parser.parse_args()
    corpus = args.corpus.resolve()
    out, words, seconds = predictions(corpus, args.limit, args.one_at_a_time)
    path = CACHE / f"predicted.{corpus.name}.jsonl"
    CACHE.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(p) + "\n" for p in out))
    if args.explain:
        import subprocess

        subprocess.run([sys.executable, str(find_scorer(corpus)), str(corpus), str(path), "--kinds", args.kinds, "--explain"])
        return
    report = run_scorer(find_scorer(corpus), corpus, path, args.kinds.split(","))
    keep = ["recall", "recall_by_kind", "duplicate_page_rate", "multi_doc_duplicate_rate", "wrongly_merged_entity_rate",
            "merge_precision", "biggest_page"]
    print(json.dumps({k: report.get(k) for k in keep}), f"words {words} extract+resolve {seconds:.1f}s")


if __name__ == "__main__":
    main()

"""Vector search with a page's vector on the page (before issue 15 item 10) and on a node of its own
(now), on the same vectors in the same Neo4j, in one run.

    .venv/bin/python bench/page_vector_bench.py [--pages 10000] [--others 10000] [--calls 200]

Two scratch people get `--pages` pages each, one stored each way, with the same seeded random
unit vectors; `--others` pages of a third person crowd the index as other people's graphs do. Each
layout has its own vector index. Then `--calls` queries (new random vectors, the same for both
layouts, alternating) ask for the 10 nearest pages of the person, the way `search` and resolution
do. Prints p50 and p95 per layout and their ratio. The scratch people and the old-layout index are
deleted at the end. Runs on the Neo4j the settings name (`subtext neo4j start` for the local one).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graph_schema import db  # noqa: E402
from graph_schema.queries.owners import delete_owner_batch  # noqa: E402
from graph_schema.queries.schema import create_schema  # noqa: E402
from graph_schema.queries.search import VECTOR_OVERSAMPLE, nearest_pages  # noqa: E402
from graph_schema.settings import get_settings  # noqa: E402

OLD_INDEX = "bench_page_vector_on_page"
OLD_LABEL = "BenchOldPage"  # its own label, so the old-layout index holds the old-layout pages only
OLD_NEAREST = f"""
CALL db.index.vector.queryNodes('{OLD_INDEX}', $k, $vector) YIELD node, score
WITH collect({{node: node, score: 2 * score - 1}}) AS found
RETURN size(found) AS returned,
       [x IN found WHERE x.node.owner = $owner
        | {{slug: x.node.slug, title: x.node.title, kind: x.node.kind, body: x.node.body, score: x.score}}][..$limit] AS hits
"""
ADD_OLD = f"""
UNWIND $rows AS row
CREATE (p:{OLD_LABEL} {{owner: $owner, slug: row.slug, title: row.slug, kind: 'topic', body: '', embedding: row.v}})
"""
ADD_NEW = """
UNWIND $rows AS row
CREATE (:Page {owner: $owner, slug: row.slug, title: row.slug, kind: 'topic', body: ''})
       -[:HAS_VECTOR]->(:PageVector {owner: $owner, embedding: row.v})
"""


def _vectors(rng: np.random.Generator, count: int, dimensions: int) -> list[list[float]]:
    v = rng.standard_normal((count, dimensions)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).tolist()


def _fill(driver, statement: str, owner: str, vectors: list[list[float]]) -> None:
    for start in range(0, len(vectors), 1000):
        rows = [{"slug": f"p{start + i}", "v": v} for i, v in enumerate(vectors[start:start + 1000])]
        db.write(driver, lambda tx, rows=rows: tx.run(statement, owner=owner, rows=rows).consume())


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--others", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    settings = get_settings()
    dims = settings.embedding_dimensions
    rng = np.random.default_rng(7)
    mine, others = _vectors(rng, args.pages, dims), _vectors(rng, args.others, dims)
    queries = _vectors(rng, args.calls, dims)
    tag = uuid.uuid4().hex[:8]
    old_owner, new_owner, crowd = f"bench-old-{tag}", f"bench-new-{tag}", f"bench-crowd-{tag}"
    driver = db.open_driver(settings)
    create_schema(driver)
    with driver.session(database=settings.neo4j_database) as session:
        session.run(f"CREATE VECTOR INDEX {OLD_INDEX} IF NOT EXISTS FOR (p:{OLD_LABEL}) ON p.embedding OPTIONS "
                    f"{{indexConfig: {{`vector.dimensions`: {dims}, `vector.similarity_function`: 'cosine'}}}}").consume()
    try:
        _fill(driver, ADD_OLD, old_owner, mine)
        _fill(driver, ADD_OLD, crowd, others)
        _fill(driver, ADD_NEW, new_owner, mine)
        _fill(driver, ADD_NEW, crowd, others)
        db.write(driver, lambda tx: tx.run("CALL db.awaitIndexes(600)").consume())
        k = max(10 * VECTOR_OVERSAMPLE, 50)

        def old(vector: list[float]) -> list:
            return db.read(driver, lambda tx: tx.run(OLD_NEAREST, owner=old_owner, vector=vector, k=k,
                                                     limit=10).single()["hits"])

        def new(vector: list[float]) -> list:
            return db.read(driver, nearest_pages, new_owner, vector, 10)

        for vector in queries[:20]:  # warm-up: caches and query plans
            old(vector), new(vector)
        times: dict[str, list[float]] = {"vector on the page": [], "vector node": []}
        same = 0
        for vector in queries:
            a, b = old(vector), new(vector)
            same += [h["slug"] for h in a] == [h["slug"] for h in b]
            times["vector on the page"].append(_timed(lambda: old(vector)))
            times["vector node"].append(_timed(lambda: new(vector)))
        print(f"{args.pages} pages each layout, {args.others} other people's pages, {args.calls} queries (10 nearest)")
        for label, values in times.items():
            q = statistics.quantiles(values, n=20)
            print(f"  {label:20} p50 {statistics.median(values):6.2f} ms   p95 {q[18]:6.2f} ms")
        ratio = statistics.median(times["vector node"]) / statistics.median(times["vector on the page"])
        print(f"  ratio of medians (node / page): {ratio:.2f}; same 10 hits in {same} of {args.calls} queries")
    finally:
        for owner in (old_owner, new_owner, crowd):
            while db.write(driver, delete_owner_batch, owner, 5000):
                pass
        with driver.session(database=settings.neo4j_database) as session:
            session.run(f"DROP INDEX {OLD_INDEX} IF EXISTS").consume()
        driver.close()


if __name__ == "__main__":
    main()

"""Focus-area proposals (issue 19 item 6): Louvain against two other community algorithms of networkx on
the same person's link graph, in one run, and the whole proposal run beside the algorithm alone.

    .venv/bin/python bench/focus_proposals_bench.py [--runs 5]

Reads the configured person's RELATES_TO links (SUBTEXT_OWNER; `subtext neo4j start` for the local
Neo4j) and, for each algorithm, prints the median time over `--runs`, the partition's modularity and
how many groups have at least `focus_proposal_min_pages` pages. Then the median time of the full
`propose_focus_areas` (read, group, filter, write the open proposals under the write lock) and its
proposals. Nothing but the open proposals is written.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graph_schema import db  # noqa: E402
from graph_schema.queries.focus_proposals import thing_links  # noqa: E402
from graph_schema.settings import get_settings  # noqa: E402
from knowledge.focus_proposals import link_graph, page_groups, propose_focus_areas  # noqa: E402


def _median_ms(work: Callable[[], object], runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    settings = get_settings()
    driver = db.open_driver(settings)
    try:
        read_ms, links = _median_ms(lambda: db.read(driver, thing_links, settings.owner), args.runs)
        graph, _ = link_graph(links)
        print(f"{settings.owner}: {graph.number_of_nodes()} linked pages, {graph.number_of_edges()} links "
              f"(read in {read_ms:.0f} ms)")
        algorithms = {
            "louvain (split over max pages, as proposed)": lambda: page_groups(graph, set(graph.nodes), settings),
            "label propagation": lambda: [set(c) for c in nx.community.label_propagation_communities(graph)],
            "greedy modularity": lambda: [set(c) for c in nx.community.greedy_modularity_communities(graph, weight="weight")],
        }
        print(f"{'algorithm':45} {'median ms':>10} {'modularity':>11} {'groups':>7} {'>= min pages':>13}")
        for name, run in algorithms.items():
            ms, groups = _median_ms(run, args.runs)
            covered = set().union(*groups)
            partition = list(groups) + [{n} for n in graph.nodes if n not in covered]  # dropped broad groups as singletons
            modularity = nx.community.modularity(graph, partition, weight="weight")
            big = sum(len(g) >= settings.focus_proposal_min_pages for g in groups)
            print(f"{name:45} {ms:10.1f} {modularity:11.3f} {len(groups):7d} {big:13d}")
        ms, proposals = _median_ms(lambda: db.write(driver, propose_focus_areas, settings.owner, settings), args.runs)
        print(f"\nfull proposal run (read, group, filter, write): median {ms:.0f} ms, {len(proposals)} proposals")
        for proposal in proposals:
            print(f"  {proposal.title!r}: {len(proposal.pages)} pages; {proposal.evidence}")
    finally:
        driver.close()


if __name__ == "__main__":
    main()

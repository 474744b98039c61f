"""Entity finding, typing and resolution on body text nobody here wrote, through the real pipeline.

Fixed subsets of the two tuning corpora (tests/data/gum: 27 GUM documents of every genre;
tests/data/softner: 83 StackOverflow threads) are ingested by `run_entity_quality`, exactly as
`subtext quality` does for the full corpora, and judged by the corpus's own scorer. The floors are
the figures this commit reaches on the subsets (see the README's quality table for the full
corpora beside them); issue 13's targets are higher, and each floor is raised as they are met.
"""

from __future__ import annotations

import pytest

from graph_schema.settings import PROJECT_ROOT
from pipeline.entity_quality import format_entity_scores
from pipeline.quality_run import run_entity_quality

DATA = PROJECT_ROOT / "tests" / "data"


@pytest.fixture()
def quality_owner(graph):
    """The test's own owner; `graph` restores the owner and upload folder that the quality run sets."""
    return graph["owner"]


def test_gum_people_and_organisations(quality_owner):
    [score] = run_entity_quality(DATA / "gum", quality_owner, [["person", "organisation"]])
    print(format_entity_scores([score]))  # shown with -s, and in the CI log on failure
    report = score.report

    assert score.documents == 27
    assert report["recall"] >= 0.77  # issue 13's target: 0.75
    assert report["duplicate_page_rate"] <= 0.05  # target 0.05
    assert report["wrongly_merged_entity_rate"] <= 0.05  # target 0.02: not met yet


def test_softner_software_names(quality_owner):
    tools, named = run_entity_quality(DATA / "softner", quality_owner, [["tool"], ["tool", "organisation", "person"]])
    print(format_entity_scores([tools, named]))

    assert tools.documents == 83
    assert tools.report["recall"] >= 0.55  # issue 13's target: 0.60 on the full corpus
    assert named.report["merge_precision"] >= 0.90

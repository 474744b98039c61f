"""Connections nobody wrote down (issue 19 item 2): pages named together in several documents but in
no one sentence get a suggested link, marked as subtext's with its evidence, never counted as a
stated link; link_pages confirms it. traverse, get_page and graph_snapshot show them to keys made
for the upkeep group on a server that offers it: to any other the ten tools answer as specified.

Real stack: notes ingested through Dagster into Neo4j, the tools over MCP (Streamable HTTP)."""

from __future__ import annotations

from fastmcp import Client

from graph_schema.queries.navigation import links_between
from pipeline.run import ingest_paths
from tests.conftest import make_key, write


def _suggested(graph) -> set[frozenset[str]]:
    with graph["driver"].session() as session:
        return {frozenset((r["a"], r["b"])) for r in session.run(
            "MATCH (a:Page {owner: $owner})-[:SUGGESTED_LINK]->(b:Page) RETURN a.slug AS a, b.slug AS b",
            owner=graph["owner"])}


async def test_pages_named_together_in_two_notes_get_a_suggested_link_that_link_pages_confirms(graph, served_with_upkeep):
    write(graph["upload"], "data/sync.md", "# Data sync\n\nRina Patel moved the nightly loads to Snowflake.\n\n"
                                           "The Airflow scheduler runs them at two.\n")
    write(graph["upload"], "data/costs.md", "# Cost review\n\nThe Snowflake bill doubled in October.\n\n"
                                            "Airflow retries too often, says the vendor.\n")
    write(graph["upload"], "hiring.md", "# Hiring\n\nOmar Haddad joins the data team in May.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    # Snowflake and Airflow: two notes, never one sentence. Rina and Snowflake share a sentence:
    # a stated link, no suggestion; Omar is named with neither.
    assert _suggested(graph) == {frozenset(("snowflake", "airflow"))}

    served = served_with_upkeep
    full = served.mcp(make_key(graph, "upkeep", upkeep=True))
    plain, area = served.mcp(make_key(graph, "plain")), served.mcp(make_key(graph, "data only", scope="focus:data", upkeep=True))
    async with Client(full) as client:
        path = (await client.call_tool("traverse", {"from_slug": "snowflake", "edge_type": "RELATES_TO"})).structured_content["path"]
        suggested = [step for step in path if step["suggested"]]
        assert [s["slug"] for s in suggested] == ["airflow"] and "named together in 2 documents" in suggested[0]["evidence"]
        assert {s["slug"] for s in path if not s["suggested"]} == {"rina-patel"}
        page = (await client.call_tool("get_page", {"slug": "airflow"})).structured_content["page"]
        assert [(l["page"]["slug"], l["suggested"]) for l in page["links"] if l["type"] == "RELATES_TO"] == [("snowflake", True)]
        snapshot = (await client.call_tool("graph_snapshot", {})).structured_content
        assert [(l["source"], l["target"]) for l in snapshot["suggested_links"]] == [("airflow", "snowflake")]
        assert ("airflow", "snowflake") not in {(l["source"], l["target"]) for l in snapshot["links"]}
    # a key not made for the upkeep group reads the ten tools as specified; a focus key's scope
    # holds only some of the notes a suggestion rests on
    for key in (plain, area):
        async with Client(key) as client:
            path = (await client.call_tool("traverse", {"from_slug": "snowflake", "edge_type": "RELATES_TO"})).structured_content["path"]
            assert not any(step["suggested"] for step in path)
            assert (await client.call_tool("graph_snapshot", {})).structured_content["suggested_links"] == []
            links = (await client.call_tool("get_page", {"slug": "airflow"})).structured_content["page"]["links"]
            assert not any(link["suggested"] for link in links)

    # a note that states the link answers the suggestion
    write(graph["upload"], "data/plan.md", "# Plan\n\nAirflow will load Snowflake every hour from March.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} >= {"ingested"}
    assert _suggested(graph) == set()
    [link] = graph["db"].read(graph["driver"], links_between, graph["owner"], "airflow", "snowflake")
    assert link["manual"] is False and len(link["sources"]) == 1


async def test_link_pages_confirms_a_suggestion_and_says_so_only_to_keys_that_see_it(graph, served_with_upkeep):
    write(graph["upload"], "data/sync.md", "# Data sync\n\nRina Patel moved the nightly loads to Snowflake.\n\n"
                                           "The Airflow scheduler runs them at two.\n")
    write(graph["upload"], "data/costs.md", "# Cost review\n\nThe Snowflake bill doubled in October.\n\n"
                                            "Airflow retries too often, says the vendor.\n")
    assert {o.status for o in ingest_paths([graph["upload"]]).outcomes} == {"ingested"}
    served = served_with_upkeep
    full, plain = served.mcp(make_key(graph, "upkeep", upkeep=True)), served.mcp(make_key(graph, "plain"))

    async with Client(plain) as client:  # found in review: the answer told any key that a suggestion was there
        answer = (await client.call_tool("link_pages", {"from_slug": "snowflake", "to_slug": "airflow"})).structured_content
        assert "Confirmed" not in answer["message"] and "Linked" in answer["message"]
    assert _suggested(graph) == set()
    graph["db"].write(graph["driver"], lambda tx: tx.run(
        "MATCH (:Page {owner: $o, slug: 'airflow'})-[r:RELATES_TO]-(:Page {slug: 'snowflake'}) DELETE r", o=graph["owner"]).consume())
    write(graph["upload"], "data/costs.md", "# Cost review\n\nThe Snowflake bill doubled in November.\n\n"
                                            "Airflow retries too often, says the vendor.\n")
    ingest_paths([graph["upload"]])  # the changed note works the suggestion out again
    assert _suggested(graph) == {frozenset(("snowflake", "airflow"))}
    async with Client(full) as client:
        answer = (await client.call_tool("link_pages", {"from_slug": "snowflake", "to_slug": "airflow"})).structured_content
        assert "Confirmed the suggested link" in answer["message"]
        path = (await client.call_tool("traverse", {"from_slug": "snowflake", "edge_type": "RELATES_TO"})).structured_content["path"]
        assert {(s["slug"], s["suggested"]) for s in path} == {("rina-patel", False), ("airflow", False)}
    assert _suggested(graph) == set()
    [link] = graph["db"].read(graph["driver"], links_between, graph["owner"], "airflow", "snowflake")
    assert link["manual"] is True and link["sources"] == []

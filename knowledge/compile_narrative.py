"""A deep narrative compile as prose, written by the optional LLM from the package's facts only.

`compile(depth="deep", shape="narrative")` gathers and renders its package without an LLM, as
always. With one configured, the model is also shown the package's facts as numbered statements
(the target's, then each item's, each with its page) and writes a few sentences, each citing the
statements it rests on; a sentence citing nothing, or a number that is no statement, is dropped
whole (knowledge.brief_narrative.traceable_sentences). The prose is written once per gathered
package, so it is cached with it until the graph version moves. Other depths and shapes never
call the model.
"""

from __future__ import annotations

from graph_schema.settings import Settings
from knowledge.brief_narrative import narrate
from knowledge.compile import one_line
from knowledge.llm import LlmClient
from knowledge.types import CompiledPackage, NarrativeStatement

_TASK = ("You brief an AI assistant on one part of a person's knowledge graph, for the task they describe. Write a "
         "few plain sentences on what matters for it. Use only the numbered statements you are given; add nothing "
         "they do not say. End each sentence's 'statements' with the numbers of the statements it rests on.")


def package_statements(package: CompiledPackage, limit: int) -> list[NarrativeStatement]:
    """At most `limit` of the package's facts, in its own order: the target's, then each item's."""
    found = [NarrativeStatement(slug=package.target.slug, text=f"{package.target.title}: {one_line(f.text)}")
             for f in package.target_facts]
    for item in package.items:
        found += [NarrativeStatement(slug=item.slug, text=f"{item.title}: {one_line(f.text)}") for f in item.facts]
    return found[:limit]


def narrate_package(package: CompiledPackage, client: LlmClient, settings: Settings) -> None:
    """Write the package's narrative (and the statements it cites) onto it, once."""
    package.narrated = True
    statements = package_statements(package, settings.llm_compile_max_statements)
    if not statements:
        return
    task = _TASK + (f"\n\nThe task: {package.intent}" if package.intent else "")
    prose = narrate(task, [s.text for s in statements], client, settings, settings.deep_compile_token_budget,
                    "no sentence of the compile narrative cited one of its statements")
    if prose:
        package.narrative, package.narrative_statements = prose, statements

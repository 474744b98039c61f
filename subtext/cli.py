"""The `subtext` command: the person's entry point to the local graph, the pipeline and the server."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from graph_schema.errors import SubtextError
from graph_schema.settings import PROJECT_ROOT, get_settings
from subtext.access_cli import keys_app, people_app
from subtext.focus_cli import focus_app
from subtext.graph import console, counted, fail, open_graph, print_table
from subtext.local_neo4j import ensure_graph_server

app = typer.Typer(help="subtext: a self-hosted context graph for AI assistants.", no_args_is_help=True)
neo4j_app = typer.Typer(help="Manage the local Neo4j server (the embedded default).", no_args_is_help=True)
app.add_typer(neo4j_app, name="neo4j")
app.add_typer(people_app, name="people")
app.add_typer(people_app, name="users", hidden=True)  # the name before 'people'; scripts may still use it
app.add_typer(keys_app, name="keys")
pages_app = typer.Typer(help="Correct your pages by hand: later runs keep what you set.", no_args_is_help=True)
app.add_typer(pages_app, name="pages")
app.add_typer(focus_app, name="focus")
out = Console()

SAMPLES = PROJECT_ROOT / "samples" / "uploads"


def _local():
    from subtext.local_neo4j import LocalNeo4j

    return LocalNeo4j(get_settings())


# ------------------------------------------------------------------------------- neo4j


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j and wait until Bolt answers (a no-op when it already runs)."""
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        console.print(f"NEO4J_URI is set ({settings.neo4j_uri}); subtext uses that server and starts none.")
        return
    local = _local()
    try:
        started = time.perf_counter()
        fresh = local.start()
    except SubtextError as e:
        fail(e)
    state = f"started in {time.perf_counter() - started:.1f} s" if fresh else "already running"
    out.print(f"Neo4j {state}.")
    out.print(f"  Bolt:     {local.bolt_address}")
    out.print(f"  Browser:  {local.browser_address}")
    out.print("  User:     neo4j")
    out.print(f"  Password: {local.password()}   (kept in {local.password_file})")


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly."""
    out.print("Neo4j stopped." if _local().stop() else "Neo4j was not running.")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs and where."""
    settings = get_settings()
    if not settings.uses_embedded_neo4j:
        out.print(f"Using your Neo4j at {settings.neo4j_uri} (NEO4J_URI).")
        return
    local = _local()
    pid = local.pid()
    if pid and local.bolt_open():
        out.print(f"Neo4j runs (pid {pid}) at {local.bolt_address}; Browser at {local.browser_address}")
    else:
        out.print("Neo4j is not running. Start it with `subtext neo4j start`.")
        raise typer.Exit(code=3)


# ------------------------------------------------------------------------------- graph


@app.command()
def init() -> None:
    """Create the graph's constraints and indexes and the person's `you` page (idempotent)."""
    with open_graph(ready=True):
        out.print("Graph schema ready: constraints, full-text and vector indexes, and the `you` page.")


class _RichProgress:
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, int] = {}

    def stage(self, name: str, done: int, total: int) -> None:
        if name not in self.tasks:
            self.tasks[name] = self.progress.add_task(name, total=max(total, 1))
        self.progress.update(self.tasks[name], completed=done, total=max(total, 1))


@app.command()
def ingest(paths: list[Path] = typer.Argument(..., help="Files or folders; outside ones are copied into the upload folder.")) -> None:
    """Run the pipeline (through Dagster, in this process) on documents, then refresh the brief."""
    from pipeline.run import ingest_paths

    try:
        ensure_graph_server(say=console.print)
        with Progress(
            TextColumn("{task.description:>8}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
        ) as progress:
            report = ingest_paths(paths, progress=_RichProgress(progress))
    except SubtextError as e:
        fail(e)
    print_table(out, ["document", "status", "pages new", "pages updated", "facts added", "reason"],
                [[o.key, o.status, str(len(o.pages_created)), str(len(o.pages_updated)), str(o.facts_added), o.reason or ""]
                 for o in report.outcomes])
    out.print(
        f"{report.count('ingested')} ingested, {report.count('unchanged')} unchanged, {report.count('failed')} failed; "
        f"brief {'rebuilt' if report.brief_rebuilt else 'unchanged'}. Dagster runs: {', '.join(r[:8] for r in report.run_ids)}"
    )
    if report.count("failed"):
        raise typer.Exit(code=2)


@app.command()
def status(
    everyone: bool = typer.Option(False, "--everyone", help="Every person's graph, not only SUBTEXT_OWNER's."),
) -> None:
    """The graph database, the person's documents (failed and truncated ones with the reason) and
    the latest Dagster runs. Exits 1 when the graph database cannot be reached."""
    from graph_schema import db
    from knowledge.status import everyone_status, owner_status
    from pipeline.run import dagster_instance
    from pipeline.run_history import recent_runs

    settings = get_settings()
    database_error = None
    try:
        with db.open_driver(settings, interactive=True) as driver:
            agent = db.check_connection(driver)
            shown = settings.status_problems_shown
            people = (db.read(driver, everyone_status, shown) if everyone
                      else [db.read(driver, owner_status, settings.owner, settings.owner_name, shown)])
        out.print(f"Neo4j: up at {settings.bolt_uri} ({agent})")
        for person in people:
            sources = ", ".join(f"{n} {status}" for status, n in sorted(person.sources.items())) or "no documents yet"
            out.print(
                f"\n[bold]{person.name}[/bold] ({person.owner}): {counted(person.pages, 'page')}, "
                f"{counted(person.facts, 'fact')}; "
                f"documents: {sources}" + (f"; {person.truncated} truncated" if person.truncated else "")
                + f"; graph version {person.graph_version}, brief {'current' if person.brief_current else 'out of date'}"
            )
            for problem in person.problems:
                out.print(f"  {problem.status:<9} {problem.key}: {problem.reason}", highlight=False)
            shown = len(person.problems)
            total = person.sources.get("failed", 0) + person.truncated
            if total > shown:
                out.print(f"  … and {total - shown} more (SUBTEXT_STATUS_PROBLEMS_SHOWN)")
    except SubtextError as e:
        database_error = e
        out.print(f"Neo4j: unavailable at {settings.bolt_uri}. {e}")
    runs = recent_runs(dagster_instance(settings), settings.status_runs_shown)
    out.print("\nLatest Dagster runs (`subtext dagster` shows them all):" if runs else "\nNo Dagster runs yet.")
    for run in runs:
        started = f"{run.started_at:%Y-%m-%d %H:%M:%S}" if run.started_at else "not started"
        # a run without documents (launched by hand in the UI over no partition) says which job it was
        line = f"  {run.status:<9} {started}  {run.run_id[:8]}  {run.documents or f'{run.job} (no documents)'}"
        out.print(line + (f"\n            {run.failure}" if run.failure else "")
                  + (f"\n            {run.llm}" if run.llm else ""), markup=False, highlight=False)
    if database_error is not None:
        raise typer.Exit(code=1)


@app.command()
def brief() -> None:
    """Print the brief about the person (the cached one when the graph has not changed)."""
    from graph_schema import db
    from knowledge.brief import current_brief
    from pipeline.embedding import embed_texts_remembered

    from knowledge.llm import llm_client

    with open_graph() as driver, db.session(driver) as graph:
        view = current_brief(graph, get_settings().owner, embed_texts_remembered, llm_client(get_settings()))
    if view.narrative:  # an LLM's prose, each sentence citing the numbered statements under it
        out.print(view.narrative + "\n", markup=False, highlight=False)
        for number, line in enumerate(view.lines, start=1):
            out.print(f"[{number}] {line.text}", markup=False, highlight=False)
    else:  # text from documents: printed as it is, never read as Rich markup
        out.print(view.text, markup=False, highlight=False)
    if view.sources:
        out.print("\nWritten from: " + ", ".join(f"{s.title} ({s.kind.value}, {s.slug})" for s in view.sources),
                  markup=False, highlight=False, style="dim")


@app.command()
def demo() -> None:
    """The main job on the embedded default: start Neo4j, ingest the sample folder, print the brief."""
    started = time.perf_counter()
    ingest_started = None
    try:
        ensure_graph_server(say=console.print)
        ingest_started = time.perf_counter()
        ingest([SAMPLES])
    except typer.Exit as e:
        if e.exit_code not in (0, 2):
            raise
    out.rule("Brief")
    brief()
    if ingest_started:
        out.print(f"\n[dim]Done in {time.perf_counter() - started:.1f} s "
                  f"(ingest and brief {time.perf_counter() - ingest_started:.1f} s).[/dim]")
    out.print("[dim]Next: `subtext serve` for assistants, `subtext dagster` for the pipeline UI.[/dim]")


@pages_app.command("kind")
def pages_kind(
    slug: str = typer.Argument(..., help="The page's slug."),
    kind: str = typer.Argument(..., help="person, organisation, project, tool or topic."),
) -> None:
    """Set a page's kind (a database filed as a person: `subtext pages kind neo4j tool`); later runs keep it."""
    from graph_schema import db
    from knowledge.page_edits import correct_page_kind

    with open_graph() as driver:
        before, after = db.write(driver, correct_page_kind, get_settings().owner, slug, kind)
    if before is after:
        out.print(f"{slug} was already a {after.value}; it stays one from now on, whatever later documents suggest.")
    else:
        out.print(f"{slug} is now a {after.value} (it was a {before.value}); later runs keep it.")


@app.command()
def review(
    not_same: tuple[str, str] | None = typer.Option(
        None, "--not-same", metavar="SLUG OTHER_SLUG",
        help="Say two pages are different things: their pair closes and is never proposed again."),
    scan: bool = typer.Option(False, "--scan", help="First look for near-duplicates among the pages changed since "
                              "the last scan (the Dagster schedule scan_duplicates does this nightly)."),
    llm: bool = typer.Option(False, "--llm", help="First let the configured LLM (SUBTEXT_LLM_MODEL) judge the pairs "
                             "it has not seen: 'same' merges, 'different' closes the pair, 'unsure' leaves it here."),
) -> None:
    """List pages that may be one thing, with why (`subtext merge` folds one into the other)."""
    from graph_schema import db
    from knowledge.page_merges import list_review_pairs, mark_not_same

    settings = get_settings()
    if llm and not settings.llm_model:
        fail(SubtextError("No LLM is configured: set SUBTEXT_LLM_MODEL (see the README's 'Using an LLM'), "
                          "or review the pairs yourself without --llm."))
    with open_graph() as driver:
        if scan:
            from pipeline.duplicate_scan import scan_for_duplicates

            done = scan_for_duplicates(driver, settings.owner, settings)
            out.print(f"Scanned {counted(done.pages_scanned, 'page')} changed since the last scan: "
                      f"{counted(done.pairs_recorded, 'new pair')} to review.")
        if llm:
            from pipeline.stages import judge_review_pairs_with_llm

            verdicts, usage = judge_review_pairs_with_llm(settings.owner, settings, driver)
            for pair in verdicts.judged:
                outcome = f"merged into {pair.kept}" if pair.kept else pair.verdict
                # the model's words are printed as they are: never read as Rich markup
                out.print(f"{pair.slug} / {pair.other_slug}: {outcome}: {pair.reason}", markup=False, highlight=False)
            out.print(f"{settings.llm_model}: {counted(usage.calls, 'call')}, "
                      f"{usage.prompt_tokens + usage.completion_tokens:,} tokens"
                      + (f", {counted(usage.fallbacks, 'fallback')} ({'; '.join(usage.fallback_reasons)})"
                         if usage.fallbacks else ""), markup=False, highlight=False, style="dim")
        if not_same:
            closed = db.write(driver, mark_not_same, settings.owner, *not_same)
            out.print(f"{not_same[0]} and {not_same[1]} are different things; "
                      f"{'their pair is closed and ' if closed else ''}they will not be proposed as one again.")
            return
        pairs = db.read(driver, list_review_pairs, settings.owner, settings.review_max_pairs)
    if not pairs:
        out.print("No pages to review: resolution was sure of every name it placed.")
        return
    print_table(out, ["page", "may be", "score", "why"], [
        [f"{pair.page.slug} ({pair.page.kind.value}, {counted(pair.facts, 'fact')})",
         f"{pair.other.slug} ({pair.other.kind.value}, {counted(pair.other_facts, 'fact')})",
         f"{pair.score:.2f}", pair.evidence + (f"; the LLM was unsure: {pair.llm_reason}" if pair.llm_verdict else "")]
        for pair in pairs
    ])
    out.print("[dim]`subtext merge SLUG OTHER_SLUG` shows what folding one into the other moves; "
              "`subtext review --not-same SLUG OTHER_SLUG` closes a pair for good.[/dim]")


@app.command()
def merge(
    from_slug: str = typer.Argument(..., help="The page to fold away (its slug keeps reading the merged page)."),
    into_slug: str = typer.Argument(..., help="The page to keep."),
    apply: bool = typer.Option(False, "--apply", help="Do it; without this, only show what would move."),
) -> None:
    """Fold one page into another: its facts, mentions, links and names move over (a dry run unless --apply)."""
    from graph_schema import db
    from knowledge.page_merges import merge_pages, refresh_merged_vector
    from pipeline.embedding import embed_texts

    settings = get_settings()
    with open_graph() as driver:
        plan = db.write(driver, merge_pages, settings.owner, from_slug, into_slug, apply)
        if plan.applied:
            db.in_session(driver, refresh_merged_vector, settings.owner, plan.into_page.slug, settings, embed_texts)
    moved = (f"{counted(plan.facts, 'fact')}, the mentions of {counted(plan.sources, 'source')} and {counted(plan.links, 'link')}"
             + (f", and the names {', '.join(plan.new_aliases)}" if plan.new_aliases else ""))
    if plan.applied:
        out.print(f"Merged {plan.from_page.title!r} into {plan.into_page.title!r}: moved {moved}. "
                  f"The slug {plan.from_page.slug} now reads {plan.into_page.slug}.")
    else:
        out.print(f"Would merge {plan.from_page.title!r} ({plan.from_page.kind.value}) into "
                  f"{plan.into_page.title!r} ({plan.into_page.kind.value}), moving {moved}. "
                  "Nothing changed; run it again with --apply to do it.")


@app.command()
def conflicts(
    slug: str = typer.Argument(..., help="The page whose facts to compare."),
    limit: int = typer.Option(10, "--limit", min=1, help="Show at most this many pairs, the newest first."),
) -> None:
    """List facts about a page that disagree: different numbers or dates in the same place, or a negation."""
    from graph_schema import db
    from graph_schema.errors import InvalidRequest
    from graph_schema.queries.pages import page_refs
    from knowledge.compile import conflict_line
    from knowledge.contradictions import page_conflicts

    settings = get_settings()
    with open_graph() as driver:
        refs = db.read(driver, page_refs, settings.owner, [slug])
        if not refs:
            fail(InvalidRequest(f"No page has the slug {slug!r}. A slug is the page's title in lower case with "
                                "hyphens ('Project Harbour' is project-harbour); `subtext brief` names the main pages."))
        found = db.read(driver, page_conflicts, settings.owner, refs[0].slug, settings)
    if not found:
        out.print(f"No facts about {refs[0].title!r} disagree.")
        return
    out.print(f"{counted(len(found), 'pair')} of facts about {refs[0].title!r} disagree (newest first); "
              "nothing was changed, so decide which holds and edit the document that is wrong:")
    for conflict in found[:limit]:
        out.print(conflict_line(conflict), markup=False, highlight=False)


@app.command()
def recent(
    since: str = typer.Option(None, "--since", help="How far back: '7d', '2w', '12h' or a date such as 2026-11-01 (default: the latest, whenever)."),
    focus: str = typer.Option(None, "--focus", help="The slug of a focus area: only what was filed under it."),
    limit: int = typer.Option(20, "--limit", min=1, help="Show at most this many sources, newest first."),
) -> None:
    """List what changed lately: documents added, changed or deleted, files not read, prose assistants sent."""
    from graph_schema import db
    from graph_schema.errors import InvalidRequest
    from graph_schema.kinds import PageKind
    from graph_schema.queries.pages import page_refs
    from knowledge.activity import activity_line, recent_activity
    from knowledge.compile import parse_freshness

    settings = get_settings()
    try:
        cutoff = parse_freshness(since)
    except SubtextError as error:
        fail(error)
    with open_graph() as driver:
        if focus:
            refs = db.read(driver, page_refs, settings.owner, [focus])
            if not refs or refs[0].kind is not PageKind.FOCUS:
                fail(InvalidRequest(f"No focus area has the slug {focus!r}. A focus area is a folder of the upload "
                                    "folder; `subtext brief` names them."))
        items, total = db.read(driver, recent_activity, settings.owner, cutoff, focus, limit, settings)
    if not items:
        out.print("Nothing changed" + (f" since {cutoff:%Y-%m-%d %H:%M} UTC" if cutoff else "") + ".")
        return
    out.print(f"{counted(total, 'source')} changed" + (f" since {cutoff:%Y-%m-%d %H:%M} UTC" if cutoff else "")
              + (f" (showing the newest {len(items)})" if len(items) < total else "") + ", newest first:")
    for item in items:
        out.print(activity_line(item), markup=False, highlight=False)
        if item.latest_decision:
            out.print(f"    decided: {item.latest_decision}", markup=False, highlight=False)


@app.command("export")
def export_graph(
    path: Path = typer.Argument(..., help="The JSONL file to write ('-' for standard output)."),
) -> None:
    """Write the person's graph as JSON Lines: pages, sources, chunks, facts with spans, mentions, links."""
    from graph_schema import db
    from knowledge.transfer import write_export

    owner = get_settings().owner
    with open_graph() as driver, db.session(driver) as graph:
        if str(path) == "-":
            counts = write_export(graph, owner, sys.stdout)
        else:
            with path.open("w", encoding="utf-8") as handle:
                counts = write_export(graph, owner, handle)
    console.print("Exported " + ", ".join(f"{n} {t}s" for t, n in counts.items() if t != "meta") + f" to {path}.")


@app.command("import")
def import_graph(path: Path = typer.Argument(..., exists=True, dir_okay=False, help="A file `subtext export` wrote.")) -> None:
    """Load an export into the person's graph, which must be empty (set SUBTEXT_OWNER for a new one)."""
    from graph_schema import db
    from graph_schema.queries.schema import create_schema
    from knowledge.transfer import import_records, parse_records

    try:
        with path.open(encoding="utf-8") as handle:
            records = parse_records(handle, str(path))
    except SubtextError as e:
        fail(e)
    except UnicodeDecodeError:
        fail(SubtextError(f"{path} is not UTF-8 text; is it a file `subtext export` wrote?"))
    settings = get_settings()
    with open_graph() as driver:
        create_schema(driver)  # not ensure_ready: the import writes the person's Owner node and page in its one transaction
        with db.session(driver) as graph:
            counts = import_records(graph, settings.owner, settings.owner_name, records)
    out.print(f"Imported into {get_settings().owner!r}: " + ", ".join(f"{n} {t}s" for t, n in counts.items()) + ".")


SHARED_CORPORA = PROJECT_ROOT.parent / "shared" / "corpora"


def _corpus_folder(corpus: str) -> Path:
    """A folder, or a corpus name (peps, gum, softner): the full corpus beside the repository if
    it is there, else the subset kept with the tests."""
    given = Path(corpus)
    if given.is_dir():
        return given
    for candidate in (SHARED_CORPORA / corpus, PROJECT_ROOT / "tests" / "data" / corpus):
        if (candidate / "gold.jsonl").is_file():
            return candidate
    raise SubtextError(f"No corpus {corpus!r}: pass a folder holding gold.jsonl and docs/, or one of peps, gum, softner.")


@app.command()
def quality(
    corpus: str = typer.Option("peps", help="peps, gum, softner or a folder with gold.jsonl and docs/."),
    owner: str = typer.Option("", help="The graph the corpus is ingested into, emptied first (default quality-<corpus>)."),
    kinds: list[str] = typer.Option([], help="Kind sets to score, comma-separated, repeatable (default: person,organisation; SoftNER also tool)."),
) -> None:
    """Ingest a gold corpus into its own graph and print recall, duplicate pages and wrong merges.

    PEPs are scored on their header people; GUM-layout corpora (GUM, SoftNER) on every named
    mention in the body text, with the corpus's own scorer."""
    from pipeline.entity_quality import format_entity_scores, is_entity_corpus
    from pipeline.quality import format_report
    from pipeline.quality_run import run_entity_quality, run_quality

    try:
        folder = _corpus_folder(corpus)
        owner = owner or f"quality-{folder.name}"
        ensure_graph_server(say=console.print)
        if is_entity_corpus(folder):
            default = [["person", "organisation"], ["tool"]] if folder.name == "softner" else [["person", "organisation"]]
            kind_sets = [k.split(",") for k in kinds] or default
            out.print(format_entity_scores(run_entity_quality(folder, owner, kind_sets)))
        else:
            out.print(format_report(run_quality(folder, owner)))
    except SubtextError as e:
        fail(e)


# ------------------------------------------------------------------------------- serving


@app.command()
def serve(
    stdio: bool = typer.Option(False, "--stdio", help="Talk MCP over stdin/stdout (for Claude Desktop and the like)."),
    host: str = typer.Option(None, help="Address to listen on (default 127.0.0.1)."),
    port: int = typer.Option(None, help="Port to listen on (default 8765)."),
) -> None:
    """Serve the MCP tools over Streamable HTTP at /mcp, or over stdio."""
    from mcp_server.server import build_server

    settings = get_settings()
    if not stdio:
        try:
            ensure_graph_server(say=console.print)
        except SubtextError as e:
            fail(e)
    server = build_server(stdio=stdio)
    if stdio:
        server.run(transport="stdio", show_banner=False)
        return
    host = host or settings.mcp_host
    port = port or settings.mcp_port
    try:
        live_keys = _live_key_count()
    except SubtextError as e:
        fail(e)
    if live_keys == 0:
        if not _is_loopback(host):
            fail(SubtextError(
                f"Refusing to listen on {host}: no access keys exist, so nobody could use the server, and "
                "it would be reachable from other machines. Create a key with `subtext keys create NAME`, "
                "or serve on 127.0.0.1."
            ))
        console.print("No access keys yet: every request will get 401. Create one with `subtext keys create NAME`.")
    console.print(f"subtext MCP server on http://{host}:{port}/mcp (upload: POST http://{host}:{port}/api/upload)")
    import fastmcp

    from mcp_server.session_caps import session_middleware

    # the SDK closes idle sessions after the time the session caps count them for
    fastmcp.settings.http_session_idle_timeout = settings.mcp_session_idle_seconds
    # DNS-rebinding protection: on loopback, only loopback Host and Origin headers are served.
    server.run(transport="http", host=host, port=port, show_banner=False, host_origin_protection="auto",
               middleware=session_middleware(settings))


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _live_key_count() -> int:
    from graph_schema import db
    from graph_schema.queries.access import list_keys

    with db.open_driver(get_settings()) as driver:
        return sum(1 for k in db.read(driver, list_keys, None) if not k.revoked and not k.paused)


@app.command()
def dagster(port: int = typer.Option(3000, help="Port of the Dagster UI.")) -> None:
    """Open the pipeline in the Dagster UI (`dagster dev` with this project's instance); Ctrl-C
    or SIGTERM stops it and every process it started."""
    from pipeline.definitions import CODE_LOCATION_MODULE
    from pipeline.run import dagster_instance
    from subtext.processes import run_until_stopped

    dagster_instance()  # DAGSTER_HOME: this state folder's instance, the one the CLI and the server record runs in
    command = [sys.executable, "-m", "dagster", "dev", "-m", CODE_LOCATION_MODULE, "-h", "127.0.0.1", "-p", str(port)]
    # run from the checkout: `-m pipeline.definitions` is this checkout's code
    code = run_until_stopped(command, PROJECT_ROOT, get_settings().dagster_stop_grace_seconds)
    if code not in (0, -2, 130):  # stopped by Ctrl-C is a normal end
        raise typer.Exit(code=code if code > 0 else 1)


if __name__ == "__main__":
    app()

"""`subtext focus …`: focus areas the graph proposes from pages that belong together (issue 19 item 6)."""

from __future__ import annotations

import typer
from rich.console import Console

from graph_schema import db
from graph_schema.settings import get_settings
from subtext.graph import counted, open_graph, print_table

focus_app = typer.Typer(help="Focus areas from the graph: groups of pages your documents keep naming together.",
                        no_args_is_help=True)
out = Console(soft_wrap=True)

_SHOWN_PAGES = 8  # a proposal's pages listed in the table; the rest are counted


@focus_app.command("proposals")
def proposals(
    refresh: bool = typer.Option(False, "--refresh", help="First group the pages again (the Dagster schedule "
                                 "propose_focus_areas does this nightly)."),
    limit: int = typer.Option(20, "--limit", min=1, help="Show at most this many proposals, the largest first."),
) -> None:
    """List the groups of pages proposed as focus areas, with why."""
    from knowledge.focus_proposals import list_focus_proposals, propose_focus_areas

    settings = get_settings()
    with open_graph() as driver:
        if refresh:
            made = db.write(driver, propose_focus_areas, settings.owner, settings)
            out.print(f"Grouped the pages again: {counted(len(made), 'proposal')}.")
        found = db.read(driver, list_focus_proposals, settings.owner, limit)
    if not found:
        out.print("No focus areas to propose: no group of pages is named together apart from the rest"
                  + ("." if refresh else " (`subtext focus proposals --refresh` groups them now)."))
        return
    print_table(out, ["proposal", "pages", "why"], [
        [f"{p.slug}\n{p.title!r}",
         ", ".join(f"{page.title} ({page.kind.value})" for page in p.pages[:_SHOWN_PAGES])
         + (f" and {len(p.pages) - _SHOWN_PAGES} more" if len(p.pages) > _SHOWN_PAGES else ""),
         p.evidence]
        for p in found
    ])
    out.print("[dim]`subtext focus accept PROPOSAL [--title NAME]` makes one a focus area; "
              "`subtext focus dismiss PROPOSAL` turns it down for good.[/dim]")


@focus_app.command("accept")
def accept(
    proposal: str = typer.Argument(..., help="The proposal, as `subtext focus proposals` names it."),
    title: str = typer.Option(None, "--title", help="The focus area's name (default: the proposed one)."),
) -> None:
    """Make a proposal a focus area: its pages are filed under it, and stay filed whatever later documents say."""
    from knowledge.focus_proposals import accept_focus_proposal

    settings = get_settings()
    with open_graph() as driver:
        done = db.write(driver, accept_focus_proposal, settings.owner, proposal, title, True)
    out.print(f"Made the focus area {done.focus.title!r} ({done.focus.slug}) and filed "
              f"{counted(len(done.pages), 'page')} under it. `subtext brief` shows where it stands.",
              markup=False, highlight=False)


@focus_app.command("dismiss")
def dismiss(
    proposal: str = typer.Argument(..., help="The proposal, as `subtext focus proposals` names it."),
) -> None:
    """Turn a proposal down: neither it nor a group much like it is proposed again."""
    from knowledge.focus_proposals import dismiss_focus_proposal

    settings = get_settings()
    with open_graph() as driver:
        db.write(driver, dismiss_focus_proposal, settings.owner, proposal)
    out.print(f"Dismissed {proposal}: it will not be proposed again.", markup=False, highlight=False)


@focus_app.command("drop")
def drop(
    slug: str = typer.Argument(..., help="The focus area made by `subtext focus accept`."),
) -> None:
    """Undo an accepted proposal: its pages are unfiled and the focus area goes; the group is not proposed again."""
    from knowledge.focus_proposals import drop_accepted_focus

    settings = get_settings()
    with open_graph() as driver:
        unfiled = db.write(driver, drop_accepted_focus, settings.owner, slug)
    out.print(f"Dropped the focus area {slug} and unfiled {counted(unfiled, 'page')}; the group will not be proposed again.",
              markup=False, highlight=False)

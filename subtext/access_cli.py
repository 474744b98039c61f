"""`subtext people …` and `subtext keys …`: the people of a deployment and their access keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console

from graph_schema import db
from graph_schema.access import AccessKey, KeyScope
from graph_schema.queries.access import list_keys, list_owners
from graph_schema.settings import get_settings
from subtext.graph import console, counted, open_graph, print_table

if TYPE_CHECKING:
    from knowledge.types import OwnerContents

people_app = typer.Typer(help="The people whose graphs this deployment holds.", no_args_is_help=True)
keys_app = typer.Typer(help="Access keys: how assistants and scripts connect (Authorization: Bearer).",
                       no_args_is_help=True)
out = Console(soft_wrap=True)

PERSON = typer.Option(None, "--person", help="The person's id (default: the configured person, SUBTEXT_OWNER).")

# Every command here opens the graph with `ready=True`, so the configured person always exists
# (listed by `people list`, the default owner of a new key) even before `subtext init`.


@people_app.command("add")
def users_add(
    name: str = typer.Argument(..., help="The person's name, shown on their 'you' page."),
    person_id: str = typer.Option(None, "--id", help="Their id (default: the name in lowercase with hyphens)."),
) -> None:
    """Add a person with a graph of their own (their documents go in the upload folder's @<id>/)."""
    from knowledge.keys import add_owner
    from knowledge.upload_folders import owner_upload_dir

    with open_graph(ready=True) as driver:
        person = db.write(driver, add_owner, name, person_id)
    out.print(f"Added {name} as {person!r}. Their upload folder: {owner_upload_dir(get_settings(), person)}")
    out.print(f"Create a key for them with: subtext keys create NAME --person {person}")


@people_app.command("list")
def users_list() -> None:
    """Every person, with their page and live key counts."""
    with open_graph(ready=True) as driver:
        rows = db.read(driver, list_owners)
    print_table(out, ["id", "name", "pages", "keys"],
                [[row["id"], row["name"] or "", str(row["pages"]), str(row["keys"])] for row in rows])


@people_app.command("remove")
def users_remove(
    person: str = typer.Argument(..., help="The person's id as `subtext people list` shows it, or their name."),
    yes: bool = typer.Option(False, "--yes", help="Remove them; without it nothing is removed, only listed."),
) -> None:
    """Remove a person: their whole graph, their keys and their upload folder. Without --yes, say what would go."""
    from knowledge import owners

    with open_graph(ready=True) as driver, db.session(driver) as graph:
        owner = graph.read(owners.find_owner, person)
        contents = owners.remove_owner(graph, owner) if yes else graph.read(owners.removal_contents, owner)
    # Without markup: names and paths are shown as they are, even with [brackets] in them.
    who = f"{contents.name} ({contents.id})" if contents.name else repr(contents.id)
    if yes:
        out.print(f"Removed {who}: {_what_goes(contents)} Their keys are refused from now on.", markup=False)
    else:
        out.print(f"Removing {who} would delete {_what_goes(contents)}", markup=False)
        out.print(f"Nothing was removed. To remove them: subtext people remove {contents.id} --yes", markup=False)


def _what_goes(contents: OwnerContents) -> str:
    """What a removal deletes, as one sentence (the dry run's and the removal's)."""
    graph = (f"{counted(contents.pages, 'page')}, {counted(contents.facts, 'fact')}, "
             f"{counted(contents.sources, 'source')}, {counted(contents.keys, 'access key')} "
             f"({counted(contents.nodes, 'node')} in all, chunks included)")
    folder = contents.upload_folder
    if folder.is_link:
        return f"{graph} and the link {folder.path} (not the files it points to)."
    if folder.exists:
        return f"{graph} and the upload folder {folder.path} with {counted(folder.files, 'file')}."
    return f"{graph}; they have no upload folder ({folder.path})."


@keys_app.command("create")
def keys_create(
    name: str = typer.Argument(..., help="What the key is for ('Claude Desktop'); shown as the author of what it writes."),
    person: str = PERSON,
    scope: str = typer.Option("full", help="full | me | focus:<slug>[,<slug>…]"),
    write: bool = typer.Option(False, "--write/--read-only", help="Allow the write tools and uploads (default read-only)."),
    full_context: bool = typer.Option(True, "--full-context/--limited-context",
                                      help="Full context is needed for edit_page_body (default on)."),
    upkeep: bool = typer.Option(False, "--upkeep", help="Also allow the graph-upkeep tools (review, merge_pages) when "
                                "the server offers them (SUBTEXT_UPKEEP_TOOLS); they need scope full."),
) -> None:
    """Create a key and print it once (only its hash is stored)."""
    from knowledge.keys import create_key

    with open_graph(ready=True) as driver:
        made = db.write(driver, create_key, person or get_settings().owner, name, KeyScope.parse(scope),
                        can_write=write, full_context=full_context, upkeep=upkeep)
    key = made.key
    console.print(
        f"Created key {key.name!r} ({key.id}) for {key.owner}: scope {key.scope}, "
        f"{'read + write' if key.can_write else 'read-only'}, {'full' if key.full_context else 'limited'} context"
        f"{', upkeep tools' if key.upkeep else ''}. "
        "It is shown once; keep it somewhere safe:"
    )
    out.print(made.secret)


@keys_app.command("list")
def keys_list(person: str = typer.Option(None, "--person", help="Only this person's keys (default: everyone's).")) -> None:
    """Every key with its person, scope, settings and state (never the key itself)."""
    with open_graph(ready=True) as driver:
        keys = db.read(driver, list_keys, person)
    rows = []
    for k in keys:
        state = "revoked" if k.revoked else "paused" if k.paused else "active"
        rows.append([k.id, k.owner, k.name, str(k.scope), "read + write" if k.can_write else "read-only",
                     "full" if k.full_context else "limited", "yes" if k.upkeep else "no", state,
                     f"{k.last_used_at:%Y-%m-%d %H:%M}" if k.last_used_at else "never"])
    print_table(out, ["id", "person", "name", "scope", "access", "context", "upkeep", "state", "last used"], rows)


def _change(name: str, person: str | None, action: str) -> None:
    from knowledge import keys as key_ops

    def find_and_change(tx: db.Tx) -> AccessKey:  # one transaction: the key found is the key changed
        key = key_ops.find_key(tx, person, name)
        return key_ops.revoke(tx, key) if action == "revoke" else key_ops.set_paused(tx, key, action == "pause")

    with open_graph(ready=True) as driver:
        key = db.write(driver, find_and_change)
    done = {"pause": "paused", "resume": "resumed", "revoke": "revoked"}[action]
    out.print(f"Key {key.name!r} ({key.id}) of {key.owner} {done}.")


@keys_app.command("pause")
def keys_pause(name: str = typer.Argument(..., help="The key's name or id."), person: str = PERSON) -> None:
    """Pause a key: its calls get a message saying the connection is paused, nothing else."""
    _change(name, person, "pause")


@keys_app.command("resume")
def keys_resume(name: str = typer.Argument(..., help="The key's name or id."), person: str = PERSON) -> None:
    """Resume a paused key."""
    _change(name, person, "resume")


@keys_app.command("revoke")
def keys_revoke(name: str = typer.Argument(..., help="The key's name or id."), person: str = PERSON) -> None:
    """Revoke a key for good: it gets 401 from then on."""
    _change(name, person, "revoke")

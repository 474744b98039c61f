"""Removing a person: finding them, saying what would go, and deleting it.

Used by `subtext people remove`. A removal deletes, in this order: the person's Owner node (from
then on no key of theirs is accepted and no writer can take their write lock), every other node
that carries their id, in batches of `remove_batch_size`, and last their upload folder. Each
step is a write transaction of its own, so a running MCP server forgets the keys it had checked at once (see
graph_schema.local_writes). A removal cut short is finished by running it again: the person is
then found by the nodes that are left.
"""

from __future__ import annotations

import shutil

from graph_schema import db
from graph_schema.errors import InvalidRequest, SubtextError
from graph_schema.queries import owners as queries
from graph_schema.settings import Settings, get_settings
from knowledge.types import OwnerContents, UploadFolder
from knowledge.upload_folders import owner_upload_dir


def find_owner(tx: db.Tx, text: str) -> str:
    """The id of the person `text` names: their id as `subtext people list` shows it, or their
    name when no one else has it. A removal cut short is found by its id. A read."""
    found = queries.find_owner(tx, text)
    if found and found[0][0] == text:
        return text
    if len(found) > 1:
        raise InvalidRequest(f"Several people are named {text!r}; use the id `subtext people list` shows.")
    if found:
        return found[0][0]
    if queries.has_nodes(tx, text):
        return text
    raise InvalidRequest(f"There is no person {text!r}; `subtext people list` shows them.")


def removal_contents(tx: db.Tx, owner: str, settings: Settings | None = None) -> OwnerContents:
    """What removing `person` would delete (the dry run); refuses the deployment's own person. A read."""
    settings = settings or get_settings()
    _refuse_configured_owner(owner, settings)
    counts = queries.owner_contents(tx, owner)
    return OwnerContents(id=owner, upload_folder=_upload_folder(settings, owner), **counts)


def remove_owner(graph: db.GraphSession, owner: str, settings: Settings | None = None) -> OwnerContents:
    """Delete the person's whole graph, their keys and their upload folder; returns what there
    was just before. Several transactions, one after another (see the module's docstring)."""
    settings = settings or get_settings()
    contents = graph.read(removal_contents, owner, settings)
    graph.write(queries.delete_owner, owner)
    while graph.write(queries.delete_owner_batch, owner, settings.remove_batch_size):
        pass  # until a batch finds nothing left
    _remove_folder(contents.upload_folder)
    return contents


def _refuse_configured_owner(owner: str, settings: Settings) -> None:
    # Every CLI command and the stdio server act as this person and would make their graph again
    # at once, and their upload folder is the whole upload folder, everyone's folders included.
    if owner == settings.owner:
        raise InvalidRequest(
            f"{owner!r} is the person this deployment runs as (SUBTEXT_OWNER), and their upload folder "
            "holds everyone's folders, so they cannot be removed. To remove them, first set SUBTEXT_OWNER "
            "to the person who should run it from now on."
        )


def _upload_folder(settings: Settings, owner: str) -> UploadFolder:
    path = owner_upload_dir(settings, owner)
    if path.parent != settings.upload_dir:  # an id with a '/' names no folder of theirs: never leave the upload folder
        raise InvalidRequest(f"{owner!r} cannot be a person's id; `subtext people list` shows them.")
    is_link = path.is_symlink()
    exists = is_link or path.is_dir()
    files = 0 if is_link or not exists else sum(1 for p in path.rglob("*") if p.is_file())
    return UploadFolder(path=path, exists=exists, is_link=is_link, files=files)


def _remove_folder(folder: UploadFolder) -> None:
    try:
        if folder.is_link:
            folder.path.unlink()
        elif folder.exists:
            shutil.rmtree(folder.path)
    except OSError as e:
        raise SubtextError(
            f"The person's graph and keys are removed, but their upload folder {folder.path} could not be "
            f"deleted ({e.strerror or e}); delete it by hand."
        ) from e

"""How a command reaches the graph: `open_graph()`, and `fail()` for what it cannot do.

Shared by `subtext.cli` and `subtext.access_cli`, so neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import neo4j
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from graph_schema import db
from graph_schema.errors import SubtextError
from graph_schema.settings import get_settings
from subtext.local_neo4j import ensure_graph_server

console = Console(stderr=True, soft_wrap=True)  # errors keep whole lines, so they can be grepped


def counted(n: int, noun: str) -> str:
    """'1 page', '2,048 pages'."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def print_table(out: Console, header: list[str], rows: list[list[str]]) -> None:
    """A table on a terminal; one tab-separated line per row otherwise (a pipe, a file, a CI log),
    so that no cell is cut to the width a terminal would have: document keys stay whole."""
    if out.is_terminal:
        out.print(_table(header, rows))
        return
    for row in [header, *rows]:  # written as is: Rich would turn the tabs into spaces
        out.file.write("\t".join(" ".join(cell.split()) for cell in row) + "\n")


def _table(header: list[str], rows: list[list[str]]) -> Table:
    table = Table(*header)
    for row in rows:  # cells as plain text: a file name or a model's reason with '[…]' is no Rich markup
        table.add_row(*(Text(cell) for cell in row))
    return table


def fail(error: Exception) -> NoReturn:
    """End the command with the error's sentence (exit code 1)."""
    console.print(f"[red]error:[/red] {error}")
    raise typer.Exit(code=1) from error


@contextmanager
def open_graph(*, ready: bool = False) -> Iterator[neo4j.Driver]:
    """A driver to the configured graph for the length of a command; the local Neo4j is started
    first when it is the configured one, and with `ready` the graph is made ready (schema and the
    person's `you` page). A SubtextError, from opening or from the command's own work inside the
    block, ends the command with its sentence."""
    settings = get_settings()
    try:
        ensure_graph_server(settings, console.print)
        with db.open_driver(settings) as driver:
            if ready:
                db.ensure_ready(driver, settings)
            yield driver
    except SubtextError as e:
        fail(e)

"""How Neo4j Browser draws subtext's graph: the style it applies on connecting (issue 15 item 9).

Without it Browser captions a Fact by its owner and gives every page kind a colour by chance.
With it a Fact reads as its sentence, a page and a source as their titles, and each kind of page
has a colour of its own. The style travels in the generated neo4j.conf as the `:style` command of
`browser.post_connect_cmd` (subtext/local_neo4j.py), in the JSON form Browser also accepts: that
command line is split on semicolons outside quotes, and a GraSS sheet separates its rules with them.

A caption is a template whose missing properties read as nothing, so '{text}{name}' is a Fact's
sentence on real nodes and the label's name on the nodes `CALL db.schema.visualization()` draws
(no subtext node has a `name` but Owner and AccessKey).
"""

from __future__ import annotations

import json

from graph_schema.kinds import PageKind

# (fill, border) per page kind: distinct hues that white captions stay readable on.
KIND_COLOURS: dict[PageKind, tuple[str, str]] = {
    PageKind.YOU: ("#D9C8AE", "#C0A378"),
    PageKind.FOCUS: ("#F16667", "#EB2728"),
    PageKind.PERSON: ("#4C8EDA", "#2870C2"),
    PageKind.ORGANISATION: ("#8DCC93", "#5DB665"),
    PageKind.PROJECT: ("#F79767", "#F36924"),
    PageKind.TOOL: ("#C990C0", "#B261A5"),
    PageKind.TOPIC: ("#57C7E3", "#23B3D7"),
}
_WHITE = "#FFFFFF"


def browser_style() -> dict[str, dict[str, str]]:
    """The style sheet, selector -> properties (later selectors win for a node with both labels)."""
    sheet: dict[str, dict[str, str]] = {
        "node": {"diameter": "50px", "color": "#A5ABB6", "border-color": "#9AA1AC", "border-width": "2px",
                 "text-color-internal": _WHITE, "font-size": "10px"},
        "relationship": {"color": "#A5ABB6", "shaft-width": "1px", "font-size": "8px", "padding": "3px",
                         "text-color-external": "#000000", "text-color-internal": _WHITE, "caption": "<type>"},
        "node.Page": {"caption": "{title}{name}", "diameter": "65px", "color": "#A5ABB6", "border-color": "#9AA1AC"},
        "node.Fact": {"caption": "{text}{name}", "color": "#FFE081", "border-color": "#9AA1AC",
                      "text-color-internal": "#604A0E", "diameter": "50px"},
        "node.Source": {"caption": "{title}{name}", "color": "#A5ABB6", "border-color": "#808080",
                        "text-color-internal": _WHITE, "diameter": "55px"},
        "node.Chunk": {"caption": "{index}{name}", "diameter": "20px"},
        "node.Owner": {"caption": "{name}", "color": "#604A0E", "border-color": "#423204"},
        "node.AccessKey": {"caption": "{name}", "diameter": "30px"},
        "node.Brief": {"caption": "{owner}{name}", "diameter": "30px"},
        # a page's embedding, kept off the page: no caption of its own (the schema view shows the label)
        "node.PageVector": {"caption": "{name}", "diameter": "15px"},
    }
    for kind, (fill, border) in KIND_COLOURS.items():
        sheet[f"node.{kind.label}"] = {"color": fill, "border-color": border, "text-color-internal": _WHITE,
                                       "caption": "{title}{name}"}
    return sheet


def post_connect_command() -> str:
    """The value of `browser.post_connect_cmd`: Browser runs it (as `:style …`) on connecting."""
    return "style " + json.dumps(browser_style(), separators=(",", ":"))

"""subtext's data model: pydantic models, page kinds, settings, and every Cypher statement."""

from graph_schema.errors import DocumentError, GraphUnavailable, InvalidRequest, PageNotFound, SubtextError
from graph_schema.kinds import PageKind, SourceKind, SourceStatus
from graph_schema.settings import Settings, get_settings

__all__ = [
    "DocumentError",
    "GraphUnavailable",
    "InvalidRequest",
    "PageKind",
    "PageNotFound",
    "Settings",
    "SourceKind",
    "SourceStatus",
    "SubtextError",
    "get_settings",
]

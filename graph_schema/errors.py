"""The one error tree of subtext.

    SubtextError                  anything subtext reports to a person or an assistant
    ├── GraphUnavailable          Neo4j cannot be reached, refused the credentials, or stayed busy
    ├── GraphRefused              Neo4j refused a statement (a constraint, a query subtext got wrong)
    ├── PageNotFound              a slug that does not exist in this graph (or is out of scope)
    ├── InvalidRequest            a call whose arguments cannot be honoured
    ├── DocumentError             one document could not be read or parsed (names file and reason)
    ├── AccessRefused             the caller's key does not allow the call (says which setting)
    ├── RateLimited               too many calls this minute (says when to try again)
    ├── RunFailed                 a pipeline run failed (says why, and how to run it again)
    └── UploadRefused             POST /api/upload cannot take this request (carries its HTTP status)

Messages are sentences that say what to do next; third-party errors are wrapped at the
boundary with `raise ... from e`.
"""

from __future__ import annotations


class SubtextError(Exception):
    """Base of every error subtext raises on purpose."""


class GraphUnavailable(SubtextError):
    """The graph database cannot be reached."""


class GraphRefused(SubtextError):
    """Neo4j refused a statement and will refuse it again; `code` is Neo4j's status code."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.detail = message
        super().__init__(
            f"The graph database refused the operation ({code}: {message}). Nothing of it was written. "
            "If it happens again, report it to the subtext maintainers with this message."
        )


class PageNotFound(SubtextError):
    def __init__(self, slug: str) -> None:
        self.slug = slug
        super().__init__(
            f"No page has the slug {slug!r}. Do not guess slugs: look it up with search or "
            "graph_snapshot and use the slug they return."
        )


class InvalidRequest(SubtextError):
    """Arguments that cannot be honoured; the message says which and why."""


class DocumentError(SubtextError):
    """A document that cannot be ingested; `reason` is shown on its source and in Dagster."""

    def __init__(self, source_key: str, reason: str) -> None:
        self.source_key = source_key
        self.reason = reason
        super().__init__(f"{source_key}: {reason}")


class AccessRefused(SubtextError):
    """The caller's key does not allow this call (paused, read-only, no full context)."""


class RateLimited(SubtextError):
    """Over the per-person allowance; `retry_after` is whole seconds until a slot frees."""

    def __init__(self, retry_after: int) -> None:
        self.retry_after = retry_after
        super().__init__(f"You're going a bit fast — try again in {retry_after}s")


class RunFailed(SubtextError):
    """A Dagster run of the pipeline failed; the message names the run and the reason."""


class UploadRefused(SubtextError):
    """An upload the endpoint refuses; `status` is the HTTP status it answers with (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message
        super().__init__(message)

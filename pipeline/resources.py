"""Dagster resources: the graph (driver and whose graph), the stage store, and progress reporting."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import neo4j
from dagster import (
    ConfigurableIOManager,
    ConfigurableResource,
    DagsterInvariantViolationError,
    EnvVar,
    InitResourceContext,
    InputContext,
    OutputContext,
)
from pydantic import BaseModel, Field, PrivateAttr, SecretStr

from graph_schema import db
from graph_schema.errors import InvalidRequest
from graph_schema.models import ExtractedDocument, MergeOutcome, ParsedDocument, ResolvedDocument
from graph_schema.settings import Settings, get_settings
from knowledge.upload_folders import owner_of_key


# The tag that queues a person's runs one at a time (dagster.yaml): its value is the person.
GRAPH_WRITES_TAG_KEY = "subtext/graph-writes"


def person_of_run(tags: Mapping[str, str]) -> str:
    """The person a run writes for, as its tag records it; '' when it names no one (a run launched
    by hand without the tag has the job's default value, "true").

    A run's resources are only the process's own: `subtext ingest` and edit_page_body pass the
    person in them, but a re-execution from the UI runs with the code location's, which name no
    one. The tag is copied to every re-execution, and a submission's key has no person's folder
    to tell."""
    person = tags.get(GRAPH_WRITES_TAG_KEY, "")
    return "" if person == "true" else person


def person_of_documents(configured: str, run_tags: Mapping[str, str], keys: list[str]) -> str:
    """Whose documents these are: the owner a resource was configured with, the person the run's
    tags name (see `person_of_run`), or the person whose `@id/` folder the keys are in. One run
    never mixes people (the sensor requests a run per person)."""
    named = configured or person_of_run(run_tags)
    if named:
        return named
    owners = sorted({owner_of_key(k, get_settings().owner) for k in keys})
    if len(owners) > 1:
        raise InvalidRequest(
            f"One run holds one person's documents, but these keys belong to {', '.join(owners)}; "
            "start a run per person's folder."
        )
    return owners[0] if owners else get_settings().owner


@lru_cache(maxsize=4)
def shared_driver(uri: str) -> neo4j.Driver:
    """One driver per process and server, for the sensor's look at what the graph already holds.
    Opening it writes nothing."""
    return db.open_driver()


# (server, person) pairs this process made ready; each run's first step asks again, so this
# keeps a run from re-creating the schema when the process already did.
_READY: set[tuple[str, str]] = set()


class GraphResource(ConfigurableResource):
    """Neo4j and the person whose graph a run writes to (empty owner: the configured default).

    The connection comes from NEO4J_URI, NEO4J_USERNAME and NEO4J_PASSWORD (`EnvVar`s in the
    code location, so the Dagster UI shows where each value comes from); unset, the embedded
    server's address and generated password. A run opens its driver when it starts and closes it
    when it ends.
    """

    owner: str = ""
    uri: str | None = Field(default=None, description="Neo4j's address (NEO4J_URI); unset: the embedded server.")
    username: str | None = Field(default=None, description="Neo4j user (NEO4J_USERNAME); unset: neo4j.")
    password: str | None = Field(default=None, description="Neo4j password (NEO4J_PASSWORD); unset: the embedded server's.")

    _driver: neo4j.Driver | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._driver = db.open_driver(self.connection_settings())

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    def connection_settings(self) -> Settings:
        """The settings with this resource's connection in place of the environment's."""
        given = {"neo4j_uri": self.uri, "neo4j_username": self.username,
                 "neo4j_password": SecretStr(self.password) if self.password is not None else None}
        update = {field: value for field, value in given.items() if value is not None}
        return get_settings().model_copy(update=update) if update else get_settings()

    def owner_for(self, keys: list[str], run_tags: Mapping[str, str]) -> str:
        """Whose documents a run holds (see `person_of_documents`)."""
        return person_of_documents(self.owner, run_tags, keys)

    def make_ready(self, owner: str) -> None:
        """The start of a run: the schema and the person's Owner node and `you` page (the merge
        step's write lock needs the Owner node), once per process and person."""
        settings = self.connection_settings()
        if (settings.bolt_uri, owner) not in _READY:
            db.ensure_ready(self.driver(), settings, owner)
            _READY.add((settings.bolt_uri, owner))

    def driver(self) -> neo4j.Driver:
        if self._driver is None:
            raise RuntimeError("GraphResource.driver() is for a run's steps: Dagster opens the driver "
                               "when the run starts (use dagster.build_resources outside a run).")
        return self._driver


def connection_from_environment() -> dict[str, EnvVar]:
    """The Neo4j connection variables that are set, as `EnvVar`s for GraphResource's fields."""
    fields = {"uri": "NEO4J_URI", "username": "NEO4J_USERNAME", "password": "NEO4J_PASSWORD"}
    found = {}
    for field, name in fields.items():
        for variable in (name, f"SUBTEXT_{name}"):
            if variable in os.environ:  # the one the settings read: the first set, even if empty
                found[field] = EnvVar(variable)
                break
    return found


class ProgressReporter:
    """Receives (stage, done, total) as a run goes; the CLI passes one that drives a Rich bar."""

    def stage(self, name: str, done: int, total: int) -> None:
        """A no-op here; the CLI's reporter overrides it."""


_STAGE_MODELS: dict[str, type[BaseModel]] = {
    m.__name__: m for m in (ParsedDocument, ExtractedDocument, ResolvedDocument, MergeOutcome)
}


class StageStore(ConfigurableIOManager):
    """Stage outputs as JSON files, so any stage can be re-run alone.

    Assets return {document key: model}; a run over several documents stores each separately, at
    `<asset>/<person and upload folder>/<document>/<run id>.json`. Another person's (or another
    upload folder's) document of the same key is another file, and so is another run of the same
    document, so concurrent runs never read each other's outputs between steps. A step reads the
    output of the run Dagster names as its upstream's (its own run, or the parent run when part
    of a run is re-executed); a step materialised alone in a new run reads the newest one.
    """

    base_dir: str = ""
    owner: str = ""  # empty: the run's person, from its tags or its keys' `@id/` folders (as GraphResource.owner_for)

    def _folder(self, asset: str, key: str, run_tags: Mapping[str, str]) -> Path:
        settings = get_settings()
        root = Path(self.base_dir) if self.base_dir else settings.state_dir / "stages"
        owner = person_of_documents(self.owner, run_tags, [key])
        return root / asset / _digest(f"{owner}\n{settings.upload_dir.resolve()}") / _digest(key)

    def handle_output(self, context: OutputContext, obj: dict[str, BaseModel]) -> None:
        asset = context.asset_key.to_user_string()
        for key, model in obj.items():
            folder = self._folder(asset, key, context.step_context.run_tags)
            folder.mkdir(parents=True, exist_ok=True)
            payload = {"key": key, "model": type(model).__name__, "data": model.model_dump(mode="json")}
            tmp = folder / f"{context.run_id}.json.tmp"
            tmp.write_text(json.dumps(payload))
            tmp.replace(folder / f"{context.run_id}.json")
            _forget_older_runs(folder, keep=f"{context.run_id}.json")

    def load_input(self, context: InputContext) -> dict[str, BaseModel]:
        upstream = context.upstream_output
        asset, run_id = upstream.asset_key.to_user_string(), _run_of(upstream)
        loaded = {}
        # Sorted: Dagster hands the keys over in no fixed order, and documents resolved together
        # must be resolved in the same order on every run for a re-run to give the same graph.
        for key in sorted(context.asset_partition_keys):
            payload = json.loads(_stored_output(self._folder(asset, key, context.step_context.run_tags), run_id, asset, key).read_text())
            loaded[key] = _STAGE_MODELS[payload["model"]].model_validate(payload["data"])
        return loaded


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _run_of(context: OutputContext) -> str | None:
    try:
        return context.run_id
    except DagsterInvariantViolationError:  # Dagster could not tell which run produced it
        return None


def _stored_output(folder: Path, run_id: str | None, asset: str, key: str) -> Path:
    """The output of run `run_id`, or else the newest output stored for the document."""
    own = folder / f"{run_id}.json"
    if run_id and own.is_file():
        return own
    stored = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns) if folder.is_dir() else []
    if not stored:
        raise InvalidRequest(
            f"No {asset} output of {key} is stored for this person and upload folder; run the whole "
            "ingest job for the document instead of this step alone."
        )
    return stored[-1]


def _forget_older_runs(folder: Path, keep: str) -> None:
    """Delete earlier runs' outputs of one document once they are old enough that no run still
    going needs them (SUBTEXT_STAGE_OUTPUT_KEEP_HOURS)."""
    cutoff = time.time() - get_settings().stage_output_keep_hours * 3600
    for stored in folder.glob("*.json"):
        if stored.name != keep:
            try:
                if stored.stat().st_mtime < cutoff:
                    stored.unlink()
            except FileNotFoundError:  # another run removed it first
                pass

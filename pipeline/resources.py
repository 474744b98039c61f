"""Dagster resources: the graph (driver and whose graph), the stage store, and progress reporting."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import neo4j
from dagster import ConfigurableIOManager, ConfigurableResource, InputContext, OutputContext
from pydantic import BaseModel

from graph_schema import db
from graph_schema.models import ExtractedDocument, MergeOutcome, ParsedDocument, ResolvedDocument
from graph_schema.queries.owners import ensure_owner
from graph_schema.queries.schema import create_schema
from graph_schema.errors import InvalidRequest
from graph_schema.settings import get_settings
from graph_schema.upload_folders import owner_of_key


@lru_cache(maxsize=4)
def shared_driver(uri: str) -> neo4j.Driver:
    """One driver per process and server; the schema and owner are ensured on first use."""
    driver = db.open_driver()
    create_schema(driver)
    return driver


_ENSURED_OWNERS: set[tuple[str, str]] = set()


class GraphResource(ConfigurableResource):
    """Neo4j and the person whose graph a run writes to (empty owner: the configured default)."""

    owner: str = ""

    @property
    def owner_id(self) -> str:
        return self.owner or get_settings().owner

    def owner_for(self, keys: list[str]) -> str:
        """Whose documents a run holds: the configured owner, or the person whose `@id/` folder
        the keys are in. One run never mixes people (the sensor requests a run per person)."""
        if self.owner:
            return self.owner
        owners = sorted({owner_of_key(k, get_settings().owner) for k in keys})
        if len(owners) > 1:
            raise InvalidRequest(
                f"One run holds one person's documents, but these keys belong to {', '.join(owners)}; "
                "start a run per person's folder."
            )
        owner = owners[0] if owners else self.owner_id
        self._ensure(owner)
        return owner

    def _ensure(self, owner: str) -> neo4j.Driver:
        settings = get_settings()
        driver = shared_driver(settings.bolt_uri)
        if (settings.bolt_uri, owner) not in _ENSURED_OWNERS:
            name = settings.owner_name if owner == settings.owner else owner
            db.write(driver, ensure_owner, owner, name)
            _ENSURED_OWNERS.add((settings.bolt_uri, owner))
        return driver

    def driver(self) -> neo4j.Driver:
        return self._ensure(self.owner_id)


class ProgressReporter:
    """Receives (stage, done, total) as a run goes; the CLI passes one that drives a Rich bar."""

    def stage(self, name: str, done: int, total: int) -> None:
        """A no-op here; the CLI's reporter overrides it."""


_STAGE_MODELS: dict[str, type[BaseModel]] = {
    m.__name__: m for m in (ParsedDocument, ExtractedDocument, ResolvedDocument, MergeOutcome)
}


class StageStore(ConfigurableIOManager):
    """Stage outputs as one JSON file per asset and document, so any stage can be re-run alone.

    Assets return {document key: model}; a run over several documents stores each separately.
    """

    base_dir: str = ""

    def _dir(self, asset: str) -> Path:
        root = Path(self.base_dir) if self.base_dir else get_settings().state_dir / "stages"
        return root / asset

    @staticmethod
    def _file(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()[:32] + ".json"

    def handle_output(self, context: OutputContext, obj: dict[str, BaseModel]) -> None:
        folder = self._dir(context.asset_key.to_user_string())
        folder.mkdir(parents=True, exist_ok=True)
        for key, model in obj.items():
            payload = {"key": key, "model": type(model).__name__, "data": model.model_dump(mode="json")}
            tmp = folder / (self._file(key) + ".tmp")
            tmp.write_text(json.dumps(payload))
            tmp.replace(folder / self._file(key))

    def load_input(self, context: InputContext) -> dict[str, BaseModel]:
        folder = self._dir(context.upstream_output.asset_key.to_user_string())
        loaded = {}
        # Sorted: Dagster hands the keys over in no fixed order, and documents resolved together
        # must be resolved in the same order on every run for a re-run to give the same graph.
        for key in sorted(context.asset_partition_keys):
            payload = json.loads((folder / self._file(key)).read_text())
            loaded[key] = _STAGE_MODELS[payload["model"]].model_validate(payload["data"])
        return loaded

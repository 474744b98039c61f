"""The brief's fact sentences are embedded once per process (issue 17: a rebuild after a write was
86 % model work), with the same vectors the embedder gives, and the memory stays bounded."""

from __future__ import annotations

import numpy as np

import pipeline.embedding as embedding
from graph_schema.settings import reset_settings

SENTENCES = ["Marta will get the insurance quote.", "Marta has shared the quote from the insurer.",
             "Daniel will share the 2025 shipping volumes."]


def test_a_sentence_is_embedded_once_with_the_embedders_own_vector(monkeypatch):
    embedded: list[str] = []
    real = embedding.embed_texts

    def counting(texts: list[str]) -> list[list[float]]:
        embedded.extend(texts)
        return real(texts)

    monkeypatch.setattr(embedding, "embed_texts", counting)
    embedding._remembered.clear()
    first = embedding.embed_texts_remembered(SENTENCES[:2])
    again = embedding.embed_texts_remembered(SENTENCES)
    assert embedded == SENTENCES  # the third sentence only, the second time
    assert np.allclose(again[:2], first, atol=1e-6)
    assert np.allclose(again, real(SENTENCES), atol=1e-5)


def test_the_remembered_vectors_are_bounded_least_recently_used_first(monkeypatch):
    monkeypatch.setenv("SUBTEXT_EMBED_REMEMBERED_MAX_TEXTS", "2")
    reset_settings()
    try:
        embedding._remembered.clear()
        embedding.embed_texts_remembered(SENTENCES)
        assert list(embedding._remembered) == SENTENCES[1:]
        embedding.embed_texts_remembered([SENTENCES[1]])  # used again: now the most recent
        embedding.embed_texts_remembered(["A fourth sentence."])
        assert list(embedding._remembered) == [SENTENCES[1], "A fourth sentence."]
    finally:
        monkeypatch.delenv("SUBTEXT_EMBED_REMEMBERED_MAX_TEXTS")
        reset_settings()

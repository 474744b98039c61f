"""Text in any script is kept as written: fact identity, slugs, name keys, decoding and search work
for Cyrillic, Greek, Arabic, CJK and accented Latin.

The pure functions are tested directly; the rest on the real pipeline (Dagster, spaCy, Neo4j).
spaCy's English model finds few entities in other scripts, so the pipeline tests mostly go
through submissions, where every sentence is a fact about the page the text is filed under.
"""

from __future__ import annotations

import pytest

from graph_schema.queries.pages import get_page
from graph_schema.queries.search import fulltext_search, lucene_query
from graph_schema.settings import get_settings, reset_settings
from graph_schema.slugs import fact_key, normalise_name, slugify
from graph_schema.slugs import fact_id
from pipeline.parse import chunk_text, decode_text, trim_cut_character
from pipeline.run import ingest_paths, submit_text
from tests.conftest import write

RUSSIAN = "Иван встретил John Smith в Лондоне. Мария позвонила John Smith вчера."
CHINESE_PARAGRAPHS = ["北京是中国的首都。", "上海是中国最大的城市。", "广州在中国的南方。"]


# --------------------------------------------------------------------------- pure functions


def test_fact_keys_keep_the_words_of_every_script():
    first, second = RUSSIAN.split(". ")
    assert fact_key(first) != fact_key(second)
    assert fact_id("o", first) != fact_id("o", second)
    assert len({fact_key(p) for p in CHINESE_PARAGRAPHS}) == 3 and all(map(fact_key, CHINESE_PARAGRAPHS))
    assert fact_key("Ο Ελύτης έγραψε.") != fact_key("Ο Ελύτης τραγούδησε.")
    # Case, spacing and punctuation still do not make a second fact, in any script.
    assert fact_key("Иван  встретил Марию.") == fact_key("иван встретил марию")
    # Sentences without a letter or digit are still told apart.
    assert fact_key("🎉🎉") != fact_key("👍") and fact_key("👍")
    # ASCII text keeps the key it always had, so facts already in a graph keep their ids.
    assert fact_key("The Acme board's pitch is in April.") == "acme board pitch is in april"


def test_name_keys_fold_latin_accents_but_keep_other_scripts():
    assert normalise_name("José") == normalise_name("Jose") == "jose"
    assert normalise_name("Søren Kierkegaard") == "soren kierkegaard"
    assert normalise_name("Ελύτης") == normalise_name("ΕΛΥΤΗΣ") == "ελυτησ"  # the tonos is optional
    assert normalise_name("مُحَمَّد") == normalise_name("محمد")  # so are the harakat
    assert normalise_name("Иван Петров") == "иван петров"
    assert normalise_name("Иван") != normalise_name("Ivan")  # not transliterated: no collisions
    assert normalise_name("王小明") == "王小明"
    assert normalise_name("हिन्दी") == "हिन्दी"  # vowel signs and the virama are part of the word
    assert normalise_name("The Python Software Foundation's") == "python software foundation"


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Οδυσσέας Ελύτης", "odysseas-elytis"),
        ("محمد بن سلمان", "mhmd-bn-slmn"),
        ("Иван Петров", "ivan-petrov"),
        ("北京大学", "bei-jing-da-xue"),
        ("José Martínez", "jose-martinez"),
        ("!!!", "page"),
    ],
)
def test_slugs_of_every_script_are_readable_and_never_empty(name, slug):
    assert slugify(name) == slug


def test_a_cut_inside_a_character_is_a_cut_at_the_character():
    data = "José 北京 😀".encode()
    for end in range(1, len(data) + 1):
        text = decode_text(trim_cut_character(data[:end]))
        assert "Ã" not in text and "José 北京 😀".startswith(text), (end, text)
    assert decode_text(trim_cut_character("José".encode()[:4])) == "Jos"
    assert trim_cut_character("Zoë".encode("utf-16")[:7]).decode("utf-16") == "Zo"


def test_long_cjk_paragraphs_are_chunked_at_sentence_ends():
    text = "北京是中国的首都。" * 40
    chunks = chunk_text(text, 100)
    assert len(chunks) > 1 and all(text[c.end - 1] == "。" for c in chunks)


def test_lucene_query_keeps_words_of_every_script():
    assert lucene_query("Иван Петров") == "Иван OR Петров"
    assert lucene_query("上海 (城市)") == "上海 OR 城市"


# --------------------------------------------------------------------------- the real pipeline


def _page(graph, slug: str):
    return graph["db"].read(graph["driver"], get_page, graph["owner"], slug, 100)


def test_two_russian_sentences_about_one_person_are_two_facts(graph):
    outcome = submit_text(RUSSIAN, owner=graph["owner"], new_project="Проект Север")
    assert outcome.status == "ingested", outcome.reason
    assert outcome.facts_added == 2
    assert outcome.focus_created == "proekt-sever"
    project = _page(graph, "proekt-sever")
    assert project.title == "Проект Север"
    assert sorted(f.text for f in project.facts) == sorted(s.rstrip(".") + "." for s in RUSSIAN.split(". "))
    assert len(_page(graph, "john-smith").facts) == 2


def test_an_all_chinese_submission_keeps_every_sentence(graph, monkeypatch):
    # Small chunks put each paragraph in a chunk of its own, so each is a sentence of its own.
    monkeypatch.setenv("SUBTEXT_CHUNK_TARGET_CHARS", "12")
    reset_settings()
    outcome = submit_text("\n\n".join(CHINESE_PARAGRAPHS), owner=graph["owner"], new_project="中国城市")
    assert outcome.status == "ingested", outcome.reason
    assert outcome.focus_created == "zhong-guo-cheng-shi"
    assert outcome.facts_added == 3
    # A later all-Chinese submission is not taken for one already stored.
    again = submit_text("深圳靠近香港。", owner=graph["owner"], anchor_slug="zhong-guo-cheng-shi")
    assert again.facts_added == 1
    facts = {f.text for f in _page(graph, "zhong-guo-cheng-shi").facts}
    assert facts == {*CHINESE_PARAGRAPHS, "深圳靠近香港。"}


def test_greek_and_arabic_names_get_readable_slugs(graph):
    write(graph["upload"], "Αθήνα/σημειώσεις.md", "Ο Οδυσσέας Ελύτης έγραψε ποιήματα για τη θάλασσα.\n")
    report = ingest_paths([graph["upload"]])
    assert [o.status for o in report.outcomes] == ["ingested"]
    assert {"athina", "odysseas-elytis"} <= set(report.outcomes[0].pages_created)
    assert _page(graph, "odysseas-elytis").title == "Οδυσσέας Ελύτης"

    outcome = submit_text("التقى محمد مع John Smith في القاهرة.", owner=graph["owner"], new_project="مشروع النيل")
    assert outcome.focus_created == "mshrw-lnyl"
    assert _page(graph, "mshrw-lnyl").title == "مشروع النيل"


def test_a_byte_limit_inside_a_character_cuts_the_file_at_the_character(graph, monkeypatch):
    text = "José Martínez leads the Lisbon office.\n\nJosé Martínez hired Ana Souza in March. Thanks, José"
    data = text.encode()
    monkeypatch.setenv("SUBTEXT_MAX_FILE_BYTES", str(data.rindex("é".encode()) + 1))  # half of the last é
    reset_settings()
    write(graph["upload"], "lisbon.md", data)
    outcome = ingest_paths([graph["upload"]]).outcomes[0]
    assert outcome.status == "ingested", outcome.reason
    assert "jose-martinez" in outcome.pages_created
    page = _page(graph, "jose-martinez")
    assert page.title == "José Martínez"
    facts = " ".join(f.text for f in page.facts)
    assert "José Martínez leads the Lisbon office." in facts and "José Martínez hired Ana Souza in March." in facts
    assert "Ã" not in facts


def test_fulltext_search_finds_pages_in_cyrillic_and_chinese(graph):
    submit_text(RUSSIAN, owner=graph["owner"], new_project="Проект Север")
    submit_text("".join(CHINESE_PARAGRAPHS), owner=graph["owner"], new_project="中国城市")
    chars = get_settings().preview_chars

    def found(query: str) -> list[str]:
        return [h.slug for h in graph["db"].read(graph["driver"], fulltext_search, graph["owner"], query, 10, chars)]

    assert "proekt-sever" in found("Мария позвонила")
    assert "proekt-sever" in found("север")  # a title word, in another case
    assert found("Мария")[0] == "proekt-sever"
    assert "zhong-guo-cheng-shi" in found("上海")
    assert "proekt-sever" not in found("上海")

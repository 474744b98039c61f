"""Names of software, services and brands a curated dataset knows: evidence of kind, never a decision.

en_core_web_sm learned from news, and the kind classifier learned from SoftNER's programming
questions and GUM; neither has seen most of the software a working team names every day
("share it in Notion", "SSO through Okta", "dbt tests"). Simple Icons (CC0 data, shipped on
PyPI by `simpleicons`, MIT) lists about 2,400 brands, most of them software and online services,
some of them firms ("NASA", "BMW"). A name on that list is a thing with a page, a tool or an
organisation, rarely a person or nothing: the classifier takes it as one feature and its context
decides which (kind_model.py), and a rare lower-case spelling of such a name ("dbt") is a
candidate like a capitalised one.

A brand's product is also known by its own name: "Apache Kafka" is "Kafka", "Amazon DynamoDB"
"DynamoDB", when the first word is itself a brand and the rest one rare word ("Microsoft Teams"
gives no "Teams", "Google Analytics" no "Analytics", "Apple Podcasts" no "Podcasts").
"""

from __future__ import annotations

from functools import lru_cache

from graph_schema.settings import get_settings


@lru_cache(maxsize=1)
def _known_names() -> frozenset[str]:
    from simpleicons.all import icons
    from wordfreq import zipf_frequency

    titles = {icon.title for _, icon in icons.items()}
    names = set(titles)
    most_common = get_settings().known_name_part_max_zipf
    for title in titles:
        first, _, rest = title.partition(" ")
        # one rare word, not a plural ('Google Fonts', 'Apple Podcasts' name a kind of thing)
        if (rest and " " not in rest and not rest.endswith("s") and first in titles
                and zipf_frequency(rest, "en") < most_common):
            names.add(rest)  # 'Apache Kafka' -> 'Kafka'
    return frozenset(names)


@lru_cache(maxsize=1)
def _brands_products() -> frozenset[str]:
    """The names known only as a brand's product ('Kafka' of 'Apache Kafka'), not as a brand's own."""
    from simpleicons.all import icons

    titles = {icon.title for _, icon in icons.items()}
    return frozenset(_known_names() - titles)


def is_a_brands_product(name: str) -> bool:
    """'Kafka' (of 'Apache Kafka'), 'DynamoDB' (of 'Amazon DynamoDB'): software by what Simple Icons
    calls it, where a brand of its own ('McLaren', 'Adidas') may as well be a firm."""
    return name in _brands_products()


def product_short_name(name: str) -> str | None:
    """'Kafka' for 'Apache Kafka', 'DynamoDB' for 'Amazon DynamoDB': the product's own known name
    after its brand's, by which other notes name it."""
    brand, _, rest = name.partition(" ")
    known = _known_names()
    return rest if rest and " " not in rest and name in known and rest in known and brand in known else None


@lru_cache(maxsize=1)
def _known_lower() -> dict[str, str]:
    return {name.lower(): name for name in _known_names()}


def is_known_name(name: str) -> bool:
    """'Notion', 'GitHub Actions', 'Airflow', and 'dbt' in lower case: spelled as a known brand
    writes it, or in lower case when that spelling is no everyday word ('linear' stays a word)."""
    if name in _known_names():
        return True
    return name.islower() and is_rare_known_word(name)


def is_known_in_lower_case(word: str) -> bool:
    """A lower-case word that some known name is, however common the word ('python', 'go', 'tree' if a brand)."""
    return word in _known_lower()


def is_rare_known_word(word: str) -> bool:
    """A lower-case word that is a known name and too rare to be everyday English ('dbt', 'okta')."""
    from wordfreq import zipf_frequency

    return word in _known_lower() and zipf_frequency(word, "en") < get_settings().known_name_lower_max_zipf


@lru_cache(maxsize=1)
def known_multiword_names() -> dict[str, tuple[str, ...]]:
    """First word -> the known names of two or more words that open with it, longest first."""
    by_first: dict[str, list[str]] = {}
    for name in _known_names():
        if " " in name:
            by_first.setdefault(name.split(" ", 1)[0], []).append(name)
    return {first: tuple(sorted(names, key=len, reverse=True)) for first, names in by_first.items()}

"""Pure functions: chunking offsets, decoding, slugs, and in-document coreference with real spaCy."""

from __future__ import annotations

import pytest

from graph_schema.errors import InvalidRequest
from graph_schema.kinds import PageKind
from graph_schema.models import ParsedDocument
from graph_schema.queries.search import lucene_query
from graph_schema.slugs import normalise_name, slugify, unique_slug
from pipeline.extract import extract_documents
from pipeline.parse import chunk_text, decode_text


def test_chunks_index_the_text_exactly_and_cover_every_paragraph():
    text = "First para.\n\nSecond para is here.\n\n\n" + ("A long sentence. " * 300) + "\n\nLast."
    chunks = chunk_text(text, 200)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(c.end - c.start <= 400 for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())  # no text falls between chunks
    assert all(chunks[i].end <= chunks[i + 1].start for i in range(len(chunks) - 1))  # none overlaps the next
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_decode_text_refuses_binary_and_reads_other_encodings():
    assert decode_text("Zoë".encode("utf-16")) == "Zoë"
    assert decode_text("café".encode("latin-1")) == "café"
    with pytest.raises(ValueError, match="NUL"):
        decode_text(b"abc\x00def")


def test_slugs_are_lowercase_hyphenated_and_unique():
    assert slugify("Guido van Rossum") == "guido-van-rossum"
    assert slugify("Zoë's  C++ / Rust!") == "zoe-s-c-rust"
    assert unique_slug("acme", {"acme", "acme-2"}) == "acme-3"
    assert normalise_name("The Python Software Foundation's") == "python software foundation"


def test_lucene_query_escapes_operators():
    assert lucene_query('a:b OR (c) "d"') == "a OR b OR c OR d"
    assert lucene_query("") == ""


def _parsed(text: str) -> ParsedDocument:
    from pipeline.parse import chunk_text

    return ParsedDocument(source_id="s", key="k.md", text=text, chunks=chunk_text(text, 1500))


def test_short_names_and_acronyms_join_their_entity():
    text = (
        "Guido van Rossum created Python at CWI. Later Guido moved to the United States.\n\n"
        "The Python Software Foundation (PSF) holds the rights. The PSF also runs PyCon."
    )
    extracted = extract_documents([_parsed(text)])[0]
    people = [e for e in extracted.entities if e.kind is PageKind.PERSON]
    guido = [e for e in people if e.name == "Guido van Rossum"]
    assert len(guido) == 1 and "Guido" in guido[0].aliases
    assert not [e for e in people if e.name == "Guido"]
    psf = [e for e in extracted.entities if "PSF" in e.aliases or e.name == "PSF"]
    assert len(psf) == 1 and psf[0].kind is PageKind.ORGANISATION
    assert len(psf[0].mentions) >= 3
    assert len(extracted.facts) >= 3
    for fact in extracted.facts:
        assert text[fact.start : fact.end].strip()


def test_header_people_are_read_with_exact_spans_and_addresses_left_out():
    from pipeline.header_people import read_header

    text = (
        "PEP: 8\nTitle: Style Guide\nAuthor: Guido van Rossum <guido@python.org>,\n"
        "        Barry Warsaw <barry@python.org>\nSponsor: barry@python.org (Barry Warsaw)\n"
        "Status: Active\n\nGuido wrote it.\n"
    )
    header = read_header(text)
    assert [text[s:e] for s, e in header.people] == ["Guido van Rossum", "Barry Warsaw", "Barry Warsaw"]
    assert text[header.end :].startswith("\nGuido")
    notes = "---\ntitle: Kickoff\nattendees: Priya Natarajan, Daniel Okafor and Lee\n---\n"
    assert [notes[s:e] for s, e in read_header(notes).people] == ["Priya Natarajan", "Daniel Okafor", "Lee"]
    # One "Note:" line opening a paragraph is prose, not a header.
    assert read_header("Note: Priya Natarajan will call.\nMore text.").people == []


def test_header_people_are_people_and_short_forms_join_them():
    text = (
        "Title: Harbour\nAuthor: Priya Natarajan <priya@example.com>\nStatus: Draft\n\n"
        "Priya proposed the Harbour pitch to Acme Corporation. Natarajan will present it.\n"
    )
    parsed = ParsedDocument(source_id="s", key="h.rst", text=text, chunks=chunk_text(text, 1500))
    extracted = extract_documents([parsed])[0]
    people = [e for e in extracted.entities if e.kind is PageKind.PERSON]
    assert len(people) == 1 and people[0].kind_certain
    assert people[0].name == "Priya Natarajan"
    assert {m.surface for m in people[0].mentions} >= {"Priya Natarajan", "Natarajan"}


def test_rate_limiter_says_when_a_slot_frees():
    from graph_schema.errors import RateLimited
    from mcp_server.rate_limit import RateLimiter

    now = [1000.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for step in range(3):
        now[0] = 1000.0 + step * 10  # calls at 0 s, 10 s, 20 s
        limiter.take("ada", {"calls": 3})
    now[0] = 1025.0
    with pytest.raises(RateLimited) as refused:
        limiter.take("ada", {"calls": 3})
    assert refused.value.retry_after == 35 and str(refused.value) == "You're going a bit fast — try again in 35s"
    limiter.take("grace", {"calls": 3})  # another person's allowance is untouched
    with pytest.raises(RateLimited):  # all or none: a full second allowance refuses, and takes nothing
        limiter.take("grace", {"calls": 3, "submissions": 0})
    now[0] = 1060.5  # the call at 0 s has left the window
    limiter.take("ada", {"calls": 3})


def test_keys_and_scopes_parse_strictly():
    from graph_schema.access import KeyScope, generate_key, hash_key, key_id_of, key_matches

    assert str(KeyScope.parse("focus:harbour, orchard")) == "focus:harbour,orchard"
    for bad in ["everything", "focus:", "focus:../x", "focus:Harbour", "me,full"]:
        with pytest.raises(InvalidRequest):
            KeyScope.parse(bad)
    key_id, secret = generate_key()
    assert secret.startswith("stx_") and key_id_of(secret) == key_id
    assert key_matches(secret, hash_key(secret)) and not key_matches(secret[:-1] + "x", hash_key(secret))
    assert key_id_of("stx_nothing") is None and key_id_of("Bearer " + secret) is None


def test_a_folded_page_leaves_no_name_behind():
    # Found by the latency bench's ingest: a title key added again as a name key was listed twice,
    # and folding the page removed only one of the two, leaving a name that led nowhere.
    from graph_schema.models import KnownPage
    from pipeline.resolve import PageIndex

    index = PageIndex()
    index.add(KnownPage(slug="api", title="API", kind=PageKind.ORGANISATION, name_keys=[]))
    index.add(KnownPage(slug="application-programming-interface", title="Application Programming Interface",
                        kind=PageKind.TOPIC, name_keys=["application programming interface"]))
    index.add_names("api", ["api"])
    index.fold("api", "application-programming-interface")
    assert index.exact(["api"], {PageKind.TOPIC, PageKind.ORGANISATION}) == ("application-programming-interface", "api")


def test_a_wrapped_sentence_ends_in_words_a_reply_may_open_with():
    # found in review: a reply rule read 'well received.' and 'no annotations.' as greetings
    from pipeline.units import is_salutation

    assert not any(is_salutation(line) for line in ("well received.", "no annotations.", "Good progress.", "Yes, Python."))
    assert is_salutation("Hi Maya,") and is_salutation("Kind regards,")


def test_a_sentence_starts_after_a_list_marker_an_indent_or_a_full_stop_and_a_space():
    from pipeline.units import starts_a_sentence

    # found in review: the gazetteer's own check read these as a line's first word; the shared one did not
    for text, word in [("   * - Using Slack for alerts", "Using"), ("-Ping Slack about the outage.", "Ping"),
                       ("Decisions:  - Ping Slack now", "Ping"), ("\n" + " " * 18 + "Ask Globex today", "Ask"),
                       ("**HM (Hana):** Hire.", "Hire"), ("We met. Then we left.", "Then"), ("| Risk | Medium |", "Medium")]:
        assert starts_a_sentence(text, text.index(word)), text
    for text, word in [("use collections.Counter here", "Counter"), ("we met Then", "Then"), ("word - Name", "Name")]:
        assert not starts_a_sentence(text, text.index(word)), text

"""Every setting of subtext, with its default, in one place.

Values come from `SUBTEXT_*` environment variables (and `NEO4J_URI` / `NEO4J_USERNAME` /
`NEO4J_PASSWORD` for a Neo4j the person already runs). The CLI, the pipeline and the MCP
server all read the same object through `get_settings()`.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SUBTEXT_", extra="ignore")

    # --- where things live -------------------------------------------------------------
    state_dir: Path = Field(
        default=PROJECT_ROOT / ".subtext",
        description="Local state: the embedded Neo4j's data and password, Dagster storage, caches.",
    )
    upload_dir: Path = Field(
        default=PROJECT_ROOT / "uploads",
        description="The folder people drop documents into; its subfolders are focus areas.",
    )
    neo4j_lib_dir: Path = Field(
        default=PROJECT_ROOT / "neo4j" / "lib",
        description="Jars of the embedded Neo4j, resolved by Maven from neo4j/pom.xml.",
    )

    # --- the graph database ----------------------------------------------------------
    # When NEO4J_URI is set, that server is used and the embedded one is never started.
    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI", "SUBTEXT_NEO4J_URI"))
    neo4j_username: str = Field(
        default="neo4j", validation_alias=AliasChoices("NEO4J_USERNAME", "SUBTEXT_NEO4J_USERNAME")
    )
    neo4j_password: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("NEO4J_PASSWORD", "SUBTEXT_NEO4J_PASSWORD")
    )
    neo4j_database: str = Field(
        default="neo4j", validation_alias=AliasChoices("NEO4J_DATABASE", "SUBTEXT_NEO4J_DATABASE")
    )
    local_neo4j_bolt_port: int = 7687
    local_neo4j_http_port: int = 7474
    local_neo4j_heap: str = Field(default="1g", description="JVM heap of the embedded Neo4j (-Xmx).")
    local_neo4j_pagecache: str = Field(default="512m", description="Page cache of the embedded Neo4j.")
    local_neo4j_start_timeout_s: float = 120.0
    neo4j_retry_attempts: int = Field(default=5, description="Tries for a transaction that hits a transient error.")
    run_retries: int = Field(default=3, description="How often Dagster retries a pipeline step that found the graph database unavailable.")
    run_retry_seconds: float = Field(default=10.0, description="Wait before the first such retry; it doubles for each further one.")
    neo4j_interactive_retry_seconds: float = Field(default=5.0, description="How long a tool call retries an unreachable or busy Neo4j before it answers that the database is unavailable.")

    # --- whose graph ---------------------------------------------------------------------
    owner: str = Field(default="default", description="The person whose graph the CLI and stdio server act on.")
    owner_name: str = Field(default="You", description="Display title of that person's 'you' page.")
    remove_batch_size: int = Field(
        default=5_000, ge=1,
        description="`subtext people remove` deletes a person's graph this many nodes per transaction, so "
        "removing a large graph never needs one huge transaction.",
    )

    # --- models ---------------------------------------------------------------------------
    spacy_model: str = "en_core_web_sm"
    spacy_batch_size: int = 32
    embed_batch_size: int = 64
    embed_max_tokens: int = Field(default=128, description="Texts are cut to this many tokens before embedding (MiniLM allows 256; half is ~2x faster).")
    entity_context_chars: int = Field(default=300, description="How much of an entity's sentences is embedded to tell it apart from namesakes.")
    embedding_dimensions: int = 384
    embed_remembered_max_texts: int = Field(default=20_000, description="Sentences the brief and compile compare by meaning are embedded once per process: this many vectors (~1.5 KB each) are kept, least recently used dropped first.")

    # --- typing: which kind a name is (pipeline/kind_model.py, pipeline/tool_candidates.py) ---
    kind_candidate_max_words: int = Field(default=4, description="Longest run of capitalised words spaCy left untagged that is tried as one name.")
    kind_candidate_min_probability: float = Field(default=0.35, description="A name spaCy did not tag becomes an entity only when the kind classifier gives a page kind at least this probability.")
    byline_max_line: int = Field(default=8, description="A byline ('Prepared by Ada Park and Ben Ito, 10 Nov') is read only in a document's first this many lines, where documents put them.")
    kind_table_header_min_others: int = Field(default=2, description="A firm or a tool in a Markdown table's header row takes the kind of the other names there when at least this many others agree on it ('| | OptimoRoute | Routific | Onfleet |').")
    kind_tool_cue_share: float = Field(default=0.5, description="A name whose mentions are at least this often used as software ('the X migration', 'X webhooks', 'install X', 'X 3.2') is a tool unless the classifier calls it a person.")
    kind_project_cue_share: float = Field(default=0.2, description="A name at least this share of whose mentions are spoken of as a project ('X — phase 1 planning', 'X approved as an internal project', '# Proposal: X', 'the X kickoff') is a project, in every note of the batch.")
    kind_plural_singular_min_zipf: float = Field(default=3.0, description="A one-word 'person' that only opens sentences and is the plural of a word at least this frequent in English ('Acronyms': 'acronym' 3.4 on wordfreq's Zipf scale) is no one's name when the classifier agrees it is no page.")
    kind_not_a_page_probability: float = Field(default=0.8, description="A name spaCy tagged is dropped when the kind classifier gives 'place' or 'not a page' at least this probability ('Rotterdam' read as a person, a heading's 'Roadmap').")
    kind_trade_name_max_person: float = Field(default=0.5, description="A name ending in a trade ('Bellhaven Retail') is an organisation unless the kind classifier gives 'person' at least this probability.")
    kind_plural_trade_name_max_person: float = Field(default=0.9, description="The same for a plural trade ('Tovar Partners', 'Sunbeck Labs'), which no surname spells: the classifier must be this sure of a person.")
    kind_name_part_max_chance: float = Field(default=0.1, description="A one-word firm or tool spaCy tagged that is the first or last name of exactly one person of its document ('Mai' beside 'Nguyen Thi Mai') joins that person when the classifier gives its kind less than this.")
    kind_unclassed_person_min_probability: float = Field(default=0.4, description="A name spaCy read as a work of art, an event or a law (kinds the classifier has no class for) is a person, if it is one word, when the classifier's likeliest page kind is person with at least this probability ('need Yusuf to sign off'; longer titles stay works).")
    kind_known_name_max_other: float = Field(default=0.97, description="A name spaCy left untagged that Simple Icons knows as software or a brand ('Notion', 'Okta') is a tool or an organisation unless the kind classifier gives 'not a page' at least this probability.")
    kind_acronym_max_chars: int = Field(default=4, description="Capitals up to this long that spaCy tagged as a firm, a product or a person ('SRE', 'CSV', 'CRM', 'ERD', initials such as 'KM') are dropped when the classifier gives 'not a page' at least kind_acronym_not_a_page_probability.")
    kind_acronym_not_a_page_probability: float = Field(default=0.75, description="See kind_acronym_max_chars: how sure the classifier must be that short capitals spaCy tagged name nothing. At 0.75 rather than 0.85, work notes lose 'UTC', 'SMS', 'CSV', 'SLO' and 'ETA' pages and GUM loses road numbers, currencies and 'GMT', while GUM recall moves 0.8145 -> 0.8141 and SoftNER tool recall 0.6753 -> 0.673 (bench/quick_entities.py).")
    kind_retype_ratio: float = Field(default=3.0, description="spaCy's kind for a name is also replaced when the classifier gives another page kind at least this many times the probability of spaCy's, and `kind_retype_min_gain` more: 'Ledgerline' read as a person (0.04) where tool has 0.12 and 'not a page' the rest.")
    kind_retype_min_gain: float = Field(default=0.05, description="The least probability by which the kind that replaces spaCy's by `kind_retype_ratio` must exceed it.")
    kind_retype_margin: float = Field(default=0.15, description="spaCy's kind for a name is replaced only when the classifier gives another kind this much more probability than spaCy's.")

    # --- ingestion limits ------------------------------------------------------------------
    max_file_bytes: int = Field(default=20_000_000, description="Larger files are read up to this size and marked truncated.")
    max_unpacked_bytes: int = Field(default=300_000_000, description="A docx or pptx that would unpack to more than this is refused (zip bombs).")
    max_unpacked_markup_bytes: int = Field(default=40_000_000, description="A docx or pptx whose XML parts (text and markup, not pictures) would unpack to more than this is refused before parsing: the parser would spend minutes and memory on text past the chunk limit.")
    max_chunks_per_document: int = Field(default=2_000, description="Chunks past this are not processed; the source is marked truncated.")
    merge_max_documents_per_transaction: int = Field(
        default=200,
        description="A run's documents are written in one transaction, so a crash leaves none half-done; "
        "larger batches are split into transactions of this many documents.",
    )
    stage_output_keep_hours: float = Field(
        default=24.0,
        description="A document's pipeline-step outputs from earlier runs are deleted once this old "
        "(the newest is always kept, so one step can be re-run alone).",
    )
    max_submission_chars: int = Field(default=20_000, description="edit_page_body refuses longer bodies (send several).")
    chunk_target_chars: int = Field(default=1_500, description="Paragraphs are packed into chunks of about this size.")
    max_fact_chars: int = Field(default=600, description="Longer sentences are cut to this length when stored as a fact.")
    facts_embedded_per_page: int = Field(default=8, description="How many of a page's facts go into its embedding text.")

    # --- resolution -----------------------------------------------------------------------------
    fuzzy_merge_threshold: float = Field(default=92.0, description="Name similarity (0-100) at or above which a mention joins a page of the same kind.")
    embedding_merge_threshold: float = Field(default=0.86, description="Cosine similarity at or above which a mention joins a page when names are close too.")
    page_retype_min_sources: int = Field(default=2, description="A page takes the kind its sources read it as once at least this many live sources read it so, and more than read it as the kind it has ('Figma' first read as an organisation, then used as a tool in two notes); a kind set by hand never changes.")
    page_retype_rule_weight: int = Field(default=3, description="When a page's kind follows its sources, a reading a rule gave (an attendee list, 'Project X', a projects field) counts this many times: it outweighs two notes' guesses, not many sources that read the page otherwise.")
    review_band_low: float = Field(default=0.72, description="Cosine similarity from which a non-merged pair is recorded as possibly the same.")
    fuzzy_min_words: int = Field(default=2, description="Names of fewer words are never merged by spelling alone ('Frontier' / 'Frontiers' are two airlines' worth of risk).")
    given_name_joins_only_person: bool = Field(default=True, description="A first name alone ('Maya') lands on the one person page whose name starts with it ('Maya Lindqvist') when its document also names something that person was named with before; never when two people share it.")
    given_name_fold_min_shared: int = Field(default=2, description="An earlier note's page named by a first name alone ('Hi Omar,') is folded into the only person of that first name a later note names in full when both notes name at least this many pages in common.")
    given_name_max_neighbours: int = Field(default=500, description="How many pages named with a person are read as evidence for a lone first name.")
    spelling_variant_min_letters: int = Field(default=5, description="Within one document, two full names of a person with one surname and given names one letter apart ('Kristin' / 'Kristen Wilkins') are one name misspelt when that given name has at least this many letters.")
    clipped_name_min_letters: int = Field(default=4, description="A lone name this long or longer that ends the given name of the one person a document names in full is that person's short name ('Seun' of 'Oluwaseun Adeyemi'); shorter clippings need the nickname dataset.")
    surname_dominance_ratio: float = Field(default=3.0, description="A lone surname several full names in a document end with joins the one mentioned at least this many times as often as each other.")
    acronym_min_letters: int = Field(default=2, description="Shortest all-capital name read as an acronym of a name in the same document.")
    acronym_max_letters: int = Field(default=6, description="Longest all-capital name read as an acronym.")
    acronym_min_letters_with_context: int = Field(default=3, description="Shortest acronym matched to an organisation of another document by its initials when the two documents also name pages in common (given_name_fold_min_shared of them).")
    acronym_min_letters_across_documents: int = Field(default=4, description="Shortest acronym matched to a page of another document by the initials of its title (three letters name too many things: OSU).")
    undefined_speakers_min: int = Field(default=2, description="Speaker labels no attendee list defines ('Priya: …') are people only in notes where at least this many such name-like labels speak.")
    document_date_lines: int = Field(default=4, description="A document without a Date: field is dated by the first calendar date in this many of its first non-blank lines ('# Weekly sync — Mon 2 Nov 2026', 'Wed 4 Nov 2026, 30 min'), else by a date in its file name.")
    document_date_line_words: int = Field(default=20, description="Only opening lines of at most this many words date a document; a longer one is prose that may mention any date.")
    section_heading_max_words: int = Field(default=6, description="A plain, capitalised or colon-ended line of at most this many words can be a heading that types the items under it ('Next steps', 'DECISIONS', 'Open:').")
    mail_header_chars: int = Field(default=1500, description="A mail's From: and To: lines are looked for in this many first characters, to name who 'you' and 'I' are in its requests and promises.")
    header_prose_min_words: int = Field(default=5, description="A 'Name: value' line at the top of a note whose value is a sentence of at least this many words ending in a full stop is what someone said, not a header field ('Priya: fixed the flaky tests.').")
    heading_max_words: int = Field(default=8, description="A line of at most this many words that ends without a full stop is read as a heading (its first word is capitalised by its place).")
    headline_min_words: int = Field(default=3, description="A line needs this many content words to be read as a Title Case headline.")
    headline_capital_share: float = Field(default=0.8, description="Share of a line's content words written with a capital for it to be a headline.")
    gazetteer: bool = Field(default=True, description="Names the graph and the batch already know are recognised in every document of a batch, also where the language model missed them.")
    gazetteer_min_chars: int = Field(default=3, description="Shorter names are never looked for outside the document that uses them (too many chance matches).")
    gazetteer_max_words: int = Field(default=6, description="Longer names are not looked for outside their document.")
    opener_min_zipf: float = Field(default=4.4, description="A sentence's first word ending in -ly, -ing or -ed at least this frequent ('Currently' 5.1, 'Following' 5.5, 'Discussed' 4.45; the surnames 'Fleming' 3.6, 'Reed' 4.1) only opens the sentence: it is cut off a person's name ('Currently Shalev').")
    coined_compound_part_min_zipf: float = Field(default=3.0, description="A coined capitalised name made of two everyday words at least this common (wordfreq's Zipf scale: 'Bluebeam', 'Trackwise') is shaped like a product's name.")
    coined_word_max_zipf: float = Field(default=1.5, description="A lower-case word rarer than this in English (wordfreq's Zipf scale: 'dagster' and 'kubectl' 0, 'enjambment' 1.2, 'nginx' 2.2) is a coined name, a candidate the kind classifier types or drops.")
    known_name_part_max_zipf: float = Field(default=3.5, description="'Apache Kafka' is also known as 'Kafka' when the one word after a brand's name is no plural and rarer than this in English (wordfreq's Zipf scale: 'kafka' 3.0, 'airflow' 3.1; 'analytics' 3.8 and 'browser' 3.9 stay words).")
    known_name_lower_max_zipf: float = Field(default=3.0, description="A lower-case word that a known software or brand name spells is that name when it is rarer than this ('dbt' 2.4, 'okta' 1.6; 'linear' 4.1 and 'snowflake' 3.3 stay words).")
    headline_max_words: int = Field(default=12, description="A document's first line of at most this many words, with no sentence punctuation at its end, is its headline: a short form used there may come before the full name it stands for.")
    cell_word_min_zipf: float = Field(default=4.4, description="A table's header cell that holds only one word at least this frequent in everyday English, which Simple Icons does not know, labels its column ('| Owner |' 4.8, '| Due |' 5.4); a column whose values are all such words holds values ('| High |', '| Medium |' 4.6). Products and projects ('| Looker |' 2.6, '| Harbour |' 4.2) stay names.")
    generic_head_min_zipf: float = Field(default=3.8, description="A one-word name after 'the' is a generic head (another document's 'the Court' is another court) only when the word is at least this frequent in everyday English: 'court' 5.4, 'bureau' 4.4, 'tribunal' 3.9; 'the Beacon data mapping' names a product (3.7).")
    header_firm_key_max_zipf: float = Field(default=2.5, description="A header line's one-word key before a list of full names ('Fernhill: Ada Park, Ben Ito') is a firm's name when it is rarer than this in English (wordfreq's Zipf scale: 'fernhill' 1.6; 'shortlist' 3.1 is a field).")
    common_word_min_zipf: float = Field(default=3.5, description="A word at least this frequent in everyday English (wordfreq's Zipf scale: 'court' 5.2, 'slack' 3.7, 'kafka' 3.0, 'figma' 1.7) is a common word: alone it may name different things in different documents.")
    initials_max_chars: int = Field(default=5, description="Longest short label of a person ('AP', 'JdS') meeting notes define; a full name is never matched across documents by one.")

    # --- reading ------------------------------------------------------------------------------
    search_min_score: float = Field(default=0.30, description="Vector hits below this cosine score are ignored; full-text answers instead.")
    preview_chars: int = 200
    search_scoped_candidates: int = Field(default=30, description="A limited key's search scores again at least this many nearest pages in its sight, by what it may read of them.")
    search_scoped_facts_per_page: int = Field(default=20, description="What a limited key's search reads of a page: at most this many of its facts in sight.")
    search_scoped_text_chars: int = Field(default=1000, description="The text a limited key's search embeds per page is cut to this many characters.")
    search_max_query_words: int = Field(default=64, description="Full-text search looks for at most this many distinct words of a query (the first ones); Lucene refuses queries of a few hundred.")
    brief_max_pages: int = Field(default=12, description="The brief's 'who and what matters' considers at most this many pages.")
    brief_token_budget: int = Field(default=400, description="The brief is packed into about this many tokens (estimated as characters / chars_per_token) and says what it left out.")
    brief_max_focus: int = Field(default=6, description="The brief describes at most this many focus areas, most recently active first.")
    brief_facts_per_focus: int = Field(default=12, description="The brief reads at most this many decisions, this many actions and this many open questions per focus area, the newest of each.")
    brief_members_per_focus: int = Field(default=6, description="The brief names at most this many people and things per focus area ('with …'), those the most sources mention.")
    brief_facts_about_you: int = Field(default=5, description="The brief's 'who you are' reads at most this many facts of the person's own page.")
    brief_statements_per_focus: int = Field(default=20, description="The brief picks the line that says what a focus area is from at most this many of its newest statements: the earliest that names the area, else the earliest sentence.")
    brief_recent_sources: int = Field(default=50, description="'Lately' in the brief: who and what the newest this-many sources mention.")
    brief_about_min_words: int = Field(default=5, description="The line that says what a focus area is is a sentence of at least this many words ('Ruby.' from a list is none).")
    brief_line_chars: int = Field(default=220, description="A sentence quoted in the brief is cut to this many characters.")
    brief_max_done_reports: int = Field(default=200, description="The brief checks open items against at most this many of the newest reports of work done ('X is done', 'sent the …').")
    closing_min_overlap: int = Field(default=3, description="A report of work done closes an open item when they share this many content words (a page both are about counts as one).")
    closing_min_similarity: float = Field(default=0.6, description="A report of work done also closes an open item it shares fewer words with when their sentences' embeddings (all-MiniLM-L6-v2, cosine) are at least this similar ('will get the insurance quote' / 'has shared the quote from the insurer' 0.75; the same person sending other minutes 0.50). Above 1 closes by shared words only.")
    get_page_max_facts: int = 200
    get_page_max_links: int = Field(default=500, description="get_page lists at most this many of a page's links, strongest first.")
    connection_min_documents: int = Field(default=2, ge=2, description="Two pages no document links get a suggested link when they are named together in at least this many documents ...")
    connection_min_share: float = Field(default=0.67, gt=0, le=1, description="... and at least this share of the documents naming either names both (named together, rarely apart).")
    contradiction_max_facts: int = Field(default=300, gt=1, description="Contradictions are looked for among a page's newest this many facts.")
    contradiction_min_overlap: float = Field(default=0.5, ge=0, le=1, description="Two facts say the same thing of a page when the other has this share of the shorter one's content words (the page's name left out); only then can their numbers or dates conflict.")
    contradiction_min_shared_words: int = Field(default=1, ge=1, description="... and they share at least this many content words.")
    contradiction_negation_min_overlap: float = Field(default=0.75, ge=0, le=1, description="A negation one fact has and the other lacks is a conflict when this share of all their content words is shared (stricter: 'not' changes nothing else).")
    contradiction_max_pairs: int = Field(default=5_000, gt=0, description="At most this many pairs of a page's facts (the newest facts' first) are compared when looking for contradictions.")
    get_page_max_conflicts: int = Field(default=5, ge=0, description="get_page lists at most this many pairs of the page's facts that disagree, the newest first (its message says how many there are).")
    contradiction_recurring_min_days: int = Field(default=300, ge=1, description="Two documents at least this many days apart whose differing days are as far apart as they are speak of two occurrences of a recurring thing (an annual election), not of one day that changed.")
    contradiction_slot_words: int = Field(default=3, ge=1, description="Two differing numbers or dates are in the same place when a content word within this many words before (or after) each is shared.")
    duplicate_scan_max_pages: int = Field(default=5_000, gt=0, description="The near-duplicate scan looks at most this many pages changed since its last run, the earliest changed first (the next scan goes on from there).")
    duplicate_scan_neighbours: int = Field(default=25, gt=0, description="The near-duplicate scan compares each page with this many nearest pages by vector.")
    duplicate_scan_min_shared_links: int = Field(default=2, gt=0, description="Two pages alike by name that are described differently are paired for review when both are linked to at least this many same things.")
    duplicate_scan_max_pages_per_word: int = Field(default=50, gt=1, description="The near-duplicate scan compares pages through a rare word of their names only while at most this many pages share it.")
    duplicate_scan_overlap_seconds: int = Field(default=600, ge=0, description="Each near-duplicate scan looks again at pages changed this long before the previous one ended (a write under way then is seen).")
    duplicate_scan_min_name_similarity: float = Field(default=85.0, description="Name similarity (0-100) from which the near-duplicate scan calls two names spelled alike.")
    duplicate_scan_cron: str = Field(default="0 3 * * *", description="When the Dagster schedule runs the near-duplicate scan (cron, the Dagster instance's time zone).")
    focus_proposal_min_pages: int = Field(default=4, ge=2, description="A group of pages is proposed as a focus area when it holds at least this many pages ...")
    focus_proposal_min_cohesion: float = Field(default=0.5, gt=0, le=1, description="... and at least this share of its pages' links (weighted by the documents behind them) stay inside it.")
    focus_proposal_max_pages: int = Field(default=40, ge=2, description="A group of more pages is split into its own groups (Louvain again, within it); one that does not split is too broad to propose.")
    focus_proposal_min_documents: int = Field(default=3, ge=1, description="A group is proposed only when its pages are named together in at least this many documents (one document's names are that document, not an area of work).")
    focus_proposal_max_share: float = Field(default=0.6, gt=0, le=1, description="A group holding more than this share of the linked pages is most of the graph, not a focus area, and is not proposed.")
    focus_proposal_filed_share: float = Field(default=0.5, gt=0, le=1, description="A group with at least this share of its pages filed under one focus area already is that area, and is not proposed.")
    focus_proposal_dismissed_overlap: float = Field(default=0.5, gt=0, le=1, description="A group that shares at least this share of its pages (Jaccard) with a dismissed proposal is not proposed again.")
    focus_proposal_resolution: float = Field(default=1.0, gt=0, description="Louvain's resolution for grouping pages: higher gives more, smaller groups.")
    focus_proposal_max: int = Field(default=20, ge=0, description="At most this many focus areas are proposed at a time, the largest groups first.")
    focus_proposal_cron: str = Field(default="30 3 * * *", description="When the Dagster schedule proposes focus areas from the graph (cron, the Dagster instance's time zone).")
    review_max_pairs: int = Field(default=50, description="`subtext review` lists at most this many pairs of pages that may be one thing, most alike first.")
    export_batch_size: int = Field(default=1_000, gt=0, description="`subtext export` reads a graph this many records per query.")
    import_batch_size: int = Field(default=500, gt=0, description="`subtext import` writes this many records per statement (all in one transaction).")
    brief_why_facts: int = Field(default=6, description="The brief reads this many of a page's newest facts to say in a few words why it matters.")
    brief_first_matters: int = Field(default=4, description="This many of the people and things who matter rank with the focus areas' first items for the brief's room; the rest come after every area's items.")
    brief_reserved_tokens: int = Field(default=40, description="Brief tokens kept free while packing, for the 'who matters' heading and the sentence saying what was left out.")
    compile_reserved_tokens: int = Field(default=200, description="compile tokens kept free while packing, for the section headings and the sentences saying what was left out.")
    status_problems_shown: int = Field(default=20, description="`subtext status` lists at most this many failed or truncated documents per person.")
    status_runs_shown: int = Field(default=5, description="`subtext status` lists this many of the latest Dagster runs.")
    snapshot_max_pages: int = Field(default=500, description="graph_snapshot answers in parts of this many pages; next_cursor reads the next part.")
    snapshot_max_links: int = Field(default=2_000, description="graph_snapshot lists at most this many of the links that start at one part's pages, then says so.")
    traverse_max_limit: int = 200
    chars_per_token: float = Field(default=4.0, description="Rough size of a token, for scope's estimates.")
    deep_compile_token_budget: int = Field(default=12_000, description="scope calls a deep compile sensible up to this size; every compile is packed into it.")
    compile_max_members: int = Field(default=200, description="compile considers at most this many members or neighbours (strongest links first).")
    source_max_authors: int = Field(default=5, ge=1, description="A document's author is recorded with at most this many of the names its Author field or byline gives.")
    compile_max_conflicts: int = Field(default=3, ge=0, description="compile shows at most this many pairs of the target's facts that disagree, the newest first.")
    compile_max_recent: int = Field(default=5, ge=0, description="compile on a focus area lists at most this many of its latest sources (documents and submissions), each with what it brought.")
    activity_pages_per_source: int = Field(default=5, ge=0, description="Recent activity names at most this many of the pages each source names, most named first.")
    related_areas_max: int = Field(default=5, ge=0, description="compile on a focus area lists at most this many other focus areas that share pages with it.")
    related_areas_shared_shown: int = Field(default=3, ge=0, description="Each related focus area is shown with at most this many of the pages it shares.")
    compile_facts_per_page: int = Field(default=12, description="compile reads at most this many facts per page.")
    dagster_stop_grace_seconds: float = Field(default=5.0, description="How long `subtext dagster`, told to stop (Ctrl-C, SIGTERM), lets `dagster dev` shut its webserver, daemon and code servers down before ending them.")
    upload_sensor_interval_seconds: int = Field(default=15, description="How often Dagster's upload-folder sensor looks for new, changed and removed files.")
    key_last_used_every_seconds: int = Field(default=60, description="A key's 'last used' time is written at most this often: checking a key stays a read.")
    compile_sentences_per_relation: int = Field(default=2, description="A deep compile quotes at most this many sentences that two linked pages share.")
    compile_max_relations: int = Field(default=100, description="A deep compile describes at most this many links between its pages.")
    compile_cache_max_entries: int = Field(default=256, description="The MCP server keeps at most this many compiled packages (least recently used go first).")

    # --- serving ------------------------------------------------------------------------------
    mcp_host: str = "127.0.0.1"
    mcp_port: int = 8765
    access_key: SecretStr | None = Field(default=None, description="The key a stdio server acts with; unset: the default person, full access.")
    change_check_seconds: float = Field(
        default=5.0,
        description="How long the MCP server relies on what it read from Neo4j about access keys and graph "
        "versions. Any write by a subtext process on this machine (an ingest run, `subtext keys pause`, a "
        "write tool) makes it read again on the next call; only writers on another machine sharing "
        "NEO4J_URI go unseen for up to this long. 0 reads Neo4j on every call.",
    )
    upkeep_tools: bool = Field(default=False, description="Offer the graph-upkeep tools over MCP (review, merge_pages) "
                               "besides the ten: to the person over stdio, and over HTTP to keys created with --upkeep.")
    rate_limit_calls_per_minute: int = Field(default=120, description="Tool calls per person per minute, across all their keys.")
    rate_limit_submissions_per_minute: int = Field(default=20, description="edit_page_body calls plus HTTP uploads per person per minute.")
    max_upload_bytes: int = Field(default=10_000_000, description="POST /api/upload refuses larger bodies.")
    mcp_sessions_per_key: int = Field(default=16, gt=0, description="Streamable HTTP sessions one access key may hold open at once; the request that would open one more gets a 429.")
    mcp_sessions_per_person: int = Field(default=64, gt=0, description="Streamable HTTP sessions all of one person's keys may hold open at once.")
    mcp_session_idle_seconds: float = Field(default=1800.0, gt=0, description="A Streamable HTTP session with no request for this long is closed (and stops counting against the caps above).")

    # --- optional LLM ---------------------------------------------------------------------
    llm_model: str | None = Field(default=None, description="A litellm model name ('openai/gpt-4o-mini', 'anthropic/claude-3-5-haiku-latest', 'ollama/llama3.1'); unset means no LLM is ever called and litellm is never imported.")
    llm_api_base: str | None = Field(default=None, description="The model server's address, for a local server (Ollama, llama.cpp's llama-server: 'http://127.0.0.1:8080/v1'); otherwise litellm's own variables (OLLAMA_API_BASE, OPENAI_API_BASE) apply.")
    llm_api_key: str | None = Field(default=None, description="A key for the model server when litellm's own variables (OPENAI_API_KEY, ANTHROPIC_API_KEY) do not hold one.")
    llm_timeout_seconds: float = Field(default=60.0, gt=0, description="How long one LLM call may take before the step goes on without it.")
    llm_max_calls_per_run: int = Field(default=100, ge=0, description="At most this many LLM calls in one run or command; the rest fall back to the no-LLM result.")
    llm_max_output_tokens: int = Field(default=300, ge=16, description="Longest answer one LLM call may write.")
    llm_review_max_pairs: int = Field(default=20, ge=0, description="Review pairs an LLM is asked about after one run (the strongest first).")
    llm_review_facts_per_page: int = Field(default=3, ge=0, description="Facts of each page an LLM is shown when it judges whether two pages are one thing.")
    llm_conflict_max_pages: int = Field(default=50, ge=0, description="The most recently updated pages whose candidate contradictions an LLM judges after one run.")
    llm_conflict_max_pairs: int = Field(default=10, ge=0, description="Candidate contradictions an LLM is asked about after one run.")
    llm_compile_max_statements: int = Field(default=40, ge=1, description="Facts of a deep compile an LLM is shown, numbered, when it writes the compile's narrative.")
    llm_kind_max_pages: int = Field(default=20, ge=0, description="Pages whose sources disagree on their kind that an LLM is asked about after one run (those with most facts first).")
    llm_review_max_attempts: int = Field(default=2, ge=1, description="Runs in which an LLM is asked about a review pair it gave no valid answer on, before the pair is left to the person.")

    @property
    def uses_embedded_neo4j(self) -> bool:
        return self.neo4j_uri is None

    @property
    def local_neo4j_home(self) -> Path:
        return self.state_dir / "neo4j"

    @property
    def dagster_home(self) -> Path:
        """DAGSTER_HOME: the folder of this state's copy of dagster.yaml (see pipeline.run.dagster_instance)."""
        return self.state_dir / "dagster-home"

    @property
    def dagster_storage_dir(self) -> Path:
        return self.state_dir / "dagster"

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"neo4j://127.0.0.1:{self.local_neo4j_bolt_port}"

    def neo4j_auth(self) -> tuple[str, str]:
        """Credentials: the configured ones, else the embedded server's generated password."""
        if self.neo4j_password is not None:
            return self.neo4j_username, self.neo4j_password.get_secret_value()
        password_file = self.local_neo4j_home / "password"
        if not password_file.exists():
            from graph_schema.errors import GraphUnavailable

            raise GraphUnavailable(
                "No Neo4j password is known yet. Run `subtext neo4j start` to set up the local "
                "server, or set NEO4J_URI, NEO4J_USERNAME and NEO4J_PASSWORD for your own."
            )
        return "neo4j", password_file.read_text().strip()


def quiet_third_parties() -> None:
    """Stop libraries from phoning home or reaching a model hub; nothing may leave the machine."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("SCARF_NO_ANALYTICS", "true")
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    quiet_third_parties()
    return Settings()


def reset_settings() -> None:
    """Forget the cached settings (tests change the environment between cases)."""
    get_settings.cache_clear()

"""How the forms of one name are told from the names of others: "one thing, one page" (issue 13).

Pure functions over strings, used by in-document coreference (extract.py) and cross-document
resolution (resolve.py):

- Honorifics and roles are not part of a person's name: "Dr. Okafor", "Sheriff Dana Ruiz" and
  "Mr. Ortega" are keyed as "okafor", "dana ruiz", "ortega". The titles are nameparser's list
  (LGPL-2.1-or-later, used unmodified as a library), plus "justice", which it lacks.
- Legal suffixes are not part of an organisation's name: "Initech Corp." is "Initech" (cleanco, MIT).
- Two written forms of one person's name: middle names or initials dropped ("William J. Ortega" /
  "William Ortega") and nicknames ("Bill" / "William", "Liz" / "Elizabeth"; the nicknames
  dataset, Apache-2.0).
- A generic head ("the Court", "the Church", "the Bureau") names a different body in each
  document: it is a name only inside its document. Only an everyday word is one: "the Figma
  file" names Figma. How common a word is comes from wordfreq (code Apache-2.0, data CC BY-SA 4.0).
- A firm named by a distinctive word and words for its trade ("Tidewater Freight", "Corvid
  Analytics") goes by the distinctive word alone too ("Tidewater"); "United Airlines" does not go
  by "United", an everyday word.
- Headlines in Title Case or capitals give spans such as "Celtics Sign Star Guard": inside a
  headline only a name the document's prose also uses is kept.
- "Reuters and Bloomberg" in one span is two names when the prose names each on its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache

from graph_schema.settings import get_settings
from graph_schema.slugs import normalise_name
from pipeline.known_names import is_known_name

# Missing from nameparser's list: "Justice Thomas" is a judge, "Major General Lafayette" an officer, "Inspector
# Lynley" a detective, and Central Europe's academic degrees stand before a name ("dr hab. Tadeusz Górski",
# "inż. Jan Nowak"); not "Ing.", which would also make a title of ING the bank. Only leading words are
# stripped, so "John Major" and "John Constable" keep their surnames.
_EXTRA_TITLES = frozenset({"justice", "major", "inspector", "constable", "superintendent", "marshal",
                           "hab", "inż", "dipl"})
# Styles of address nameparser does not list as titles; only after a possessive ('Your Honor'),
# since 'Grace' and 'Honor' alone are given names.
_STYLES = frozenset({"honor", "honour", "lordship", "ladyship", "grace", "worship"})
_POSSESSIVES = frozenset({"your", "his", "her", "their", "my", "our"})
_DETERMINERS = frozenset({"the", "this", "that", "said", "our", "their", "its", "his", "her"})
_SMALL_WORDS = frozenset({"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with", "vs"})
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
_AND = re.compile(r"\s+(?:and|&)\s+")
_INITIAL = re.compile(r"^[a-z]$")
_LIST_ITEM = re.compile(r"\s*[-*+•]\s")
# Words for a trade or a kind of body that end organisations' names ("Bellhaven Retail", "Larkspur
# Systems", "Acme Holdings"): a name ending in one is a firm or a body, not a person or software.
ORGANISATION_HEADS = frozenset({
    "retail", "retailers", "stores", "supermarkets", "markets", "insurance", "assurance", "bank", "bancorp",
    "banking", "capital", "finance", "financial", "investments", "securities", "holdings", "partners",
    "associates", "advisors", "advisers", "group", "ventures", "trust", "freight", "logistics", "shipping",
    "haulage", "hauliers", "haulers", "couriers", "trucking", "warehousing", "transport", "airlines", "airways",
    "railways", "motors", "automotive", "energy", "power", "utilities", "renewables", "storage", "distribution",
    "mining", "steel", "chemicals", "pharmaceuticals", "pharma", "therapeutics", "biotech", "biosciences",
    "health", "healthcare", "medical", "foods", "beverages", "brewing", "brewery", "farms", "dairy",
    "hotels", "resorts", "restaurants", "media", "publishing", "press", "records", "studios", "pictures",
    "entertainment", "communications", "telecom", "networks", "systems", "technologies", "technology",
    "solutions", "software", "analytics", "labs", "laboratories", "consulting", "consultancy", "services",
    "industries", "manufacturing", "engineering", "construction", "builders", "properties", "realty",
    "civils", "contractors", "contracting", "scaffolding", "roofing", "joinery", "plumbing",
    "apparel", "textiles", "electronics", "semiconductor", "aerospace", "robotics", "interactive",
    "foundation", "institute", "university", "college", "academy", "council", "committee", "agency",
    "authority", "ministry", "association", "society", "federation", "union", "club",
})


@lru_cache(maxsize=1)
def _titles() -> frozenset[str]:
    from nameparser.config import CONSTANTS

    return frozenset(CONSTANTS.titles) | _EXTRA_TITLES


@lru_cache(maxsize=1)
def _nicknamer():
    from nicknames import NickNamer

    return NickNamer()


def strip_honorifics(surface: str) -> str:
    """The person's name without the titles and roles in front of it: 'Chief Justice Kennedy' -> 'Kennedy',
    nor the degrees and honours after it: 'Daniel Bernoulli FRS' -> 'Daniel Bernoulli'.

    A span that is titles only ('Mr. Chief Justice') gives ''. Only leading words are titles,
    and only while a capitalised word is left after them, so 'General' alone stays itself.
    """
    words = surface.split()
    cut = 0
    while cut < len(words) - 1 and all(
        part.lower().strip(".") in _titles() for part in words[cut].split("-") if part
    ):
        cut += 1
    rest = words[cut:]
    if cut and len(rest) == 1 and rest[0].lower().strip(".") in _titles():
        return ""
    while len(rest) > 2 and _is_post_nominal(rest[-1]):
        rest = rest[:-1]  # 'Daniel Bernoulli FRS', 'Ada Park PhD'
    return " ".join(rest)


def _is_post_nominal(word: str) -> bool:
    """A degree or honour after a name: nameparser's list ('PhD', 'MD'), or letters in capitals ('FRS')."""
    from nameparser.config import CONSTANTS

    bare = word.strip(".,").replace(".", "")
    if is_regnal_number(bare):
        return False  # 'Abbas II' is another person than 'Abbas I': the number is part of the name
    return bare.lower() in CONSTANTS.suffix_acronyms or (bare.isalpha() and bare.isupper() and 2 <= len(bare) <= 5)


_WORD_BEFORE = re.compile(r"([A-Z][\w.-]*) $")
_ROMAN = re.compile(r"^(?=[IVXL])L?X{0,3}(?:IX|IV|V?I{0,3})$")
# A regnal or generational number after a name ('Shah Abbas II', 'Johann II'); a lone 'I' only
# before punctuation ('Shah Abbas I, and'), since elsewhere it is the pronoun ('Then John I think').
_NUMBER_AFTER = re.compile(r" ((?:[IVXL]{2,}|V|X)\b(?![\w'’-])|I(?=[,.;:)]|$))", re.M)


def is_regnal_number(word: str) -> bool:
    return bool(_ROMAN.match(word))


def end_with_number(text: str, end: int) -> int:
    """Where a person's span ends once a regnal number the model left outside it is taken in:
    '[Johann] II' -> '[Johann II]'."""
    match = _NUMBER_AFTER.match(text, end)
    return match.end(1) if match and is_regnal_number(match.group(1)) else end


def start_with_titles(text: str, start: int, max_titles: int = 3) -> int:
    """Where a person's span starts once the titles the model left outside it are taken in:
    'Justice [Thomas]' -> '[Justice Thomas]'. A title written with a capital, right before the name."""
    for _ in range(max_titles):
        match = _WORD_BEFORE.search(text, max(0, start - 30), start)
        if not match or not all(p.lower().strip(".") in _titles() for p in match.group(1).split("-") if p):
            break
        start = match.start(1)
    return start


def start_after_titles(text: str, start: int, end: int) -> int:
    """Where a name written with its titles starts without them: 'dr hab. Tadeusz Górski' -> 'Tadeusz
    Górski', 'Dr D Smith' -> 'D Smith'. Unchanged when one word would be left ('Prince Adeyemi')."""
    words = [m.start() for m in re.finditer(r"\S+", text[start:end])]
    bare = strip_honorifics(text[start:end]).split()
    if len(bare) < 2 or len(bare) >= len(words):
        return start
    surface_words = text[start:end].split()
    for index in range(1, len(words) - len(bare) + 1):
        if surface_words[index : index + len(bare)] == bare:
            return start + words[index]
    return start


def has_title(surface: str) -> bool:
    return strip_honorifics(surface) != surface


# Lower-case words that may stand inside a name ('Bank of America', 'Ludwig van Beethoven').
_CONNECTORS = frozenset({"of", "and", "for", "the", "at", "on", "in", "de", "du", "des", "da", "di", "del", "della",
                         "der", "den", "la", "le", "van", "von", "y", "bin", "ibn", "al", "&", "upon"})
# Of those, the ones inside a person's name ('Bonosus of Sardica', 'Alexander the Great', 'Ludwig van
# Beethoven'); 'Lydia Buchtmann for Food Standards Australia' is a person and where she works.
_PERSON_CONNECTORS = _CONNECTORS - {"for", "at", "on", "in", "upon"}  # "and" is split later (conjoined_parts)
# The particles that stand only inside a surname ('Isabel de la Cruz', 'Pieter van der Berg'), never
# between two names as 'of' or 'and' may ('Bank of America', 'Reuters and Bloomberg').
SURNAME_PARTICLES = frozenset({"de", "du", "des", "da", "di", "del", "della", "der", "den", "la", "le", "van", "von",
                               "dos", "das", "bin", "ibn", "al"})
_TOKEN = re.compile(r"\S+")


def name_part(surface: str, person: bool) -> tuple[int, int] | None:
    """The name inside a span the model drew too wide, as (start, end) offsets; None when it is all name.

    'Moreau in 1958' -> 'Moreau', 'conquistador leader Montejo' -> 'Montejo', 'Rathbun the
    Scientology' -> 'Scientology', 'Jenna Nicole Mourey (born 1986)' -> 'Jenna Nicole Mourey'.
    A name is a run of words with a capital, with lower-case connectors only between them
    ('Bank of America', 'Alexander the Great'; an organisation's 'the' only after 'of'; no 'for'
    or 'at' in a person's). Of several runs a person's is the first ('Lydia Buchtmann for Food
    Standards Australia'); else the longest, the last of equals (a descriptor comes before the name).
    """
    cut = surface.find(" (")
    text = surface[:cut] if cut > 0 else surface
    connectors = _PERSON_CONNECTORS if person else _CONNECTORS
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    runs: list[tuple[int, int]] = []  # token index ranges
    i = 0
    while i < len(tokens):
        if not _capitalised(tokens[i][2]):
            i += 1
            continue
        j = i + 1
        while j < len(tokens):
            if _capitalised(tokens[j][2]):
                j += 1
                continue
            k = j
            while k < len(tokens) and tokens[k][2].lower() in connectors and not _capitalised(tokens[k][2]):
                k += 1
            if k > j and k < len(tokens) and _capitalised(tokens[k][2]) and not (
                not person and tokens[j][2] == "the" and tokens[j - 1][2].lower() not in _CONNECTORS
            ):
                j = k + 1
                continue
            break
        runs.append((i, j))
        i = j
    if not runs:
        return None
    # A person is named first, then where they work; otherwise a descriptor comes before the name.
    best = runs[0] if person else max(runs, key=lambda r: (r[1] - r[0], r[0]))
    start, end = tokens[best[0]][0], tokens[best[1] - 1][1]
    if (start, end) == (0, len(surface)):
        return None
    return start, end


# A greeting before the name it greets ('Dear Agnieszka,', 'Hi Maya'), and a request opening an item
# before whom it is made of ('| Ask Tidewell to serve …', '- Remind Javier about the replica').
_SALUTATIONS = frozenset({"dear", "hi", "hey"})
_GREETINGS = _SALUTATIONS | {"hello", "thanks", "morning", "afternoon", "evening"}
_REQUESTS = frozenset({"ask", "tell", "remind", "email", "call", "ping", "chase", "invite", "contact", "message", "nudge", "thank",
                       # notes drop the subject: '[GP] Wants Fernhill's proposal before the board'
                       "wants", "needs", "asks", "prefers", "suggests", "proposes", "expects", "agrees", "thinks"})
# Adverbs of time that open a sentence without being stop words or ending in -ly.
_DAY_ADVERBS = frozenset({"today", "yesterday", "tomorrow", "tonight", "earlier", "later", "overall", "instead"})


def _is_opening_adverb(word: str, participles: bool) -> bool:
    """'currently', 'recently' (and with `participles`, 'following', 'discussed'): an everyday word, not a given name ('Kelly')."""
    from wordfreq import zipf_frequency

    if not word.endswith(("ly", "ing", "ed") if participles else "ly") or len(word) <= 4 or _nicknamer().canonicals_of(word) or _nicknamer().nicknames_of(word):
        return False
    return zipf_frequency(word, "en") >= get_settings().opener_min_zipf


# A software part's generic name after a product's: 'the Airflow DAG', 'the Stripe API', 'Notion SDK'.
_SOFTWARE_PART = re.compile(r"\s+(?:APIs?|SDKs?|CLIs?|DAGs?|DBs?)$")


def product_before_its_part(surface: str, named_here: Collection[str] = ()) -> int | None:
    """The end of a product's name before a software part's generic name ('Airflow' of 'Airflow
    DAG'): the page is the product's, the part is how it is used. A product is a name Simple Icons
    knows or one the document also uses alone (`named_here`, normalised: 'Beacon splits them …',
    then 'the Beacon API'). None when there is none."""
    from pipeline.known_names import is_known_name

    part = _SOFTWARE_PART.search(surface)
    if not part or part.start() <= 1:  # not the C of 'the C API'
        return None
    product = surface[: part.start()].removeprefix("the ")
    # named alone here, and not a term in capitals ('the CRUD API') nor a firm's ('Hantek's SDK')
    named = normalise_name(product) in named_here and not product.isupper() and not product.endswith(("'s", "’s"))
    return part.start() if is_known_name(product) or named else None


_DATE_ABBREVIATION = re.compile(r"(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|Mon|Tues?|Wed|Thu|Thurs|Fri|Sat|Sun)\.\s+(?=[A-Z])")


def _greeted_or_asked(first: str, rest: str, surface: str) -> bool:
    """Whether a greeting or a request opens the span rather than the name ('Chase Elliott', 'Chase
    Bank', 'Morning Star', 'Contact Energy'): the first word is no given name, the whole no name
    Simple Icons knows, and what follows a salutation ('Dear Grace', 'Hi Maya'), or a given name or a
    rare word ('Agnieszka', 'Tidewell')."""
    from pipeline.known_names import is_known_name

    following = normalise_name(rest.split()[0])
    if is_given_name(first) or is_known_name(surface):
        return False
    # a letter's or a message's greeting is followed by a name; 'Morning Star', 'Hello Fresh' are names
    return first in _SALUTATIONS or is_given_name(following) or not is_common_word(following)


# What a firm or a person is to the writer, opening a sentence before their name ('Client Tidewater …').
_RELATION_NOUNS = frozenset({"client", "customer", "vendor", "supplier", "partner", "prospect", "contractor",
                             "subcontractor", "competitor", "distributor", "reseller", "landlord", "tenant"})


def sentence_opener(surface: str, sentence_start: bool, person: bool = False) -> int:
    """How many characters of a span are a capitalised function word that only opens the sentence:
    'With Wikinews', 'How The Onion', 'After Theodorus' -> the offset where the name starts, else 0.
    A greeting or a request goes too: 'Dear Agnieszka', 'Ask Tidewell to serve …'.

    A word of spaCy's English stop list, written with a capital only because a sentence starts
    there, followed by a capitalised word; not a determiner or possessive, which belong to titles
    and names ('The Independent', 'My Lord'). A given name that is also such a word ('Will Smith',
    by the nicknames dataset) stays. An everyday -ly adverb goes too ('Currently Shalev'), and
    before a person's name an everyday -ing or -ed word ('Following Smetana', 'Discussed Tomasz's draft').
    """
    from spacy.lang.en.stop_words import STOP_WORDS

    abbreviation = _DATE_ABBREVIATION.match(surface)
    if abbreviation:  # 'went live on 23 Nov. Tessaly Group is …': the model ran the date into the next sentence
        return abbreviation.end()
    words = surface.split(" ", 1)
    if not sentence_start or len(words) < 2 or not words[1][:1].isupper() or words[0].isupper():
        return 0
    first = words[0].lower()
    if _is_opening_adverb(first, participles=person):  # 'Reading Festival' may be a name, 'Following Smetana' not
        return len(words[0]) + 1
    if (first in _GREETINGS or first in _REQUESTS) and _greeted_or_asked(first, words[1], surface):
        return len(words[0]) + 1  # 'Dear Agnieszka', 'Ask Tidewell'
    if first in _DAY_ADVERBS and not is_common_word(words[1].split()[0].lower()):
        return len(words[0]) + 1  # 'Today Harrowgate and Tessaly get …' names the firm; 'Today Show' is one name
    if first in _RELATION_NOUNS and not is_common_word(words[1].split()[0].lower()):
        return len(words[0]) + 1  # 'Client Tidewater Marine Pte Ltd chartered …': what the firm is to us, then its name
    if first not in STOP_WORDS or first in _ADDRESS or first in ("a", "an") or _nicknamer().canonicals_of(first) or _nicknamer().nicknames_of(first):
        return 0
    return len(words[0]) + 1


def group_of_a_body(surface: str, sentence_start: bool, known: dict[str, object]) -> int:
    """How many characters of a span name a group of people a sentence opens with ('Critics of',
    'Members of') before a body the prose names alone ('Scientology', 'Congress'): the offset of
    the body's name, else 0. A plural everyday word, capitalised only because the sentence starts
    there; 'Friends of the Earth' stays whole, as the prose names no 'Earth'."""
    words = surface.split(" ", 2)
    if (not sentence_start or len(words) < 3 or words[1] != "of" or not _looks_plural(words[0])
            or not is_common_word(words[0].lower()) or normalise_name(words[2]) not in known):
        return 0
    return len(words[0]) + len(words[1]) + 2


def in_lower_case_only(surface: str) -> bool:
    """'deemed essential': words of a cased script, none with a capital; no name is written so
    (a script without case, '习近平', is not lower case)."""
    cased = [c for c in surface if c.isalpha() and (c.isupper() or c.islower())]
    return bool(cased) and not any(c.isupper() for c in cased)


def _capitalised(token: str) -> bool:
    return any(c.isupper() for c in token)  # 'eBay', 'iPhone', '3M' too


def org_base(surface: str) -> str:
    """The organisation's name without its legal form: 'Initech Corp.' -> 'Initech' (never empty)."""
    from cleanco import basename

    base = basename(surface).strip(" ,.")
    while base and (shorter := basename(base).strip(" ,.")) and shorter != base and " " in base:
        if len(shorter.split()) == 1 and is_common_word(shorter):
            break  # 'Trust Company Ltd' is no 'Trust'
        base = shorter  # 'Nakamura Seiki Co., Ltd.': one form after another
    return base or surface


# The legal forms that say 'company' wherever they are written. cleanco's list (used for keys) also
# holds 'Unlimited', 'SE', 'EE', 'AD', 'CA', 'CO' and 'GP', which end 'Kindle Unlimited', 'Java EE',
# 'Azure AD', 'Palo Alto CA' and 'Monaco GP': a legal form there is a guess, not a rule.
_LEGAL_FORMS = (
    r"(?:Inc\.?|Incorporated|Ltd\.?|Limited|LLC|L\.L\.C\.|LLP|PLC|plc|GmbH|AG|S\.A\.|S\.A\.S\.|Corp\.?|"
    r"Corporation|Co\.|Company|Pty\.?\s+Ltd\.?|N\.V\.|B\.V\.|AB|Oy|A/S|ASA|S\.p\.A\.|S\.r\.l\.|KGaA|L\.P\.|"
    # Nordic, Baltic, Turkish, Singaporean, Malaysian, Latin American, Central European and Japanese forms
    r"AS(?![ \t]*\d)|ApS|OÜ|A\.Ş\.|Pte\.?\s+Ltd\.?|Sdn\.?\s+Bhd\.?|Ltda\.?|S\.L\.|SARL|Kft\.?|s\.r\.o\.|sp\.\s+z\s+o\.o\.|K\.K\.)")
_LEGAL_FORM = re.compile(r",?\s+" + _LEGAL_FORMS + "$")
# Capitalised words, '&' and the small words of firm names, then a legal form ('Co., Ltd.' is one),
# on one line: 'Harrow & Vale LLC', 'Dunmore Precision Components plc', 'Fernlight Payments Pty Ltd'.
_FIRM_WITH_LEGAL_FORM = re.compile(
    r"(?<![\w'’.-])(?!" + _LEGAL_FORMS + r"[ \t])[A-Z][\w'’.-]*(?:[ \t]+(?:[A-Z][\w'’.-]*|&|and|of|the|for)){0,8}?"
    r"(,?[ \t]+)(?:(?:Co\.?|Company),?[ \t]+(?:Ltd\.?|Limited|Inc\.?)|" + _LEGAL_FORMS + r")(?![\w/])")


def firms_with_legal_forms(text: str) -> list[tuple[int, int, int]]:
    """(start, where the legal form's comma or space begins, end) of each capitalised name with its
    legal form in the text (see has_legal_form)."""
    return [(m.start(), m.start(1), m.end()) for m in _FIRM_WITH_LEGAL_FORM.finditer(text) if has_legal_form(m.group())]


def has_legal_form(surface: str) -> bool:
    """'Brisk Metrics Inc.', 'Quarry Lane Software Ltd', 'Pryor & Lusk LLP', 'Acme, Inc.': a
    capitalised name that ends in a legal form names a company, whatever a model reads it as."""
    form = _LEGAL_FORM.search(surface.strip())
    if form is None:
        return False
    base = surface.strip()[: form.start()]
    words = [w for w in _WORD.findall(base) if w.lower() not in _SMALL_WORDS]
    if form.group().strip(" ,") in _WORD_LIKE_FORMS and all(w.isupper() for w in words):
        return False  # a heading in capitals ('WORKS AS'), not 'Halvorsen Bygg AS'
    return bool(words) and all(w[:1].isupper() for w in words) and not is_titles_only(base)


_WORD_LIKE_FORMS = frozenset({"AS"})
# A legal form abbreviated with a full stop, written without its last one where the sentence ends
# ('… Acme Ltd.', '… Cumbre Digital S.A.S.'): 'Inc', 'Ltd', or a dotted form's last letter ('S.A.S').
_ABBREVIATED_FORM_END = re.compile(r"\b(?:Inc|Corp|Co|Ltd|Bros|Pty|Kft|Ltda)$|\.[^\W\d_]$")


def takes_a_full_stop(surface: str) -> bool:
    """Whether a firm's name ends in an abbreviated legal form whose full stop the text writes after it."""
    return bool(_ABBREVIATED_FORM_END.search(surface)) and has_legal_form(surface + ".")


def firms_own_word(name: str) -> str | None:
    """'Corvid' of 'Corvid Industrietechnik GmbH', 'Brindle' of 'Brindle Money Ltd': the first word of a
    firm's registered name of two or more words, when it is a coined word (no everyday English, no
    given name): in the document that names the firm, that word alone is the firm."""
    if not has_legal_form(name):
        return None
    words = org_base(name).split()
    first = words[0] if len(words) >= 2 else ""
    if not first[:1].isupper() or not first.isalpha() or first.isupper() or is_common_word(first) or is_given_name(first.lower()):
        return None
    return first


def short_names_of_a_firm(name: str) -> list[str]:
    """The names a firm goes by besides its full one: 'Brisk Metrics' for 'Brisk Metrics Inc.',
    'Tidewater' for 'Tidewater Analytics GmbH' (see distinctive_short_form)."""
    base = org_base(name) if has_legal_form(name) else name
    shorts = [base] if base != name else []
    short = distinctive_short_form(base)
    return shorts + [short] if short else shorts


# 'Sethi, Priyanka' as mail clients and directories write names: surname first, then a comma.
# One word on each side: 'Ada Park, Sam Lee' is two people, 'Obama, Hillary Clinton' no one's inversion.
_INVERTED = re.compile(r"^([A-Z][\w'’-]+), ([A-Z][\w'’-]+)$")


def _inverted(surface: str) -> re.Match | None:
    """The match of a 'Surname, Given' name; not 'King, Jr.' nor 'Abbas, II' (a suffix after a comma)."""
    from nameparser.config import CONSTANTS

    match = _INVERTED.match(surface.strip())
    if not match:
        return None
    after = match.group(2).lower().replace(".", "")
    suffixes = CONSTANTS.suffix_acronyms | CONSTANTS.suffix_not_acronyms
    if after in suffixes or is_regnal_number(match.group(2)) or org_base(surface.strip()) != surface.strip():
        return None  # 'Acme, Inc' is a firm's legal form
    return match


def uninverted(surface: str) -> str:
    """'Sethi, Priyanka' -> 'Priyanka Sethi'; any other name as it is. Only for names a mail header
    gives (a model's span with a comma is more often a list than an inverted name)."""
    match = _inverted(surface)
    return f"{match.group(2)} {match.group(1)}" if match else surface


def is_inverted_name(surface: str) -> bool:
    return _inverted(surface) is not None


_LINE = re.compile(r"^[ \t]*(.+?)\.?[ \t]*$", re.MULTILINE)


# Words that open a short reply or a greeting addressed to someone: 'Okay, Mark.', 'Agreed, Tom.', 'Hi, Sam'.
# (units.is_salutation reads greetings and closings as lines; a reply such as 'Thanks, Mark.' is not one.)
_ADDRESSING_WORDS = frozenset({"okay", "ok", "agreed", "sure", "yes", "no", "noted", "thanks", "thank", "welcome",
                               "note", "great", "right", "well", "sorry", "congrats", "congratulations", "cheers", "hi",
                               "hello", "hey", "dear", "morning", "evening", "afternoon", "bye", "please", "done",
                               "fine", "perfect", "good", "nice", "true", "exactly", "absolutely", "sounds"})


def inverted_name_lines(text: str) -> list[tuple[int, int]]:
    """The spans of lines that are one 'Surname, Given' name and nothing else ('London, Jack.'), in a
    list of two or more such lines, as reading lists, catalogues and exports write their people. The
    given name must be one the nickname dataset knows ('Paris, France.' stays a place) and the line
    no greeting, closing or reply ('Hi, Sam', 'Best, Nada', 'Okay, Mark.')."""
    from pipeline.units import is_salutation

    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        match = _inverted(line.group(1))
        if (match and is_given_name(match.group(2).lower()) and not is_salutation(line.group(0))
                and match.group(1).lower() not in _ADDRESSING_WORDS):
            spans.append((line.start(1), line.end(1)))
    return spans if len(spans) >= 2 else []


@lru_cache(maxsize=65536)
def name_key(surface: str, person: bool) -> str:
    """The key one name is compared by: honorifics off a person's name, legal forms off any other."""
    if person:
        stripped = strip_honorifics(surface)
        return normalise_name(stripped) if stripped else ""
    return normalise_name(org_base(surface)) or normalise_name(surface)


_ADDRESS = frozenset({"the", "my", "your", "his", "her", "our", "their", "this", "that", "said"})


def is_titles_only(surface: str) -> bool:
    """'Mr. Chief Justice', 'the Judge', 'my Lords', 'the Prime Minister's': a way to address or
    refer to someone by their office, not a name (the office has many holders across documents)."""
    words = surface.replace("’", "'").split()
    if len(words) == 2 and words[0].lower() in _POSSESSIVES and words[1].lower().rstrip(".,") in _STYLES:
        return True  # 'Your Honor', 'His Grace': a style of address, whoever holds it in this document
    while words and words[0].lower() in _ADDRESS:
        words = words[1:]
    if not words:
        return False
    if words[-1].endswith("'s"):
        words[-1] = words[-1][:-2]

    def is_title(word: str) -> bool:
        word = word.lower().strip(".,")
        return word in _titles() or (word.endswith("s") and word[:-1] in _titles())

    return all(is_title(part) for word in words for part in word.split("-") if part)


# Ways to address someone that come before an office without being part of it ('Mr. President').
_ADDRESS_FORMS = frozenset({"mr", "mrs", "ms", "miss", "madam", "madame"})


def is_title_word(word: str) -> bool:
    return all(part.lower().strip(".,") in _titles() for part in word.split("-") if part.strip(".,"))


def office_of(surface: str) -> tuple[str, ...]:
    """The office a titles-only mention names: 'the Secretary's' -> ('secretary',), 'Mr. Chief
    Justice' -> ('chief', 'justice'); () when the surface is not titles only."""
    if not is_titles_only(surface):
        return ()
    words = [w.lower().strip(".,") for w in surface.replace("’", "'").split()]
    words[-1] = words[-1].removesuffix("'s")
    while words and (words[0] in _ADDRESS or words[0] in _ADDRESS_FORMS):
        words = words[1:]
    return tuple(words)


def title_run(surface: str) -> tuple[str, ...]:
    """The titles written right before the name in a person's mention: 'former Senator Rick
    Santorum' -> ('senator',), 'Prime Minister Rishi Sunak's' -> ('prime', 'minister')."""
    words = surface.split()
    for k, word in enumerate(words):
        if not is_title_word(word):
            continue
        end = k
        while end < len(words) and is_title_word(words[end]):
            end += 1
        if end < len(words) and words[end][:1].isupper():  # a name follows the titles
            run = [w.lower().strip(".,") for w in words[k:end]]
            return tuple(w for w in run if w not in _ADDRESS_FORMS)
        return ()
    return ()


def first_names_match(a: str, b: str) -> bool:
    """Whether two given names (keys) can be one person's: equal, an initial of the other, or a nickname of it."""
    if a == b:
        return True
    if _INITIAL.match(a) or _INITIAL.match(b):
        return a[0] == b[0]
    nick = _nicknamer()
    return a in nick.canonicals_of(b) or b in nick.canonicals_of(a)


def clipped_given_name(short: str, given: str) -> bool:
    """Whether a lone name (key) is a given name's clipped form: its end, at least
    `clipped_name_min_letters` long and two letters short of it ('seun' of 'oluwaseun'), that the
    nickname dataset does not know as a name of its own; or a nickname of it ('bill' of 'william')."""
    if short == given or len(given) <= 2 or _INITIAL.match(given) or is_title_word(short):
        return False  # an initial is no given name to clip; 'Tsar' of 'Tsarevna' is an office
    if first_names_match(short, given):
        return True
    if is_given_name(short):
        return False  # a name of its own, not a clipping: 'Jean' beside 'Jeanne Moreau', 'Dan' of 'Daniela'
    return len(short) >= get_settings().clipped_name_min_letters and len(given) - len(short) >= 2 and given.endswith(short)


def is_given_name(word: str) -> bool:
    """Whether a key word is a given name the nickname dataset knows ('ada', 'bill', 'elizabeth')."""
    return bool(_nicknamer().canonicals_of(word) or _nicknamer().nicknames_of(word))


def _is_given_name_word(word: str) -> bool:
    """A key word that can be a given name: not an initial, nor a surname particle ('van', 'de', 'l')."""
    from nameparser.config import CONSTANTS

    return len(word) > 1 and word not in CONSTANTS.prefixes


def same_person_name(a: list[str], b: list[str]) -> bool:
    """Whether two full names (key words, two or more each) are forms of one person's name.

    Same surname, given names that match (nickname or initial), and the shorter one's middle
    words found in the longer one in order ('William Ortega' / 'William J. Ortega' /
    'Bill Ortega'); or the same words in another order ('Higuchi Ichiyo' / 'Ichiyo Higuchi').
    """
    if len(a) < 2 or len(b) < 2:
        return False
    if len(a) == len(b) == 2 and a == b[::-1]:
        return True
    if a[-1] != b[-1]:
        return False
    if not first_names_match(a[0], b[0]):
        # 'Otto Jespersen' / 'Jens Otto Harry Jespersen', 'Woodrow Wilson' / 'Thomas Woodrow Wilson':
        # a person known by a middle name; every word of the shorter name, in order, in the longer.
        short, long = sorted((a, b), key=len)
        if len(short) == len(long) or not _is_given_name_word(short[0]):
            return False  # "L'Enfant" (keys 'l enfant') is a surname alone, not 'Marie L'Enfant'
        remaining = iter(long[1:-1])
        return all(any(word == other for other in remaining) for word in short[:-1])
    short, long = sorted((a[1:-1], b[1:-1]), key=len)
    remaining = iter(long)
    return all(any(first_names_match(word, other) for other in remaining) for word in short)


def with_second_surname(short: list[str], full: list[str]) -> bool:
    """'Javier Ortega' / 'Javier Ortega Ruiz', 'Gabriel García' / 'Gabriel García Márquez': a name
    with two surnames, as Spanish and Portuguese names have, and the same name without the second.
    Not where the middle word is a given name ('Mary Ann' of 'Mary Ann Smith' is her given names),
    nor where the last is a number or a suffix ('Shah Abbas II' is another man than 'Shah Abbas')."""
    from nameparser.config import CONSTANTS

    return (len(short) == 2 and len(full) == 3 and full[:2] == short and _is_given_name_word(short[0])
            and len(full[2]) > 1 and not is_given_name(short[1]) and not _INITIAL.match(short[1])
            and not is_regnal_number(full[2].upper()) and full[2] not in CONSTANTS.suffix_acronyms
            and full[2] not in CONSTANTS.suffix_not_acronyms)


def initial_for_surname(short: list[str], full: list[str]) -> bool:
    """Whether `short` is `full` with its surname cut to an initial, as chat names and minutes
    write people ('Tom K' / 'Tom Kowalski', 'Daniel F.' / 'Daniel Fischer'): key words, two each,
    the given name written alike ('Tom K' is no evidence for 'Thomas Kowalski')."""
    return (len(short) == 2 and len(full) == 2 and len(short[1]) == 1 and len(full[1]) > 1
            and full[1].startswith(short[1]) and short[0] == full[0])


def misspelt_alike(a: str, b: str) -> bool:
    """Whether two key words can be one name written two ways ('kristin' / 'kristen'): one edit
    apart, inside the word (the first and last letters agree, so 'maria' and 'mario' stay two),
    both at least `spelling_variant_min_letters` long, and neither an everyday word ('Johnson' and
    'Johnston' are two common surnames, 'Margin' beside 'Marlin' a word, not a slip)."""
    from rapidfuzz.distance import DamerauLevenshtein

    shortest = get_settings().spelling_variant_min_letters
    if a == b or min(len(a), len(b)) < shortest or a[0] != b[0] or a[-1] != b[-1] or not (a.isalpha() and b.isalpha()):
        return False
    if DamerauLevenshtein.distance(a, b) != 1:
        return False
    return not (is_common_word(a) or is_common_word(b))


def same_name_misspelt(a: list[str], b: list[str]) -> bool:
    """Two full names (key words) with one surname, alike but for a given name written two ways:
    'Kristin Wilkins' and 'Kristen Wilkins' in one article are one person whose name the writer
    slipped on. Surnames one letter apart are often two families' names ('Olsen' and 'Olson',
    'Patel' and 'Patil', 'Li Xiang' and 'Li Xiong'), and so are lone names: those never join."""
    if len(a) != len(b) or len(a) < 2 or a[-1] != b[-1]:
        return False
    differing = [(x, y) for x, y in zip(a, b) if x != y]
    return len(differing) == 1 and misspelt_alike(*differing[0])


def is_generic_head(surface: str, preceding: list[str]) -> bool:
    """A one-word name that is a common noun standing for a body: 'the Court', 'this Church'.

    Another document's 'the Court' is another court. Read so when every mention that stands
    alone follows a determiner (one after a capitalised word is the head of a longer name the
    model missed: 'Supreme Court').
    Acronyms ('the BBC') and plurals ('the Celtics', teams and bands) are names whatever precedes them.
    `preceding` holds the word before each mention as written.
    """
    words = surface.split()
    if len(words) != 1 or surface.isupper() or not surface[:1].isupper() or _looks_plural(surface):
        return False
    if not is_common_word(surface, get_settings().generic_head_min_zipf):  # 'the Figma file', 'the Beacon API': a name
        return False
    if is_known_name(surface):  # 'the Wikipedia approach': a brand is one thing wherever it is named
        return False
    # After a capitalised word other than a determiner ('Supreme Court') it is the head of a longer name.
    alone = [w for w in preceding if w.lower() in _DETERMINERS or not w[:1].isupper()]
    return bool(alone) and all(w.lower() in _DETERMINERS for w in alone)


def is_descriptive_short_form(surface: str, full_name: str) -> bool:
    """'the Supreme Court' of the 'Italian Supreme Court of Cassation', 'the Department' of the
    'Department of Health': a shorter name of an organisation made of everyday words its full name
    also holds. It names the body only where the full name was just read; another document's
    'Supreme Court' is another country's. A short form with a coined word ('Celtics', 'Initech')
    or an acronym is the body's name anywhere."""
    words = [w for w in surface.split() if w.lower() not in _DETERMINERS]
    full_words = full_name.split()
    full = {w.lower() for w in full_words}
    if not words or len(words) >= len(full) or surface.isupper() or any(w.isupper() for w in words):
        return False
    # it holds what the body is ('Court', 'Department'): 'Harvard' of 'Harvard University' and
    # 'Labour' of 'Labour Party' are the body's own names, in any document
    if head_word(full_words).lower() not in {w.lower() for w in words}:
        return False
    if not all(w.lower() in full for w in words) or is_known_name(" ".join(words)):
        return False
    threshold = get_settings().generic_head_min_zipf
    return all(not _looks_plural(w) and is_common_word(w, threshold) for w in words)


@lru_cache(maxsize=4096)
def is_country(name: str) -> bool:
    """'United Kingdom', 'the United States', 'USA', 'England' (ISO 3166 names and codes, and the
    subdivisions ISO calls countries, from pycountry)."""
    import pycountry

    name = name.removeprefix("the ").strip()
    try:
        pycountry.countries.lookup(name)
    except LookupError:
        return any(s.name == name and s.type in ("Country", "Nation") for s in pycountry.subdivisions)
    return True


@lru_cache(maxsize=65536)
def is_common_word(word: str, min_zipf: float | None = None) -> bool:
    """Whether a word is everyday English ('Court', 'United', 'Slack'), not a coined name ('Figma'):
    at least `min_zipf` on wordfreq's scale, by default the `common_word_min_zipf` setting."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= (get_settings().common_word_min_zipf if min_zipf is None else min_zipf)


def ends_in_organisation_head(words: list[str]) -> bool:
    """'Bellhaven Retail', 'Larkspur Systems': a name of two or more words whose last is a trade."""
    return len(words) >= 2 and words[-1].lower() in ORGANISATION_HEADS


def distinctive_short_form(surface: str) -> str | None:
    """'Tidewater' for 'Tidewater Freight': a firm's one distinctive word when every other word is
    its trade; None when there is none or the word is everyday English ('United Airlines')."""
    words = surface.split()
    if len(words) < 2 or words[-1].lower() not in ORGANISATION_HEADS:
        return None
    # 'Pennine Distribution Networks', 'Brightwater Solar & Storage': between the name and the trade,
    # trade words, everyday words that say what the firm does, or '&'
    if not all(w.lower() in ORGANISATION_HEADS or w in ("&", "and") or (w[:1].isupper() and is_common_word(w))
               for w in words[1:-1]):
        return None
    first = words[0]
    if not first[:1].isupper() or is_common_word(first) or first.lower() in ORGANISATION_HEADS:
        return None
    return first


# 'Project Heron', 'the Heron project'; not 'the Tor Project', a body's own name
_PROJECT_WORDS = re.compile(r"^(?:[Tt]he\s+)?Project\s+(?P<after>\S.*)$|^(?:[Tt]he\s+)?(?P<before>\S.*?)\s+project$")


# The nouns of a document's or a meeting's type: 'Project Status Report', 'Project Kickoff', 'Project Plan'.
_DOCUMENT_NOUNS = frozenset({"report", "reports", "plan", "plans", "update", "updates", "review", "reviews", "charter",
                             "brief", "overview", "summary", "status", "proposal", "template", "meeting", "meetings",
                             "kickoff", "kick-off", "notes", "minutes", "timeline", "schedule", "budget", "scope",
                             "roadmap", "management", "retro", "retrospective", "postmortem", "sync", "standup"})


def names_a_document_type(name: str) -> bool:
    """'Project Status Report', 'Project Kickoff': a kind of document or meeting about a project, no
    project's name (every word after 'Project' is such a noun; 'Project Phoenix Update' names Phoenix)."""
    words = name.split()
    return len(words) >= 2 and words[0].lower() == "project" and all(w.lower() in _DOCUMENT_NOUNS for w in words[1:])


def project_short_form(name: str) -> str | None:
    """'Heron' for 'Project Heron' or 'the Heron project', 'Kestrel' for 'Kestrel Wind Farm': the
    code name a team says alone. A name whose first word is everyday English ('Green Line
    Extension') or a given name has none of the second kind."""
    match = _PROJECT_WORDS.match(name.strip())
    if match:
        short = (match.group("after") or match.group("before")).strip()
        return short if short[:1].isupper() else None
    words = name.split()
    if (len(words) >= 2 and words[0][:1].isupper() and words[0].isalpha() and not is_common_word(words[0])
            and not is_given_name(words[0].lower())
            and all(w in ("&", "and") or (w[:1].isupper() and is_common_word(w)) for w in words[1:])):
        return words[0]
    return None


def _looks_plural(word: str) -> bool:
    lowered = word.lower()
    return lowered.endswith("s") and not lowered.endswith(("ss", "us", "is"))


def head_word(words: list[str]) -> str:
    """The word an organisation's name is about: before 'of' ('Bureau' of Federal Bureau of Investigation), else the last."""
    if "of" in words[1:]:
        return words[words.index("of", 1) - 1]
    return words[-1]


def short_org_form(short: list[str], full: list[str]) -> bool:
    """Whether `short` (key words) is a short form of the organisation named `full` in the same document.

    'Celtics' / 'Boston Celtics' and 'Red Sox' / 'Boston Red Sox' (the end of the name),
    'Bureau' / 'Federal Bureau of Investigation' and 'Supreme Court' / 'Italian Supreme Court of
    Cassation' (the words up to its head), 'Harvard' / 'Harvard University' (a two-word name
    without its last word). The end of a name with a small word in it names what the body is of
    or for ('America' of 'Bank of America', 'Windows' of 'PyPI for Windows', 'Art' of 'Museum of
    Modern Art'), not the body; but a rare word after the name's last 'of' is the body's own name
    ('Scientology' of 'Church of Scientology', where 'America' and 'Art' are everyday words).
    """
    if not short or len(short) >= len(full):
        return False
    if full[-len(short):] == short and not any(w in _SMALL_WORDS and w != "and" for w in full[: -len(short)]):
        return True
    if len(short) == 1 and len(full) >= 3 and full[-2] == "of" and full[-1] == short[0] and not is_common_word(short[0]):
        return True
    if "of" in full[1:]:
        head = full.index("of", 1) - 1
        if head + 1 >= len(short) and full[head + 1 - len(short): head + 1] == short:
            return True
    if len(short) == 1 and len(full) == 2 and full[0] == short[0]:
        return True
    # 'Sunda Shipping' / 'Sunda Shipping Lines', 'Al Noor' / 'Al Noor Hospitality Group': the name
    # without the trade its end says, two words at least ('Hyundai' of 'Hyundai Heavy Industries' is
    # another firm); no body inside it ('Georgetown University' of 'Georgetown University Hospital',
    # 'Harvard University' of 'Harvard University Press' are other bodies)
    return (len(short) >= 2 and full[: len(short)] == short and (full[-1] in ORGANISATION_HEADS or full[-1] == "lines")
            and not any(w in _BODY_NOUNS for w in full[:-1]) and not any(w in _SMALL_WORDS and w != "and" for w in full))


# Heads that name a body of their own: a name ending in one is that body, not a short form of another.
_BODY_NOUNS = frozenset({"university", "college", "school", "academy", "institute", "hospital", "clinic", "council",
                         "committee", "ministry", "department", "agency", "authority", "court", "church", "museum",
                         "library", "foundation", "association", "society", "federation", "union", "club", "bank"})


def abbreviated_lead(short: str, full: str) -> bool:
    """Whether `short` is `full` with its first words written as their initials: 'the U.S. Congress' /
    'the United States Congress', 'UC Berkeley' / 'the University of California, Berkeley'. The
    initials must be written as such (capitals, or letters with full stops), so 'Art Berkeley'
    is no abbreviation of anything."""
    written = [w for w in short.split() if w.lower() not in _SMALL_WORDS]
    if len(written) < 2 or not (written[0].replace(".", "").isupper() and written[0].replace(".", "").isalpha()):
        return False
    letters, tail = written[0].replace(".", "").lower(), name_key(" ".join(written[1:]), False).split()
    content = [w for w in name_key(full, False).split() if w not in _SMALL_WORDS]
    lead = content[: len(content) - len(tail)]
    return (2 <= len(letters) == len(lead) and content[len(lead):] == tail
            and "".join(w[0] for w in lead) == letters)


def initials_of(words: list[str]) -> str:
    """'national oceanic and atmospheric administration' -> 'NOAA'; 'smith-barney' -> 'SB'."""
    parts = [p for w in words for p in w.split("-") if p and p not in _SMALL_WORDS]
    return "".join(p[0] for p in parts).upper()


def abbreviates(short: str, long: str) -> bool:
    """Whether `short` can be read as an abbreviation of `long`, in the way Schwartz and Hearst's
    algorithm (2003) reads a definition such as 'Harrowgate Foods (HGF)' or 'American College of
    Pediatricians (ACPeds)': its letters, from the last, occur in order in `long`, and its first
    letter starts `long`'s first word. Needs three letters and two capitals in `short`, so '(Sales)'
    is no acronym."""
    letters = [c.lower() for c in short if c.isalnum()]
    if len(letters) < 3 or sum(c.isupper() for c in short) < 2:
        return False  # two letters only as initials: 'Deloitte (DE)' is a country code
    words = long.split()
    while words and words[0].lower() in _SMALL_WORDS:
        words = words[1:]  # 'the International …'
    text = " ".join(words).lower()
    if not text or text[0] != letters[0]:
        return False
    position = len(text) - 1
    for letter in reversed(letters[1:]):
        while position > 0 and text[position] != letter:
            position -= 1
        if position <= 0:
            return False
        position -= 1
    return True


_LIST_ITEM_SEPARATOR = re.compile(r"\s*(?:,|;|/|&|\band\b)\s*")


def is_list_of_names(value: str) -> bool:
    """Whether a field's value lists names only (and dates), asides in parentheses aside: 'Atlas
    (payments), Heron', 'Ada Park (Planning) and Ben Ito, 10 Nov 2026'; every word has a capital or
    a digit. Not 'Redmine project identifier …', nor 'Charles Dickens, Great Expectations follows Pip'."""
    items = _LIST_ITEM_SEPARATOR.split(re.sub(r"\([^()]*\)", " ", value).strip(" \t*_"))
    return all(item and all(w[0].isupper() or w[0].isdigit() for w in item.split()) for item in items)


def is_acronym(surface: str, min_letters: int, max_letters: int) -> bool:
    letters = surface.replace(".", "").replace("&", "")
    return letters.isalpha() and letters.isupper() and min_letters <= len(letters) <= max_letters


# An acronym used as a countable noun: after "a"/"an" and not qualifying a noun that follows ("an API
# for…", "a BDFL." but not "a BBC reporter"), or with a plural "s" ("APIs"). Only words that cannot be
# the noun an acronym qualifies may follow it.
_AFTER_COUNTABLE = (r"that|which|who|whose|for|to|of|in|on|at|with|from|by|and|or|but|is|was|are|were|can|could|"
                    r"will|would|should|must|may|might|has|have|had|does|did|as|than|like|into|per")
_COUNTABLE_ACRONYM = re.compile(
    rf"\b(?:a|an|A|An)\s+(?P<single>[A-Z][A-Z0-9]+)(?=\s*(?:[^\w\s]|$)|\s+(?:{_AFTER_COUNTABLE})\b)"
    r"|(?<![\w.-])(?P<plural>[A-Z][A-Z0-9]+)s(?![\w-])"
)


def countable_acronyms(text: str) -> set[str]:
    """Acronyms the text uses as common nouns ("an API", "the APIs", "a BDFL"): countable things, so
    no name of a tool, a firm or a person, wherever else the text writes them with "the"."""
    return {m.group("single") or m.group("plural") for m in _COUNTABLE_ACRONYM.finditer(text)}


def is_countable_acronym(surface: str, countable: set[str] | frozenset[str]) -> bool:
    """'API', 'APIs', 'the API' when 'API' is one of `countable`."""
    bare = re.sub(r"^(?:the|a|an)\s+", "", surface.strip(), flags=re.IGNORECASE)
    bare = re.sub(r"(?:'s|’s|s)$", "", bare)
    return bare in countable


def countable_acronym_spans(text: str, countable: set[str] | frozenset[str]) -> list[tuple[int, int]]:
    """Every place the text writes one of `countable`, singular or plural."""
    if not countable:
        return []
    words = "|".join(re.escape(a) for a in sorted(countable, key=len, reverse=True))
    return [m.span() for m in re.finditer(rf"(?<![\w.-])(?:{words})s?(?![\w-])", text)]


# the time a chat's line opens with: '09:43', '[9:04 AM]'
CLOCK_TIME = r"\[?\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp][Mm])?\]?"
# a chat's message: a time, a speaker's label and a colon ('09:43 PagerDuty: …', '[9:04 AM] Tom K: …')
_CHAT_LINE = re.compile(r"[ \t]*" + CLOCK_TIME + r"[ \t]+[^\W\d_][^:\n]{0,40}:[ \t]")


def is_headline(line: str, min_words: int, capital_share: float) -> bool:
    """A line in Title Case or capitals ('Celtics Sign Star Guard'), where capitals say nothing about names.

    A list is no headline, however many capitals it has: a bulleted item ('- Ashgrove: Grace Whitfield
    (VP, Clinical Informatics), Dr. Ifeoma Eze') or a line of several items set apart by commas (or
    a comma and brackets) names one thing after another, each written as its owner writes it."""
    words = [w for w in _WORD.findall(line) if w.lower() not in _SMALL_WORDS]
    if len(words) < min_words or line.rstrip().endswith((".", "?", "!", ":")) and not line.isupper():
        return False
    if line.isupper():
        return True
    if _CHAT_LINE.match(line):
        return False  # '09:43 PagerDuty: Resolved by Yewande Adebayo', a chat's message
    # a title may have a bracket ('Fernway Renewal Call Notes (Oct 12)') and a number ('1. Getting Started')
    if _LIST_ITEM.match(line) or line.count(",") >= 2 or ("(" in line and "," in line):
        return False
    return sum(w[0].isupper() for w in words) >= capital_share * len(words)


def known_part(surface: str, known: dict[str, str]) -> tuple[int, int] | None:
    """The longest run of `surface`'s words that is a name the prose uses (key -> kind), or the end of
    one ('Celtics' of 'Boston Celtics', 'Miller' of 'Tom Miller'), as (start, end) offsets.

    None when no part is known, or the whole span is.
    """
    known = {**{" ".join(k.split()[i:]): kind for k, kind in known.items() for i in range(1, len(k.split()))}, **known}
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", surface)]
    best: tuple[int, int] | None = None
    for i in range(len(spans)):
        for j in range(len(spans), i, -1):
            if (i, j) == (0, len(spans)):
                continue
            key = normalise_name(surface[spans[i][0]:spans[j - 1][1]])
            if key in known and (best is None or spans[j - 1][1] - spans[i][0] > best[1] - best[0]):
                best = (spans[i][0], spans[j - 1][1])
    return best


def given_names_before(surface: str, part: tuple[int, int]) -> bool:
    """Whether the words of a person's span before its known last part are given names, by the
    nickname dataset or because they are no everyday English ('Jérôme' of 'Jérôme Richard'), where
    a headline's verbs and nouns are ('Jury Finds' of 'Jury Finds Miller')."""
    words = surface[: part[0]].split()
    return (bool(words) and part[1] == len(surface.rstrip())
            and all(is_given_name(w.lower()) or not is_common_word(w.lower()) for w in words))


def with_given_names_before(surface: str, part: tuple[int, int]) -> tuple[int, int]:
    """A person's known surname in a headline span with the given names and initials written right
    before it: 'ELIZABETH B. PRELOGAR' of 'ELIZABETH B. PRELOGAR ON BEHALF' when the prose says
    'Prelogar'. Unchanged when no given name stands there ('Jury Finds Miller'), or only a word that is
    also a function word ('COURT MAY WARREN')."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = [(m.start(), m.group()) for m in re.finditer(r"\S+", surface[: part[0]])]
    start, given = part[0], False
    for offset, word in reversed(words):
        bare = word.rstrip(".").lower()
        if len(bare) == 1 and bare.isalpha():
            start = offset  # an initial
        elif is_given_name(bare) and bare not in STOP_WORDS:  # capitals hide whether 'MAY' is a name or a verb
            start, given = offset, True
        else:
            break
    return (start, part[1]) if given else part


def conjoined_parts(surface: str, known: set[str], person: bool = False,
                    first_names: frozenset[str] = frozenset()) -> list[tuple[int, int]] | None:
    """'Reuters and Bloomberg' -> the offsets of 'Reuters' and 'Bloomberg', when the prose names each alone;
    'Windows, Mac' -> 'Windows' and 'Mac' (see _listed_names).

    A name with 'and' in it ('Procter and Gamble', 'Union of Atheists and Agnostics') stays whole
    unless both sides are names of their own in the same document, or first names (see are_first_names). One person's name never has
    'and' in it: a person span 'Makel and Plucker' (authors cited together) is two people when
    each side is written like a name.
    """
    listed = _listed_names(surface, known, person)
    if listed:
        return listed
    parts = _parts_between(surface, _AND)
    if not parts:
        return None
    # each side a name the prose uses alone or a product Simple Icons knows ('Tableau and Power BI')
    if all(normalise_name(surface[s:e]) in known or is_known_name(surface[s:e]) for s, e in parts):
        return parts
    if person and all(_written_like_a_name(surface[s:e]) for s, e in parts):
        return parts
    if are_first_names([surface[s:e] for s, e in parts], first_names):
        return parts  # 'Lars and Ilse' (read as a title of a work): two colleagues
    return None


def _parts_between(surface: str, separator: re.Pattern) -> list[tuple[int, int]]:
    """The (start, end) offsets of what lies between `separator`'s matches; [] when it has none."""
    parts: list[tuple[int, int]] = []
    cursor = 0
    for match in separator.finditer(surface):
        parts.append((cursor, match.start()))
        cursor = match.end()
    return [*parts, (cursor, len(surface))] if parts else []


_LIST_SEPARATOR = re.compile(r",\s+(?:(?:and|&)\s+)?|\s+(?:and|&)\s+")


def _listed_names(surface: str, known: set[str], person: bool = False) -> list[tuple[int, int]] | None:
    """'Windows, Mac': a list the model read as one name, when every item is a name the prose uses
    alone or Simple Icons knows, and one of them is known there ('University of California, Berkeley'
    and 'Paris, France' stay whole)."""
    from pipeline.known_names import is_known_name

    parts = _parts_between(surface, _LIST_SEPARATOR) if "," in surface else []
    if not parts:
        return None
    if person and len(parts) == 2:
        return None  # 'Ford, Harrison': a person's name written surname first
    items = [surface[s:e] for s, e in parts]
    if all(normalise_name(i) in known or is_known_name(i) for i in items) and any(is_known_name(i) for i in items):
        return parts
    return None


def are_first_names(parts: list[str], first_names: frozenset[str]) -> bool:
    """'Tomasz and Kwame' where the document names Kwame Mensah: single capitalised words, one of
    them the first name of a person the document names in full, none of them everyday English
    unless the nickname data knows it as a given name ('Grace', 'Rose')."""
    keys = [normalise_name(part) for part in parts]
    return (all(len(part.split()) == 1 and _capitalised(part) for part in parts)
            and any(key in first_names for key in keys)
            and all(key in first_names or is_given_name(key) or not is_common_word(key) for key in keys))


# After a citation's names: more authors ('…, Fabiani, & Gratton'), then a year or 'et al.'.
_CITATION_AFTER = re.compile(
    r"(?:,\s*(?:&\s*|and\s+)?[A-Z][\w'’-]+)*(?:,?\s*\(?(?:1[5-9]|20)\d\d\b|,?\s+et al\b)")
_AUTHOR_SEPARATOR = re.compile(r",\s*(?:&\s*|and\s+)?|\s+(?:&|and)\s+")


def cited_authors(surface: str, after: str) -> list[tuple[int, int]] | None:
    """'Marsden & Mackey, 2014', '(Boot, Kramer, Simons, & Gratton, 2008)': the authors of a citation, one
    person each, as offsets into `surface`; None when the span is not followed by a year or 'et al.'.

    A news-trained model reads such a list as one organisation ('Marsden & Mackey'), and one page
    would then hold every co-author of the paper.
    """
    if not _CITATION_AFTER.match(after):
        return None
    parts: list[tuple[int, int]] = []
    cursor = 0
    for match in _AUTHOR_SEPARATOR.finditer(surface):
        parts.append((cursor, match.start()))
        cursor = match.end()
    if not parts:
        return None
    parts.append((cursor, len(surface)))
    if all(_written_like_a_name(surface[s:e]) for s, e in parts):
        return parts
    return None


def _written_like_a_name(part: str) -> bool:
    words = part.split()
    return 1 <= len(words) <= 3 and all(_capitalised(w) for w in words)

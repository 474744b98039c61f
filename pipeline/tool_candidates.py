"""Names spaCy's news model leaves untagged: code-shaped words, acronyms, capitalised words mid-sentence.

en_core_web_sm was trained on news, so on technical text and work notes it misses most software
names ("jQuery", "Node.js", "Neo4j", "kafka"). These spans are only *candidates*: each becomes an
entity only when the kind classifier (kind_model.py) names a kind for it with enough confidence,
so a capitalised heading word or an acronym such as "FYI" costs an embedding, not a page.

What counts as a candidate, all on word boundaries and outside spaCy's own entities:
- code-shaped words: an inner capital ("GitHub", "iOS"), letters with digits ("Neo4j", "S3"),
  an inner dot ("Node.js", "Lex.DB") or underscore;
- all-capital acronyms of two or more letters, with "+" or "#" ("API", "C++", "C#");
- runs of capitalised words that do not start a sentence ("Visual Studio", "Elasticsearch");
- names of two or more words Simple Icons knows, written as it writes them ("GitHub Actions"),
  and rare lower-case words it knows ("dbt");
- lower-case words in a usage cue ("install webpack", "the kafka cluster", "ffmpeg 4.2"), and the
  lower-case spelling of a name the document also writes capitalised inside a sentence ("python"
  beside "Python"; not "iodine" beside a sentence's first word "Iodine").
"""

from __future__ import annotations

import re
from bisect import bisect_left

from spacy.lang.en.stop_words import STOP_WORDS

from graph_schema.settings import get_settings
from pipeline.known_names import is_known_in_lower_case, is_known_name, is_rare_known_word, known_multiword_names
from pipeline.names import SURNAME_PARTICLES, is_common_word

# A word as names are written in technical text: letters, digits and the joiners names use inside.
_WORD = re.compile(r"(?<![\w@#/\\.$-])[A-Za-z][\w+#]*(?:[.\-][A-Za-z0-9][\w+#]*)*(?![\w@/\\]|\.\w)")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
# 'SQLMesh', 'REDCap': capitals, then a word; not an acronym's plural or verb ('APIs', 'CCed', 'DMing')
_CAPITALS_THEN_WORD = re.compile(r"^[A-Z]+[A-Z][a-z]{2,}\w*$")
_ACRONYM_VERB = re.compile(r"^[A-Z]+(?:ed|ing|s|es|'s)$")
_LETTER_DIGIT = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]+[+#]*|[A-Z][+#]+")
_CAPITALISED = re.compile(r"[A-Z][a-z][\w'’-]*")
_JOINER = re.compile(r"[ \t]+")
_URL_LIKE = re.compile(r"\.(com|org|net|txt|md|py|json|yml|yaml|html|csv|xml|log|cfg|ini|sh)$", re.IGNORECASE)

# Function words that open sentences ("Then", "When", "Also"); determiners stay, "The Hague" is a name.
_FUNCTION_WORDS = frozenset(STOP_WORDS) - {"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this",
                                            "that", "these", "those", "no", "one", "first", "last", "next", "former"}

# Determiners that may open a name ('The Hague', 'Our Lady'): kept on a run unless the text writes the rest alone.
_CAPITALISED_BESIDE = re.compile(r"[A-Z][\w'’-]*[ \t]+$")
_CAPITALISED_AFTER = re.compile(r"[ \t]+[A-Z]")
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that",
                          "these", "those"})

# Words around a name that say it is software or a work product ("install X", "X API", "X 3.2").
TOOL_BEFORE = {
    "install", "installed", "installing", "uninstall", "upgrade", "upgraded", "using", "via", "run", "running",
    "deploy", "deployed", "configure", "configured", "migrate", "migrated", "import", "imported", "npm", "pip",
    "brew", "apt", "apt-get", "yarn", "gem", "conda", "docker", "launch", "open", "opened",
}
TOOL_AFTER = {
    "api", "apis", "sdk", "cli", "plugin", "plugins", "library", "libraries", "package", "packages", "module",
    "modules", "webhook", "webhooks", "cluster", "clusters", "dag", "dags", "pipeline", "pipelines", "dashboard",
    "dashboards", "instance", "instances", "database", "databases", "db", "driver", "drivers", "extension",
    "extensions", "framework", "script", "scripts", "command", "commands", "container", "containers",
    "repo", "repository", "config", "configuration", "migration", "integration", "query", "queries",
    "server", "servers", "client", "app", "version", "versions", "install", "installation",
    "build", "builds", "release", "releases", "schema", "index", "indexes", "topics", "workspace", "ticket",
    "tickets", "bot", "engine", "runtime", "compiler", "interpreter", "console", "shell", "syntax", "docs",
    "ships", "upgrade", "deployment", "connector", "plugin", "tables", "stack",
    "bucket", "buckets", "file", "files", "channel", "channels", "models", "jobs", "job", "workflow", "workflows",
    "spreadsheet", "notebook", "notebooks", "board", "boards", "gateway", "gateways",
}
# The strongest of those: a name used this way is software, whatever a news model says it is.
TOOL_AFTER_STRONG = {
    "api", "apis", "sdk", "cli", "plugin", "plugins", "webhook", "webhooks", "cluster", "clusters", "dag", "dags",
    "pipeline", "pipelines", "dashboard", "dashboards", "database", "databases", "db", "driver", "drivers",
    "extension", "extensions", "migration", "integration", "instance", "instances", "container", "containers",
    "repo", "repository", "query", "queries", "schema", "connector", "deployment", "upgrade",
    "bucket", "buckets", "file", "files", "channel", "channels", "spreadsheet", "notebook", "notebooks",
}
# "Beacon Checkout, our own checkout widget", "Onfleet is really a last-mile dispatch product": an
# apposition or a copula that says what the name is.
_TOOL_NOUNS = (r"(?:widget|app|application|tool|platform|product|library|service|plugin|dashboard|bot|api|sdk|"
               r"framework|database|tracker|editor|engine|system|feature|module)")
# whose thing the apposition says it is: 'our', 'a', or a firm's own ("Quill, Clausewise's clause-extraction engine")
_APPOSITION_OWNER = r"(?:our|the|a|an|their|its|(?-i:[A-Z])[\w&-]*['’]s)"
# the noun ends its phrase: 'the feature owner', 'Alice's platform engineer' are people
_NOT_A_PERSONS_ROLE = (r"(?![ \t]+(?:owner|maintainer|lead|engineer|manager|team|designer|architect|specialist|"
                       r"champion|admin|administrator|expert)s?\b)")
_TOOL_APPOSITION = re.compile(
    r"\s*[,(]\s*" + _APPOSITION_OWNER + r"\s+(?:own\s+|new\s+|internal\s+)?(?:[\w-]+\s+){0,2}" + _TOOL_NOUNS + r"\b" + _NOT_A_PERSONS_ROLE
    # the copula's noun ends its clause, with no clause or place between: not 'Sam is a product manager',
    # 'Kenya is a country whose political system…', 'Priya is an engineer on the platform team'
    + r"|\s+(?:is|was)\s+(?:really\s+|mainly\s+|mostly\s+|essentially\s+|basically\s+|just\s+)?(?:a|an|our|their)\s+"
    r"(?:(?!(?:of|for|at|in|on|with|who|whose|that|which)\s)[\w-]+\s+){0,4}" + _TOOL_NOUNS + r"(?=\s*(?:[.,;:!?)]|$))",
    re.IGNORECASE,
)
ORGANISATION_APPOSITION = re.compile(
    r"\s*[,(]\s*" + _APPOSITION_OWNER + r"\s+(?:new\s+|biggest\s+|largest\s+|main\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:customer|client|vendor|supplier|partner|company|firm|startup|agency|consultancy|distributor|"
    r"manufacturer|retailer|insurer|carrier|bank|contractor|reseller)s?\b",
    re.IGNORECASE,
)
# Of those, the nouns only a firm is called ('Calloway Brandt, an engineering consultancy'): a
# person may be 'our new contractor', 'a long-time client' or 'their partner'.
FIRM_ONLY_APPOSITION = re.compile(
    r"\s*[,(]\s*" + _APPOSITION_OWNER + r"\s+(?:new\s+|biggest\s+|largest\s+|main\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:company|firm|startup|agency|consultancy|distributor|manufacturer|retailer|insurer|bank|vendor|reseller)s?\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"\s*v?\d+(?:\.\d+)+\b|\s+v?\d+\b")
_STRONG_VERSION = re.compile(r"\s*v?\d+\.\d+(?:\.\d+)*\b")
_PREVIOUS_WORD = re.compile(r"([A-Za-z][\w-]*)\W{0,3}$")
_NEXT_WORD = re.compile(r"^\W{0,3}([A-Za-z][\w-]*)")


def previous_word(text: str, start: int) -> str:
    match = _PREVIOUS_WORD.search(text[max(0, start - 40) : start])
    return match.group(1).lower() if match else ""


def next_word(text: str, end: int) -> str:
    match = _NEXT_WORD.match(text[end : end + 40])
    return match.group(1).lower() if match else ""


def has_version_after(text: str, end: int) -> bool:
    return bool(_VERSION.match(text, end))


# A piece of work kept in a tool: 'the depot pack in Tableau', 'the checklist in Jira', 'tracked in Linear'.
# Nouns of such work only, and 'tracked': 'offices in Leeds', 'filed in Delaware', 'built in Shenzhen',
# 'reports in Germany', 'the board in London' name no such work.
_WORK_KEPT_IN = frozenset({
    "dashboard", "dashboards", "pack", "checklist", "ticket", "tickets", "tracked", "chart", "charts",
    "spreadsheet", "notebook", "notebooks", "query", "queries", "script", "scripts", "backlog", "runbook", "alerts",
})
_WORK_BEFORE_IN = re.compile(r"([A-Za-z]+)\s+in\s+$")


def kept_in_a_tool(text: str, start: int) -> bool:
    """Whether the name follows 'in' after a piece of work: 'the depot pack in Tableau'."""
    match = _WORK_BEFORE_IN.search(text[max(0, start - 40) : start])
    return bool(match) and match.group(1).lower() in _WORK_KEPT_IN


# A field whose value is software: 'Dashboard: Power BI "Eng OKRs"', 'Tracker: Linear', 'Stack: Postgres, …'.
_TOOL_FIELDS = frozenset({"tool", "tools", "tooling", "stack", "dashboard", "database", "tracker", "repo", "repository",
                          "ide", "editor", "crm", "platform", "integration", "integrations", "library", "framework"})
_FIELD_BEFORE = re.compile(r"(?:^|[.;|·•][ \t])[ \t>*_-]*([A-Za-z]+)[*_]*:[*_]*[ \t]*$")  # at a line's or a sentence's start


def value_of_a_tool_field(text: str, start: int) -> bool:
    """Whether the name is the first value of a field that holds software ('Dashboard: Power BI')."""
    line_start = max(text.rfind("\n", 0, start) + 1, start - 200)
    match = _FIELD_BEFORE.search(text[line_start:start])
    return bool(match) and match.group(1).lower() in _TOOL_FIELDS


def in_strong_tool_cue(text: str, start: int, end: int) -> bool:
    """'the X migration', 'X webhooks', 'install X', 'X 3.2', 'the pack in X': how software, not a
    person or a firm, is used."""
    return (
        kept_in_a_tool(text, start)
        or value_of_a_tool_field(text, start)
        or next_word(text, end) in TOOL_AFTER_STRONG
        or previous_word(text, start) in {"install", "installed", "installing", "upgrade", "upgraded", "pip", "npm"}
        or bool(_STRONG_VERSION.match(text, end))
        or bool(_TOOL_APPOSITION.match(text, end))
    )


def in_usage_cue(text: str, start: int, end: int) -> bool:
    """Whether the words around a name say it is software ("install X", "the X cluster", "X 3.2")."""
    return (
        previous_word(text, start) in TOOL_BEFORE
        or next_word(text, end) in TOOL_AFTER
        or has_version_after(text, end)
    )


def is_coined(word: str) -> bool:
    """'dagster', 'kubectl': a lower-case word no English text uses, a coined name (software,
    in work notes) rather than a word; the classifier still decides whether it is one."""
    from wordfreq import zipf_frequency

    return word.isalpha() and len(word) >= 3 and zipf_frequency(word, "en") < get_settings().coined_word_max_zipf


# an amount, not a count or a release: a multiplier ('600k', '1.2M'), thousands ('38,400', '1 200 000',
# '1.200') or cents ('4.50'), or any number beside a code that is no word ('USD 50'); not an identifier
# ('CVE 2024-1234')
_MULTIPLIED = r"\d[\d,.]*[ \t]?(?:[kKmM]|bn|mn|MM|million|billion)\b"
_STRICT_AMOUNT = r"(?:" + _MULTIPLIED + r"|\d{1,3}(?:[,. ]\d{3})+(?:[.,]\d+)?|\d+[.,]\d{2}\b)(?![\w-]|/\d)"
_AMOUNT = r"(?:" + _STRICT_AMOUNT + r"|\d+(?![\w.,-]|/\d))"
_AMOUNT_AFTER, _STRICT_AMOUNT_AFTER = (re.compile(r"[ \t]?" + a) for a in (_AMOUNT, _STRICT_AMOUNT))
_AMOUNT_BEFORE, _STRICT_AMOUNT_BEFORE = (re.compile(a + r"[ \t]?$") for a in (_AMOUNT, _STRICT_AMOUNT))


def is_currency_amount(text: str, start: int, end: int) -> bool:
    """'USD 1.2m', 'EUR 600k', '34,500 GBP': an ISO 4217 currency code beside an amount. Not a code
    that is also a product's name or a word beside a count or a release ('PHP 8.3', '20 AMD servers', 'TOP 10')."""
    import pycountry

    code = text[start:end]
    if not (len(code) == 3 and code.isupper() and pycountry.currencies.get(alpha_3=code) is not None):
        return False
    # a code that is also a word or a product's name ('ALL 30 staff', 'PHP 8.3') takes an amount's shape only
    strict = is_known_name(code) or code.lower() in _WORD_LIKE_CODES
    after, before = (_STRICT_AMOUNT_AFTER, _STRICT_AMOUNT_BEFORE) if strict else (_AMOUNT_AFTER, _AMOUNT_BEFORE)
    return bool(after.match(text, end) or before.search(text, max(0, start - 20), start))


# currency codes that are English words or everyday abbreviations; 'usd', 'eur' are common only as currencies
_WORD_LIKE_CODES = frozenset({"all", "top", "try", "cup", "cad", "amd", "mop", "bob", "sos", "php", "gel", "lak"})


def capitals_then_a_word(word: str) -> bool:
    """'SQLMesh', 'REDCap', 'JSONPath': a product's name that opens with an acronym. Only for finding
    candidates; the classifier's code-shape feature keeps the shape it was trained on."""
    return bool(_CAPITALS_THEN_WORD.match(word)) and not _ACRONYM_VERB.match(word)


def is_code_shaped(word: str) -> bool:
    """'GitHub', 'iOS', 'Neo4j', 'Node.js', 'gobgp_1': a shape ordinary words do not have."""
    core = word.rstrip("+#")
    return bool(
        _INNER_CAPITAL.search(core)
        or (_LETTER_DIGIT.search(core) and sum(ch.isalpha() for ch in core) >= 2)
        or ("." in core and not _URL_LIKE.search(core))
        or "_" in core
    )


def _opens_a_sentence(text: str, at: int) -> bool:
    """A sentence's or a line's first word, where any word has a capital ('Who would miss it?');
    after a colon a list goes on ('releases: Windows, Mac')."""
    before = text[max(0, at - 8):at].rstrip(" \t\"'‘“(*_-")
    return not before or before[-1] in ".!?\n"


def _written_alone(text: str, start: int, end: int, seen: dict[str, bool]) -> bool:
    """Whether the text writes text[start:end] somewhere else as a name of its own: inside a sentence
    (a sentence's 'Who would miss it?' is a word), with no determiner before it and no capitalised word
    beside it ('President Donald Trump' is another name). `seen` keeps each name's answer."""
    name = text[start:end]
    if name not in seen:
        seen[name] = False
        at = text.find(name)
        while at >= 0 and not seen[name]:
            after = at + len(name)
            seen[name] = (
                at != start
                and (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_'’-"))
                and (after == len(text) or not (text[after].isalnum() or text[after] in "_'’-"))
                and not _opens_a_sentence(text, at)
                and previous_word(text, at) not in _DETERMINERS
                and not _CAPITALISED_BESIDE.search(text, max(0, at - 40), at)
                and not _CAPITALISED_AFTER.match(text, after)
            )
            at = text.find(name, at + 1)
    return seen[name]


def _rare_known_name(name: str) -> bool:
    return is_known_name(name) and not is_common_word(name)


def _known_name_end(text: str, start: int, word: str, multiword: dict[str, tuple[str, ...]]) -> int | None:
    """The end of a known name of two or more words that starts here, written as it is known."""
    for name in multiword.get(word, ()):
        end = start + len(name)
        if text.startswith(name, start) and (end == len(text) or not (text[end].isalnum() or text[end] in "_+#")):
            return end
    return None


class _TakenSpans:
    """Spans spaCy or a rule took, asked 'does this overlap any?' in log time (a long document has thousands)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.starts = [s for s, _ in ordered]
        self.max_end: list[int] = []  # the furthest end among the spans up to each one
        for _, end in ordered:
            self.max_end.append(max(end, self.max_end[-1]) if self.max_end else end)

    def overlaps(self, start: int, end: int) -> bool:
        before = bisect_left(self.starts, end)  # the spans that start before `end`
        return before > 0 and self.max_end[before - 1] > start


def _sentence_starts(text: str, sentences: list[tuple[int, int]]) -> set[int]:
    """Offsets of the first word of each sentence and of each line (a heading, a list item)."""
    starts = set()
    for start, _ in sentences:
        while start < len(text) and not text[start].isalnum():
            start += 1
        starts.add(start)
    # a numbered item's first word too ('4. Partner channel.', '2) Budget')
    for match in re.finditer(r"(?m)^[\W_]*(?:\d{1,3}[.)]\s+|[a-z][.)]\s+)?(?=\w)", text):
        starts.add(match.end())
    return starts


def _particles_at(words: list[tuple[int, int, str]], index: int) -> int:
    """How many surname particles ('de la', 'van der') run from words[index], at most two."""
    count = 0
    while count < 2 and index + count < len(words) and words[index + count][2] in SURNAME_PARTICLES:
        count += 1
    return count


def shape_candidates(text: str, taken: list[tuple[int, int]], sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans (absolute offsets) of names spaCy did not tag; `taken` are the spans it (or a rule) did."""
    max_words = get_settings().kind_candidate_max_words
    starts = _sentence_starts(text, sentences)
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    taken_spans = _TakenSpans(taken)
    found: list[tuple[int, int]] = []
    # A name's capitals count only inside a sentence: 'Iodine released from…' is capitalised by its place.
    capitalised_forms = {text[s:e].lower() for s, e in taken if s not in starts}
    index = 0
    multiword = known_multiword_names()
    alone: dict[str, bool] = {}  # a name after a sentence's opening article -> whether the text writes it alone
    while index < len(words):
        start, end, word = words[index]
        if taken_spans.overlaps(start, end):
            index += 1
            continue
        known_end = _known_name_end(text, start, word, multiword)
        # at a sentence's start a known name of everyday words is those words ('Open Access to…')
        if known_end and start in starts and all(is_common_word(w) for w in text[start:known_end].split()):
            known_end = None
        if known_end and not taken_spans.overlaps(start, known_end):  # "GitHub Actions", not "GitHub"
            found.append((start, known_end))
            capitalised_forms.add(text[start:known_end].lower())
            while index < len(words) and words[index][0] < known_end:
                index += 1
            continue
        if is_currency_amount(text, start, end):
            index += 1  # 'USD 1.2m', '600k EUR': money, not a name with its version
            continue
        if is_code_shaped(word) or capitals_then_a_word(word) or (_ACRONYM.fullmatch(word) and len(word) >= 2):
            found.append((start, end))
            capitalised_forms.add(word.lower())
            index += 1
            continue
        if _CAPITALISED.fullmatch(word):
            # a run of capitalised words on one line: "Visual Studio", "Apache Cordova"
            run_end, last = end, index
            while True:
                following = last + 1 + _particles_at(words, last + 1)  # 'Isabel de la Cruz'
                if not (
                    following < len(words)
                    and following - index < max_words
                    and _CAPITALISED.fullmatch(words[following][2])
                    and all(_JOINER.fullmatch(text[words[i - 1][1] : words[i][0]]) for i in range(last + 1, following + 1))
                    and not taken_spans.overlaps(words[last + 1][0], words[following][1])
                ):
                    break
                last = following
                run_end = words[last][1]
            if last > index and (word.lower() in _FUNCTION_WORDS or (
                    word.lower() in _DETERMINERS and start in starts and _written_alone(text, words[index + 1][0], run_end, alone))):
                # "Then PulseBoard first.": capitalised by its place only; so is 'The' of "The Windows and
                # source releases" where the text writes 'Windows' alone ('The Hague' it never does)
                start, end, word = words[index + 1]
                index += 1
            # a sentence's first word is a name when an apposition says what it is ("Fernway, a customer")
            # so is a known name no everyday word spells ('Okta shows…'; 'Linear regression…' is a word)
            if (start not in starts or last > index or _TOOL_APPOSITION.match(text, run_end)
                    or ORGANISATION_APPOSITION.match(text, run_end) or _rare_known_name(text[start:run_end])):
                found.append((start, run_end))
                capitalised_forms.add(text[start:run_end].lower())
            index = last + 1
            continue
        # 'his service', 'its API': a pronoun or other function word before a cue is never a name
        if word.islower() and len(word) >= 2 and word not in STOP_WORDS and (
            in_usage_cue(text, start, end) or is_coined(word) or is_rare_known_word(word)
        ):
            found.append((start, end))
        index += 1
    chosen = {span for span in found}
    for start, end, word in words:  # "python" where the document also writes "Python"
        # never a function word: 'TO' (Tomás Okonkwo's initials) is no reason to read every 'to', and
        # never an everyday word no known name is: 'a.k.a. Author' names no one called 'the author'
        if (word.islower() and word in capitalised_forms and word not in STOP_WORDS and not taken_spans.overlaps(start, end)
                and (not is_common_word(word) or is_known_in_lower_case(word))):
            chosen.add((start, end))
    return sorted(chosen)

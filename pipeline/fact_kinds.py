"""What a fact is: a decision, an action, an open question or a plain statement, read by rule.

No model: cue words and the shape of the sentence, in this order (the first that applies wins),
then the section it stands in: under a heading such as "Action items", "Decisions" or "Open
questions", or in a table with Owner and Due columns, a plain statement takes the heading's kind and
the owner the list's markup names ("[Hunter] Add retries", "Mireille — chase Bluefin"); see
`pipeline.note_sections`.

1. a label the writer put first: "Decision:", "Action:", "TODO", "Open question:";
2. a sentence that asks (it ends with a question mark) is a question;
3. a decision not taken yet ("has not decided", "need to agree", "TBD") is a question;
4. a decision verb in the past or present ("agreed", "decided", "approved", "signed", "we chose",
   "will ship") is a decision, with who decided when the sentence starts with them;
5. someone who is to act ("Sofia will …", "Priya to …", "asked Daniel for …", "Marta joined and will …")
   is an action;
6. an open point ("whether …", "unclear", "unknown") is a question;
7. a due date with a word of obligation ("wants a deck by Friday") is an action without an owner;
8. anything else is a statement.

From rule 3 on, the cues are looked for only in what the sentence states: a condition ("once the
council has approved the plan", "if approved"), what a generic reader must or should do ("you must
first decide whether…") and an instruction to decide ("Decide whether…") are blanked out first, so a
template or a guide gives no decisions or open questions of the person's work (`stated_part`).

A statement or decision may also report work finished ("Daniel sent the volumes", "the review is
done", "closed", "resolved"): it is marked `done`, and the brief shows an open item it matches as
closed (knowledge.brief).

A due date is read whatever the kind: "by", "before", "due" or "no later than" followed by a day,
a month, a date or "the end of …". Owners are names (a capitalised run of words that is not a
function word such as "It" or "This"), or "we" / "I"; where extraction knows the entity at that
place, its fullest name stands in ("Daniel" becomes "Daniel Okafor").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graph_schema.kinds import FactKind, PageKind
from graph_schema.models import CandidateFact, DocumentEntity
from graph_schema.settings import get_settings
from pipeline.names import is_common_word, is_given_name
from pipeline.speakers import SPEAKER_LINE
from pipeline.units import is_underline
from pipeline.note_sections import (
    Section, TableRow, action_tables, is_section_heading, item_line_at, kind_at, listed_owner, section_kinds,
    table_header_rows,
)

_WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_PERIOD = rf"(?:day|week|month|quarter|year|sprint|{_MONTH}|{_WEEKDAY}|q[1-4])"
_DATE = (
    rf"(?:(?:the\s+)?(?:end|start|beginning|middle|close)\s+of\s+(?:the\s+)?(?:next\s+|this\s+)?{_PERIOD}"
    rf"|(?:next|this|the\s+coming|coming)\s+{_PERIOD}"
    rf"|{_WEEKDAY}(?:\s+{_ORDINAL}(?:\s+{_MONTH})?)?"
    rf"|{_ORDINAL}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}(?:\s+{_ORDINAL})?(?:,?\s+\d{{4}})?"
    r"|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|tomorrow|tonight|today|eod|eow|cob|noon|midnight|q[1-4](?:\s+\d{4})?"
    r"|the\s+(?:next|following)\s+(?:meeting|call|review|release)"
    r"|(?:a|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?))"
)
_DUE = re.compile(
    rf"\b(?:by|before|due(?:\s+(?:on|by))?|until|no\s+later\s+than|ahead\s+of|within|deadline(?:\s+is)?:?)\s+({_DATE})\b"
    # "in two weeks": only a span of time ("in April" says when something happens, not a due date)
    r"|\bin\s+(?:a|one|two|three|four|five|six|\d+)\s+(?:days?|weeks?|months?)\b",
    re.IGNORECASE,
)
# When a task is to happen, where no due word says it: 'Hana to call Aarav tomorrow', 'I'll send the
# diagram on Monday'. Read for actions only: 'the board met on Monday' is no task.
_PLANNED = re.compile(
    rf"\bon\s+(?:the\s+)?{_DATE}\b"
    rf"|\b(?:the\s+)?(?:end|close)\s+of\s+(?:the\s+)?(?:next\s+|this\s+)?{_PERIOD}\b"
    r"|\b(?:tomorrow|tonight|today|(?:this|next)\s+week)\b",
    re.IGNORECASE,
)
# A due date alone says when something happened ("released before May 2019"); with one of these
# words it says when something is to be done.
_OBLIGATION = re.compile(
    r"\b(?:will|'ll|shall|must|should|need|needs|want|wants|expects?|asked|due|deadline|please|"
    r"has\s+to|have\s+to|is\s+to|are\s+to)\b",
    re.IGNORECASE,
)

# 'Releases will continue until January 2020', 'is supported until 2027': how long something lasts,
# no date anyone is to act by (the verb right before the due date's 'until').
_LASTING = r"\b(?:continue[sd]?|last(?:s|ed)?|remain(?:s|ed)?|stay(?:s|ed)?|runs?|supported|maintained|available|valid)\s+"


def _lasts_until(text: str, due: str) -> bool:
    """Whether a due date only says how long something lasts ('the quote is valid until Friday')."""
    return due.lower().startswith(("until", "till")) and bool(
        re.search(_LASTING + re.escape(due), " ".join(text.split()), re.IGNORECASE))


def _due_task(text: str, due: str | None) -> bool:
    """A due date with a word of obligation ('wants a deck by Friday'): a task, owner or not."""
    return bool(due) and bool(_OBLIGATION.search(text)) and not _lasts_until(text, due)


# A name: a run of capitalised words (with the particles of surnames), at most five.
_NAME = r"[A-Z][\w'’.-]*(?:\s+(?:(?:van|von|de|der|den|da|di|del|la|le|al|bin)\s+)?[A-Z][\w'’.-]*){0,4}"
_PRONOUN = r"(?:[Ww]e|I)"
_SUBJECT = rf"(?P<owner>{_NAME}|{_PRONOUN})"
# Minutes give one task to several people ("Hunter and Mei Ling to share…", "Ana, Bo & Cy will…"):
# the first of them is named its owner.
_SUBJECTS = rf"{_SUBJECT}(?:(?:\s*,\s*|\s+(?:and|&)\s+){_NAME})*"
# Where a clause starts: the sentence's start, after ';' or ':', or after a joining word.
_CLAUSE = r"(?:^|[;:]\s*|,\s*|\s(?:and|but|so|then|while)\s+)"
# Capitalised words that start sentences but name nobody.
_NOT_OWNERS = {
    "it", "this", "that", "these", "those", "there", "here", "he", "she", "they", "you", "what", "which",
    "who", "everyone", "everybody", "someone", "somebody", "nobody", "nothing", "everything", "each",
    "both", "all", "some", "any", "one", "the", "a", "an", "if", "when", "then", "also", "so", "but",
    "and", "or", "our", "their", "his", "her", "its", "my", "your", "no", "yes", "please", "next",
    # capitalised prepositions that open a sentence ("According to …", "Due to …")
    "according", "due", "thanks", "prior", "owing", "in", "on", "at", "as", "with", "for", "from", "by", "of", "to",
}

# After the label a colon or a dash; a hyphen only before a space: 'Decision-making is slow' and
# 'Q-learning' are words, not labels.
_LABEL = re.compile(
    r"^\W*(?P<label>decisions?|decided|agreed|resolved|resolutions?|outcome|final\s+(?:call|decision)|verdict|consensus|"
    r"out\s+of\s+scope|in\s+scope|"
    r"action(?:\s+items?)?|actions|ai|todo|to-?do|next\s+steps?|follow[- ]?ups?|"
    r"open\s+questions?|open\s+issues?|questions?|q|tbd|tbc)\s*(?:\((?P<who>[^)]{1,60})\))?\s*(?::|—|[-–](?=\s))\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_LABEL_KINDS = [
    (re.compile(r"^(?:decisions?|decided|agreed|resolved|resolutions?|outcome|final\s+(?:call|decision)|verdict|consensus|"
                r"out\s+of\s+scope|in\s+scope)$", re.I),
     FactKind.DECISION),
    (re.compile(r"^(?:action(?:\s+items?)?|actions|ai|todo|to-?do|next\s+steps?|follow[- ]?ups?)$", re.I), FactKind.ACTION),
    (re.compile(r"^(?:open\s+questions?|open\s+issues?|questions?|q|tbd|tbc)$", re.I), FactKind.QUESTION),
]
_TODO = re.compile(r"\bTODO\b|\bFIXME\b")

# Work reported finished: "is done", "has been sent", "sent the volumes", "closed", "resolved".
_FINISHED = (r"done|finished|complete|completed|closed|resolved|answered|fixed|merged|sent|delivered|shared|"
             r"submitted|published|uploaded|circulated|handled|sorted|settled|confirmed")
_DONE = re.compile(
    rf"\b(?:(?:is|are|was|were|has\s+been|have\s+been|got|now)\s+(?:now\s+|all\s+|finally\s+)?(?:{_FINISHED})\b"
    rf"|(?:{_FINISHED})\s+(?:the|a|an|their|his|her|our|its|them|it|this|that|all)\b"
    r"|^\W*(?:done|closed|resolved|completed|answered)\b)",
    re.IGNORECASE,
)
_NOT_DONE = re.compile(r"\b(?:not|n't|never|yet\s+to|still\s+to|once|when|until|if|after|before)\b[^.;]*$", re.IGNORECASE)
# A heading ("Rejected Ideas", "Open Issues", "Decisions"): a few capitalised words, no sentence
# punctuation. It names a section; it decides or asks nothing itself.
_HEADING_WORD = re.compile(r"^(?:[A-Z0-9][\w'’&/-]*|a|an|the|of|and|or|for|to|in|on|with|vs\.?|by|at)$")
_HEADING_MAX_WORDS = 6
_QUESTION_HEADING_MAX_WORDS = 4
_ASKS = re.compile(r"\?[\"'”’)\]]*\s*$")
_DECISION_WORDS = (
    r"agreed|agrees|decided|decides|approved|approves|signed\s+off|signed(?!\s+(?:up|in|out|into)\b)|chose|"
    r"chosen|selected|settled\s+on|opted\s+(?:for|to)|resolved\s+to|committed\s+to|accepted|adopted|rejected|"
    r"went\s+with|will\s+ship|shipped|finali[sz]ed|ok'?d|okayed|green-?lit|signed\s+off\s+on|descoped|de-scoped|"
    # work stopped or moved to a later time by someone's choice: 'paused until after peak', 'postponed to
    # March', 'we're moving the beta from the 21st to the 28th' (not 'the game was postponed due to rain')
    r"(?:paused|postponed|deferred|pushed\s+back)\s+(?:until|till|to|into)\b|(?:is|are|was|were)\s+out\s+of\s+scope|"
    # a ruling: 'Guido pronounced on the PEP', 'the BDFL pronounced in favour', 'the court ruled that …'
    # (not 'the word is pronounced /x/')
    r"(?<!is\s)(?<!are\s)(?<!was\s)(?<!were\s)(?<!be\s)(?<!been\s)(?<!more\s)(?<!less\s)(?<!most\s)(?<!very\s)"
    r"(?:pronounced|ruled)\s+(?:on|in\s+favou?r|for|against|that)\b|"
    r"(?:we're|we\s+are)\s+(?:moving|pushing)\s+(?:\w+\s+){1,4}?(?:from\s+(?:\w+\s+){1,3}?)?to\s+(?:the\s+)?"
    rf"(?:\d+\w*|{_MONTH}|{_WEEKDAY}|next\s+(?:week|month|quarter|year|sprint|release))|"
    # an acceptance or refusal said in the first person, of something particular: 'We accept the 33 kV
    # connection', 'I approve your plan' (not 'we accept card payments', a standing policy)
    r"(?:we|i)\s+(?:hereby\s+|formally\s+)?(?:accept|approve|reject|decline)\s+(?:the|your|this|that|these|those|their|its)\b|"
    # a commitment not to: 'we still won't buy Onfleet for this' (not 'we won't know until Friday')
    r"we\s+(?:still\s+)?(?:won't|will\s+not|are\s+not\s+going\s+to|aren't\s+going\s+to)\s+"
    r"(?:buy|use|renew|support|ship|build|adopt|hire|sign|extend|pursue|proceed|offer|migrate|switch|go\s+ahead)\b"
)
_DECISION = re.compile(rf"\b(?:{_DECISION_WORDS})\b", re.IGNORECASE)
# A choice said without a decision word: 'Going with PostgreSQL', 'we're going ahead with the pilot',
# 'let's go with option B', 'consensus was to drop it', 'got sign-off', 'launch moved to 12 May'
# (not 'we could go with B', 'she is going with her brother', 'Priya moved to the Lisbon office').
_CHOICE = re.compile(
    r"^\W*go(?:ing)?\s+(?:ahead\s+)?with\b"
    r"|\b(?:we're|we\s+are|we'll|we\s+will|let's|let\s+us)\s+go(?:ing)?\s+(?:ahead\s+)?with\b"
    r"|(?:^\W*|[;:]\s*)(?:the\s+)?consensus\s+(?:was\s+(?:to|that)|is\s+to)\b"
    r"|\b(?:got|received|gave|given)\s+(?:the\s+|their\s+|his\s+|her\s+)?(?:sign-?off|go-?ahead|green\s+light)\b"
    rf"|\b(?:moved|rescheduled|brought\s+forward|pulled\s+in)\s+(?:to|until|till)\s+(?:{_DATE})\b",
    re.IGNORECASE,
)
# Right before a decision word, a possibility or a condition: 'won't get rejected', 'may be accepted'.
_POSSIBLY = re.compile(r"\b(?:will|would|won't|wouldn't|may|might|could|can|cannot|can't|should|shall|must|to)"
                       r"(?:\s+not)?\s+(?:get|be)\s+(?:\w+ly\s+)?$", re.IGNORECASE)
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|our|your|their|his|her|its|this|that|these|those)\s+$", re.IGNORECASE)
# A request to the reader of a mail: 'Could you confirm whether …?', 'Can you chase that internally?'
_REQUEST = re.compile(r"^\W*(?:could|can|would|will)\s+(?P<you>you)\b(?!\s+(?:believe|imagine|tell\s+me\s+why))", re.IGNORECASE)
_CONDITION = re.compile(r"^\W*(?:if|unless|whenever|in\s+case)\b", re.IGNORECASE)
# Clauses that state no decision and ask nothing of the person's work, whatever decision or open word
# they hold (masked before those words are looked for):
# - a condition: "if approved by the board", "once the council has approved the plan" (after once/when/
#   after/as soon as only with a present or perfect verb, or a bare participle: "when the board approved
#   the budget in March" reports a decision taken);
_HYPOTHETICAL = re.compile(
    # a condition runs on through what explains it and its lists: 'if the PEP is final, i.e. is either
    # Accepted, Final, or Rejected'
    r"\b(?:if|unless|whenever|in\s+case|provided\s+that)\b"
    r"(?:[^,;:]|,\s*(?:i\.\s?e\.|e\.\s?g\.|or\b|and\b)|,(?=\s*[\w\"'’]+\s*,))*"
    r"|\b(?:once|when|after|as\s+soon\s+as)\s+(?:(?:[\w'’]+\s+){0,4}?(?:has|have|is|are|am|gets?|becomes?)\b"
    r"|[\w]+(?:'ve|’ve|'s|’s)\b|(?:[\w'’]+\s+){0,4}?(?:decides?|agrees?|approves?|chooses?|accepts?|rejects?|selects?)\b"
    r"|\w+ed\b)[^,;:]*",
    re.IGNORECASE,
)
# - what a generic reader ("you") must, should or may do: a template's or a guide's instruction
#   ("you must first decide whether…", "you should agree on…"); "You agreed on Monday" is not one;
_TO_READER = re.compile(
    r"\byou(?:'ll|’ll|'d|’d)?\s+(?:\w+\s+)?(?:must|should|shall|need|needs|have\s+to|will|would|may|might|can|could)\b"
    r"[^,;:]*|(?<=\byou)(?:'ll|’ll|'d|’d)\s[^,;:]*",
    re.IGNORECASE,
)
# - an instruction to decide, opening the sentence ("Decide whether …", "Choose the template …").
_TO_DECIDE = re.compile(
    r"^\W*(?:(?:please|first|now|then)\s+)?(?:decide|agree|approve|choose|select|accept|reject|adopt|settle|"
    r"determine|sign\s+off)\b[^,;:]*",
    re.IGNORECASE,
)


# - what others would be free to choose: an option a design or a policy gives them ("their users
#   could then decide whether…", "clinics may choose which…"); what "we" or "I" could choose stays open.
_OTHERS_MAY_CHOOSE = re.compile(
    r"\b(?!(?:we|i)\b)[a-z]+\s+(?:(?:then|also|still|now|easily|freely|each)\s+)?(?:can|could|may|might)\s+"
    r"(?:(?:then|also|still|now|easily|freely|each)\s+)?(?:decide|choose|determine|select|pick)\s+"
    r"(?:for\s+themselves\s+)?(?:whether|if|which|what|how|when)\b[^,;:]*",
    re.IGNORECASE,
)


def stated_part(text: str) -> str:
    """The sentence with its conditions and instructions blanked out (same length, so positions hold):
    what is left is what it states happened or is still open."""
    for pattern in (_HYPOTHETICAL, _TO_READER, _TO_DECIDE, _OTHERS_MAY_CHOOSE):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


# Software that does things with input: no decider, whatever verb it takes ('The API accepted the request').
_MECHANISMS = (r"(?:function|method|compiler|interpreter|parser|server|client|api|library|module|runtime|browser|"
               r"system|program|script|regex|regular\s+expression|grammar|tokenizer|lexer|validator|filter|code|"
               r"implementation|decorator|constructor|call|callable|protocol|format|syntax|database|driver|kernel|"
               r"firewall|machine|tool|engine|loader|linker|shell|os|platform|pipeline|scheduler|service|bot|job|"
               r"app|model|algorithm|check|ci|build|test|linter|hook|router|proxy|gateway|cluster)s?")
# 'Barry Warsaw, as BDFL-Delegate, accepted …': a role in apposition between the decider and the verb
_AS_ROLE = r"(?:,\s+as\s+(?:the\s+|a\s+)?[\w'’ -]{1,40},)?"
_DECIDER = re.compile(rf"{_CLAUSE}(?:[Tt]he\s+)?{_SUBJECT}{_AS_ROLE}\s+(?:(?:has|have|had|finally|formally|then|also|all)\s+)*(?:{_DECISION_WORDS})\b")
# The decider after the verb: 'The PEP was accepted by Guido on 2 June', 'approved by Tomás'.
_DECIDED_BY = re.compile(
    r"\b(?:accepted|approved|rejected|decided|chosen|selected|signed\s+off|pronounced\s+on|ruled\s+on)\s+by\s+"
    rf"(?:the\s+)?(?!(?i:{_MONTH}|{_WEEKDAY}|q[1-4]|eo[dwm]|end|next|tomorrow|tonight)\b)(?P<owner>{_NAME})\b"
    rf"(?!\s+(?i:{_MECHANISMS})\b)")  # 'rejected by the BDFL', 'approved by the Board'; not 'by Friday', 'by the CI pipeline'
# Someone named confirms a plan or a choice: 'Alicia Romero confirmed the pilot starts on 3 November',
# 'Data lead: Hunter (confirmed by Faisal Al-Harbi on 12 Nov)'. A confirmation by a thing ('the tests
# confirmed the bug') or by 'I' ('I confirmed the booking') reports, it settles nothing.
_CONFIRMED = re.compile(rf"{_CLAUSE}(?P<owner>{_NAME})\s+(?:(?:has|have|had|also|then|now)\s+)*confirmed\b"
                        rf"|\bconfirmed\s+by\s+(?P<by>{_NAME})")
_PENDING = re.compile(
    r"\b(?:(?:not|n't|never)\s+(?:yet\s+)?(?:been\s+)?(?:agreed|decided|approved|signed|chosen|settled|finali[sz]ed)"
    # a purpose's bare 'to' ('allowing installers to automatically select the variant') leaves nothing open
    # nor does what something can or would do ('This approach can select the optimal variant')
    r"|(?:will|must|should|shall|need\s+to|needs\s+to|has\s+to|have\s+to|yet\s+to|still\s+to|is\s+to|are\s+to|could)"
    r"\s+(?:\w+\s+)?(?:decide|agree|approve|choose|select|sign\s+off|settle)"
    r"|undecided|to\s+be\s+(?:decided|determined|confirmed|agreed|defined|discussed)|tbd|tbc)\b",
    re.IGNORECASE,
)
_OPEN = re.compile(
    # whole words only: 'aarch64-unknown-linux-gnu' names a platform
    # ('unknown keys' names a kind of key: only a predicate 'unknown' leaves something open)
    r"(?<![\w-])(?:open\s+question|open\s+issue|whether|unclear|unresolved|not\s+(?:yet\s+)?(?:clear|sure|known|certain)"
    r"|unknown(?!\s+(?!whether|who|what|how|if|when|why|where|which|to|at|for|yet)[a-z]))(?![\w-])",
    re.IGNORECASE,
)
# 'whether' in what a thing does, or in 'regardless of whether': nothing is left open
# ('the installer determines whether the wheel is compatible').
_DESCRIBED_WHETHER = re.compile(
    r"(?:\b(?:determines?|checks?|tests?|indicates?|specif(?:y|ies)|controls?|tells?|shows?|reports?|records?|detects?|"
    r"verify|verifies|evaluates?|depends?\s+on|depending\s+on|"
    r"regardless\s+of|irrespective\s+of|no\s+matter)"
    # an example in brackets of what something covers ('its behaviour (e.g. whether the output is exact)')
    r"|\((?:e\.g\.|i\.e\.|such\s+as|for\s+example|for\s+instance),?)\s+whether\b", re.IGNORECASE)
# What a design would leave unclear ('it would be unclear what is being assigned') argues for or
# against it; nothing is left open by it ('it is unclear how…' is).
_UNCLEAR_IF = re.compile(r"\b(?:would|could|might)\s+(?:(?:also|then|soon|be|become|seem|get|make\s+it|leave\s+it)\s+){1,3}"
                         r"(?:unclear|not\s+clear)\b", re.IGNORECASE)
_MODAL = (r"(?:will|shall|'ll|’ll|is\s+going\s+to|are\s+going\s+to|am\s+going\s+to|is\s+to|are\s+to|needs\s+to|"
          r"need\s+to|has\s+to|have\s+to|must|should|owes?|is\s+responsible\s+for|are\s+responsible\s+for|"
          r"volunteered\s+to|offered\s+to|promised\s+to)")
# Code, not words: '{import_path}(:{object_path})?' ends with a question mark and asks nothing.
_CODE = re.compile(r"[{}]|\w\(|::|=>|->|==")
# A recommendation with no date ('we should prefer a compatible interface', 'I should not be too
# strict'): how the writer thinks things ought to be, no one's task until someone takes it on.
_OUGHT = re.compile(r"\b(?:[Ww]e|I)\s+should\b")
# A writer's 'we' steering the reader ('We will use the example of PyTorch', 'we should mention that',
# 'In section 3 we will discuss …'): how a text goes on, no one's task.
_WRITERS_WE = re.compile(
    rf"\b(?:[Ww]e|I)\s+{_MODAL}\s+(?:\w+ly\s+|also\s+|now\s+|first\s+|then\s+)?"
    r"(?:discuss|describe|show|see|mention|explain|argue|consider|illustrate|refer|define|assume|note|examine|"
    r"outline|summari[sz]e|focus\s+on|look\s+at|begin\s+with|start\s+with|turn\s+to|use\s+(?:the|an?)\s+example)\b"
)
# "should have said" looks back: not something still to do.
# (not what usually or probably happens: 'Standards Track PEPs will typically have a header')
_ACTOR_WILL = re.compile(rf"{_CLAUSE}{_SUBJECTS}(?:\s+|(?=['’]ll)){_MODAL}\s+"
                         r"(?!have\b|typically\b|usually\b|generally\b|normally\b|often\b|always\b|never\b|probably\b|likely\b)\w")
# "Marta joined the call and will send the notes": the sentence's subject does the later verb.
_SUBJECT_WILL_LATER = re.compile(rf"^\W*{_SUBJECT}\s[^;:?]*?(?:,\s*|\s)and\s+(?:then\s+)?{_MODAL}\s+\w")
_ACTOR_TO = re.compile(rf"^\W*{_SUBJECTS}\s+to\s+[a-z]")  # minutes: "Priya to send the deck"
# Minutes hand work to someone: "Yusuf owns the Corvane negotiation", "Sage handles the contract".
_HOLDER = re.compile(rf"{_CLAUSE}{_SUBJECT}\s+(?:owns|handles|is\s+handling|picks\s+up|takes\s+over)\s+(?:the|a|an|this|that|our|their|his|her)\b")
# Work under way toward a date: "we are moving the nightly loads … by end of January", "Moving the
# staging DB to Postgres 16 this week" (with no date it reports: "we are moving offices").
_UNDER_WAY = re.compile(rf"{_CLAUSE}(?:(?P<owner>[Ww]e|I)(?:\s+are|\s+am|['’]re|['’]m)\s+(?:now\s+|still\s+)?[a-z]+ing\b|[A-Z][a-z]+ing\s+(?:the|a|an|our|all)\b)")
_ASKED = re.compile(
    rf"\b(?:asked|told|requested|reminded|invited|tasked)\s+(?P<owner>{_NAME}|us|me)\s+(?:for|to|with)\b"
)


@dataclass(frozen=True)
class FactTyping:
    kind: FactKind
    owner: str | None = None  # as the sentence writes it
    owner_at: int | None = None  # where in the sentence, so extraction can name the entity there
    due: str | None = None
    done: bool = False  # it reports work finished
    marked: bool = False  # the owner is written by a list's markup ('[Hunter] …', a table's Owner column)
    from_list: bool = False  # the owner is read from the list's markup, not from the sentence


def reports_done(text: str) -> bool:
    """'Daniel sent the shipping volumes', 'The security review is done': work reported finished
    (not 'has not sent yet', not 'once it is done')."""
    match = _DONE.search(text)
    return bool(match) and not _NOT_DONE.search(text[: match.start()])


def due_date(text: str) -> str | None:
    """'before Friday', 'by the end of March': the first due date the sentence states."""
    matches = list(_DUE.finditer(text))
    if not matches:
        return None
    first = " ".join(matches[0].group(0).split())
    if _lasts_until(text, first):
        # 'The freeze will continue until Monday, so the fix needs to be merged by Friday': a later
        # date with a word of obligation of its own ('as it did before May' has none)
        for match in matches[1:]:
            if _OBLIGATION.search(text, matches[0].end(), match.start()):
                return " ".join(match.group(0).split())
    return first


# What a speaker says they will do, in minutes' shorthand: 'KM: tune the Datadog monitor …', 'TW: alert
# routing still points at the old service, will fix'. A clause that opens with a verb of work in the
# imperative, or with 'will' and no subject, is the speaker's task.
_SPOKEN_TASK = re.compile(
    r"(?:^|[,;]\s+)(?:will\s+[a-z]+\b|(?:add|ask|book|call|chase|check|draft|email|follow\s+up|investigate|"
    r"look\s+into|ping|prepare|reply|revert|schedule|send|set\s+up|share|talk\s+to|tune|update|write)\s+[A-Za-z])"
)


def _speaker(text: str, at: int, entities: list[DocumentEntity]) -> tuple[str | None, int]:
    """The person whose speaker label opens the line `at` is on ('KM: …', '- **Ada:** …'), and where
    their words start; (None, at) on a line no label of a person opens."""
    line_start = text.rfind("\n", 0, at) + 1
    label = SPEAKER_LINE.match(text, line_start)
    if label is None:
        return None, at
    for entity in entities:
        if entity.kind is PageKind.PERSON and any(m.start == label.start(1) for m in entity.mentions):
            return entity.name, label.end() - 1
    return None, at


def _heading_line(text: str, at: int) -> bool:
    """Whether the line at `at` is a heading: Markdown's '#', or a line over an underline."""
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].strip() == "" and text.startswith("#", at):
        return True
    line_end = text.find("\n", at)
    if line_end < 0:
        return False
    next_end = text.find("\n", line_end + 1)
    return is_underline(text[line_end + 1 : next_end if next_end >= 0 else len(text)])


# A heading that asks what something is: 'What is a PEP?', '## What are the Lantern metrics?'
_WHAT_IS = re.compile(r"^[#\s]*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<term>[^?\n]{1,40}?)\s*\?\s*$", re.IGNORECASE)
_ANSWER_WINDOW = 2000  # chars under the heading read for its answer: an underline, blank lines and a first sentence
_DEFINING = r"\s+(?:\([^)]{0,60}\)\s+)?(?:is|are|stands\s+for|means|refers\s+to)\b"


def _answered_below(text: str, at: int, heading: str) -> bool:
    """Whether the first sentence under a heading that asks what something is says what it is: a
    section's title, answered ('What is a PEP?' over 'PEP stands for …'). A question heading left
    open ('## Should we move to Postgres?' over a discussion) stays a question."""
    asked = _WHAT_IS.match(heading)
    if not asked:
        return False
    line_end = text.find("\n", at)
    below = text[line_end + 1 : line_end + 1 + _ANSWER_WINDOW] if line_end >= 0 else ""  # never the whole rest of a long document
    lines = [line for line in below.split("\n")[:4] if line.strip() and not is_underline(line)]
    first = re.split(r"(?<=[.!?])\s", lines[0].strip(), maxsplit=1)[0] if lines else ""
    term = re.escape(asked.group("term")).replace(r"\ ", r"\s+")
    return bool(re.search(rf"\b{term}{_DEFINING}", first, re.IGNORECASE))


def planned_date(text: str) -> str | None:
    """'on Monday', 'tomorrow': when a task is to happen, where the sentence gives no due date."""
    match = _PLANNED.search(text)
    return " ".join(match.group(0).split()) if match else None


def _owner(match: re.Match | None) -> tuple[str | None, int | None]:
    if match is None:
        return None, None
    owner = match.group("owner")
    if owner.endswith(".") and not re.search(r"(?:^|\s)[A-Z]\.$", owner):
        owner = owner[:-1]  # 'accepted by Guido.': the sentence's full stop, not an initial's ('J.')
    first = owner.split()[0].strip("'’")
    if first.lower() in _NOT_OWNERS and not (len(first) > 1 and first.isupper()):  # 'TO to open…': initials
        return None, None
    if _MECHANISM_WORD.fullmatch(owner):
        return None, None  # 'The API accepted the request': software, no decider
    if owner.lower() in ("us", "we"):
        return "we", match.start("owner")
    if owner in ("me", "I"):
        return "I", match.start("owner")
    return owner, match.start("owner")


def _confirmer(text: str) -> tuple[str | None, int | None]:
    """Who confirmed what the sentence says, when someone named did."""
    for match in _CONFIRMED.finditer(text):
        group = "owner" if match.group("owner") else "by"
        name = match.group(group)
        if name.split()[0].strip("'’").lower() not in _NOT_OWNERS:
            return name, match.start(group)
    return None, None


def _first_owner(text: str, *patterns: re.Pattern) -> tuple[str | None, int | None]:
    """The first pattern's first match whose subject names someone."""
    for pattern in patterns:
        for match in pattern.finditer(text):
            owner, at = _owner(match)
            if owner:
                return owner, at
    return None, None


# A reference's label opening a unit: reStructuredText's '.. [#accepted] "A Plea…" (https://…)', '[3] Smith 2019'.
# ('[Hunter] Add retries' is a task list's owner, not a reference: only '#…' and numbers, or after '..')
_REFERENCE_LABEL = re.compile(r"^\s*(?:\.\.\s+\[[^\]\s]+\]|\[(?:#[\w-]*|\d+)\])\s+(?=\S)")


def classify_sentence(text: str) -> FactTyping:
    """Decision, action, question or statement, with owner and due date where the sentence states
    them; a statement or decision that reports work finished is marked done."""
    label = _REFERENCE_LABEL.match(text)
    if label:  # a citation: its label's word ('[#accepted]') says nothing was decided
        typing = classify_sentence(text[label.end():])
        at = None if typing.owner_at is None else typing.owner_at + label.end()
        return FactTyping(typing.kind, typing.owner, at, typing.due, typing.done, typing.marked, typing.from_list)
    typing = _classify(text)
    if typing.kind in (FactKind.STATEMENT, FactKind.DECISION) and reports_done(text):
        return FactTyping(typing.kind, typing.owner, typing.owner_at, typing.due, done=True)
    return typing


def is_heading(text: str) -> bool:
    """'Rejected Ideas', 'Open Issues', 'What Next?': a section's name, not a sentence (a question
    whose every word is capitalised, as headings are, asks nothing of anyone)."""
    words = text.split()
    if 2 <= len(words) <= _QUESTION_HEADING_MAX_WORDS and text.rstrip().endswith("?") and "\n" not in text.strip():
        return all(w[:1].isupper() for w in text.rstrip(" ?").split())
    return (0 < len(words) <= _HEADING_MAX_WORDS and "\n" not in text.strip() and text.rstrip()[-1] not in ".!?:;,"
            and all(_HEADING_WORD.match(w) for w in words) and words[0][0].isupper())


# Formal minutes record what a meeting decided as the outcome of a vote, with no decision word:
# a poll's result ('Strong consensus in favour.', 'No consensus for change.'), a motion's fate
# ('Motion carried.', 'The amendment failed'), 'unanimous consent to …', after a label or the
# votes ('Result: consensus', 'SF F N A SA: 7 9 3 1 0, weak consensus'). 'Consensus' in prose
# ('seek consensus', 'there seems to be no consensus on…') is no outcome: only a sentence that
# opens with it, ends there or says for or against what, counts.
_VOTE_OUTCOME = re.compile(
    r"^\W*(?:[a-z][a-z ]{0,18}:\s*)?(?:(?:strong|weak|clear|rough|general|unanimous)\s+)?(?:no\s+)?consensus"
    r"(?:\s*[.!]?\s*$|\s+(?:for|in\s+favou?r|against|to\s+[a-z]+)\b)"
    r"|\b(?:the\s+)?(?:motion|amendment)\s+(?:was\s+|is\s+|has\s+been\s+)?"
    r"(?:carried|carries|passed|passes|defeated|failed|fails|lost|withdrawn)\b"
    r"|^\W*carried(?:\s+(?:unanimously|without\s+objection|nem\.?\s*con\.?))?\s*[.!]?\s*$"
    r"|\bunanimous\s+consent\b"
    # the votes then the outcome: 'SF F N A SA: 7 9 3 1 0 — weak consensus'
    r"|\b\d+(?:\s+\d+){2,4}\W+(?:(?:strong|weak|clear|no)\s+)*consensus\b",
    re.IGNORECASE,
)


# 'We decided that we need to agree on the problems first': a decision whose content is a step still
# to take. Only a decision that governs what follows ('decided that …'), unnegated ('We haven't
# decided yet; we need to …') and in the same clause ('… approved the budget, but the venue is still
# to be decided' leaves the venue open).
_DECIDED_THAT = re.compile(r"\b(?:decided|agreed|resolved|concluded)\s+that\b(?P<rest>[^;]*)$", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no\s+one|nobody|none)\b|n't\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"\b(?:but|although|though|however|yet)\b|;", re.IGNORECASE)


def _decided_that(before_pending: str) -> bool:
    decided = _DECIDED_THAT.search(before_pending)
    return bool(decided and not _NEGATION.search(before_pending, 0, decided.start())
                and not _CLAUSE_BREAK.search(decided.group("rest")))


def _decides(text: str) -> bool:
    """A decision word that states a decision: not in a condition ('If you submit it late, it is
    rejected'), not as a possibility ('so that it won't get rejected', 'may be accepted'), not as
    an adjective after a determiner ('the signed acceptance form') and not what a piece of software
    takes or refuses ('each parameter accepted by the function'); or a vote's outcome."""
    if _CONDITION.match(text):
        return False
    if _VOTE_OUTCOME.search(text) or _CHOICE.search(text):
        return True
    return any(not _POSSIBLY.search(text, 0, m.start()) and not _DETERMINER_BEFORE.search(text, 0, m.start())
               and not _BY_A_MECHANISM.match(text, m.end())
               for m in _DECISION.finditer(text))


# 'accepted by the function', 'rejected by the parser': what software does with input, no one's
# decision ('approved by the board', 'rejected by Guido' are decisions: a body or a name).
# The mechanism is the phrase's head: 'by the system administrator', 'by the API review board' are people.
_PHRASE_ENDS = r"(?=\s*(?:[,.;:)!?]|$)|\s+(?:and|or|but|which|that|it|they|in|on|at|for|with|to|when|if|because|as|raises?|is|are|was|were|will|would)\b)"
_MECHANISM_WORD = re.compile(_MECHANISMS, re.IGNORECASE)
_BY_A_MECHANISM = re.compile(
    r"\s+by\s+(?:the|a|an|this|that|each|every|any|its|our|your)\s+(?:[\w-]+\s+)?" + _MECHANISMS + r"\b" + _PHRASE_ENDS,
    re.IGNORECASE)


# A unit that opens with a code literal describes it ('``optional: bool``: Whether the provider is
# optional.'): a definition, asking and deciding nothing.
_CODE_TERM = re.compile(r"^\W*``[^`]+``")


# A specification's requirement keywords in capitals (RFC 2119: 'Authors SHOULD choose namespaces
# that…', 'Installers MUST NOT …'): a rule the document lays down for whoever does that, not a
# decision still open or someone's task.
# In a sentence otherwise written in lower case. 'MAY' is left out: a month as often as a keyword.
_REQUIREMENT = re.compile(r"\b(?:MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b")


def _lays_down_a_requirement(text: str) -> bool:
    lower_words = sum(1 for word in text.split() if word[:1].islower())
    return bool(_REQUIREMENT.search(text)) and 2 * lower_words > len(text.split())


def _classify(text: str) -> FactTyping:
    due = due_date(text)
    if _CODE_TERM.match(text):
        return FactTyping(FactKind.STATEMENT, due=due)
    if is_heading(text):
        return FactTyping(FactKind.STATEMENT, due=due)
    label = _LABEL.match(text)
    if label and not label.group("who") and not label.group("rest").strip():
        return FactTyping(FactKind.STATEMENT, due=due)  # 'Resolution:' with nothing after it
    if label:
        word = " ".join(label.group("label").lower().split())
        kind = next(k for pattern, k in _LABEL_KINDS if pattern.match(word))
        who = label.group("who")
        rest = label.group("rest")
        if who:
            return FactTyping(kind, who.strip(), label.start("who"), due)
        owner, at = _first_owner(rest, _ACTOR_TO, _ACTOR_WILL, _DECIDER, _ASKED)
        offset = label.start("rest")
        if kind is FactKind.DECISION and owner and _ACTOR_TO.match(rest):
            kind = FactKind.ACTION  # 'Agreed: Pieter to prepare the letter': a task agreed on
        return FactTyping(kind, owner, None if at is None else at + offset, due)
    if _ASKS.search(text) and not _CODE.search(text):
        return FactTyping(FactKind.QUESTION, due=due)
    text = stated_part(text)  # "Once you've decided…", "you must first decide whether…": no decision, nothing open
    requirement = _lays_down_a_requirement(text) and not due
    pending = _PENDING.search(text)
    if pending and not requirement and not _decided_that(text[: pending.start()]):
        return FactTyping(FactKind.QUESTION, due=due)
    if _decides(text):
        owner, at = _first_owner(text, _DECIDER, _DECIDED_BY)
        return FactTyping(FactKind.DECISION, owner, at, due)
    confirmer, at = _confirmer(text)
    if confirmer:
        return FactTyping(FactKind.DECISION, confirmer, at, due)
    owner, at = _first_owner(text, _ACTOR_TO, _ACTOR_WILL, _ASKED, _SUBJECT_WILL_LATER, _HOLDER)
    if owner in ("we", "I") and not due and not planned_date(text) and (_WRITERS_WE.search(text) or _OUGHT.search(text)):
        owner = None  # a deadline makes it a task
    if owner or _TODO.search(text):
        return FactTyping(FactKind.ACTION, owner, at, due)
    under_way = _UNDER_WAY.search(text)
    if under_way and (due or planned_date(text)):
        owner = under_way.group("owner")
        return FactTyping(FactKind.ACTION, owner and ("we" if owner.lower() == "we" else "I"),
                          under_way.start("owner") if owner else None, due)
    if _OPEN.search(_UNCLEAR_IF.sub(" ", _DESCRIBED_WHETHER.sub(" ", text))) and not requirement:
        return FactTyping(FactKind.QUESTION, due=due)
    if _due_task(text, due):
        return FactTyping(FactKind.ACTION, due=due)
    return FactTyping(FactKind.STATEMENT, due=due)


_ACTOR_KINDS = (PageKind.PERSON, PageKind.ORGANISATION, PageKind.YOU)


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


_NOTE_LABELS = {"nb", "fyi", "tbc", "tbd", "eod", "eow", "eta", "ps", "re", "fw", "fwd", "note", "update", "info",
                "ok", "wip", "asap", "rsvp", "faq", "aob", "tl;dr", "tldr"}


def _a_name(owner: str) -> bool:
    """Whether a word a list's dash or parenthesis sets apart can be someone's name: a given name
    ('Rose — brief Bill'), initials ('JF: share the ERD') or a capitalised word that is no everyday
    word; not a tag ('P1', 'Q3', 'DPIA') nor a topic ('Training — start earlier')."""
    words = owner.split()
    if any(ch.isdigit() for ch in owner) or owner.lower() in _NOTE_LABELS:
        return False
    if len(words) == 1 and owner.isupper():
        return 2 <= len(owner) <= 3  # initials, not an acronym such as DPIA
    return all(w[:1].isupper() for w in words) and (
        is_given_name(words[0].lower()) or (len(words) == 1 and not is_common_word(owner)))


def _person_named(owner: str, entities: list[DocumentEntity]) -> str | None:
    """The one person of the document the owner's words name ('Hunter' → 'Hunter Okafor'), if exactly one."""
    words = owner.lower().split()
    found = {e.name for e in entities if e.kind is PageKind.PERSON and len(e.name.split()) > len(words)
             and any(form.lower().split()[: len(words)] == words for form in (e.name, *e.aliases))}
    return found.pop() if len(found) == 1 else None


_MAIL_FIELD = re.compile(r"^(?P<field>from|to)\s*:[^\n]*", re.IGNORECASE | re.MULTILINE)


def _mail_person(text: str, entities: list[DocumentEntity], field: str) -> str | None:
    """The one person a mail's own From: or To: line names (the first such line, near the top)."""
    line = next((m for m in _MAIL_FIELD.finditer(text, 0, get_settings().mail_header_chars) if m.group("field").lower() == field), None)
    if line is None:
        return None
    found = {e.name for e in entities if e.kind is PageKind.PERSON
             and any(line.start() <= m.start < line.end() for m in e.mentions)}
    return found.pop() if len(found) == 1 else None


_CLOCK = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_DATE_LABEL = re.compile(rf"^(?P<date>{_ORDINAL}\s+{_MONTH}\.?(?:\s+\d{{4}})?|{_MONTH}\.?\s+{_ORDINAL}(?:,?\s+\d{{4}})?|"
                         r"\d{4}-\d{2}-\d{2})\s*(?::|—|–|-)\s+", re.IGNORECASE)
_CHECKBOX = re.compile(r"^\[(?P<ticked>[ xX✓✔]|(?i:done|closed|complete|completed))\]\s*")  # '[ ] Send', '[x] Book', '[DONE] …'
_DONE_CELL = re.compile(r"^(?:done|closed|complete|completed|finished|resolved|✓|✔|✅)\.?$", re.IGNORECASE)


_ITEM_OPENING = re.compile(r"^(?:[\w.-]+\s*(?::|—|–|\s-)\s|@)")  # 'me: ask Yusuf', 'ravi — move the code'


def _an_item_of_its_section(text: str, start: int, item: str, sections: Sequence[Section]) -> bool:
    """Whether the unit opens one of a typed section's item lines (a list item, a table row, a plain
    line under a notes-style heading) and is no line of wrapped prose: a heading types its items,
    not the sentences of a paragraph (a proposal's 'Open Issues' discusses; its sentences are not
    each an open question)."""
    line = item_line_at(start, sections)
    if line is None or not any(ch.isalpha() for ch in item):
        return False  # no item, or an underline, a row of numbers
    line_start, line_end = line
    if text[line_start:start].strip(" \t-*+•▪◦|#[]x0123456789.)") != "":
        return False  # a later sentence of the item
    if text[line_start:start].strip() != "":
        return True  # after a bullet, a number or a pipe: '- [Tomasz] migrate the layers. Target 27 Nov.'
    whole = "\n" not in item and text[start + len(item) : line_end].strip() == ""
    previous = text[text.rfind("\n", 0, max(line_start - 1, 0)) + 1 : line_start].strip() if line_start else ""
    next_end = text.find("\n", line_end + 1)
    following = text[line_end + 1 : next_end if next_end >= 0 else len(text)].strip()
    # a line of wrapped prose: it carries on a line above ('to create::') or into the one below
    wrapped = ((bool(previous) and item[:1].islower() and not _ITEM_OPENING.match(item))
               or (following[:1].islower() and not _ITEM_OPENING.match(following)))
    return whole and not wrapped


def _in_its_section(typing: FactTyping, item: str, start: int, text: str,
                    sections: Sequence[Section], rows: list[TableRow]) -> FactTyping:
    """The typing of a unit read under its heading: a plain statement under 'Action items' is an
    action (with the owner the list's markup names), under 'Decisions' a decision, under 'Open
    questions' an open question; a row of an action table is an action with its Owner and Due cells."""
    row = next((r for r in rows if r.span[0] <= start < r.span[1]), None)
    if row is not None and typing.kind in (FactKind.STATEMENT, FactKind.ACTION):
        due = text[row.due[0] : row.due[1]] if row.due else None
        if due and _CLOCK.search(due):
            return typing  # an agenda's '09:00 | Priya Shah | Welcome': a time slot, no task
        status = text[row.status[0] : row.status[1]] if row.status else ""
        if (due and _DONE_CELL.match(due.strip())) or _DONE_CELL.match(status.strip()):
            return FactTyping(FactKind.STATEMENT, done=True)
        owner = text[row.owner[0] : row.owner[1]] if row.owner else None
        return FactTyping(FactKind.ACTION, owner or typing.owner, row.owner[0] - start if owner else typing.owner_at,
                          typing.due or due, marked=bool(owner))
    kind = kind_at(start, sections)
    if kind is None or typing.kind is not FactKind.STATEMENT or typing.done or not _an_item_of_its_section(text, start, item, sections):
        return typing
    if kind is FactKind.ACTION:
        box = _CHECKBOX.match(item)
        if box and box.group("ticked") != " ":
            return FactTyping(FactKind.STATEMENT, done=True)  # ticked off
        skip = box.end() if box else 0
        dated = _DATE_LABEL.match(item[skip:])  # a milestone: '25 Sep: staging models merged'
        due = typing.due or (dated.group("date") if dated else None)
        listed = listed_owner(item[skip:])
        if listed is not None:
            return FactTyping(kind, listed.name, skip + listed.at, due, marked=listed.marked, from_list=True)
        return FactTyping(kind, typing.owner, typing.owner_at, due)
    return FactTyping(kind, typing.owner, typing.owner_at, typing.due)


_THING_KINDS = frozenset({PageKind.TOOL, PageKind.PROJECT, PageKind.TOPIC})


def untask_things(facts: list[CandidateFact], text: str, entities: list[DocumentEntity]) -> list[CandidateFact]:
    """After the entities are typed: a task whose owner turned out to be software, a project, a
    topic ('Kubernetes will usually be the oldest version …', 'CPython should make no
    assumptions …', read as organisations by spaCy) is what a thing does, no one's task. Under a
    heading that types its items ('## Actions': '- Airflow: add retries') it stays a task, of no one."""
    things = {e.name for e in entities if e.kind in _THING_KINDS}
    if not any(f.kind is FactKind.ACTION and f.owner in things for f in facts):
        return facts
    sections = section_kinds(text)
    out = []
    for fact in facts:
        if fact.kind is FactKind.ACTION and fact.owner in things:
            sentence = text[fact.start:fact.end]
            listed = kind_at(fact.start + len(sentence) - len(sentence.lstrip()), sections) is not None
            kind = FactKind.ACTION if listed or _due_task(sentence, fact.due) else FactKind.STATEMENT
            fact = fact.model_copy(update={"owner": None, "kind": kind})
        out.append(fact)
    return out


def type_facts(
    facts: list[CandidateFact], text: str, entities: list[DocumentEntity],
    sentences: list[tuple[int, int]] = (), max_chars: int = 600,
) -> list[CandidateFact]:
    """Each fact with its kind, owner and due date; an owner that is a mention of an entity
    (a person, an organisation, the person themself) is given that entity's fullest name.

    A decision, action or question that names no entity ("We agreed to keep the data on site")
    is a fact too (of the focus area its document is filed under, see pipeline.merge): what was
    decided matters whether or not the sentence names someone. A unit is read under its section's
    heading and, in an action table, with its Owner and Due cells (pipeline.note_sections).
    """
    taken = {(f.start, f.end) for f in facts}
    unnamed = [CandidateFact(text=_one_line(text[s:e], max_chars), start=s, end=e, entities=[])
               for s, e in sentences if (s, e) not in taken and text[s:e].strip()]
    sections, rows = section_kinds(text), action_tables(text)
    headers = table_header_rows(text)
    typed = []
    for fact, named in [(f, True) for f in facts] + [(f, False) for f in unnamed]:
        sentence = text[fact.start : fact.end]
        lead = len(sentence) - len(sentence.lstrip())
        at = fact.start + lead
        if is_section_heading(at, sections) or any(s <= at < e for s, e in headers):
            typing = FactTyping(FactKind.STATEMENT)  # 'Agreed in the session:', '| Action | Owner | Due |'
        else:
            typing = classify_sentence(sentence.strip())
            if not is_heading(sentence.strip()) or kind_at(at, sections) is not None:  # 'Budget for Q3' as an item
                typing = _in_its_section(typing, sentence.strip(), at, text, sections, rows)
        if not named and typing.kind is FactKind.STATEMENT and not typing.done:
            continue
        owner, kind = typing.owner, typing.kind
        known = False  # the owner is a mention of a person, an organisation or the person themself
        if owner and typing.owner_at is not None:
            owner_at = at + typing.owner_at
            for index in fact.entities:
                entity = entities[index]
                if entity.kind in _ACTOR_KINDS and any(m.start <= owner_at < m.end for m in entity.mentions):
                    owner, known = entity.name, True
                    break
        request = (_REQUEST.match(sentence.strip()) and not sentence.lstrip().startswith(">")
                   and ">" not in text[text.rfind("\n", 0, at) + 1 : at])
        if kind is FactKind.QUESTION and request and _mail_person(text, entities, "to"):  # not in a quoted mail
            kind, owner = FactKind.ACTION, _mail_person(text, entities, "to")  # a mail's 'Could you chase that?'
            known = True
        if owner in ("you", "I") and not known:
            # a mail's 'Could you …?' is asked of its addressee, its 'I'll send …' is its sender's
            writer = _mail_person(text, entities, "to" if owner == "you" else "from")
            owner, known = (writer, True) if writer else (None if owner == "you" else owner, False)
        if owner and owner not in ("we", "I") and (not known or len(owner.split()) == 1):
            named_so = _person_named(owner, entities)
            if named_so:
                owner, known = named_so, True  # '[Hunter]' where no mention (or only 'Hunter') was read: Hunter Okafor
        if kind is FactKind.ACTION and _heading_line(text, at):
            kind, owner = FactKind.STATEMENT, None  # 'Public API to query module names' over its underline: a section's name
        elif kind is FactKind.QUESTION and _heading_line(text, at) and _answered_below(text, at, sentence.strip()):
            kind = FactKind.STATEMENT  # PEP 1's 'What is a PEP?' over 'PEP stands for Python Enhancement Proposal.'
        speaker, words_start = _speaker(text, at, entities)
        if speaker and owner == "I":
            owner, known = speaker, True  # 'HI: I'll update the runbook.'
        elif (speaker and kind is FactKind.STATEMENT and not typing.done
              and _SPOKEN_TASK.search(text[max(at, words_start):fact.end])):
            kind, owner, known = FactKind.ACTION, speaker, True
        listed = typing.marked or kind_at(at, sections) is not None  # under a heading that types it
        if owner and not known and typing.from_list and not typing.marked and not _a_name(owner):
            owner = None  # 'Training — start earlier', '… (DPIA)' under 'Actions': a topic or a tag, nobody's name
        if (kind is FactKind.ACTION and owner and not known and owner not in ("we", "I") and len(owner.split()) == 1
                and not listed and not _LABEL.match(sentence.strip())):
            # A lone capitalised word no entity stands on ("Annotations must …", "Note that … must"):
            # a rule or a remark, not someone's task.
            owner = None
            kind = FactKind.ACTION if _due_task(sentence, typing.due) else FactKind.STATEMENT
            if kind is FactKind.STATEMENT and not named and not typing.done:
                continue
        due = typing.due or (planned_date(sentence) if kind is FactKind.ACTION else None)
        typed.append(fact.model_copy(update={"kind": kind, "owner": owner, "due": due, "done": typing.done,
                                             "entities": _with_its_owner(fact.entities, owner, entities)}))
    return sorted(typed, key=lambda f: f.start)


def _with_its_owner(indexes: list[int], owner: str | None, entities: list[DocumentEntity]) -> list[int]:
    """A task is about the person it is for: '[Hunter] Add retries to the DAG' is on Hunter Okafor's
    page even where no mention of him was read in the line (and a note filed in no focus area keeps
    it through him)."""
    if not owner or owner in ("we", "I"):
        return indexes
    found = next((i for i, e in enumerate(entities) if e.name == owner and e.kind in _ACTOR_KINDS), None)
    return indexes if found is None or found in indexes else sorted([*indexes, found])

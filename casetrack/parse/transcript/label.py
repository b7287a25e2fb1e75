"""How a transcript is cited: `Smith Dep.` or `Tr.`, read off its first pages.

The document's citation label (`transcript_label`): `Smith Dep.` for a deposition (the
deponent's surname from "DEPOSITION OF JOHN A. SMITH" or "Depoimento de João da Silva" on the
first transcript pages), `Tr.` for other transcripts (hearings, oral arguments, trials; a
Portuguese "Termo de audiência"), and None for margin-numbered pages that are no transcript
(pleading paper): such a document is left exactly as parsed.

"""

from __future__ import annotations

import re
from collections.abc import Sequence

from casetrack.parse.transcript.margin import MARGIN

_SPEAKER = re.compile(
    r"^(?:BY\s+)?(?:MR|MRS|MS|DR|DRA|THE|JUSTICE|CHIEF\s+JUSTICE|JUDGE|JUIZ|JU[ÍI]ZA|SR|SRA)\.?"
    r"\s+[A-ZÀ-Ý][A-ZÀ-Ý.'’\- ]{1,30}:"
)
# A transcript's title ("TRANSCRIPT OF MOTION HEARING", "P R O C E E D I N G S", a Portuguese
# "Termo de audiência"), in capitals where an order on pleading paper would use the words too
# ("the deposition transcript"); and the weaker cues of a transcript's cover ("came on for oral
# argument", "court reporter"), which an order may use as well: they count beside "APPEARANCES".
_TITLE = re.compile(
    r"\bTRANSCRIPT\s+OF\b|REPORTER'S\s+TRANSCRIPT|(?i:p\s+r\s+o\s+c\s+e\s+e\s+d\s+i\s+n\s+g\s+s|"
    r"termo\s+de\s+audi[êe]ncia|assentada|taquigr|estenotip)"
)
_COVER = re.compile(
    r"came\s+on\s+for|oral\s+argument|court\s+reporter|shorthand|stenograph|reporting", re.IGNORECASE
)
_APPEARANCES = re.compile(r"^\s*(?:APPEARANCES|PRESENTES)\b", re.MULTILINE)
_NAME_WORD = r"(?:[A-ZÀ-Ý][\w'’.\-]*|d[aeo]s?|e|van|von|de\s+la)"
_DEPONENT = re.compile(
    r"(?i:deposition|depoimento)(?:\s+(?i:upon\s+oral\s+examination|pessoal))?\s+"
    r"(?i:of|de|da|do)\s*[:\-]?\s+(?:(?i:the\s+)?(?i:witness|testemunha|autora?|r[ée]u?|r[ée])\s+)?"
    rf"(?P<name>[A-ZÀ-Ý][\w'’.\-]*(?:[ \t]+{_NAME_WORD}){{0,6}})"
)
_NOT_A_DEPOSITION = re.compile(
    r"(?i:motion|notice|compel|subpoena|to\s+take|for\s+the|requerimento|intima)\W*\S*\W*$"
)
_SUFFIXES = frozenset("JR JR. SR SR. II III IV ESQ ESQ. PH.D. PHD M.D. MD".split())
_CORPORATE = re.compile(
    r"\b(?:inc|corp|corporation|company|co|llc|llp|ltd|l\.p|s\.a|ltda|bank)\b\.?", re.IGNORECASE
)


def transcript_label(pages: Sequence[Sequence[str]], first_page: Sequence[str] = ()) -> str | None:
    """How the transcript is cited: `Smith Dep.`, `Tr.`, or None when the margin-numbered pages
    are no transcript (module docstring). `pages`: the first transcript pages' lines as read
    (margin numbers, headers and footers still in); `first_page`: the document's first page."""
    lines = [MARGIN.sub(r"\2", line) for page in [first_page, *pages] for line in page]
    text = "\n".join(lines)
    deponent = _deponent(text)
    if deponent:
        return f"{deponent} Dep."
    turns = sum(1 for line in lines if _SPEAKER.match(line))
    questions = sum(1 for line in lines if line.startswith(("Q.", "Q ")))
    answers = sum(1 for line in lines if line.startswith(("A.", "A ")))
    cover = _COVER.search(text) is not None and _APPEARANCES.search(text) is not None
    if turns >= 3 or (questions >= 2 and answers >= 2) or _TITLE.search(text) or cover:
        return "Tr."
    return None


def _deponent(text: str) -> str | None:
    """The deponent's surname (a company's name) from "DEPOSITION OF JOHN A. SMITH"."""
    for m in _DEPONENT.finditer(text):
        if _NOT_A_DEPOSITION.search(text[max(0, m.start() - 40) : m.start()]):
            continue  # "MOTION TO COMPEL THE DEPOSITION OF ..." is a motion
        name = m["name"].strip(" ,.;:")
        if _CORPORATE.search(name):
            return " ".join(_titled(w) for w in name.split())
        words = [w.strip(",") for w in name.split()]
        while len(words) > 1 and words[-1].upper() in _SUFFIXES:
            words.pop()
        if words:
            return _titled(words[-1].rstrip("."))
    return None


def _titled(word: str) -> str:
    """SMITH -> Smith, O'BRIEN -> O'Brien, SMITH-JONES -> Smith-Jones; mixed case as written."""
    if not word.isupper():
        return word
    return re.sub(r"[^\W\d_]+", lambda m: m[0].capitalize(), word.lower())

"""Revoked (struck-through) text: left out of a paragraph, or kept with a marker.

Consolidated statutes (planalto.gov.br) and redlined contracts strike through the wording that
no longer applies and print the new wording after it. Indexed as is, a search for a rule finds
the revoked version as readily as the one in force, so by default struck text is left out and
counted; `ParseOptions.keep_revoked` keeps it, wrapped as "[revogado: ...]" in a Portuguese
document or "[revoked: ...]" otherwise, so it is still searchable and never mistaken for law in
force. Unstruck markers such as "(Revogado pela Lei nº ...)" are ordinary text and stay.

Parsers (DOCX, HTML) mark struck text with two sentinel characters while they read it;
`RevokedText.apply` rewrites a paragraph's text before it reaches `PageBuilder`, so the page's
offsets are those of the text stored.
"""

from __future__ import annotations

import re
from collections import Counter

# Noncharacters, like the DOCX page-break sentinels: never typed, safe inside any text.
START = "\ufdd2"
END = "\ufdd3"

_PASSAGE = re.compile(f"{START}([^{END}]*){END}")
# A passage's end and the next one's start with only whitespace (or empty struck runs) between
# are one passage: Word splits a struck sentence into many runs, HTML into many elements.
_JOIN = re.compile(f"{END}[\\s{START}{END}]*{START}")
_STRAY = re.compile(f"[{START}{END}]")
# Sentinels other parsers pass through a paragraph (DOCX page breaks) must survive a drop.
_KEEP_CHARS = re.compile("[\ufdd0\ufdd1\n]")

# A provision's label at the start of a struck paragraph: "Art. 3º", "§ 2º", "Parágrafo único",
# "IV -", "a)". Kept when the paragraph goes on with a bare "(Revogado ...)", so the marker
# still says what it revokes.
_LABEL = re.compile(
    r"\s*(?:Art\.?\s*\d+(?:\.\d+)*\s*[º°o]?(?:-[A-Z])?\.?|§\s*\d+\s*[º°o]?\.?|Par[áa]grafo\s+[úu]nico\.?"
    r"|[IVXLC]+\s*[-–—]|[a-z]\))",
    re.IGNORECASE,
)
_REVOCATION_NOTE = re.compile(
    r"\s*\((?:revogad|vetad|suprimid|exclu[íi]d|revoked|repealed|deleted)", re.IGNORECASE
)

_PT_WORDS = frozenset(
    "de da do das dos que não nao para com em no na ao pela pelo os as se é lei uma um".split()
)
_PT_LETTERS = re.compile("[ãõçêôº]")
_EN_WORDS = frozenset("the of and to in that is for with shall by this be or any as an".split())


def guess_language(text: str) -> str:
    """ "pt" or "en" by common function words: enough to pick the marker's word."""
    words = Counter(w.lower() for w in re.findall(r"\w+", text[:200_000]))
    # Function words, plus letters English never writes ("ação", "nº").
    pt = sum(words[w] for w in _PT_WORDS) + sum(n for w, n in words.items() if _PT_LETTERS.search(w))
    en = sum(words[w] for w in _EN_WORDS)
    return "pt" if pt > en else "en"


def language_from_tag(tag: str | None) -> str | None:
    """ "pt" / "en" from a language tag ("pt-BR", "en_US"); None for others or none."""
    if not tag:
        return None
    primary = tag.strip().lower().replace("_", "-").split("-", 1)[0]
    return primary if primary in ("pt", "en") else None


def mark(text: str) -> str:
    """`text` marked as struck through."""
    return f"{START}{text}{END}" if text else text


class RevokedText:
    """Applies the keep-or-drop rule to each paragraph of one document and counts passages."""

    def __init__(self, keep: bool, language: str = "en") -> None:
        self.keep = keep
        self.label = "revogado" if language == "pt" else "revoked"
        self.passages = 0

    def apply(self, text: str) -> str:
        """The paragraph's text with its struck passages dropped or marked."""
        if START not in text:
            return _STRAY.sub("", text) if END in text else text
        text = _JOIN.sub(" ", text)
        first = True

        def replace(m: re.Match[str]) -> str:
            nonlocal first
            at_start, first = first and not text[: m.start()].strip(), False
            body = m.group(1)
            if not body.strip():
                return body
            self.passages += 1
            if self.keep:
                return f"[{self.label}: {body.strip()}]"
            kept = "".join(_KEEP_CHARS.findall(body))
            label = _LABEL.match(body)
            if at_start and label and _REVOCATION_NOTE.match(text[m.end() :]):
                return label.group(0).strip() + " " + kept
            return " " + kept + " "

        return _STRAY.sub("", _PASSAGE.sub(replace, text))

    def warning(self) -> str | None:
        """The document's warning, or None when nothing was struck through."""
        n = self.passages
        if not n:
            return None
        what, them = (
            ("1 revoked (struck-through) passage", "it")
            if n == 1
            else (f"{n} revoked (struck-through) passages", "them")
        )
        if self.keep:
            return f"{what} indexed, marked [{self.label}: ...]"
        return (
            f"{what} left out of the index; to index {them} marked [{self.label}: ...], turn the case's "
            "setting on with `casetrack case set CASE --keep-revoked`, then ingest the file again with --force"
        )

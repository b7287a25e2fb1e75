"""The entry points: every legal entity of a text, and a document's metadata.

`extract_entities(text, language)` runs the finders of this package over one text (a page, a chunk)
and returns `LegalEntity` records with offsets into that text; `document_metadata(pages, language,
filename)` reads a whole document once for its type, date, process numbers, tribunals, parties and
most cited authorities. Language: "pt", "en" or "mixed" (both sets of finders)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from casetrack.legal.cnj import find_cnj, find_old_process_numbers
from casetrack.legal.dates import DATE, parse_date
from casetrack.legal.docdate import find_doc_date
from casetrack.legal.doctype import classify
from casetrack.legal.jurisprudence import find_jurisprudence
from casetrack.legal.legislation import find_legislation
from casetrack.legal.model import DocumentMetadata, EntityKind, LegalEntity
from casetrack.legal.parties import find_parties
from casetrack.legal.text import fold
from casetrack.legal.tribunals import find_tribunals
from casetrack.legal.us_citations import find_us_citations
from casetrack.legal.us_rules import find_court_rules

_AMOUNT = re.compile(
    r"(?<![\w$])(?P<cur>R\$|US\$|\$|USD|BRL)\s?(?P<num>\d{1,3}(?:[.,]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)"
    r"(?:\s?(?P<scale>mil|milh(?:ão|ões)|bilh(?:ão|ões)|thousand|million|billion)\b)?"
)
_SCALE = {
    "mil": 3,
    "thousand": 3,
    "milhão": 6,
    "milhões": 6,
    "million": 6,
    "bilhão": 9,
    "bilhões": 9,
    "billion": 9,
}
_BATES = re.compile(r"(?<![\w.])([A-Z]{2,10})([-_]?)(0\d{3,9}|\d{6,10})(?!\w)")
_DATE = re.compile(r"(?<![\d/])" + DATE)
_PT_WORDS = frozenset("de do da que em para com não uma os dos das ao pelo pela são foi artigo lei".split())
_EN_WORDS = frozenset("the of and to in that is for with as by this shall be on are was court".split())


def _lang_set(language: str) -> set[str]:
    lang = language.lower()
    return {"pt", "en"} if lang.startswith(("mix", "auto")) else {"pt" if lang.startswith("pt") else "en"}


def _amount_key(m: re.Match[str]) -> str:
    cur = {"R$": "BRL", "BRL": "BRL"}.get(m["cur"], "USD")
    raw = m["num"]
    dec = re.search(r"[.,](\d{1,2})$", raw)
    whole = re.sub(r"\D", "", raw[: dec.start()] if dec else raw) or "0"
    value = int(whole) * 10 ** _SCALE.get((m["scale"] or "").lower(), 0)
    return f"{cur} {value}.{(dec[1] if dec else '0').ljust(2, '0')}"


def _pt_entities(text: str) -> Iterable[LegalEntity]:
    for ref in find_legislation(text):
        yield LegalEntity(
            EntityKind.LEGISLATION,
            ref.text,
            ref.start,
            ref.end,
            ref.key,
            ref.keys,
            {"authority": ref.authority} if ref.authority else {},
        )
    for j in find_jurisprudence(text):
        yield LegalEntity(
            EntityKind.JURISPRUDENCE,
            j.text,
            j.start,
            j.end,
            j.key,
            j.keys,
            {"type": j.kind} | ({"tribunal": j.tribunal} if j.tribunal else {}),
        )


def _en_entities(text: str) -> Iterable[LegalEntity]:
    for c in find_us_citations(text):
        kind = EntityKind.US_STATUTE if c.is_statute else EntityKind.US_CASE
        yield LegalEntity(kind, c.text, c.start, c.end, c.key, (c.key,) if c.key else (), c.fields())
    for r in find_court_rules(text):
        fields = {"pin_cite": r.pin} if r.pin else {}
        yield LegalEntity(EntityKind.US_RULE, r.text, r.start, r.end, r.key, (r.key,), fields)


def extract_entities(text: str, language: str = "pt") -> list[LegalEntity]:
    """Every legal entity in `text`, in reading order (entities of different kinds may overlap: a CNJ
    number inside a case reference, a tribunal inside a súmula)."""
    langs = _lang_set(language)
    out: list[LegalEntity] = []
    for c in find_cnj(text):
        out.append(LegalEntity(EntityKind.CNJ, c.text, c.start, c.end, c.key, (c.key, c.digits), c.fields()))
    for o in find_old_process_numbers(text):
        out.append(
            LegalEntity(EntityKind.PROCESS, o.text, o.start, o.end, o.key, (o.key,), {"format": o.format})
        )
    for t in find_tribunals(text):
        out.append(LegalEntity(EntityKind.TRIBUNAL, t.text, t.start, t.end, t.acronym, (t.acronym,)))
    if "pt" in langs:
        out.extend(_pt_entities(text))
    if "en" in langs:
        out.extend(_en_entities(text))
    for m in _AMOUNT.finditer(text):
        out.append(LegalEntity(EntityKind.AMOUNT, m[0], m.start(), m.end(), _amount_key(m)))
    folded = fold(text)
    day_first = "pt" if langs == {"pt"} else "en"
    for m in _DATE.finditer(folded):
        if d := parse_date(m, day_first):
            out.append(
                LegalEntity(EntityKind.DATE, text[m.start() : m.end()], m.start(), m.end(), d.isoformat())
            )
    for m in _BATES.finditer(text):
        out.append(LegalEntity(EntityKind.BATES, m[0], m.start(), m.end(), m[1] + m[3]))
    return sorted(out, key=lambda e: (e.start, -e.end))


def detect_languages(text: str) -> tuple[str, ...]:
    """ "pt", "en" or both, by the share of each language's commonest words (most frequent first)."""
    words = re.findall(r"[a-záéíóúâêôãõç]+", text[:20000].lower())
    pt = sum(w in _PT_WORDS for w in words)
    en = sum(w in _EN_WORDS for w in words)
    total = pt + en
    if not total:
        return ()
    ranked = sorted((("pt", pt), ("en", en)), key=lambda t: -t[1])
    return tuple(lang for lang, n in ranked if n / total >= 0.15)


PAGE_JOIN = "\n\f"  # how `document_metadata` joins pages: entity offsets count in that text
AUTHORITY_KINDS = frozenset(
    {
        EntityKind.LEGISLATION,
        EntityKind.JURISPRUDENCE,
        EntityKind.US_CASE,
        EntityKind.US_STATUTE,
        EntityKind.US_RULE,
    }
)


def document_metadata(pages: list[str], language: str = "auto", filename: str = "") -> DocumentMetadata:
    """Type, date, process numbers, tribunals, parties, languages and most cited authorities of a document."""
    return document_metadata_and_entities(pages, language, filename)[0]


def document_metadata_and_entities(
    pages: list[str], language: str = "auto", filename: str = ""
) -> tuple[DocumentMetadata, list[LegalEntity]]:
    """`document_metadata`, and every entity it read, with offsets into the pages joined by
    PAGE_JOIN (one pass: eyecite is the costly part)."""
    text = PAGE_JOIN.join(pages)
    languages = detect_languages(text)
    lang = (
        language
        if not language.startswith("auto")
        else ("mixed" if len(languages) > 1 else languages[0] if languages else "en")
    )
    entities = extract_entities(text, lang)
    processes = [e.key for e in entities if e.kind == EntityKind.CNJ and e.fields.get("valid") == "true"]
    processes += [e.key for e in entities if e.kind in (EntityKind.CNJ, EntityKind.PROCESS)]
    tribunals = Counter(e.key for e in entities if e.kind == EntityKind.TRIBUNAL)
    # A CNJ number names its tribunal in its J.TR segment (8.26 = TJSP), written out or not.
    tribunals.update(
        e.fields["tribunal"] for e in entities if e.kind == EntityKind.CNJ and e.fields.get("tribunal")
    )
    cited = Counter(e.key for e in entities if e.key and e.kind in AUTHORITY_KINDS)
    head = "\n".join(pages[:2])
    party_lang = "en" if "en" in _lang_set(lang) else "pt"
    return DocumentMetadata(
        doc_type=classify(pages, filename),
        doc_date=find_doc_date(pages, "pt" if _lang_set(lang) == {"pt"} else "en"),
        process_numbers=tuple(dict.fromkeys(processes)),
        tribunals=tuple(t for t, _ in tribunals.most_common()),
        parties=tuple(find_parties(head, party_lang)),
        languages=languages,
        citations=tuple(k for k, _ in cited.most_common(20)),
    ), entities

"""Legal values as people type them, in canonical form: a document type ("acórdão" -> "acordao"),
a tribunal ("TJ-SP" -> "TJSP"), a process number (with or without punctuation). Used by the
search filters and by the companion YAML files read at ingest."""

from __future__ import annotations

import re

from casetrack.errors import CaseTrackError, Fix
from casetrack.legal.cnj import parse_cnj
from casetrack.legal.doctype import DOC_TYPES
from casetrack.legal.text import fold
from casetrack.legal.tribunals import normalise_tribunal

# What people call the types (EN and PT, folded: lower case, no accents) -> DOC_TYPES.
_TYPE_ALIASES = {
    "acordao": "acordao",
    "acordaos": "acordao",
    "agreement": "contract",
    "contrato": "contract",
    "aditivo": "amendment",
    "termo aditivo": "amendment",
    "amendment": "amendment",
    "nda": "nda",
    "confidentiality agreement": "nda",
    "acordo de confidencialidade": "nda",
    "peticao inicial": "complaint",
    "inicial": "complaint",
    "complaint": "complaint",
    "petition": "complaint",
    "contestacao": "answer",
    "answer": "answer",
    "motion": "motion",
    "mocao": "motion",
    "brief": "brief",
    "recurso": "brief",
    "apelacao": "brief",
    "razoes": "brief",
    "memoriais": "brief",
    "order": "order",
    "decisao": "order",
    "despacho": "order",
    "decisao interlocutoria": "order",
    "judgment": "judgment",
    "sentenca": "judgment",
    "opinion": "opinion",
    "deposition": "deposition",
    "depoimento": "deposition",
    "transcript": "transcript",
    "transcricao": "transcript",
    "letter": "letter",
    "carta": "letter",
    "notificacao": "letter",
    "notificacao extrajudicial": "letter",
    "invoice": "invoice",
    "nota fiscal": "invoice",
    "fatura": "invoice",
    "statute": "statute",
    "lei": "statute",
    "legislacao": "statute",
    "decreto": "statute",
    "law": "statute",
    "procuracao": "power_of_attorney",
    "power of attorney": "power_of_attorney",
    "ata": "minutes",
    "minutes": "minutes",
    "other": "other",
    "outro": "other",
}


def doc_type_of(value: str) -> str:
    """The canonical type of what the user typed; raises with the list of types when unknown."""
    key = fold(value.strip()).replace("_", " ").replace("-", " ")
    key = re.sub(r"\s+", " ", key)
    if key.replace(" ", "_") in DOC_TYPES:
        return key.replace(" ", "_")
    if key in _TYPE_ALIASES:
        return _TYPE_ALIASES[key]
    raise CaseTrackError(
        f"Unknown document type {value!r}.",
        fix=Fix(
            "Use one of",
            ", ".join(DOC_TYPES) + " (Portuguese names such as acórdão, sentença, petição "
            "inicial, contestação also work)",
            "search_case",
            {"doc_type": "judgment"},
        ),
    )


def tribunal_of(value: str) -> str:
    return normalise_tribunal(value) or re.sub(r"[\s\-.]", "", value).upper()


def process_of(value: str) -> str:
    """A CNJ number in its canonical punctuated form (typed with or without punctuation); other
    numbers as their digits."""
    number = parse_cnj(value)
    return number.key if number is not None else re.sub(r"\D", "", value)

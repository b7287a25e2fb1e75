"""Parties of a document: the caption of a US filing ("X v. Y"), the role lines of a Brazilian one
("RECORRENTE : X", "Autor: Y"), the "by and between" of a contract."""

from __future__ import annotations

import re

from casetrack.legal.model import Party

_V_LINE = re.compile(r"^\s*(?:v\.?|vs\.?|versus|-\s*against\s*-|against)\s*$", re.I | re.M)
_INLINE_V = re.compile(
    r"^[^\S\n]*(?P<p>[A-Z][^\n\d]{2,100}?),?\s+(?:v\.|vs\.)(?:[^\S\n]+|[^\S\n]*\n\s*)"
    r"(?P<d>[A-Z][^\n\d]{2,100}?)[^\S\n]*$",
    re.M,
)
_ROLE_WORD = (
    r"(?:plaintiffs?|defendants?|appellants?|appellees?|petitioners?|respondents?|cross|debtors?|movants?|"
    r"intervenors?|claimants?|counter|third|party|parties|and|et\s+al\.?)"
)
_ROLE_WORDS = re.compile(rf"^\s*{_ROLE_WORD}(?:[\s,/\-\u2013\u2014]+{_ROLE_WORD})*[\s,.;]*$", re.I)
_NOT_CAPTION = re.compile(r"^(?:see|cf|in|but|accord|compare)\b", re.I)
PT_ROLES = (
    "autor",
    "autora",
    "autores",
    "reu",
    "re",
    "reus",
    "requerente",
    "requerido",
    "requerida",
    "recorrente",
    "recorrido",
    "recorrida",
    "agravante",
    "agravado",
    "agravada",
    "apelante",
    "apelado",
    "apelada",
    "impetrante",
    "impetrado",
    "paciente",
    "embargante",
    "embargado",
    "embargada",
    "reclamante",
    "reclamado",
    "reclamada",
    "exequente",
    "executado",
    "executada",
    "interessado",
    "responsavel",
    "reqte",
    "reqdo",
    "recte",
    "recdo",
    "agte",
    "agdo",
    "impte",
    "impdo",
)
_ROLES_RX = "|".join(sorted(PT_ROLES, key=len, reverse=True))
_PT_ROLE = re.compile(
    r"(?<![A-Za-z])(?P<role>" + _ROLES_RX + r")\.?\s?(?:\(\s?[AaSs]?\s?/?\s?[AaSs]?\s?\)|\([AaOoEe]?[Ss]\))?"
    r"\s?:\s?(?P<name>[^:]{2,120}?)(?=\s+(?:" + _ROLES_RX + r"|ADV|PROC|RELATORA?|REDATORA?|EMENTA|"
    r"ACÓRDÃO|ACORDAO|DECISÃO|Advogad|Procurador|Dr\(a\)|Dra?\.)\b|\s*\n\s*\n|[\"“]|$)",
    re.I,
)
_BETWEEN = re.compile(
    r"\b(?:by\s+and\s+)?between\s+(?P<a>[A-Z][^,;(\n]{2,90}?)\s*[,(].{0,400}?\band\s+"
    r"(?P<b>[A-Z][^,;(\n]{2,90}?)\s*[,(]",
    re.S,
)


def _fold_role(role: str) -> str:
    table = str.maketrans("ÁÉÍÓÚÂÊÔÃÕÇáéíóúâêôãõç", "AEIOUAEOAOCaeiouaeoaoc")
    return re.sub(r"\W|\(s\)|\(a\)", "", role.translate(table).lower())


def _clean(name: str) -> str:
    return " ".join(name.strip(" ,;:.").split())


def _name_line(line: str) -> str:
    line = re.sub(r"^\s*(?:re|short\s+title|in\s+re)\s*:\s*", "", line, flags=re.I)
    return _clean(
        re.split(r",\s+(?:in\s+(?:his|her|its|their)\s+(?:official|individual)|individually|as\s)", line)[0]
    )


def caption_parties(text: str) -> list[Party]:
    """The two sides of a US caption in the first ~4000 characters, or []."""
    head = text[:4000]
    for v in _V_LINE.finditer(head):
        before = [ln for ln in head[: v.start()].splitlines() if ln.strip()]
        after = [ln for ln in head[v.end() :].splitlines() if ln.strip()]
        plaintiff = next((ln for ln in reversed(before[-4:]) if not _ROLE_WORDS.match(ln)), None)
        defendant = next((ln for ln in after[:4] if not _ROLE_WORDS.match(ln)), None)
        if plaintiff and defendant:
            return [Party("plaintiff", _name_line(plaintiff)), Party("defendant", _name_line(defendant))]
    for m in _INLINE_V.finditer(head):
        if not _NOT_CAPTION.match(m["p"].strip()):
            return [Party("plaintiff", _name_line(m["p"])), Party("defendant", _name_line(m["d"]))]
    return []


def role_parties(text: str) -> list[Party]:
    """Parties named on role lines of a Brazilian filing or decision ("RECORRENTE : X")."""
    out: list[Party] = []
    for m in _PT_ROLE.finditer(" ".join(text[:3000].split())):
        name = _clean(m["name"])
        if name and not re.match(r"(?i)(?:o|a|os|as|que|de|do|da)\s", name) and len(out) < 12:
            out.append(Party(_fold_role(m["role"]), name))
    return out


def contract_parties(text: str) -> list[Party]:
    """The two parties of a contract's "between X ... and Y" opening sentence, or []."""
    m = _BETWEEN.search(text[:5000])
    return [Party("party", _clean(m["a"])), Party("party", _clean(m["b"]))] if m else []


def find_parties(text: str, language: str = "en") -> list[Party]:
    """Parties of a document from its first page(s): PT role lines, a US caption (English documents), a
    contract's parties; each (role, name) once."""
    found = (
        role_parties(text) or (caption_parties(text) if language == "en" else []) or contract_parties(text)
    )
    return list(dict.fromkeys(found))

"""The records the extractors return: frozen dataclasses that serialise to JSON through `to_json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class EntityKind(StrEnum):
    CNJ = "cnj"  # unified Brazilian process number (Resolução CNJ 65/2008)
    PROCESS = "process"  # pre-2010 process numbers (TJSP SAJ, TRF, TJMG, TCU)
    TRIBUNAL = "tribunal"  # STF, TJSP, TRT2, TRE-SP ...
    LEGISLATION = "legislation"  # Lei 8.078/1990, art. 300 § 1º do CPC, CF/88
    JURISPRUDENCE = "jurisprudence"  # REsp 1.234.567/SP, Súmula 7/STJ, Tema 1.046, OJ 111 SBDI-1
    US_CASE = "us_case"  # 410 U.S. 113 and its short forms, id., supra
    US_STATUTE = "us_statute"  # 42 U.S.C. § 1983, 17 C.F.R. § 240.10b-5
    US_RULE = "us_rule"  # Fed. R. Civ. P. 12(b)(6), Fed. R. Evid. 403, Local Civil Rule 56.1
    AMOUNT = "amount"
    DATE = "date"
    BATES = "bates"


@dataclass(frozen=True)
class LegalEntity:
    """One mention. `key` is the canonical form of what it cites (equal keys: same authority, same
    pinpoint); `keys` every canonical form it names ("arts. 186 e 927 do CC": two articles and the
    code); `fields` the decoded parts (tribunal of a CNJ number, court and year of a US case ...)."""

    kind: EntityKind
    text: str
    start: int
    end: int
    key: str
    keys: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["kind"] = str(self.kind)
        out["keys"] = list(self.keys or (self.key,))
        return out


@dataclass(frozen=True)
class Party:
    role: str  # "plaintiff", "defendant", "recorrente", "party" (a contract) ...
    name: str


@dataclass(frozen=True)
class DocType:
    type: str
    confidence: float  # 0-1
    evidence: tuple[str, ...]  # the rules that fired for this type, strongest first


@dataclass(frozen=True)
class DocDate:
    date: str  # ISO yyyy-mm-dd
    rule: str  # which rule found it ("city_date", "dated", "julgado_em" ...)
    text: str
    page: int  # 0-based
    start: int  # offset in that page


@dataclass(frozen=True)
class DocumentMetadata:
    doc_type: DocType
    doc_date: DocDate | None
    process_numbers: tuple[str, ...]  # canonical CNJ keys (and old-format keys), first-seen order
    tribunals: tuple[str, ...]  # acronyms, most mentioned first
    parties: tuple[Party, ...]
    languages: tuple[str, ...]  # "en", "pt", by share of the text
    citations: tuple[str, ...] = ()  # most frequent legislation / jurisprudence / US citation keys

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

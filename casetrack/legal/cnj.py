"""Brazilian process numbers.

The unified number of Resolução CNJ 65/2008, NNNNNNN-DD.AAAA.J.TR.OOOO: sequence, check digits
(ISO 7064 mod 97-10 over N A J TR O), year filed, segment of the judiciary, tribunal, origin (the
court unit; 0000 is the tribunal's own original jurisdiction). Found punctuated (also with spaces,
and with the sequence's leading zeros dropped, as the TST writes "RR-385-55.2010.5.15.0033") or as
20 bare digits; bare or space-separated digits count only when the check digits hold, since any
20-digit run would match. Pre-2010 numbers are recognised in a few well-known shapes as `OldProcessNumber`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from casetrack.legal.tribunals import SEGMENTS, tribunal_of_segment

_PUNCT = re.compile(  # separators required, spaces tolerated around them
    r"(?<![\d./])(?<!\d-)(?P<n>\d{1,7})\s?-\s?(?P<d>\d{2})\s?\.\s?(?P<a>(?:19|20)\d{2})\s?\.\s?(?P<j>\d)\s?\.\s?"
    r"(?P<tr>\d{2})\s?\.\s?(?P<o>\d{4})(?![\d])"
)
_LOOSE = re.compile(  # bare digits or only spaces / some separators: the check digits decide
    r"(?<![\d./])(?<!\d-)(?P<n>\d{7})[\s.\-]?(?P<d>\d{2})[\s.\-]?(?P<a>(?:19|20)\d{2})[\s.\-]?(?P<j>\d)[\s.\-]?"
    r"(?P<tr>\d{2})[\s.\-]?(?P<o>\d{4})(?![\d])"
)


def check_digits(sequence: str, year: str, segment: str, tribunal: str, origin: str) -> str:
    """The two check digits of a CNJ number: 98 - (N A J TR O 00 mod 97), zero-padded."""
    value = int(f"{int(sequence):07d}{year}{segment}{tribunal}{origin}00")
    return f"{98 - value % 97:02d}"


@dataclass(frozen=True)
class CnjNumber:
    key: str  # canonical "NNNNNNN-DD.AAAA.J.TR.OOOO"
    digits: str  # the 20 digits
    valid: bool  # the check digits hold
    year: int
    segment: int  # J
    segment_name: str
    tribunal_code: str  # TR
    tribunal: str | None  # "TJSP", "TRF3", "TRT2", "TRE-SP"; None when J.TR names none
    origin: str  # OOOO
    text: str
    start: int
    end: int

    @property
    def expected_check_digits(self) -> str:
        """The check digits the rest of the number gives (= the written ones when `valid`)."""
        return check_digits(
            self.digits[:7], str(self.year), str(self.segment), self.tribunal_code, self.origin
        )

    def problem(self) -> str | None:
        """Why the number cannot be right, in words a lawyer acts on; None when its check digits hold."""
        if self.valid:
            return None
        return (
            f"process number {self.key} has wrong check digits ({self.digits[7:9]}; its other digits "
            f"give {self.expected_check_digits}): it is probably mistyped. Check it against the court's record."
        )

    def fields(self) -> dict[str, str]:
        out = {
            "digits": self.digits,
            "valid": str(self.valid).lower(),
            "year": str(self.year),
            "segment": str(self.segment),
            "segment_name": self.segment_name,
            "origin": self.origin,
        }
        return out | ({"tribunal": self.tribunal} if self.tribunal else {})


def parse_cnj(text: str, start: int = 0) -> CnjNumber | None:
    """One CNJ number from its text (punctuated or 20 digits); None when it has not that shape."""
    m = _PUNCT.fullmatch(text.strip()) or _LOOSE.fullmatch(text.strip())
    return _build(m, start) if m else None


def _build(m: re.Match[str], offset: int = 0) -> CnjNumber | None:
    n, d, a, j, tr, o = (m[g] for g in ("n", "d", "a", "j", "tr", "o"))
    segment = int(j)
    if segment == 0:
        return None
    seq = f"{int(n):07d}"
    return CnjNumber(
        key=f"{seq}-{d}.{a}.{j}.{tr}.{o}",
        digits=f"{seq}{d}{a}{j}{tr}{o}",
        valid=check_digits(seq, a, j, tr, o) == d,
        year=int(a),
        segment=segment,
        segment_name=SEGMENTS[segment],
        tribunal_code=tr,
        tribunal=tribunal_of_segment(segment, int(tr)),
        origin=o,
        text=m[0],
        start=offset + m.start(),
        end=offset + m.end(),
    )


def tribunals_of_numbers(numbers: Iterable[str]) -> list[str]:
    """The tribunals CNJ numbers name in their J.TR segment (8.26 = TJSP), first-seen order."""
    found = (parse_cnj(str(n)) for n in numbers)
    return list(dict.fromkeys(c.tribunal for c in found if c is not None and c.tribunal))


def find_cnj(text: str, *, invalid: bool = True) -> Iterator[CnjNumber]:
    """CNJ numbers in reading order. Punctuated numbers with wrong check digits are kept (flagged
    `valid=False`: a typo still names the tribunal) unless `invalid` is False."""
    found: list[CnjNumber] = []
    for m in _PUNCT.finditer(text):
        if (num := _build(m)) and (num.valid or invalid):
            found.append(num)
    for m in _LOOSE.finditer(text):
        if any(f.start < m.end() and m.start() < f.end for f in found):
            continue
        if (num := _build(m)) and num.valid and num.tribunal:
            found.append(num)
    yield from sorted(found, key=lambda c: c.start)


@dataclass(frozen=True)
class OldProcessNumber:
    key: str  # "trf 2003.34.00.044227-3", "tjsp 583.00.2009.123456-7", "tcu 006.010/2000-4"
    format: str  # "trf", "tjsp", "tjmg", "tcu"
    text: str
    start: int
    end: int


_OLD = [
    # TRF (before 2010): AAAA.SS.OO.NNNNNN-D, also run together as AAAA.SSOO.NNNNNN-D.
    ("trf", re.compile(r"(?<![\d.])((?:19|20)\d{2})\.(\d{2})\.?(\d{2})\.(\d{6})-(\d)(?![\d])")),
    # TJSP (SAJ): CCC.OO.AAAA.NNNNNN-D, optionally /SSSSSS-SSS.
    (
        "tjsp",
        re.compile(
            r"(?<![\d.])(\d{3})\.(\d{2})\.((?:19|20)\d{2})\.(\d{6})(?:-(\d))?(?:/\d{6}-\d{3})?(?![\d])"
        ),
    ),
    # TJMG: J.CCCC.AA.NNNNNN-D/SSS.
    ("tjmg", re.compile(r"(?<![\d.])(\d)\.(\d{4})\.(\d{2})\.(\d{6})-(\d)/(\d{3})(?![\d])")),
    # TCU: TC NNN.NNN/AAAA-D ("TC 003.783/04-8", "Processo 006.010/2000-4").
    (
        "tcu",
        re.compile(
            r"(?:(?<=TC\s)|(?<=TC)|(?<=TC\s\s)|(?<=[Pp]rocesso\s)|(?<=n[º°o]\s))"
            r"(\d{3})\.(\d{3})/((?:19|20)?\d{2})-(\d)(?![\d])"
        ),
    ),
]


def find_old_process_numbers(text: str) -> Iterator[OldProcessNumber]:
    """Pre-CNJ process numbers in a few unambiguous shapes (TRF, TJSP SAJ, TJMG, TCU)."""
    found: list[OldProcessNumber] = []
    for fmt, rx in _OLD:
        for m in rx.finditer(text):
            if not any(f.start < m.end() and m.start() < f.end for f in found):
                found.append(OldProcessNumber(f"{fmt} {m[0]}", fmt, m[0], m.start(), m.end()))
    yield from sorted(found, key=lambda o: o.start)

"""Brazilian case-law references: súmulas (and TST enunciados, the súmulas' old name), orientações
jurisprudenciais, temas of repercussão geral and repetitivos, TCU acórdãos, and cases named by class and
number ("REsp 1.234.567/SP", "AgRg no HC 123.456", "RR-385-55.2010.5.15.0033", "Recurso Especial nº
1.234.567"). Keys: "súmula 7 stj", "súmula vinculante 13", "oj 111 sbdi-1 tst", "tema 1046 stf",
"acórdão 2471/2013", "resp 1234567" (an AgRg in it: "agrg resp 1234567" and "resp 1234567").
Class abbreviations must be written as courts write them ("REsp", "HC", "RE"), so "re" and "ms" in
running text do not match."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from casetrack.legal.cnj import parse_cnj
from casetrack.legal.text import fold, number, year4
from casetrack.legal.tribunals import UFS, find_tribunals

CLASSES = (  # abbreviations, longest first in the regex
    "REsp AREsp EREsp RE ARE AI HC RHC MS RMS MI ADI ADIn ADC ADO ADPF Rcl Pet Inq AP APn ACO AO RR AIRR "
    "ARR RO ROT RXOF Ag AgI AgRg AgInt AgR EDcl ED EDv E CC SS SL STA SLS IUJ IRDR IAC RvC Ext HD RMS "
    "REO REE RCL Apn ApCiv ApCrim AC APC"
).split()
PREFIXES = "AgRg AgInt AgR EDcl ED E Ag QO MC TutPrv".split()
WORD_CLASSES = {  # folded full names → abbreviation
    r"recurso\s+especial": "REsp",
    r"recurso\s+extraordinario": "RE",
    r"agravo\s+em\s+recurso\s+especial": "AREsp",
    r"agravo\s+em\s+recurso\s+extraordinario": "ARE",
    r"habeas\s+corpus": "HC",
    r"recurso\s+em\s+habeas\s+corpus|recurso\s+ordinario\s+em\s+habeas\s+corpus": "RHC",
    r"mandados?\s+de\s+seguranca": "MS",
    r"recurso\s+em\s+mandado\s+de\s+seguranca": "RMS",
    r"mandado\s+de\s+injuncao": "MI",
    r"acao\s+direta\s+de\s+inconstitucionalidade": "ADI",
    r"acao\s+declaratoria\s+de\s+constitucionalidade": "ADC",
    r"arguicao\s+de\s+descumprimento\s+de\s+preceito\s+fundamental": "ADPF",
    r"recurso\s+de\s+revista": "RR",
    r"agravo\s+de\s+instrumento(?:\s+em\s+recurso\s+de\s+revista)?": "AI",
    r"reclamacao": "Rcl",
    r"recurso\s+ordinario": "RO",
    r"conflito\s+de\s+competencia": "CC",
    r"apelacao(?:\s+civel|\s+criminal)?": "AC",
    r"acao\s+penal": "AP",
    r"acao\s+civel\s+originaria": "ACO",
    r"agravo\s+regimental": "AgRg",
    r"agravo\s+interno": "AgInt",
    r"embargos\s+de\s+declaracao": "EDcl",
}
_NO = r"(?:n\s?[o.]*\s*\.?\s*|numero\s+)?"
_NUMBER = r"(?P<num>\d{1,3}(?:\.\d{3})+|\d+)"
_CNJ_TAIL = r"(?P<cnj>\d{1,7}\s?-\s?\d{2}\s?\.\s?\d{4}\s?\.\s?\d\s?\.\s?\d{2}\s?\.\s?\d{4})"
_UF_TAIL = rf"(?:\s?[/-]\s?(?P<uf>{'|'.join(sorted(UFS))})(?![A-Za-z]))?"
_UF_TAIL_FOLDED = rf"(?:\s?[/-]\s?(?P<uf>{'|'.join(sorted(UFS)).lower()})(?![a-z]))?"
_OLD_TAIL = r"(?P<old>\d\.\d{4}\.\d{2}\.\d{6}-\d(?:/\d{3})?)"  # TJMG before 2010
_YEAR_TAIL = r"(?:\s?/\s?(?P<year>(?:19|20)?\d{2})(?![\d]))?(?:\s?-\s?(?P<dv>\d)(?!\d))?"


@dataclass(frozen=True)
class JurisprudenceRef:
    key: str
    keys: tuple[str, ...]
    kind: str  # "sumula", "sumula_vinculante", "enunciado", "oj", "tema", "acordao", "case"
    tribunal: str | None
    text: str
    start: int
    end: int


@functools.cache
def _case_rx() -> re.Pattern[str]:
    classes = "|".join(sorted(CLASSES, key=len, reverse=True))
    prefixes = "|".join(sorted(PREFIXES, key=len, reverse=True))
    return re.compile(
        rf"(?<![A-Za-z0-9])(?:TST\s?-\s?)?(?P<pre>(?:(?:{prefixes})\s?(?:-|\s(?:no|na|nos|nas|em)\s|\s)\s?)*)"
        rf"(?P<cls>{classes})(?:\s?-\s?|\s|\.\s?)\s?(?:-\s)?{_NO}(?:{_CNJ_TAIL}|{_OLD_TAIL}|{_NUMBER}{_UF_TAIL}{_YEAR_TAIL})"
        r"(?!\d)(?!\.\d)"
    )


@functools.cache
def _word_rx() -> re.Pattern[str]:
    names = "|".join(rf"(?P<w{i}>{rx})" for i, rx in enumerate(WORD_CLASSES))
    return re.compile(
        rf"(?<![a-z])(?:{names})\s+{_NO}(?:{_CNJ_TAIL}|{_OLD_TAIL}|{_NUMBER}{_UF_TAIL_FOLDED}{_YEAR_TAIL})(?!\d)(?!\.\d)"
    )


_SUMULA = re.compile(
    r"(?<![a-z])(?P<word>sumulas?|verbetes?|enunciados?)(?P<vinc>\s+vinculantes?)?"
    r"(?:\s+(?:do\s+|da\s+)?(?P<pre>stf|stj|tst|tcu|tse|carf))?\s*" + _NO + r"(?P<num>\d{1,4})(?![\d.]\d)"
)
_OJ = re.compile(
    r"(?<![a-z])(?:ex-?\s?)?(?:ojs?|orientac(?:ao|oes)\s+jurisprudenciai?s?)\s*"
    r"(?:(?P<org0>s\.?b?\.?d\.?i\.?\s?-?\s?(?:1|2|i{1,2}))\s*)?"
    + _NO.replace("[o.]*", "[o.]*s?")
    + r"(?P<num>\d{1,4})"
    r"(?:\s*,?\s*(?:d[ao]\s+)?(?:c\.\s*)?(?:e\.\s*)?(?:(?P<org>s\.?b?\.?d\.?i\.?\s?-?\s?(?:1|2|i{1,2})|sdc|tribunal\s+pleno)))?"
)
_TEMA = re.compile(
    r"(?<![a-z])temas?\s*" + _NO + r"(?P<num>\d{1,3}(?:\.\d{3})+|\d+)(?![\d.]\d)"
    r"(?P<rg>\s+(?:da|de)\s+repercussao\s+geral)?(?P<rep>\s+(?:dos\s+)?(?:recursos\s+)?repetitivos?)?"
)
_ACORDAO = re.compile(
    r"(?<![a-z])(?P<word>acordao|decisao|acordaos|decisoes)\s*"
    + _NO.replace("[o.]*", "[o.]*s?")
    + r"(?P<num>\d{1,3}(?:\.\d{3})+|\d+)\s?/\s?(?P<year>(?:19|20)?\d{2})(?!\d)"
)
_ACORDAO_MORE = re.compile(
    r"(?:\s?-\s?[^\s,;]{1,30})?(?:\s*[,;]\s*(?:e\s+)?|\s+e\s+)(?P<num>\d{1,3}(?:\.\d{3})+|\d+)\s?/\s?(?P<year>(?:19|20)?\d{2})(?!\d)"
)
_TAIL = re.compile(
    r"(?:\s*,?\s*(?:(?:item|inciso|incisos)\s+)?[IVX]+(?:\s*(?:e|,)\s*[IVX]+)*)?"  # ", I e II,"
    r"\s*,?\s*(?:/\s?|(?:d[oa]\s+)?(?:(?:c|e|col|eg)\.\s?|colendo\s+|egregio\s+)?)"
)


def _tribunal_after(text: str, pos: int) -> tuple[str | None, int]:
    tail = _TAIL.match(text, pos)
    at = tail.end() if tail else pos
    for mention in find_tribunals(text[at : at + 60]):
        if mention.start == 0 or text[at : at + mention.start].strip(" .") in ("", "C", "E"):
            return mention.acronym, at + mention.end
        break
    return None, pos


def _org(raw: str | None) -> str:
    if not raw:
        return ""
    f = re.sub(r"[\s.\-]", "", raw)
    return {
        "sdi1": "sbdi-1",
        "sbdi1": "sbdi-1",
        "sdii": "sbdi-1",
        "sbdii": "sbdi-1",
        "sdi2": "sbdi-2",
        "sbdi2": "sbdi-2",
        "sdiii": "sbdi-2",
        "sbdiii": "sbdi-2",
    }.get(f, f)


def _precedents(text: str, f: str) -> Iterator[JurisprudenceRef]:
    for m in _SUMULA.finditer(f):
        trib, end = (m["pre"].upper(), m.end()) if m["pre"] else _tribunal_after(text, m.end())
        n, word = number(m["num"]), m["word"].rstrip("s")
        if m["vinc"]:
            key, kind, trib = f"súmula vinculante {n}", "sumula_vinculante", "STF"
        elif word == "enunciado" and trib != "TST":
            key, kind = f"enunciado {n}" + (f" {trib.lower()}" if trib else ""), "enunciado"
        else:  # TST enunciados became súmulas in 2005, with the same numbers
            key, kind = f"súmula {n}" + (f" {trib.lower()}" if trib else ""), "sumula"
        yield JurisprudenceRef(key, (key,), kind, trib, text[m.start() : end], m.start(), end)
    for m in _OJ.finditer(f):
        trib, end = _tribunal_after(text, m.end())
        trib = trib or "TST"  # orientações jurisprudenciais are the TST's
        org = _org(m["org"] or m["org0"])
        key = f"oj {number(m['num'])}" + (f" {org}" if org else "") + f" {trib.lower()}"
        yield JurisprudenceRef(key, (key,), "oj", trib, text[m.start() : end], m.start(), end)
    for m in _TEMA.finditer(f):
        trib, end = (
            ("STF", m.end()) if m["rg"] else ("STJ", m.end()) if m["rep"] else _tribunal_after(text, m.end())
        )
        key = f"tema {number(m['num'])}" + (f" {trib.lower()}" if trib else "")
        yield JurisprudenceRef(key, (key,), "tema", trib, text[m.start() : end], m.start(), end)
    for m in _ACORDAO.finditer(f):
        word = "acórdão" if m["word"].startswith("acordao") else "decisão"
        key = f"{word} {number(m['num'])}/{year4(m['year'])}"
        yield JurisprudenceRef(key, (key,), "acordao", None, text[m.start() : m.end()], m.start(), m.end())
        end = m.end()
        while more := _ACORDAO_MORE.match(f, end):  # "Acórdãos 2.464/2013, 2.550/2008"
            key = f"{word} {number(more['num'])}/{year4(more['year'])}"
            yield JurisprudenceRef(
                key,
                (key,),
                "acordao",
                None,
                text[more.start("num") : more.end()],
                more.start("num"),
                more.end(),
            )
            end = more.end()


def _case_keys(cls: str, prefixes: list[str], m: re.Match[str]) -> tuple[str, ...]:
    if m["old"]:
        ident = m["old"]
    elif m["cnj"]:
        parsed = parse_cnj(m["cnj"])
        ident = parsed.key if parsed else m["cnj"]
    else:
        ident = (
            number(m["num"])
            + (f"-{m['dv']}" if m["dv"] else "")
            + (f"/{m['year']}" if m["year"] and not m["uf"] else "")
        )
    base = f"{cls.lower()} {ident}"
    full = " ".join([p.lower() for p in prefixes] + [base])
    return (full, base) if prefixes else (base,)


def _cases(text: str, f: str) -> Iterator[JurisprudenceRef]:
    for m in _case_rx().finditer(text):
        prefixes = re.findall(r"[A-Za-z]+", m["pre"])
        prefixes = [p for p in prefixes if p not in ("no", "na", "nos", "nas", "em")]
        if m["cls"] in ("E", "ED", "Ag", "AI", "AC", "CC", "AP") and not (
            m["cnj"] or "." in (m["num"] or "") or m["uf"] or prefixes
        ):
            continue  # short classes need a dotted number, a UF or a prefix: not "AP 12" in a list
        keys = _case_keys(m["cls"], prefixes, m)
        trib = None
        if m["cnj"] and (parsed := parse_cnj(m["cnj"])):
            trib = parsed.tribunal
        yield JurisprudenceRef(keys[0], keys, "case", trib, m[0], m.start(), m.end())
    classes = list(WORD_CLASSES.values())
    for m in _word_rx().finditer(f):
        cls = classes[next(int(k[1:]) for k, v in m.groupdict().items() if v is not None and k[0] == "w")]
        keys = _case_keys(cls, [], m)
        yield JurisprudenceRef(keys[0], keys, "case", None, text[m.start() : m.end()], m.start(), m.end())


def find_jurisprudence(text: str) -> Iterator[JurisprudenceRef]:
    """Case-law references in reading order; where two overlap, the longer is kept."""
    f = fold(text)
    found = sorted([*_precedents(text, f), *_cases(text, f)], key=lambda r: (r.start, -(r.end - r.start)))
    kept: list[JurisprudenceRef] = []
    for ref in found:
        if not kept or ref.start >= kept[-1].end:
            kept.append(ref)
        elif ref.end - ref.start > kept[-1].end - kept[-1].start and ref.start == kept[-1].start:
            kept[-1] = ref
    yield from kept

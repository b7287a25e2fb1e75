"""Terms and connectors (search/connectors/): which queries are read as connectors, the parser and
its errors, the matcher on real contract and judgment text, and the index look-up of roots."""

from __future__ import annotations

import re

import pytest

from casetrack.search.connectors.candidates import word_terms
from casetrack.search.connectors.expr import Word
from casetrack.search.connectors.match import Matcher, Words
from casetrack.search.connectors.parse import ConnectorsSyntaxError, parse
from casetrack.search.connectors.syntax import detect, resolve
from casetrack.store.analyzers import build_analyzer
from tests.conftest import DATA, require

CUAD = DATA / "legal_span_bench/corpus/cuad"
LENER = DATA / "lener_br/raw_text"


@pytest.mark.parametrize(
    "query",
    [
        'indemnif! /s "gross negligence"',
        "terminat! w/10 notice",
        "assign! /p consent & (unreasonabl! /3 withh!)",
        "rescis! pre/5 contrato",
        "licen* /p exclusiv!",
        "confidential % employee",
        "warranty AND merchantability",
        "audit +3 records",
        "notice w/s terminat!",
    ],
)
def test_connector_queries_are_recognised(query: str) -> None:
    assert detect(query) == "connectors"


@pytest.mark.parametrize(
    "query",
    [
        "What happens if the tenant and landlord disagree?",
        "termination notice",
        "How much notice must AT & T give?",
        "Who pays 5% interest on late payments?",
        '"gross negligence"',
        "Qual o prazo para rescisão do contrato e multa?",
        "Find the termination clause now!",
        "the tenant and the landlord or their agents",
    ],
)
def test_plain_questions_and_keywords_stay_plain(query: str) -> None:
    assert detect(query) == "plain"


def test_syntax_can_be_forced_either_way() -> None:
    assert resolve("connectors", "termination notice") == "connectors"
    assert resolve("plain", "terminat! w/10 notice") == "plain"
    assert resolve(None, "terminat! w/10 notice") == "connectors"


@pytest.mark.parametrize(
    ("query", "reading"),
    [
        ('indemnif! /s "gross negligence"', '(indemnif! /s "gross negligence")'),
        ("a1 b2 or c3", "(a1 AND (b2 OR c3))"),
        ("abc /p def /s ghi", "(abc /p (def /s ghi))"),
        ("abc & def % ghi", "((abc AND def) NOT ghi)"),
        ("abc and not def", "(abc NOT def)"),
        ("abc but not def", "(abc NOT def)"),
        ("abc w/3 def or ghi", "(abc w/3 (def OR ghi))"),
        ("abc pre/2 def", "(abc pre/2 def)"),
        ("abc +2 def", "(abc pre/2 def)"),
        ("abc +s def", "(abc +s def)"),
        ("(abc /3 def) /p ghi", "((abc w/3 def) /p ghi)"),
        ("non-compete /s employee", '("non compete" /s employee)'),
        ("RESCISÃO /s Contrato", "(rescisao /s contrato)"),
    ],
)
def test_connectors_bind_in_westlaw_order(query: str, reading: str) -> None:
    assert parse(query).show() == reading


@pytest.mark.parametrize(
    ("query", "at", "expected", "corrected"),
    [
        ("terminat! /s", 10, "expected a word, a quoted phrase or '(' after '/s'", "terminat!"),
        ("(notice w/5 terminat!", 0, "never closed: expected ')'", "(notice w/5 terminat!)"),
        ("notice) & cure", 6, "')' closes nothing", "notice & cure"),
        ('"gross negligence /s indemn!', 0, "quote is never closed", '"gross negligence /s indemn!"'),
        ("notice w/0 cure", 7, "from 1 to 255", "notice w/1 cure"),
        ("notice /x cure", 7, "not a connector", None),
        ("te! /s cure", 0, "too short a root", None),
        ("notice & & cure", 9, "after '&', found '&'", "notice & cure"),
        ("/s notice", 0, "expected a word, a quoted phrase or '(' before '/s'", "notice"),
    ],
)
def test_a_mistake_is_pointed_at_with_the_fix(
    query: str, at: int, expected: str, corrected: str | None
) -> None:
    with pytest.raises(ConnectorsSyntaxError) as raised:
        parse(query, "Acme v. Beta")
    error = raised.value
    assert error.at == at and expected in error.problem, error.message
    assert error.corrected == corrected
    lines = error.message.splitlines()
    assert lines[1] == "  " + query and lines[2] == "  " + " " * at + "^"  # the caret under the mistake
    assert error.fix is not None and "--syntax connectors" in (error.fix.cli or "")
    assert "Acme v. Beta" in (error.fix.cli or "")
    assert error.fix.tool == "search_case" and error.fix.args["syntax"] == "connectors"


def _matches(query: str, text: str) -> list[str]:
    words = Words.of(text)
    return [" ".join(text[slice(*words.chars(o))].split()) for o in Matcher(parse(query)).occurrences(words)]


CONTRACT = (
    "7.2 Termination for Breach. Either party may terminate this Agreement upon thirty (30) days written "
    "notice if the other party materially breaches it.\n"
    "Such notice shall describe the breach.\n\n"
    "8. Indemnification. Supplier shall indemnify Customer against losses caused by its gross negligence "
    "or willful misconduct. Customer may not assign this Agreement without Supplier's consent, which shall "
    "not be unreasonably withheld."
)


def test_the_matcher_follows_each_connector_on_contract_text() -> None:
    assert _matches("terminat! w/10 notice", CONTRACT)[:1] == [
        "terminate this Agreement upon thirty (30) days written notice"
    ]
    assert _matches("terminat! w/7 notice", CONTRACT) == []  # "terminate" is 8 words before "notice"
    assert _matches("terminat! w/8 notice", CONTRACT) != []
    assert _matches("notice pre/8 terminat!", CONTRACT) == []  # pre/n: in that order only
    assert _matches('indemnif! /s "gross negligence"', CONTRACT) == [
        "indemnify Customer against losses caused by its gross negligence"
    ]
    assert _matches('indemnif! /s "willful negligence"', CONTRACT) == []
    # /s: the same sentence only; /p: the paragraph ("notice" and "describe" are one line apart).
    assert _matches("terminat! /s describe", CONTRACT) == []
    assert _matches("terminat! /p describe", CONTRACT) != []
    assert _matches("breach! /p indemnif!", CONTRACT) == []  # a blank line between them
    assert _matches("assign! /p consent & (unreasonabl! /3 withh!)", CONTRACT) != []
    assert _matches("assign! % consent", CONTRACT) == []
    assert _matches("terminat! % indemnif!", CONTRACT) == []  # NOT is per passage: this one has both
    assert _matches("supplier +s consent", CONTRACT) == ["Supplier's consent"]
    assert _matches("consent pre/3 supplier", CONTRACT) == []  # consent comes after
    assert _matches("wil*ful", CONTRACT) == ["willful"]  # * is one character
    assert _matches("breach", CONTRACT) == ["Breach", "breaches", "breach"]  # plurals, any case


def test_not_drops_a_passage_that_holds_the_excluded_word() -> None:
    assert _matches("indemnif! % misconduct", CONTRACT) == []
    assert _matches("indemnif! % arbitration", CONTRACT) != []


def test_portuguese_matches_with_and_without_accents() -> None:
    text = "A rescisão do contrato foi declarada. Nega-se provimento ao recurso de apelação."
    assert _matches("rescisao /s contrato", text) == ["rescisão do contrato"]
    assert _matches("RESCISÃO w/2 contrato", text) == ["rescisão do contrato"]
    assert _matches("provimento pre/2 recurso", text) == ["provimento ao recurso"]
    assert _matches("recurso pre/2 provimento", text) == []
    assert _matches("apela! /s provimento", text) == ["provimento ao recurso de apelação"]
    assert _matches("rescis! /s provimento", text) == []  # two sentences


def test_real_documents_agree_with_a_plain_regex_scan() -> None:
    """Proximity on a CUAD contract and a LeNER-Br judgment, against a regex over the whole text."""
    contract = require(next(iter(sorted(CUAD.glob("*.txt"))))).read_text(encoding="utf-8")
    judgment = require(LENER / "AC10024133855890001.txt").read_text(encoding="utf-8")
    for text, a, b, n in ((contract, "agreement", "party", 3), (judgment, "recurso", "provimento", 4)):
        words = [m.group().lower() for m in re.finditer(r"[^\W_]+", text)]
        want = sum(
            1
            for i, w in enumerate(words)
            if re.fullmatch(a + "(?:e?s)?", w)
            and any(re.fullmatch(b + "(?:e?s)?", x) for x in words[max(0, i - n) : i + n + 1])
        )
        got = {o[0] for o in Matcher(parse(f"{a} w/{n} {b}")).occurrences(Words.of(text))}
        assert want > 0
        # Every occurrence of `a` with `b` near it starts one occurrence (or `b` starts it first).
        assert len(got) >= want // 2


@pytest.mark.parametrize(
    ("language", "root", "word"),
    [
        ("en", "terminat", "termination"),
        ("en", "indemnificatio", "indemnification"),
        ("en", "representative", "representatives"),
        ("en", "unreasonabl", "unreasonably"),
        ("pt", "contratac", "contratação"),
        ("pt", "responsabilidad", "responsabilidades"),
        ("pt", "rescis", "rescisões"),
    ],
)
def test_a_root_finds_the_index_terms_of_its_words_even_when_the_stemmer_cuts_into_it(
    language: str, root: str, word: str
) -> None:
    analyzer = build_analyzer(language)
    terms, prefix = word_terms(Word(root, root=True), analyzer)
    assert prefix is not None
    indexed = analyzer.analyze(word)
    assert any(t in terms or re.fullmatch(prefix, t) for t in indexed), (indexed, prefix)

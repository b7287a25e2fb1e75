"""US citations through eyecite: keys, resolution of id. and short forms, statutes, captions."""

from __future__ import annotations

import logging

import pytest

from casetrack.legal.parties import caption_parties
from casetrack.legal.us_citations import eyecite, find_us_citations
from casetrack.search.query.signals import extract_signals
from tests.conftest import DATA, require

OPINION = DATA / "legal_docs_us_courts" / "extra_from_history" / "opinion_text.txt"


def test_forms_resolve_to_one_key() -> None:
    text = (
        "See Roe v. Wade, 410 U.S. 113, 120 (1973). Id. at 121. Roe, 410 U.S. at 125. "
        "42 U.S.C. § 1983; 17 C.F.R. § 240.10b-5; 15 U.S.C. §§ 78j(b)."
    )
    got = [(c.kind, c.key) for c in find_us_citations(text)]
    assert got == [
        ("case", "410 U.S. 113"),
        ("id", "410 U.S. 113"),
        ("short_case", "410 U.S. 113"),
        ("statute", "42 U.S.C. § 1983"),
        ("regulation", "17 C.F.R. § 240.10b-5"),
        ("statute", "15 U.S.C. § 78j"),
    ]


def test_real_opinion() -> None:
    text = require(OPINION).read_text(encoding="utf-8")
    cites = find_us_citations(text)
    carroll = [c for c in cites if c.key == "24 F.2d 268"]
    assert carroll[0].kind == "case" and carroll[0].court == "cadc" and carroll[0].year == "1928"
    assert sum(c.kind == "id" for c in carroll) >= 5  # the "Id." that follow it
    assert any(c.key == "40 U.S.C. § 270b" for c in cites)  # "40 U.S.C. s 270b": the § lost in conversion
    parties = caption_parties(text)
    assert [p.name for p in parties] == [
        "Ideal Electronic Security Co., Inc., et al",
        "International Fidelity Insurance Company",
    ]


def test_eyecite_overlap_warnings_stay_quiet(caplog: pytest.LogCaptureFixture) -> None:
    """A compact's sections cited beside an appendix page ("Compact §2.12, 1 App. 13") made eyecite
    log a warning per citation during ingest: nothing a user can act on."""
    text = "See Compact §2.12, 1 App. 13, and Compact §§5.01(a), 5.02(a), 1 App. 22."
    logging.getLogger("eyecite").setLevel(logging.NOTSET)  # as a fresh process has it
    eyecite.cache_clear()
    with caplog.at_level(logging.WARNING):
        extract_signals(text, "en")  # a query that holds them, before any ingest
        find_us_citations(text)
    assert not [r for r in caplog.records if r.name.startswith("eyecite")]

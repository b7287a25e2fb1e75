"""The table of authorities with names (issue 29): a US case listed as "Carroll v. National Surety
Co., 24 F.2d 268", citations broken over lines joined, and the Federal Rules and local rules listed.
On real court text (../shared/data/legal_docs_us_courts: a D.C. Circuit opinion's text), through
the finders and through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from casetrack.legal.us_citations import case_name, find_us_citations
from casetrack.legal.us_rules import find_court_rules
from tests.cli_runner import run_json
from tests.conftest import DATA, MODELS, require

OPINION = DATA / "legal_docs_us_courts" / "extra_from_history" / "opinion_text.txt"


def _names(text: str) -> dict[str, str | None]:
    return {" ".join(c.text.split()): c.name for c in find_us_citations(text) if c.kind == "case"}


def test_case_names_are_read_before_the_citation_in_a_real_opinion() -> None:
    lines = require(OPINION).read_text(encoding="utf-8").split("\n")
    names = _names("\n".join(lines[200:380]))  # eyecite takes ~3 s over the whole opinion
    assert names["24 F.2d 268"] == "Carroll v. National Surety Co."  # "Carroll v. National\nSurety Co.,"
    assert names["417 U.S. 116"] == "F.D. Rich Co. v. United States ex rel. Indus. Lumber Co."
    assert names["593 F.2d 1275"] == "Lee v. Flintkote Co."  # "Flint-\nkote": the hyphenation undone
    assert names["358 F.2d 508"] == "United States ex rel. J.W. Briggs v. Grubb"  # "See, e.g.," left out
    assert _names("\n".join(lines[535:545]))["676 F.2d 793"] == "In re Sealed Case"


@pytest.mark.parametrize(
    ("before", "name"),
    [
        (
            "as held in Sierra Club v. Marsh, 907 F.2d 210, 214 (1st Cir. 1990); In re Recticel Foam Corp., ",
            "In re Recticel Foam Corp.",
        ),
        ("see also Ex parte Young, 209 U.S. 123, 159-160, ", "Ex parte Young"),
        (
            "the First Circuit's decision in United States v. Qin, No. 21-1832, __F.4th__, ",
            "United States v. Qin",
        ),
        ("for purposes of Section 1983.\nGrohs v. Yatauro, ", "Grohs v. Yatauro"),
        ("is plausible on its face.\u201d Bell Atl. Corp. v. Twombly, ", "Bell Atl. Corp. v. Twombly"),
        ("Bender, ", None),  # a short form: no name written out
    ],
)
def test_case_name_look_back(before: str, name: str | None) -> None:
    assert case_name(before + "550 U.S. 544", len(before)) == name


def test_court_rules_are_keyed_to_the_rule_with_the_subdivision_as_pin() -> None:
    text = (
        "See FED. R. CIV. P. 12(b)(6); Federal Rule of\nAppellate Procedure 28(j); FRAP 12(a); "
        "Fed. R. Evid. 403; Local Civil Rule 56.1(a); 5th Circuit Rule 47.5; Rule 29.12(c)."
    )
    rules = [(r.key, r.pin) for r in find_court_rules(text)]
    assert rules == [
        ("Fed. R. Civ. P. 12", "(b)(6)"),
        ("Fed. R. App. P. 28", "(j)"),
        ("Fed. R. App. P. 12", "(a)"),
        ("Fed. R. Evid. 403", None),
        ("Local Civil Rule 56.1", "(a)"),
        ("5th Cir. R. 47.5", None),
    ]  # a bare "Rule 29.12(c)" (a state's rule) is not listed


@pytest.mark.slow  # ~40 s on 2 cores: a 31,000-character opinion ingested with every model
def test_the_cli_table_lists_names_joined_lines_and_rules(tmp_path: Path) -> None:
    cli = ["--data-dir", str(tmp_path / "home"), "--models-dir", str(MODELS)]
    run_json(*cli, "case", "create", "Miller Act", "--language", "en")
    report = run_json(*cli, "ingest", "--case", "Miller Act", str(require(OPINION)))
    assert report["files"][0]["status"] == "ingested"
    table = run_json(*cli, "authorities", "--case", "Miller Act", "--top", "200")
    by_key = {a["key"]: a for a in table["authorities"]}
    carroll = by_key["24 F.2d 268"]
    assert carroll["title"] == "Carroll v. National Surety Co., 24 F.2d 268" and carroll["kind"] == "us_case"
    assert by_key["417 U.S. 116"]["text"] == "417 U.S. 116"  # written "417 \nU.S. 116"
    assert not any("\n" in a["text"] for a in table["authorities"])
    assert by_key["Fed. R. Civ. P. 50"]["kind"] == "us_rule"
    rules = run_json(*cli, "authorities", "--case", "Miller Act", "--kind", "us_rule")
    assert [a["key"] for a in rules["authorities"]] == ["Fed. R. Civ. P. 50"]

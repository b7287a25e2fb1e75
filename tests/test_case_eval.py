"""`casetrack eval --case X known.csv` over a real case of four CUAD contracts (tests/services_case.py):
right rows and deliberately wrong ones give exact hit@1 / hit@5 / MRR, misses are named, a row
that cannot be judged is a miss, never dropped."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from casetrack.app.case_eval import read_known
from casetrack.cli.main import cli
from casetrack.errors import CaseTrackError
from tests.conftest import MODELS
from tests.services_case import (
    BANGI,
    CASE,
    FEDERATED,
    NETZEE,
    NYLIAC,
    Q_AMENDMENT,
    Q_HOSTING,
    Q_MAINTENANCE,
    Q_NOTICE,
    services_home,
)

KNOWN = [
    # right: by page, by quote (a name in other letter case), by quote
    (Q_MAINTENANCE, NETZEE.name, "1", ""),
    (Q_NOTICE, NYLIAC.name, "p. 2", ""),
    (Q_HOSTING, BANGI.name.lower(), "", "Managed hosting fees are $175 per month for a period of 12 months"),
    (Q_AMENDMENT, FEDERATED.name, "", "dated and effective as of March 30, 2009"),
    # the hosting question's second result is the maintenance agreement's fee: a hit at rank 2
    (Q_HOSTING, NETZEE.name, "1", ""),
    # wrong: a page the contract does not have, a document the case lacks, a quote no page holds,
    # a page that is not a number
    (Q_NOTICE, NYLIAC.name, "5", ""),
    ("Who is the landlord?", "Lease.pdf", "3", ""),
    (Q_HOSTING, BANGI.name, "", "The hosting fee is waived for the whole first year of the agreement"),
    (Q_MAINTENANCE, NETZEE.name, "first", ""),
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return services_home(tmp_path_factory)


def write_known(
    path: Path,
    rows: list[tuple[str, str, str, str]],
    header: tuple[str, ...] = ("question", "document", "page", "quote"),
) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli, ["--data-dir", str(home), "--models-dir", str(MODELS), "eval", "--case", CASE, *args]
    )


def test_right_and_wrong_rows_give_exact_figures(home: Path, tmp_path: Path) -> None:
    known = write_known(tmp_path / "known.csv", KNOWN)
    r = run(home, str(known), "--json")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["case"] == CASE and report["questions"] == 9 and report["depth"] == 10
    assert [row["rank"] for row in report["rows"]] == [1, 1, 1, 1, 2, None, None, None, None]
    assert (report["hits_at_1"], report["hits_at_5"], report["misses"]) == (4, 5, 4)
    assert report["hit_at_1"] == round(4 / 9, 4) and report["hit_at_5"] == round(5 / 9, 4)
    assert report["mrr"] == round((4 + 0.5) / 9, 4)
    rows = report["rows"]
    assert rows[0]["found"].startswith(f"{NETZEE.name}, p. 1, ") and rows[1]["found"].startswith(
        f"{NYLIAC.name}, p. 2"
    )
    assert rows[4]["found"].startswith(f"{NETZEE.name}, p. 1") and rows[4]["line"] == 6
    assert rows[5]["error"] is None and rows[5]["top"].startswith(f"{NYLIAC.name}, p. 2")  # what came instead
    assert rows[6]["error"].startswith(
        "the case has no document 'Lease.pdf' (`casetrack documents list` shows"
    )
    assert rows[7]["error"] is None and rows[7]["top"].startswith(BANGI.name)
    assert rows[8]["error"] == "page 'first' is not a page number"


def test_human_output_lists_ranks_and_misses(home: Path, tmp_path: Path) -> None:
    known = write_known(
        tmp_path / "known.csv",
        [KNOWN[0], KNOWN[4], KNOWN[6]],
        header=("Question", "Document", "Page", "Quote"),
    )
    r = run(home, str(known))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split()[0] == "1" and Q_MAINTENANCE in lines[0]
    assert lines[1].split()[0] == "2" and Q_HOSTING in lines[1]
    assert (
        lines[2].lstrip().startswith("MISS  Who is the landlord?") and "no document 'Lease.pdf'" in lines[2]
    )
    assert lines[-1] == (
        "hit@1 0.33 (1/3), hit@5 0.67 (2/3), MRR@10 0.50; 1 of 3 questions missed the top 10."
    )


def test_help_says_what_counts_as_a_hit() -> None:
    helped = CliRunner().invoke(cli, ["eval", "--help"])
    assert "HIT when it is in" in helped.output and "hit@1, hit@5 and MRR" in helped.output


def test_known_file_problems_are_errors_with_the_fix(home: Path, tmp_path: Path) -> None:
    no_header = write_known(tmp_path / "a.csv", [], header=(Q_HOSTING, BANGI.name, "1"))
    r = run(home, str(no_header))
    assert r.exit_code == 1 and "needs a header row" in r.output and "question,document,page" in r.output
    with pytest.raises(CaseTrackError, match="no rows"):
        read_known(write_known(tmp_path / "b.csv", [], header=("question", "document", "quote")))
    semicolons = tmp_path / "c.csv"  # as Excel saves a CSV in a Portuguese locale
    semicolons.write_text(f"\ufeffquestion;document;page\n{Q_NOTICE};{NYLIAC.name};2\n", encoding="utf-8")
    (row,) = read_known(semicolons)
    assert (row["question"], row["document"], row["page"], row["quote"]) == (Q_NOTICE, NYLIAC.name, 2, "")
    missing = run(home, str(tmp_path / "nope.csv"))
    assert missing.exit_code == 1 and "not found" in missing.output
    wrong_case = CliRunner().invoke(
        cli,
        [
            "--data-dir",
            str(home),
            "--models-dir",
            str(MODELS),
            "eval",
            "--case",
            "No Such Case",
            str(semicolons),
        ],
    )
    assert wrong_case.exit_code == 1 and "No case named" in wrong_case.output

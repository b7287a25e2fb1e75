"""The chronology: dated events of real documents (search/chronology/events.py, no store), then
`casetrack chronology` over a real case of four CUAD contracts (tests/services_case.py) — the
events sorted with their pin-cites and document types, the --from/--to, --document and --query
filters, and the .csv / .xlsx / .docx files written as `casetrack table` writes them.

What the documents say, read in their text: FEDERATED is dated and effective as of March 30, 2009
and amends a Services Agreement dated as of January 1, 2004 ("the date first above written" twice);
NETZEE's maintenance commences MARCH 1, 2001; BANGI's term runs from March 1, 2005 to February 28,
2006 (its "03/01/05" heads both pages); NYLIAC is effective as of the 1st day of January, 1998.
"""

from __future__ import annotations

import csv
import io
import json
import stat
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from docx import Document
from openpyxl import load_workbook

from casetrack.cli.main import cli
from casetrack.parse import parse_file
from casetrack.search.chronology.events import document_events
from tests.conftest import DATA, MODELS, require
from tests.services_case import BANGI, CASE, FEDERATED, NETZEE, NYLIAC, services_home

LENER = DATA / "lener_br/raw_text"
CUAD_TXT = DATA / "legal_span_bench/corpus/cuad"


def events_of(path: Path, language: str, doc_date: date | None = None) -> list[tuple[str, str, str]]:
    pages = [p.text for p in parse_file(require(path)).pages]
    return [
        (
            e.value.isoformat()[: 7 if e.precision == "month" else 10],
            e.date_text,
            pages[e.page][e.start : e.end],
        )
        for e in document_events(pages, language, doc_date)
    ]


def test_a_portuguese_decision_dates_its_events_and_not_the_precedents_it_cites() -> None:
    found = events_of(LENER / "AC20150110436469APC.txt", "pt")
    assert [(d, t) for d, t, _ in found] == [
        ("2018-03-15", "15 de Março de 2018"),
        ("2015-03-30", "30/03/2015"),
        ("2010-08-20", "20/08/2010"),
        ("2010-09-20", "20/09/2010"),
        ("2015-04-20", "20/04/2015"),
        ("2016-08-01", "01/08/2016"),
        ("2015-04-22", "22/04/2015"),
        ("2016-08-01", "01/08/2016"),
    ]
    # "(Acórdão n.999404, ..., Relator: ..., Data de Julgamento: 22/02/2017, Publicado no DJE: 08/03/2017"
    assert "22/02/2017" not in {t for _, t, _ in found} and "08/03/2017" not in {t for _, t, _ in found}
    assert " ".join(found[2][2].split()).startswith("Compulsando os autos, verifica-se que as cártulas")


def test_running_headers_are_no_events_and_relative_dates_resolve() -> None:
    bangi = events_of(CUAD_TXT / "BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.txt", "en")
    assert [(d, t) for d, t, _ in bangi] == [
        ("2005-03-01", "March 1, 2005"),
        ("2006-02-28", "February 28, 2006"),
    ]
    notice = events_of(DATA / "legal_docs_us_courts/recap_documents/ca2_1-1.pdf", "en", date(2017, 10, 31))
    assert [(d, t) for d, t, _ in notice] == [("2017-10-31", "October 31, 2017"), ("2017-10-31", "today")]
    assert "was docketed today as 17-3510" in " ".join(notice[1][2].split())  # the ECF stamp is left out


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli, ["--data-dir", str(home), "--models-dir", str(MODELS), "chronology", "--case", CASE, *args]
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return services_home(tmp_path_factory)


def test_cli_json_lists_every_dated_event_sorted_with_pin_cites(home: Path) -> None:
    r = run(home, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert (out["case"], out["documents"], out["total"], out["undated_documents"]) == (CASE, 4, 9, [])
    assert [(e["date"], e["document"]) for e in out["events"]] == [
        ("1998-01-01", NYLIAC.name),
        ("1998-01-01", NYLIAC.name),
        ("2001-03-01", NETZEE.name),
        ("2004-01-01", FEDERATED.name),
        ("2005-03-01", BANGI.name),
        ("2006-02-28", BANGI.name),
        ("2009-03-30", FEDERATED.name),
        ("2009-03-30", FEDERATED.name),
        ("2009-03-30", FEDERATED.name),
    ]
    first = out["events"][0]
    assert first["date_text"] == "1st day of January, 1998" and first["relative"] is None
    assert first["citation"] == f"{NYLIAC.name}, p. 1, para. 3, l. 3" and first["source"]["page"] == 1
    assert first["sentence"].startswith(
        "This Agreement is entered into and effective as of the 1st day of January"
    )
    assert {e["doc_type"] for e in out["events"]} <= {"contract", "amendment"}
    witness = out["events"][-1]
    assert witness["relative"] == "document" and witness["date_text"] == "the date first above written"
    assert witness["sentence"].startswith("IN WITNESS WHEREOF, the parties hereto")
    assert witness["citation"].startswith(f"{FEDERATED.name}, p. 1, para. 10, ll. ")
    assert "03/01/05" not in {e["date_text"] for e in out["events"]}  # BANGI's running header


@pytest.mark.slow  # ~3 s: the search loads the embedding models
def test_cli_query_keeps_the_events_of_the_passages_about_a_topic(home: Path) -> None:
    topic = json.loads(run(home, "--query", "term of the managed hosting agreement", "--json").stdout)
    assert topic["query"] == "term of the managed hosting agreement"
    assert [e["date"] for e in topic["events"]] == ["2005-03-01", "2006-02-28"]


def test_cli_filters_by_dates_and_document(home: Path) -> None:
    dated = json.loads(run(home, "--from", "2001-01-01", "--to", "2005-12-31", "--json").stdout)
    assert [e["date"] for e in dated["events"]] == ["2001-03-01", "2004-01-01", "2005-03-01"]
    one = json.loads(run(home, "--document", "BANGIINC", "--json").stdout)
    assert (one["documents"], [e["date"] for e in one["events"]]) == (1, ["2005-03-01", "2006-02-28"])
    bad = run(home, "--from", "2021-13-01")
    assert (
        bad.exit_code != 0 and "--from (date_from) '2021-13-01' is not a day written YYYY-MM-DD" in bad.output
    )
    assert "casetrack chronology --from 2021-01-01" in bad.output
    empty = run(home, "--from", "2010-01-01", "--to", "2001-01-01")
    assert empty.exit_code != 0 and "--from 2001-01-01 --to 2010-01-01" in empty.output


def test_cli_writes_the_chronology_as_csv_xlsx_and_docx(home: Path, tmp_path: Path) -> None:
    columns = ["date", "precision", "event", "citation", "document", "doc_type", "page", "lines", "date_text"]
    r = run(home, "--out", str(tmp_path / "chronology.csv"))
    assert r.exit_code == 0, r.output
    assert "9 dated events in 4 documents of 'Services'. Written to" in r.output
    raw = (tmp_path / "chronology.csv").read_bytes()
    assert (
        raw.startswith(b"\xef\xbb\xbf")
        and stat.S_IMODE((tmp_path / "chronology.csv").stat().st_mode) == 0o600
    )
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert list(rows[0]) == columns and len(rows) == 9
    assert (rows[2]["date"], rows[2]["page"], rows[2]["lines"], rows[2]["date_text"]) == (
        "2001-03-01",
        "1",
        "41",
        "MARCH 1, 2001",
    )
    assert run(home, "--out", str(tmp_path / "chronology.xlsx")).exit_code == 0
    sheet = load_workbook(tmp_path / "chronology.xlsx").active
    assert sheet is not None and [c.value for c in sheet[1]] == columns and sheet.max_row == 10
    assert run(home, "--out", str(tmp_path / "chronology.docx")).exit_code == 0
    table = Document(str(tmp_path / "chronology.docx")).tables[0]
    assert [c.text for c in table.rows[0].cells] == columns and len(table.rows) == 10
    wrong = run(home, "--out", str(tmp_path / "chronology.pdf"))
    assert wrong.exit_code != 0 and ".pdf is not a table format CaseTrack writes" in wrong.output

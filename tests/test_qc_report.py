"""`ingest-folder --report` (and `ingest --report`): the QC report a paralegal hands the supervising
attorney, one row per file of the folder, written also when files failed, in-process and (slow
tier) through the daemon, on real files: a CUAD contract and a copy of it, a legacy .doc, an empty
PDF, a .zip; (slow) a contract whose last page is blank and a typewritten page read by OCR."""

from __future__ import annotations

import csv
import io
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from openpyxl import load_workbook

from casetrack.app.qc_report import QC_COLUMNS
from casetrack.cli.main import cli
from tests.conftest import DATA, MODELS, require
from tests.daemon_util import cli as casetrack
from tests.daemon_util import daemon_stopped_after

CUAD = DATA / "legal_span_bench/cuad_pdf"
BANGI = CUAD / "Part_II/Hosting/BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement.PDF"
JOINT_VENTURE = (
    CUAD / "Part_I/Joint Venture/NOVOINTEGRATEDSCIENCES,INC_12_23_2019-EX-10.1-JOINT VENTURE AGREEMENT.PDF"
)
DOC = DATA / "legal_docs_us_courts/word-doc.doc"
EMPTY = DATA / "pdf_robustness/pdfplumber_tests/pdfs/empty.pdf"
ZIP = DATA / "pdf_robustness/pdfplumber_tests/pdfs/issue-948.zip"
TYPEWRITER = DATA / "ocr/ocrmypdf_resources/typewriter.png"


def folder_of(root: Path, files: dict[str, Path]) -> Path:
    folder = root / "production"
    folder.mkdir()
    for name, source in files.items():
        shutil.copy(require(source), folder / name)
    return folder


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--data-dir", str(home), "--models-dir", str(MODELS), *args])


def read_csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))


def test_ingest_folder_report_has_a_row_per_file_also_when_some_failed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = folder_of(
        tmp_path,
        {
            "hosting.pdf": BANGI,
            "hosting copy.pdf": BANGI,
            "brief.doc": DOC,
            "empty.pdf": EMPTY,
            "exhibits.zip": ZIP,
        },
    )
    assert run(home, "case", "create", "Astro", "--type", "contract").exit_code == 0
    report = tmp_path / "out" / "qc.csv"
    report.parent.mkdir()
    r = run(home, "ingest-folder", "--case", "Astro", str(folder), "--report", str(report))
    assert r.exit_code == 3, r.output  # some files failed: the report is written all the same
    assert f"QC report (5 rows) written to {report}" in r.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    rows = read_csv(report)
    assert list(rows[0]) == list(QC_COLUMNS)
    by_file = {row["File"]: row for row in rows}
    assert sorted(by_file) == ["brief.doc", "empty.pdf", "exhibits.zip", "hosting copy.pdf", "hosting.pdf"]
    first, second = (by_file[name] for name in ("hosting copy.pdf", "hosting.pdf"))  # the walk's order
    assert first["Status"] == "ingested" and first["Pages"] == "2" and first["Pages OCR'd"] == "0"
    assert first["Document type"] == "contract" and first["Problem"] == "" and first["Blank pages"] == ""
    assert first["Path"] == str(folder / "hosting copy.pdf")
    assert second["Status"] == "duplicate" and second["Duplicate of"] == "hosting copy.pdf"
    assert "--force" in second["Fix"]
    doc = by_file["brief.doc"]
    assert (
        doc["Status"] == "failed"
        and "legacy Word .doc" in doc["Problem"]
        and "Save it as .docx" in doc["Fix"]
    )
    assert by_file["empty.pdf"]["Status"] == "failed" and "empty" in by_file["empty.pdf"]["Problem"]
    assert by_file["exhibits.zip"]["Status"] == "skipped" and "(.zip)" in by_file["exhibits.zip"]["Problem"]
    assert by_file["exhibits.zip"]["Fix"].startswith("If it holds case documents")

    # `ingest --report` of one file: its one row (and --json still prints only JSON on stdout)
    again = run(
        home,
        "ingest",
        "--case",
        "Astro",
        str(folder / "hosting.pdf"),
        "--report",
        str(tmp_path / "one.csv"),
        "--json",
    )
    assert again.exit_code == 0, again.output
    (row,) = read_csv(tmp_path / "one.csv")
    assert row["File"] == "hosting.pdf" and row["Status"] == "duplicate"


def test_a_wrong_report_extension_fails_before_ingesting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "case", "create", "Astro").exit_code == 0
    r = run(home, "ingest", "--case", "Astro", str(require(BANGI)), "--report", str(tmp_path / "qc.pdf"))
    assert r.exit_code == 1 and ".csv, .xlsx, .docx" in r.output
    listed = run(home, "documents", "list", "--case", "Astro", "--json")
    assert listed.exit_code == 0 and '"name"' not in listed.stdout  # nothing was ingested


@pytest.mark.slow
def test_report_through_the_daemon_counts_blank_and_ocr_pages(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = folder_of(tmp_path, {"joint venture.pdf": JOINT_VENTURE, "memo.png": TYPEWRITER})
    assert casetrack(home, "case", "create", "Novo", "--type", "contract").returncode == 0
    with daemon_stopped_after(home):
        assert casetrack(home, "daemon", "start").returncode == 0
        report = tmp_path / "qc.xlsx"
        done = casetrack(
            home, "ingest-folder", "--case", "Novo", str(folder), "--report", str(report), timeout=900
        )
        assert done.returncode == 0, done.stderr
        assert "in the CaseTrack daemon as job" in done.stderr and f"written to {report}" in done.stderr
    sheet = load_workbook(report).active
    header, *values = [[c.value for c in row] for row in sheet.iter_rows()]
    rows = {row[0]: dict(zip(header, row, strict=True)) for row in values}
    venture, memo = rows["joint venture.pdf"], rows["memo.png"]
    assert venture["Status"] == "ingested" and venture["Pages"] == 13 and venture["Blank pages"] == "13"
    assert venture["Pages OCR'd"] == 0 and venture["Document type"] == "contract"
    assert memo["Status"] == "ingested" and memo["Pages OCR'd"] == 1
    assert (
        isinstance(memo["OCR confidence (mean, 0-100)"], float) and memo["OCR confidence (mean, 0-100)"] > 60
    )
    assert stat.S_IMODE(report.stat().st_mode) == 0o600

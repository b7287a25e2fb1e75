"""`casetrack table` and the build_evidence_table MCP tool (through the SDK's client) over a real
case of four CUAD contracts (tests/services_case.py): the best cited passages per question,
written as .csv / .docx / .xlsx, and where the tool may and may not write."""

from __future__ import annotations

import csv
import io
import json
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result
from docx import Document
from mcp import Client
from openpyxl import load_workbook

from casetrack.cli.main import cli
from casetrack.config import resolve_settings
from casetrack.daemon.service import Service
from casetrack.mcp.server import SessionState, build_server
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

COLUMNS = [
    "question",
    "rank",
    "citation",
    "document",
    "page",
    "lines",
    "passage",
    "score",
    "match",
    "no_good_match",
]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return services_home(tmp_path_factory)


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli, ["--data-dir", str(home), "--models-dir", str(MODELS), "table", "--case", CASE, *args]
    )


def test_cli_csv_has_the_cited_answers_of_each_question(home: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.txt"
    questions.write_text(
        f"# for the memo\n{Q_MAINTENANCE}\n\n  {Q_NOTICE}  \n# {Q_HOSTING}\n{Q_HOSTING}\n{Q_AMENDMENT}\n",
        encoding="utf-8",
    )
    r = run(home, str(questions), "--out", str(tmp_path / "table.csv"), "--per-question", "2", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    raw = (tmp_path / "table.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and stat.S_IMODE((tmp_path / "table.csv").stat().st_mode) == 0o600
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert list(rows[0]) == COLUMNS and out["questions"] == 4 and len(rows) == len(out["rows"]) == 8
    assert [r["question"] for r in rows] == [
        q for q in (Q_MAINTENANCE, Q_NOTICE, Q_HOSTING, Q_AMENDMENT) for _ in range(2)
    ]
    assert [r["rank"] for r in rows] == ["1", "2"] * 4
    best = {r["question"]: r for r in rows if r["rank"] == "1"}
    assert best[Q_MAINTENANCE]["document"] == NETZEE.name and best[Q_MAINTENANCE]["page"] == "1"
    assert "$40 per month" in best[Q_MAINTENANCE]["passage"]
    assert best[Q_NOTICE]["document"] == NYLIAC.name and best[Q_NOTICE]["page"] == "2"
    assert "ninety (90) days" in best[Q_NOTICE]["passage"]
    assert best[Q_HOSTING]["document"] == BANGI.name and "$175 per month" in best[Q_HOSTING]["passage"]
    assert best[Q_AMENDMENT]["document"] == FEDERATED.name
    for row in rows:  # the citation is the pin-cite of this page and these lines
        assert row["citation"].startswith(f"{row['document']}, p. {row['page']}, ")
        assert row["citation"].endswith(f"ll. {row['lines']}") or row["citation"].endswith(
            f"l. {row['lines']}"
        )
        assert 0 < float(row["score"]) <= 1 and row["match"] and row["no_good_match"] in ("yes", "no")
    assert out["rows"][0]["chunk_id"] and out["rows"][0]["document_id"]  # for get_chunk / `casetrack chunk`


def test_cli_by_document_docx_from_a_semicolon_csv(home: Path, tmp_path: Path) -> None:
    questions = tmp_path / "questions.csv"  # Excel in a Portuguese locale separates with ';'
    questions.write_text(f"id;Question\n1;{Q_HOSTING}\n2;{Q_NOTICE}\n", encoding="utf-8-sig")
    r = run(
        home, str(questions), "--out", str(tmp_path / "table.docx"), "--by-document", "--per-question", "3"
    )
    assert r.exit_code == 0, r.output
    assert "rows for 2 questions written to" in r.output
    (table,) = Document(str(tmp_path / "table.docx")).tables
    cells = [[c.text for c in row.cells] for row in table.rows]
    assert cells[0] == COLUMNS
    for question in (Q_HOSTING, Q_NOTICE):
        documents = [row[3] for row in cells[1:] if row[0] == question]
        assert len(documents) == 3 and len(set(documents)) == 3  # a different document on each row
    assert [row[3] for row in cells[1:] if row[0] == Q_HOSTING][0] == BANGI.name


def test_cli_errors_name_the_fix(home: Path, tmp_path: Path) -> None:
    questions = tmp_path / "q.txt"
    questions.write_text(f"{Q_HOSTING}\n", encoding="utf-8")
    wrong = run(home, str(questions), "--out", str(tmp_path / "table.pdf"))
    assert wrong.exit_code == 1 and ".csv, .xlsx, .docx" in wrong.output
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n\n", encoding="utf-8")
    none = run(home, str(empty), "--out", str(tmp_path / "t.csv"))
    assert (
        none.exit_code == 1 and "holds no questions" in none.output and "one question per line" in none.output
    )
    no_column = tmp_path / "q.csv"
    no_column.write_text("pergunta\nQual o prazo?\n", encoding="utf-8")
    bad = run(home, str(no_column), "--out", str(tmp_path / "t.csv"))
    assert bad.exit_code == 1 and "no 'question' column" in bad.output
    assert list(tmp_path.glob("t.*")) == [] and not (tmp_path / "table.pdf").exists()


# -- MCP ------------------------------------------------------------------------------------------


def test_mcp_tool_returns_rows_writes_only_where_allowed(home: Path, tmp_path: Path) -> None:
    allowed = tmp_path / "Cases"
    allowed.mkdir()
    settings = resolve_settings(home, MODELS, environ={}, allowed_roots=[allowed], home_dir=tmp_path)
    notified: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notified.append((progress, total, message))

    async def calls() -> list[Any]:
        service = Service(settings)
        try:
            async with Client(build_server(service, SessionState())) as client:
                listed = await client.list_tools()
                args = {"questions": [Q_MAINTENANCE, Q_AMENDMENT], "case_name": CASE, "per_question": 1}
                plain = await client.call_tool("build_evidence_table", args, progress_callback=on_progress)
                written = await client.call_tool(
                    "build_evidence_table",
                    {**args, "by_document": True, "output_path": str(allowed / "chronology.xlsx")},
                )
                again = await client.call_tool(
                    "build_evidence_table", {**args, "output_path": str(allowed / "chronology.xlsx")}
                )
                outside = await client.call_tool(
                    "build_evidence_table", {**args, "output_path": str(tmp_path / "elsewhere.csv")}
                )
                private = await client.call_tool(
                    "build_evidence_table", {**args, "output_path": str(home / "table.csv")}
                )
                return [listed, plain, written, again, outside, private]
        finally:
            service.close()

    listed, plain, written, again, outside, private = anyio.run(calls)
    tool = next(t for t in listed.tools if t.name == "build_evidence_table")
    assert tool.annotations.destructive_hint is False and tool.annotations.open_world_hint is False
    assert {"questions", "case_name", "per_question", "by_document", "output_path"} <= set(
        tool.input_schema["properties"]
    )
    assert tool.output_schema is not None and "rows" in tool.output_schema["properties"]

    assert not plain.is_error, plain.content[0].text
    data = plain.structured_content
    assert data["case"] == CASE and data["questions"] == 2 and data["written_to"] is None
    assert [(r["question"], r["rank"], r["document"]) for r in data["rows"]] == [
        (Q_MAINTENANCE, 1, NETZEE.name),
        (Q_AMENDMENT, 1, FEDERATED.name),
    ]
    assert "$40 per month" in data["rows"][0]["passage"]
    text = plain.content[0].text
    assert f"Q: {Q_MAINTENANCE}" in text and data["rows"][0]["citation"] in text
    assert [(done, total) for done, total, _ in notified] == [(0, 2), (1, 2), (2, 2)]

    assert not written.is_error, written.content[0].text
    target = allowed / "chronology.xlsx"
    assert written.structured_content["written_to"] == str(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    sheet = load_workbook(target).active
    values = [[c.value for c in row] for row in sheet.iter_rows()]
    assert values[0] == COLUMNS and values[1][0] == Q_MAINTENANCE and values[1][3] == NETZEE.name

    assert (
        again.is_error
        and "already exists" in again.content[0].text
        and "overwrite=true" in again.content[0].text
    )
    assert outside.is_error and "outside the folders" in outside.content[0].text
    assert private.is_error and "data folder" in private.content[0].text
    assert not (tmp_path / "elsewhere.csv").exists() and not (home / "table.csv").exists()

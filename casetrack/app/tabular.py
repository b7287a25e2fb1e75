"""Rows written as a file a paralegal opens: .csv, .xlsx or .docx (a table), chosen by the
output's extension. Shared by the QC report of an ingest, the evidence table and the case eval.

- CSV is UTF-8 *with a byte-order mark*: Excel opens a CSV without one in the computer's ANSI code
  page, so "ação" would show as "aÃ§Ã£o"; with the BOM it reads UTF-8 (and every other reader
  skips the mark).
- Formula injection: a cell whose text starts with = + - @ (or a tab / carriage return) is run as
  a formula by Excel and LibreOffice, in a CSV as in an .xlsx (openpyxl stores such a string as a
  formula). Document text and questions come from outside (an opposing party's production), so
  such cells get a leading apostrophe, the spreadsheet convention for "this is text". A .docx
  table is never evaluated, so its cells are written as they are.
- Files are written 0600 (privacy_fs habits: what CaseTrack writes is its owner's alone), through
  a temporary file in the same folder renamed over the target, so a crash never leaves half a
  report; with `exclusive` an existing file is never replaced (the MCP tool).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.errors import CaseTrackError

SUPPORTED = (".csv", ".xlsx", ".docx")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

Row = Mapping[str, Any]


def table_format(path: Path) -> str:
    """The output format of `path` by its extension ("csv", "xlsx", "docx"), or a clear error."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        shown = suffix or "no extension"
        raise CaseTrackError(
            f"Cannot write {path.name}: {shown} is not a table format CaseTrack writes.",
            f"Name the output file with one of {', '.join(SUPPORTED)} (e.g. {path.stem or 'table'}.csv).",
        )
    return suffix[1:]


def neutralise(value: Any) -> Any:
    """A spreadsheet cell's value made safe: text that a spreadsheet would run as a formula gets a
    leading apostrophe (see the module docstring); numbers, booleans and None stay as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def cell_text(value: Any) -> str:
    """A value as a cell shows it: None empty, booleans yes/no, lists joined."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(cell_text(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _spreadsheet_value(value: Any) -> Any:
    """Numbers stay numbers (sortable in Excel); everything else is its cell text, neutralised."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return neutralise(cell_text(value))


def render_csv(columns: Sequence[str], rows: Sequence[Row]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow([neutralise(c) for c in columns])
    for row in rows:
        writer.writerow([neutralise(cell_text(row.get(c))) for c in columns])
    return out.getvalue().encode("utf-8-sig")


def render_xlsx(columns: Sequence[str], rows: Sequence[Row], title: str = "CaseTrack") -> bytes:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    book = Workbook()
    sheet = book.active
    # Excel's sheet names: at most 31 characters, none of \ / ? * [ ] :
    sheet.title = re.sub(r"\s*[\\/?*\[\]:]+\s*", " - ", title).strip(" -")[:31] or "CaseTrack"
    sheet.append([neutralise(c) for c in columns])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append([_spreadsheet_value(row.get(c)) for c in columns])
    sheet.freeze_panes = "A2"
    for index, column in enumerate(columns, start=1):
        longest = max([len(column), *(len(cell_text(r.get(column))) for r in rows)])
        letter = sheet.cell(row=1, column=index).column_letter
        sheet.column_dimensions[letter].width = min(max(10, longest + 2), 80)
        if longest > 80:  # long passages wrap instead of running off the screen
            for cell in sheet[letter][1:]:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def render_docx(columns: Sequence[str], rows: Sequence[Row], title: str = "CaseTrack") -> bytes:
    from docx import Document
    from docx.enum.section import WD_ORIENT

    document = Document()
    section = document.sections[0]
    if len(columns) > 5:  # a wide table reads better across the page
        section.orientation = WD_ORIENT.LANDSCAPE
        section.page_width, section.page_height = section.page_height, section.page_width
    document.add_heading(title, level=1)
    table = document.add_table(rows=1, cols=len(columns))
    table.style = "Table Grid"
    for cell, column in zip(table.rows[0].cells, columns, strict=True):
        cell.text = column
        for run in cell.paragraphs[0].runs:
            run.bold = True
    for row in rows:
        cells = table.add_row().cells
        for cell, column in zip(cells, columns, strict=True):
            cell.text = cell_text(row.get(column))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def render(path: Path, columns: Sequence[str], rows: Sequence[Row], title: str = "CaseTrack") -> bytes:
    fmt = table_format(path)
    if fmt == "csv":
        return render_csv(columns, rows)
    if fmt == "xlsx":
        return render_xlsx(columns, rows, title)
    return render_docx(columns, rows, title)


def write_table(
    path: Path, columns: Sequence[str], rows: Sequence[Row], title: str = "CaseTrack", exclusive: bool = False
) -> Path:
    """Write `rows` (dicts keyed by `columns`) to `path` in the format its extension names; returns
    the absolute path written. `exclusive`: fail rather than replace an existing file."""
    data = render(path, columns, rows, title)  # an unknown extension fails before anything is written
    target = path.expanduser().absolute()
    if not target.parent.is_dir():
        raise CaseTrackError(
            f"Cannot write {target}: the folder {target.parent} does not exist.",
            "Create the folder first, or choose a file in an existing folder.",
        )
    if exclusive:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError as e:
            raise CaseTrackError(
                f"{target} already exists; CaseTrack does not replace files for Claude.",
                "Choose a new file name (e.g. add the date), or delete the old file first.",
            ) from e
        except OSError as e:
            raise _unwritable(target, e) from e
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return target
    try:
        atomic_files.write_bytes(target, data)  # 0600: case text leaves the case folder
    except OSError as e:
        raise _unwritable(target, e) from e
    return target


def _unwritable(target: Path, e: OSError) -> CaseTrackError:
    return CaseTrackError(
        f"Cannot write {target}: {e.strerror or e}.",
        "Choose a file in a folder you can write to (and close it if Excel or Word has it open).",
    )

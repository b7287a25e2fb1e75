"""Any file name is ingested and printed escaped (issue 30): bytes that are not UTF-8, control
characters (a terminal escape, a bell) and a right-to-left override. Before: the undecodable name
stopped the file with a UnicodeEncodeError from SQLite, and the others reached the terminal raw.
Real CLI, stores and models."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from casetrack.cli.safe_output import escape_unprintable
from tests.cli_runner import run

NAMES = {
    b"bad\xff\xfename.txt": "The tenant shall pay rent monthly under the lease.\n",
    b"ctl\x1b]0;owned\x07\x1b[2Jred.txt": "Notice of termination delivered to the landlord.\n",
    "rtl\u202etxt.exe.txt".encode(): "The arbitration clause names Geneva as the seat.\n",
}


def _raw(text: str) -> list[str]:
    """The characters a terminal would act on: not printable, not newline, tab or CR."""
    return [c for c in text if not c.isprintable() and c not in "\n\r\t"]


# ~8 s on an idle 2-core machine (an ingest of three files, three commands)
@pytest.mark.slow
def test_any_file_name_is_ingested_and_printed_escaped(home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in NAMES.items():
        with open(os.path.join(os.fsencode(folder), name), "w", encoding="utf-8") as f:
            f.write(text)
    run("case", "create", "Names")
    ingested = run("ingest-folder", "--case", "Names", str(folder))
    assert "3 ingested" in ingested.output and not _raw(ingested.output), ingested.output
    listed = run("documents", "list", "--case", "Names")
    assert not _raw(listed.output), listed.output
    for shown in ("bad\\xff\\xfename.txt", "ctl\\x1b]0;owned\\x07\\x1b[2Jred.txt", "rtl\\u202etxt.exe.txt"):
        assert shown in listed.output
    as_json = run("documents", "list", "--case", "Names", "--json")
    assert not _raw(as_json.stdout)
    docs = json.loads(as_json.stdout)  # still valid JSON
    assert sorted(d["name"] for d in docs) == sorted(
        ["bad\\xff\\xfename.txt", "ctl\\x1b]0;owned\\x07\\x1b[2Jred.txt", "rtl\\u202etxt.exe.txt"]
    )
    # a valid UTF-8 path is kept as it is (the file can be opened again), only printed escaped
    assert any(d["source_path"].endswith("rtl\u202etxt.exe.txt") for d in docs)
    found = run("search", "--case", "Names", "seat of arbitration Geneva")
    assert "rtl\\u202etxt.exe.txt" in found.output and not _raw(found.output)


def test_escaping_keeps_colour_and_json() -> None:
    assert (
        escape_unprintable("\x1b[31mError\x1b[0m: a\x07b\u202ec\n")
        == "\x1b[31mError\x1b[0m: a\\u0007b\\u202ec\n"
    )
    assert json.loads(escape_unprintable(json.dumps({"n": "x\u202e\udcff"}, ensure_ascii=False))) == {
        "n": "x\u202e\udcff"
    }

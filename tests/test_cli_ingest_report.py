"""What `ingest` and `ingest-folder` say on screen (issue 30, item 9): a folder that does not exist,
a text file named .docx, the files of a folder CaseTrack does not read (named and counted), and
CASETRACK_CLI_DAEMON=never keeping the work in this process even when a daemon runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import Result

from casetrack.daemon import client
from tests.cli_runner import run
from tests.conftest import MODELS
from tests.daemon_util import cli, daemon_stopped_after, settings_for

E1 = "multilingual-e5-small-enpt"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("ingest-report")
    (root / "models").mkdir()  # E1 only: the fast tier ingests in seconds
    (root / "models" / E1).symlink_to(MODELS / E1, target_is_directory=True)
    ct(root / "home", "case", "create", "Report")
    yield root / "home"


def ct(home: Path, *args: str, ok: bool = True) -> Result:
    return run(
        "--data-dir",
        str(home),
        "--models-dir",
        str(home.parent / "models"),
        *args,
        ok=ok,
        env={"CASETRACK_CLI_DAEMON": "never"},
    )


def test_a_missing_folder_is_said_not_to_exist(home: Path, tmp_path: Path) -> None:
    missing = ct(home, "ingest-folder", "--case", "Report", str(tmp_path / "nowhere"), ok=False)
    assert missing.exit_code != 0 and f"The folder {tmp_path / 'nowhere'} does not exist." in missing.output
    assert "is not a folder" not in missing.output
    (tmp_path / "a-file.txt").write_text("x")
    a_file = ct(home, "ingest-folder", "--case", "Report", str(tmp_path / "a-file.txt"), ok=False)
    assert a_file.exit_code != 0 and "is a file" in a_file.output  # click says so before we look


@pytest.mark.slow  # ~20 s: three in-process ingests (models loaded each time)
def test_what_was_not_read_as_expected_is_said_on_screen(home: Path, tmp_path: Path) -> None:
    fake = tmp_path / "Brief.docx"
    fake.write_text("The motion to dismiss is denied.\n", encoding="utf-8")
    shown = ct(home, "ingest", "--case", "Report", str(fake))
    assert "OK   Brief.docx: ingested" in shown.output
    assert (
        "note: Brief.docx is not a DOCX file despite its .docx extension: it holds plain text" in shown.output
    )

    folder = tmp_path / "client"
    folder.mkdir()
    (folder / "memo.txt").write_text("The deposition is set for 4 May.\n", encoding="utf-8")
    (folder / "exhibits.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (folder / "ledger.csv").write_text("date,amount\n", encoding="utf-8")
    shown = ct(home, "ingest-folder", "--case", "Report", str(folder))
    assert "SKIP 2 files of a type CaseTrack does not read: exhibits.zip, ledger.csv." in shown.output
    assert "save them as PDF, DOCX or TXT" in shown.output
    (folder / "memo2.txt").write_text("A second memo about the hearing.\n", encoding="utf-8")
    out = json.loads(ct(home, "ingest-folder", "--case", "Report", str(folder), "--json").stdout)
    assert out["summary"]["not_read"] == 2
    assert [f["name"] for f in out["not_read"]] == ["exhibits.zip", "ledger.csv"]


@pytest.mark.slow  # ~20 s: a daemon started, a folder ingested in this process
def test_never_ingests_a_folder_in_this_process_while_a_daemon_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "memo.txt").write_text("The deposition is set for 4 May.\n", encoding="utf-8")
    assert cli(home, "case", "create", "Never", CASETRACK_CLI_DAEMON="never").returncode == 0
    with daemon_stopped_after(home):
        started = cli(home, "daemon", "start", "--idle-exit", "300", CASETRACK_CLI_DAEMON="never")
        assert started.returncode == 0, started.stderr
        done = cli(
            home, "ingest-folder", "--case", "Never", str(folder), "--json", CASETRACK_CLI_DAEMON="never"
        )
        assert done.returncode == 0, done.stderr
        assert "Ingesting in the CaseTrack daemon" not in done.stderr
        assert json.loads(done.stdout)["summary"]["ingested"] == 1
        assert client.call(settings_for(home), "jobs", {"all": True}) == []  # the daemon did no job

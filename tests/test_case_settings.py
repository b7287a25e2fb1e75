"""A case's own settings (`casetrack case set`): revoked text kept, marked, for one case only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from casetrack.cli.main import cli
from tests.conftest import MODELS, require

STATUTE = require(Path(__file__).parent / "fixtures" / "planalto_lei_8112_fragment.htm")
REVOKED_WORDS = "[revogado:"


def ct(data_dir: Path, *args: str) -> Result:
    result = CliRunner().invoke(cli, ["--data-dir", str(data_dir), "--models-dir", str(MODELS), *args])
    assert result.exit_code == 0, result.output
    return result


def chunk_texts(data_dir: Path, case: str) -> str:
    """The text of every chunk of the case's one document (a search wide enough to return them all)."""
    found = json.loads(
        ct(data_dir, "search", "--case", case, "Lei 8.112 servidor", "--json", "--top-k", "50").stdout
    )
    return "\n".join(r["text"] for r in found["results"])


@pytest.mark.slow
def test_a_case_setting_keeps_revoked_text_marked_for_that_case_only(tmp_path: Path) -> None:
    data_dir = tmp_path / "home"
    source = tmp_path / "lei_8112.htm"
    shutil.copy(STATUTE, source)
    for name in ("Keeps", "Drops"):
        ct(data_dir, "case", "create", name, "--language", "pt")
    assert json.loads(ct(data_dir, "case", "set", "Drops", "--json").stdout) == {
        "keep_revoked": False,
        "watched": [],
    }
    changed = ct(data_dir, "case", "set", "Keeps", "--keep-revoked")
    assert "indexed, marked [revogado: ...]" in changed.output
    assert "--force" in changed.output  # files already in the case are not changed silently

    kept = json.loads(ct(data_dir, "ingest", "--case", "Keeps", str(source), "--json").stdout)
    dropped = json.loads(ct(data_dir, "ingest", "--case", "Drops", str(source), "--json").stdout)
    assert "indexed, marked" in " ".join(kept["files"][0]["warnings"])
    assert "casetrack case set CASE --keep-revoked" in " ".join(dropped["files"][0]["warnings"])

    assert REVOKED_WORDS in chunk_texts(data_dir, "Keeps")
    assert REVOKED_WORDS not in chunk_texts(data_dir, "Drops")
    info = json.loads(ct(data_dir, "case", "info", "Keeps", "--json").stdout)
    assert info["settings"] == {"keep_revoked": True}
    assert "Revoked (struck-through) text: indexed" in ct(data_dir, "case", "info", "Keeps").output
    # The setting travels with the case: it lives in the case's own case.json.
    case_json = json.loads((Path(info["directory"]) / "case.json").read_text(encoding="utf-8"))
    assert case_json["settings"] == {"keep_revoked": True}

    ct(data_dir, "case", "set", "Keeps", "--drop-revoked")
    ct(data_dir, "ingest", "--case", "Keeps", str(source), "--force")
    assert REVOKED_WORDS not in chunk_texts(data_dir, "Keeps")

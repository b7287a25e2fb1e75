"""casetrack/atomic_files.py: the one way a file is replaced (temp file beside it, fsync, rename,
folder fsync), and the check that nothing else in the package renames files by hand."""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from casetrack import atomic_files
from tests.conftest import REPO

POSIX = os.name == "posix"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(atomic_files.TEMP_SUFFIX))


def test_text_bytes_and_json_replace_the_file_private_by_default(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o644)
    atomic_files.write_json(target, {"nome": "Ação"}, indent=1)
    assert json.loads(target.read_text(encoding="utf-8")) == {"nome": "Ação"}
    assert "Ação" in target.read_text(encoding="utf-8")  # UTF-8, not \\u escapes
    atomic_files.write_text(tmp_path / "a.txt", "linha\n")
    atomic_files.write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "linha\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    if POSIX:
        assert {_mode(p) for p in (target, tmp_path / "a.txt", tmp_path / "b.bin")} == {0o600}
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(not POSIX, reason="POSIX modes")
def test_a_mode_the_caller_asks_for_or_the_replaced_files_own(tmp_path: Path) -> None:
    shared = tmp_path / "export.csv"
    atomic_files.write_text(shared, "a,b\n", mode=0o644)
    assert _mode(shared) == 0o644
    config = tmp_path / "claude.json"
    config.write_text("{}", encoding="utf-8")
    os.chmod(config, 0o640)
    atomic_files.write_json(config, {"mcpServers": {}}, mode=None)  # a user's file keeps its mode
    assert _mode(config) == 0o640
    new = tmp_path / "new.json"
    old_umask = os.umask(0o022)
    try:
        atomic_files.write_json(new, {}, mode=None)  # a new user file: what the umask gives
    finally:
        os.umask(old_umask)
    assert _mode(new) == 0o644


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "archive.ctcase"
    target.write_bytes(b"the old archive")
    with pytest.raises(RuntimeError, match="half-way"), atomic_files.replacing(target) as out:
        out.write(b"half of the new one")
        out.flush()
        assert _leftovers(tmp_path)  # the new bytes go to a temp file beside the old one
        raise RuntimeError("failed half-way")
    assert target.read_bytes() == b"the old archive"
    assert _leftovers(tmp_path) == []
    with pytest.raises(TypeError):
        atomic_files.write_json(tmp_path / "x.json", {"not json": object()})
    assert not (tmp_path / "x.json").exists() and _leftovers(tmp_path) == []


def test_streaming_writes_a_big_file_in_blocks(tmp_path: Path) -> None:
    target = tmp_path / "big.bin"
    with atomic_files.replacing(target) as out:
        for i in range(64):
            out.write(bytes([i]) * 65536)
    assert target.stat().st_size == 64 * 65536
    assert target.read_bytes()[65536 * 3] == 3


def test_a_killed_writer_leaves_the_old_file_and_its_temp_is_removed_later(tmp_path: Path) -> None:
    target = tmp_path / "job.json"
    atomic_files.write_json(target, {"state": "old"})
    code = (
        "import os, sys; from pathlib import Path; from casetrack import atomic_files\n"
        f"with atomic_files.replacing(Path({str(target)!r})) as out:\n"
        '    out.write(b\'{"state": "ne\'); out.flush(); os._exit(9)\n'
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, check=False)
    assert done.returncode == 9
    assert json.loads(target.read_text(encoding="utf-8")) == {"state": "old"}
    left = _leftovers(tmp_path)
    assert len(left) == 1 and left[0].startswith(".job.json.")
    assert atomic_files.remove_stale_temps(target) == [tmp_path / left[0]]
    assert _leftovers(tmp_path) == []


def test_rename_durably_moves_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "staging").mkdir()
    (tmp_path / "staging" / "model.json").write_text("{}", encoding="utf-8")
    atomic_files.rename_durably(tmp_path / "staging", tmp_path / "model")
    assert (tmp_path / "model" / "model.json").is_file() and not (tmp_path / "staging").exists()
    (tmp_path / "a.part").write_bytes(b"downloaded")
    (tmp_path / "a").write_bytes(b"older")
    atomic_files.rename_durably(tmp_path / "a.part", tmp_path / "a")
    assert (tmp_path / "a").read_bytes() == b"downloaded"


# -- nothing else renames a file by hand -------------------------------------------------------


def _renames(path: Path) -> list[str]:
    """Calls in `path` that rename or replace a file: os.replace/os.rename, and Path.replace/
    Path.rename (one argument: str.replace takes two)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        func = node.func
        module = func.value.id if isinstance(func.value, ast.Name) else None
        if module == "os" and func.attr in ("replace", "rename", "renames"):
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}")
        elif func.attr in ("replace", "rename") and len(node.args) == 1 and not node.keywords:
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_file_is_replaced_outside_the_helper() -> None:
    helper = REPO / "casetrack" / "atomic_files.py"
    offenders = [
        hit for path in sorted((REPO / "casetrack").rglob("*.py")) if path != helper for hit in _renames(path)
    ]
    assert offenders == [], (
        "use casetrack/atomic_files.py (write_*, replacing, rename_durably):\n" + "\n".join(offenders)
    )
    assert _renames(helper)  # the scan does see a replace where there is one

"""The daemon's socket folder when DATA_DIR/run/ is too deep for a socket path (issue 30):
`/tmp/casetrack-UID` is used only when it is this user's own private folder."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from casetrack.daemon.endpoint import socket_folder

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX sockets and owners")


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@posix_only
def test_a_missing_folder_is_made_private_and_a_loose_one_of_ours_is_tightened(tmp_path: Path) -> None:
    made = socket_folder(tmp_path / "casetrack-1", None)
    assert (made.path, made.note, made.temporary) == (tmp_path / "casetrack-1", None, False)
    assert _mode(made.path) == 0o700
    loose = tmp_path / "casetrack-2"
    loose.mkdir(mode=0o777)
    os.chmod(loose, 0o777)
    assert socket_folder(loose, None).path == loose and _mode(loose) == 0o700


@posix_only
def test_a_symlink_or_a_file_in_its_place_is_never_used(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    squat = tmp_path / "casetrack-1"
    squat.symlink_to(elsewhere)
    chosen = socket_folder(squat, None)
    assert chosen.temporary and chosen.path != squat and chosen.path.parent != elsewhere
    assert chosen.note is not None and "is a symbolic link" in chosen.note and str(chosen.path) in chosen.note
    assert _mode(chosen.path) == 0o700 and os.lstat(chosen.path).st_uid == os.getuid()
    os.rmdir(chosen.path)
    plain = tmp_path / "casetrack-2"
    plain.write_text("")
    assert "is not a folder" in (socket_folder(plain, None).note or "")


@posix_only
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root")
def test_another_users_folder_gives_way_to_the_runtime_dir(tmp_path: Path) -> None:
    squat = tmp_path / "casetrack-0"
    squat.mkdir(mode=0o777)
    os.chown(squat, 65534, 65534)  # made first by another user (nobody)
    # A short path, as /run/user/UID is (a socket path has at most ~100 bytes).
    runtime = Path(tempfile.mkdtemp(prefix="ct-rt-"))
    try:
        chosen = socket_folder(squat, str(runtime))
        assert chosen.path == runtime / "casetrack" and not chosen.temporary
        assert chosen.note is not None and "belongs to another user (uid 65534)" in chosen.note
        # A runtime dir that is not private itself is passed over too: a fresh folder of our own.
        os.chmod(runtime, 0o755)
        os.chown(runtime, 65534, 65534)
        fresh = socket_folder(squat, str(runtime))
        assert fresh.temporary and _mode(fresh.path) == 0o700
        os.rmdir(fresh.path)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)

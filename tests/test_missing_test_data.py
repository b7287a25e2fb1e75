"""A run without the shared test data is loud: `.ci/run` stops at once, and a test run ends with
the count of tests skipped for missing data (tests/conftest.py), so it cannot pass silently."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import MISSING, REPO


def test_ci_stops_at_once_without_the_shared_folder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"  # a checkout with no ../shared beside it
    (repo / ".ci").mkdir(parents=True)
    shutil.copy(REPO / ".ci" / "run", repo / ".ci" / "run")
    env = {k: v for k, v in os.environ.items() if k != "CT_TEST_SHARED"}
    # Nothing else of the checkout is there: reaching apt-get or ci/test.sh would fail otherwise.
    done = subprocess.run(
        ["bash", str(repo / ".ci" / "run")], capture_output=True, text=True, env=env, timeout=30, check=False
    )
    assert done.returncode == 1 and done.stdout == ""
    assert f"the test data and models are missing ({tmp_path}/shared/data and {tmp_path}/shared/models)" in (
        done.stderr
    )
    assert "as ../shared with data/ and models/" in done.stderr and "CT_TEST_SHARED=DIR" in done.stderr


def test_a_run_without_the_data_ends_with_how_many_tests_it_skipped(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-shared"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "tests/test_embed_dense.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "CT_TEST_SHARED": str(nowhere)},
        timeout=120,
        check=False,
    )
    lines = done.stdout.rstrip().splitlines()
    assert done.returncode == 0, done.stdout[-2000:]
    # The count comes last, after the skip reasons, just before pytest's own summary line.
    count, absent, place, last = lines[-4:]
    assert f"tests skipped: {MISSING} (data/ and models/ of {nowhere})" in count
    assert int(count.strip("! ").split()[0]) > 20
    assert absent == f"Not there at all: {nowhere / 'data'}, {nowhere / 'models'}."
    assert "CT_TEST_SHARED=DIR" in place and " skipped in " in last
    assert "SKIPPED" in lines[-5]

"""Nothing is lost under every fault we can make (issue 14), through the real CLI and stores.

1. Every file a case owns (registry, case.json, journal, keyword-index meta and segment files,
   each LanceDB manifest, data file, transaction and version hint) x {zeroed, cut to half,
   deleted}: the next commands (`search`, `ingest` of one more file, `case info`) work or fail
   with a clear message naming the repair command; `case check --repair` then brings every
   document back, searchable, except those whose only copy of data the fault destroyed — and
   exactly those (bench/faults.py runs the same matrix and prints the table).
2. kill -9 at random moments during ingest, delete, reembed and compaction: the case opens
   consistent, `case check --repair` finds it healthy, and no document is lost.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.faults import FAULTS, Base, Trial, build_base, faults_for, move_originals, run_trial, targets
from tests.conftest import MODELS
from tests.test_crash_recovery import _check_consistent, _corpus

pytestmark = pytest.mark.slow

# Groups of the files a case owns; each test runs every file of its group.
GROUPS: dict[str, Callable[[str], bool]] = {
    "registry": lambda t: t == "registry.sqlite",
    "case.json": lambda t: t.endswith("/case.json"),
    "journal": lambda t: t.endswith("/journal.sqlite"),
    "bm25 meta": lambda t: "/bm25/" in t and t.endswith(".json"),
    "bm25 segment": lambda t: "/bm25/" in t and not t.endswith(".json"),
    "lance manifest": lambda t: "/_versions/" in t and t.endswith(".manifest"),
    "lance data file": lambda t: "/data/" in t and t.endswith(".lance"),
    "lance other": lambda t: "/lance/" in t and not t.endswith((".manifest", ".lance", "_versions")),
    "lance manifest copy": lambda t: "/lance_manifests/" in t,
    "lance folders": lambda t: t.endswith(("chunks.lance", "documents.lance", "_versions")),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    return build_base(tmp_path_factory.mktemp("faults"))


def _explain(trial: Trial) -> str:
    shown = [*trial.steps, trial.repair, trial.final]
    lines = [
        f"{trial.fault} {trial.target}: lost {trial.lost} (expected {trial.expected_lost}), "
        f"unsearchable {trial.unsearchable}"
    ]
    lines += [f"  {s.command[:40]!r} -> {s.exit_code} clean={s.clean}: {s.message[:300]}" for s in shown]
    return "\n".join(lines)


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("group", list(GROUPS))
def test_every_file_of_a_case_under_every_fault(base: Base, tmp_path: Path, group: str, fault: str) -> None:
    picked = [(t, role) for t, role in targets(base.home) if GROUPS[group](t) and fault in faults_for(t)]
    if not picked:
        pytest.skip(f"a folder ({group}) can only be deleted")
    _all_pass(base, picked, fault, tmp_path)


def _all_pass(base: Base, picked: list[tuple[str, str]], fault: str, tmp_path: Path) -> None:
    failed = []
    for target, role in picked:
        trial = run_trial(base, target, role, fault, tmp_path)
        if not trial.passed:
            failed.append(_explain(trial))
        # A document is lost only where LanceDB's only copy of its data was destroyed: a data file
        # or the table's whole folder (and the repair named it with the command: Trial.passed).
        assert not trial.lost or "/data/" in target or target.endswith(".lance"), _explain(trial)
    assert not failed, "\n".join(failed)


@pytest.fixture(scope="module")
def deleted_base(tmp_path_factory: pytest.TempPathFactory) -> Base:
    """After a delete each table keeps one manifest; the originals are moved away."""
    return move_originals(build_base(tmp_path_factory.mktemp("faults-deleted"), state="deleted"))


# ~3 min on 2 cores: every LanceDB file and folder of the case after a delete
@pytest.mark.parametrize("fault", FAULTS)
def test_after_a_delete_with_the_originals_moved_no_intact_document_is_lost(
    deleted_base: Base, tmp_path: Path, fault: str
) -> None:
    """Before: a zeroed manifest, a deleted `_versions/` or table folder made every command crash
    and every document unreadable although their data file was intact (issue 30)."""
    picked = [(t, r) for t, r in targets(deleted_base.home) if "/lance" in t and fault in faults_for(t)]
    _all_pass(deleted_base, picked, fault, tmp_path)


# -- kill -9 --------------------------------------------------------------------------------------

ENV = {**os.environ, "LANCEDB_LOG": "error"}
CASE = "Crash"  # the name tests/test_crash_recovery.py's checks open


def _casetrack(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "casetrack", "--data-dir", str(home), "--models-dir", str(MODELS), *args]


COMPACT = (
    "import sys\n"
    "from casetrack.app import CaseTrack\n"
    "from casetrack.config import resolve_settings\n"
    "import casetrack.store.lance_tables as lt\n"
    "lt.MAX_SMALL_FRAGMENTS = 0\n"  # compact now, whatever the number of fragments
    "app = CaseTrack(resolve_settings(sys.argv[1], sys.argv[2], environ={}))\n"
    "with app.writing('Crash') as store:\n"
    "    print(store.lance.maintain())\n"
)


def _commands(home: Path, files: list[Path]) -> dict[str, list[str]]:
    return {
        "ingest": _casetrack(home, "ingest-folder", "--case", CASE, str(files[0].parent), "--force"),
        "delete": _casetrack(home, "documents", "delete", "--case", CASE, files[1].name, "--yes"),
        "reembed": _casetrack(home, "reembed", "--case", CASE, "--all"),
        "compaction": [sys.executable, "-c", COMPACT, str(home), str(MODELS)],
    }


@pytest.fixture(scope="module")
def crash_base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("crash")
    files = _corpus(root / "docs", 4)
    home = root / "home"
    subprocess.run(
        _casetrack(home, "case", "create", CASE, "--language", "pt"), check=True, env=ENV, capture_output=True
    )
    subprocess.run(
        _casetrack(home, "ingest-folder", "--case", CASE, str(files[0].parent)),
        check=True,
        env=ENV,
        capture_output=True,
    )
    return home, files


def _timed(cmd: list[str]) -> float:
    started = time.monotonic()
    done = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return time.monotonic() - started


KILLS = int(os.environ.get("CASETRACK_FAULT_KILLS", "2"))


@pytest.mark.parametrize("operation", ["ingest", "delete", "reembed", "compaction"])
def test_kill_9_during_every_write_loses_nothing(
    crash_base: tuple[Path, list[Path]], tmp_path: Path, operation: str
) -> None:
    from tests.cli_runner import run_json

    base_home, files = crash_base
    scratch = tmp_path / "scratch"
    shutil.copytree(base_home, scratch)
    full = _timed(_commands(scratch, files)[operation])
    rng = random.Random(f"{operation}-20261125")
    names = {p.name for p in files}
    for trial in range(KILLS):
        home = tmp_path / f"home{trial}"
        shutil.copytree(base_home, home)
        proc = subprocess.Popen(
            _commands(home, files)[operation], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(full * 0.3, full * 0.95))  # most of the time before is Python starting up
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        count = _check_consistent(home, files)
        report = run_json("--data-dir", str(home), "case", "check", CASE, "--repair")
        assert report["healthy"], report
        kept = {d["name"] for d in run_json("--data-dir", str(home), "documents", "list", "--case", CASE)}
        allowed: Callable[[set[str]], bool] = (
            (lambda k: k in (names, names - {files[1].name}))
            if operation == "delete"
            else (lambda k: k == names)
        )
        assert allowed(kept), f"{operation} killed: {sorted(kept)} of {sorted(names)} ({count} committed)"

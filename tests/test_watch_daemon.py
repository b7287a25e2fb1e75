"""The daemon's folder watch (issue 17 item 1): `casetrack case set NAME --watch FOLDER`.

Fast: the shared look (app/watching.py `FolderWatch`, used by `casetrack watch` and the daemon)
on a real case and real files, and the setting's validation. Slow: a real daemon started by the
CLI picks up a file dropped into the folder, reads a slowly written file once and whole, keeps
itself alive while it watches (idle exit), says once that the folder disappeared and takes it
up again when it is back, and stops when the folder is unwatched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casetrack.app import CaseTrack
from casetrack.app.watching import FolderWatch, set_watch, watched_folders
from casetrack.config import resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.ingest.pipeline import FileResult
from tests.conftest import DATA, MODELS, require

RAW = DATA / "lener_br/raw_text"
HOUR_AGO = time.time() - 3600


def aged(path: Path) -> Path:
    os.utime(path, (HOUR_AGO, HOUR_AGO))
    return path


def _app(home: Path) -> CaseTrack:
    return CaseTrack(resolve_settings(home, MODELS, environ={}))


def test_a_look_plans_only_settled_new_files_and_remembers_failures(tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    app = _app(tmp_path / "home")
    try:
        app.create_case("Inbox", "other", "pt")
        watch = FolderWatch(folder, recursive=False, settle_s=3.0)
        assert (plan := watch.look(app, "Inbox")) is not None and plan.to_ingest() == []  # empty folder

        fresh = folder / "landing.txt"
        fresh.write_bytes(require(RAW / "Port77DF.txt").read_bytes()[:500])  # being copied right now
        plan = watch.look(app, "Inbox")
        assert (
            plan is not None
            and plan.to_ingest() == []
            and [f.name for f in watch.new_waiting] == ["landing.txt"]
        )
        plan = watch.look(app, "Inbox")  # still waiting: planned again, not said again
        assert plan is not None and plan.to_ingest() == [] and watch.new_waiting == []

        aged(fresh)  # it stopped changing long ago
        plan = watch.look(app, "Inbox")
        assert plan is not None and plan.to_ingest() == [fresh.resolve()]
        assert watch.look(app, "Inbox") is None  # nothing changed, nothing waits: no plan at all

        failed = FileResult(
            str(fresh.resolve()), "landing.txt", "error", error="broken", error_code="parse_error"
        )
        watch.done(plan, [failed])
        aged(Path(shutil.copyfile(RAW / "RR474820145230056.txt", folder / "other.txt")))
        plan = watch.look(app, "Inbox")  # the folder changed: the failed file is not tried again
        assert plan is not None and plan.to_ingest() == [(folder / "other.txt").resolve()]
        assert [f.name for f in plan.unsupported] == ["landing.txt"]

        shutil.rmtree(folder)  # unplugged: an error, said once, then tried again at every look
        with pytest.raises(CaseTrackError) as first:
            watch.look(app, "Inbox")
        assert watch.failed(first.value.message) and not watch.failed(first.value.message)
        folder.mkdir()
        assert watch.look(app, "Inbox") is not None and watch.recovered() and not watch.recovered()
    finally:
        app.close()


def test_watch_setting_is_validated_and_kept_in_case_json(tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    (tmp_path / "a-file.txt").write_text("x")
    app = _app(tmp_path / "home")
    try:
        record = app.create_case("Inbox", "other", "pt")
        with pytest.raises(CaseTrackError, match="does not exist") as missing:
            set_watch(app, "Inbox", tmp_path / "nowhere", True)
        assert 'casetrack case set "Inbox" --watch FOLDER' in str(missing.value.hint)
        with pytest.raises(CaseTrackError, match="is not a folder"):
            set_watch(app, "Inbox", tmp_path / "a-file.txt", False)
        assert set_watch(app, "Inbox", folder, True) == [{"path": str(folder.resolve()), "recursive": True}]
        assert set_watch(app, "Inbox", folder, False) == [{"path": str(folder.resolve()), "recursive": False}]
        case_json = json.loads((app.settings.case_dir(record.id) / "case.json").read_text())
        assert case_json["watched"] == [{"path": str(folder.resolve()), "recursive": False}]
        with pytest.raises(CaseTrackError, match="does not watch"):
            set_watch(app, "Inbox", tmp_path, None)
        shutil.rmtree(folder)  # a folder gone can still be unwatched
        assert set_watch(app, "Inbox", folder, None) == [] and watched_folders(app, "Inbox") == []
    finally:
        app.close()


# -- the real daemon ---------------------------------------------------------------------------------


def _wait(what: str, check: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what}: not within {timeout:g} s")


def _documents(home: Path, case: str) -> dict[str, dict[str, Any]]:
    from tests.daemon_util import cli

    out = cli(home, "documents", "list", "--case", case, "--json", CASETRACK_CLI_DAEMON="never")
    assert out.returncode == 0, out.stderr
    return {d["name"]: d for d in json.loads(out.stdout)}


def _jobs(home: Path) -> list[dict[str, Any]]:
    from tests.daemon_util import cli

    out = cli(home, "jobs", "list", "--all", "--json")
    assert out.returncode == 0, out.stderr
    return list(json.loads(out.stdout))


def _sha256s(home: Path) -> dict[str, str]:
    """The case's documents and the SHA-256 of the bytes each was read from (its journal)."""
    app = _app(home)
    try:
        with app.reading("Watched") as store:
            return {e.name: e.sha256 for e in store.documents()}
    finally:
        app.close()


def _running(home: Path) -> bool:
    """Whether the daemon runs, by its runtime file (a status request would count as activity)."""
    from casetrack.daemon.endpoint import RuntimePaths
    from tests.daemon_util import settings_for

    return RuntimePaths.of(settings_for(home)).info.is_file()


def _daemon_log(home: Path) -> str:
    from casetrack.daemon.server import log_path
    from tests.daemon_util import settings_for

    path = log_path(settings_for(home))
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


@pytest.mark.slow
def test_the_daemon_ingests_what_lands_in_a_watched_folder_once_whole(tmp_path: Path) -> None:
    from tests.daemon_util import cli, daemon_stopped_after

    home, folder = tmp_path / "home", tmp_path / "inbox"
    folder.mkdir()
    assert cli(home, "case", "create", "Watched", "--language", "pt").returncode == 0
    shown = cli(home, "case", "set", "Watched", "--watch", str(folder))
    assert shown.returncode == 0, shown.stderr
    assert f"Watched folder: {folder.resolve()}" in shown.stdout
    assert f"Watched folder: {folder.resolve()}" in cli(home, "case", "info", "Watched").stdout
    with daemon_stopped_after(home):
        # idle exit after 3 s: the watched folder keeps it alive
        assert cli(home, "daemon", "start", "--idle-exit", "3").returncode == 0
        shutil.copyfile(require(RAW / "Port77DF.txt"), folder / "Port77DF.txt")
        docs = _wait("Port77DF.txt ingested", lambda: _documents(home, "Watched"), 240)
        assert set(docs) == {"Port77DF.txt"}

        text = require(RAW / "RR474820145230056.txt").read_bytes()
        pieces = 8
        with (folder / "landing.txt").open("wb") as f:  # a slow copy: a piece a second, over several looks
            for i in range(pieces):
                f.write(text[i * len(text) // pieces : (i + 1) * len(text) // pieces])
                f.flush()
                time.sleep(1.0)  # shorter than the settle time (3 s), half a look's interval (2 s)
        # seen half-written, left alone (the line may follow the last piece by a look)
        _wait(
            "landing.txt seen half-written",
            lambda: "landing.txt is still being copied" in _daemon_log(home),
            30,
        )
        _wait("landing.txt ingested", lambda: "landing.txt" in _documents(home, "Watched"), 240)
        assert _sha256s(home)["landing.txt"] == hashlib.sha256(text).hexdigest()  # the whole file, not half
        time.sleep(8)  # more looks, no client for longer than the idle exit: nothing is ingested again
        assert _running(home)  # watching: no idle exit
        watch_jobs = [j for j in _jobs(home) if j["label"].startswith("watch ")]
        landed = [r for j in watch_jobs for r in j["results"] if r["name"] == "landing.txt"]
        assert [r["status"] for r in landed] == ["ingested"], watch_jobs
        assert all(j["status"] == "done" for j in watch_jobs)

        folder.rename(
            tmp_path / "away"
        )  # the folder disappears (a drive unplugged): logged once, tried again
        _wait("the folder's loss logged", lambda: "does not exist" in _daemon_log(home), 30)
        time.sleep(5)
        assert _daemon_log(home).count("does not exist") == 1
        (tmp_path / "away").rename(folder)
        _wait("the watch back", lambda: "works again" in _daemon_log(home), 30)

        unwatched = cli(home, "case", "set", "Watched", "--unwatch", str(folder))
        assert unwatched.returncode == 0 and "Watched folders: none" in unwatched.stdout
        _wait("the watch stopped", lambda: "no longer watching" in _daemon_log(home), 30)
        aged(Path(shutil.copyfile(RAW / "INSTRUCAOON06043378120186000000.txt", folder / "late.txt")))
        # nothing watched, no client, no job: the daemon now exits when idle, and late.txt stays out
        _wait("the idle daemon exited", lambda: not _running(home), 60)
        assert set(_documents(home, "Watched")) == {"Port77DF.txt", "landing.txt"}


def test_the_daemons_watch_follows_a_renamed_file_without_ingesting_it_again(tmp_path: Path) -> None:
    from casetrack.daemon.service import Service

    folder = tmp_path / "inbox"
    folder.mkdir()
    first = aged(Path(shutil.copyfile(require(RAW / "RR474820145230056.txt"), folder / "minuta.txt")))
    service = Service(resolve_settings(tmp_path / "home", MODELS, environ={}))
    app = service.app
    try:
        app.create_case("Inbox", "other", "pt")
        assert [r.status for r in app.ingest("Inbox", [first])] == ["ingested"]
        set_watch(app, "Inbox", folder, recursive=False)
        before = {d["name"]: d["id"] for d in app.list_documents("Inbox")}
        aged(first.rename(folder / "minuta final.txt"))
        with app.writing("Inbox"):  # a job holds the case: the rename waits for the next look
            service.watcher.poll()
        assert [d["name"] for d in app.list_documents("Inbox")] == ["minuta.txt"]
        service.watcher.poll()
        after = {d["name"]: d["id"] for d in app.list_documents("Inbox")}
        assert after == {"minuta final.txt": before["minuta.txt"]}  # same document, new name
        assert service.jobs.recent() == []  # nothing ingested again
        hits = app.search("Inbox", "recurso de revista").hits
        assert hits and {h.provenance.document for h in hits} == {"minuta final.txt"}
    finally:
        service.close()

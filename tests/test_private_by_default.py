"""Private by default (issue 14): private files, folder walks that stay inside the folder, MCP
ingest limited to allowed roots, case names that cannot pass for ids, log lines that cannot be forged."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
import time
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from casetrack.cli.main import cli as cli_group
from casetrack.config import Settings, resolve_settings
from casetrack.errors import CaseTrackError
from casetrack.ingest.files import discover_files, scan_folder
from casetrack.logsafe import safe_for_log
from casetrack.privacy_fs import PathNotAllowedError, check_allowed, repair_permissions, system_folder
from casetrack.store.registry import MAX_NAME_LENGTH, AmbiguousCaseError, CaseRegistry
from tests.conftest import MODELS
from tests.daemon_util import cli

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX modes and symbolic links")


def _open_to_others(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [".", *dirnames, *filenames]:
            path = Path(dirpath, name)
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & 0o077:
                out.append(f"{stat.S_IMODE(mode):04o} {path.relative_to(root)}")
    return out


# -- permissions ----------------------------------------------------------------------------------


@pytest.mark.slow
@posix_only
def test_the_real_cli_leaves_nothing_readable_by_other_accounts(home: Path, tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The tenant terminated the lease on 3 March 2024 for cause.", encoding="utf-8")
    created = cli(home, "case", "create", "Privado")
    assert created.returncode == 0, created.stderr
    ingested = cli(home, "ingest", "--case", "Privado", str(note), "--json")
    assert ingested.returncode == 0, ingested.stderr
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "cases").stat().st_mode) == 0o700
    # Files need the umask set at the CLI's entry point (casetrack/cli/main.py: main()).
    assert _open_to_others(home) == []


@posix_only
def test_an_existing_0755_data_dir_is_made_private_on_start_with_a_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    CaseRegistry(data / "registry.sqlite", data / "cases").close()
    os.chmod(data, 0o755)
    os.chmod(data / "registry.sqlite", 0o644)
    with caplog.at_level(logging.WARNING):
        CaseRegistry(data / "registry.sqlite", data / "cases").close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "registry.sqlite").stat().st_mode) == 0o600
    assert any(
        "readable by other accounts" in r.getMessage() and "0755" in r.getMessage() for r in caplog.records
    )


@posix_only
def test_a_fresh_data_dir_is_private_without_a_note(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    data = tmp_path / "fresh"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    with caplog.at_level(logging.WARNING):
        registry = CaseRegistry(data / "registry.sqlite", data / "cases")
        record = registry.create("Smith v. Jones")
        registry.close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "cases" / record.id).stat().st_mode) == 0o700
    assert not caplog.records


@posix_only
def test_repair_permissions_tightens_everything_and_says_what(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "cases" / "abc").mkdir(parents=True)
    (root / "cases" / "abc" / "journal.sqlite").write_text("x")
    (root / "registry.sqlite").write_text("x")
    shared = tmp_path / "shared.onnx"
    shared.write_text("model")
    os.chmod(shared, 0o644)
    (root / "model.onnx").symlink_to(shared)  # a models folder linking to a shared pack: left alone
    for path, mode in [
        (root, 0o755),
        (root / "cases", 0o755),
        (root / "cases" / "abc", 0o750),
        (root / "cases" / "abc" / "journal.sqlite", 0o644),
        (root / "registry.sqlite", 0o600),
    ]:
        os.chmod(path, mode)
    changes = repair_permissions(root)
    assert sorted(changes) == sorted(
        [
            "0755 -> 0700 .",
            "0755 -> 0700 cases",
            "0750 -> 0700 cases/abc",
            "0644 -> 0600 cases/abc/journal.sqlite",
        ]
    )
    assert _open_to_others(root) == []
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    assert repair_permissions(root) == []


# -- folder walks -------------------------------------------------------------------------------------


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A client's folder with a link out to /etc/passwd, a link loop and an in-folder link."""
    folder = tmp_path / "upload"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("The lease ends in 2025.", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("# Notes", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("another client's secret", encoding="utf-8")
    if os.name == "posix":
        (folder / "passwd.txt").symlink_to("/etc/passwd")
        (folder / "sub" / "other.txt").symlink_to(outside / "secret.txt")
        (folder / "loop.txt").symlink_to("loop.txt")
        (folder / "sub" / "loopdir").symlink_to("loopdir")
        (folder / "sub" / "same.txt").symlink_to("../a.txt")  # inside: fine
        (folder / "elsewhere").symlink_to(outside, target_is_directory=True)
    return folder


@posix_only
def test_links_out_of_the_folder_and_loops_are_skipped_and_reported(planted: Path) -> None:
    flat = scan_folder(planted, recursive=False)
    assert [p.name for p in flat.files] == ["a.txt"]
    assert {(s.name, s.code) for s in flat.skipped} == {
        ("passwd.txt", "outside_folder"),
        ("loop.txt", "link_loop"),
    }

    deep = scan_folder(planted, recursive=True)
    assert [str(p.relative_to(planted)) for p in deep.files] == ["a.txt", "sub/b.md", "sub/same.txt"]
    assert {(s.name, s.code) for s in deep.skipped} == {
        ("passwd.txt", "outside_folder"),
        ("loop.txt", "link_loop"),
        ("elsewhere", "outside_folder"),
        ("sub/other.txt", "outside_folder"),
        ("sub/loopdir", "link_loop"),
    }
    passwd = next(s for s in deep.skipped if s.name == "passwd.txt")
    assert "outside the folder" in passwd.reason and "/etc" not in passwd.reason + passwd.hint
    assert discover_files(planted, recursive=True) == deep.files


@posix_only
def test_skipped_entries_read_as_rows_of_the_ingest_report(planted: Path) -> None:
    from casetrack.cli.ingest_cmds import _line
    from casetrack.ingest.pipeline import FileResult
    from casetrack.mcp import render

    skipped = scan_folder(planted, recursive=True).skipped
    fields: list[dict[str, Any]] = [s.result_fields() for s in skipped]
    rows = [FileResult(**f) for f in fields]
    assert all(r.status == "error" and not r.ok for r in rows)
    line = _line(next(r for r in rows if r.name == "passwd.txt"))
    assert line.startswith("  FAIL passwd.txt: a link to a file outside the folder being ingested")
    job = {
        "id": "j1",
        "case_name": "X",
        "status": "done",
        "done": len(rows),
        "total": len(rows),
        "results": [r.to_json() for r in rows],
    }
    assert "- sub/loopdir: a symbolic link loop" in render.job(job)


def test_an_unreadable_sub_folder_is_reported_and_the_walk_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "f"
    for sub in ("a", "locked", "z"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / f"{sub}.txt").write_text(sub, encoding="utf-8")
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:  # tests run as root, for whom chmod 000 locks nothing
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    scan = scan_folder(folder, recursive=True)
    assert [p.name for p in scan.files] == ["a.txt", "z.txt"]
    assert [(s.name, s.code) for s in scan.skipped] == [("locked", "unreadable")]
    assert "Permission denied" in scan.skipped[0].reason


@posix_only
def test_a_folder_that_is_a_link_loop_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(CaseTrackError, match="cannot be opened"):
        scan_folder(tmp_path / "loop", recursive=True)


@posix_only
def test_ingest_folder_through_the_cli_never_ingests_what_a_link_points_out_to(
    home: Path, planted: Path
) -> None:
    runner = CliRunner()
    assert runner.invoke(cli_group, ["case", "create", "Upload"]).exit_code == 0
    result = runner.invoke(
        cli_group, ["ingest-folder", "--case", "Upload", "--recursive", str(planted), "--json"]
    )
    assert "Traceback" not in result.output
    info = runner.invoke(cli_group, ["case", "info", "Upload", "--json"])
    names = sorted(d["name"] for d in json.loads(info.output)["documents"])
    assert names == ["a.txt", "b.md"]  # sub/same.txt is a.txt again (a duplicate)


# -- allowed roots for MCP ingest ---------------------------------------------------------------------


def test_allowed_roots_come_from_the_environment_with_the_home_folder_as_default(tmp_path: Path) -> None:
    home = tmp_path / "user"
    base = resolve_settings(tmp_path / "d", MODELS, environ={}, home_dir=home)
    assert base.allowed_roots == (home,)
    env = {"CASETRACK_ALLOWED_ROOTS": os.pathsep.join(["~/Cases", str(tmp_path / "shared"), ""])}
    both = resolve_settings(tmp_path / "d", MODELS, environ=env, home_dir=home)
    assert both.allowed_roots == (home / "Cases", tmp_path / "shared")
    assert resolve_settings(tmp_path / "d", MODELS, environ=env, allowed_roots=[tmp_path]).allowed_roots == (
        tmp_path,
    )
    with pytest.raises(CaseTrackError, match="not an absolute path"):
        resolve_settings(tmp_path / "d", MODELS, environ={"CASETRACK_ALLOWED_ROOTS": "Cases"})
    with pytest.raises(CaseTrackError, match="not an absolute path"):
        resolve_settings(tmp_path / "d", MODELS, environ={}, allowed_roots=["Cases"])
    assert Settings(data_dir=tmp_path, models_dir=tmp_path).allowed_roots == (Path.home(),)


def test_system_folders_on_each_platform() -> None:
    assert system_folder(PurePosixPath("/etc/passwd"), "linux") == "/etc"
    assert system_folder(PurePosixPath("/lib64/x"), "linux") == "/lib64"
    assert system_folder(PurePosixPath("/home/ana/etc/x"), "linux") is None
    assert system_folder(PurePosixPath("/private/etc/hosts"), "darwin") == "/private/etc"
    assert system_folder(PurePosixPath("/library/Keychains/x"), "darwin") == "/library"
    assert system_folder(PurePosixPath("/Users/ana/Library/x"), "darwin") is None
    assert system_folder(PureWindowsPath("c:/windows/system32/x"), "win32") is not None
    assert system_folder(PureWindowsPath("C:/Program Files (x86)/x"), "win32") is not None
    assert system_folder(PureWindowsPath("C:/Users/ana/Cases/x.pdf"), "win32") is None


@posix_only
def test_check_allowed_follows_links_and_refuses_what_is_not_under_a_root(tmp_path: Path) -> None:
    root, home = tmp_path / "cases", tmp_path / "home"
    (root / "matter").mkdir(parents=True)
    (root / ".ssh").mkdir()
    doc = root / "matter" / "contract.txt"
    doc.write_text("x")
    (root / "matter" / "hosts.txt").symlink_to("/etc/hosts")
    (root / "matter" / "key.txt").symlink_to(root / ".ssh")
    data = root / "casetrack-data"
    (data / "cases").mkdir(parents=True)
    allowed: dict[str, Any] = {"roots": [root], "home": home, "private": [data]}
    assert check_allowed(doc, **allowed) == doc.resolve()
    for path, why in [
        (Path("/etc/passwd"), "system folder /etc"),
        (root / "matter" / "hosts.txt", "system folder"),
        (root / "matter" / "key.txt", "hidden folder"),
        (tmp_path / "other.txt", "outside the folders"),
        (data / "cases", "data folder"),
        (Path("matter/contract.txt"), "not an absolute path"),
    ]:
        with pytest.raises(PathNotAllowedError, match=why) as e:
            check_allowed(path, **allowed)
        if "absolute" not in why and "data folder" not in why:
            assert str(root) in e.value.message  # which roots are allowed
    with pytest.raises(PathNotAllowedError) as e:
        check_allowed(tmp_path / "other.txt", **allowed)
    assert "CASETRACK_ALLOWED_ROOTS" in (e.value.tool_hint or "")
    assert check_allowed(Path("/root/x.txt"), [Path("/root")], Path("/root")) == Path("/root/x.txt")
    with pytest.raises(PathNotAllowedError, match="system folder /root"):
        check_allowed(Path("/root/x.txt"), [Path("/")], home)


@pytest.fixture
def tool_service(tmp_path: Path) -> Any:
    from casetrack.daemon.service import Service

    svc = Service(resolve_settings(tmp_path / "data", MODELS, environ={}, allowed_roots=[tmp_path / "docs"]))
    svc.app.create_case("Matter")
    yield svc
    svc.close()


@posix_only
def test_mcp_ingest_tools_read_only_under_allowed_roots(tool_service: Any, tmp_path: Path) -> None:
    from casetrack.mcp.server import SessionState, build_server

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "contract.txt").write_text("The lease ends in 2025.", encoding="utf-8")
    (docs / "passwd.txt").symlink_to("/etc/passwd")
    (tmp_path / "elsewhere").mkdir()

    async def main() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(build_server(tool_service, SessionState())) as client:
            for key, tool, args in [
                ("etc", "ingest_document", {"file_path": "/etc/passwd"}),
                ("link", "ingest_document", {"file_path": str(docs / "passwd.txt")}),
                ("outside_folder", "ingest_folder", {"folder_path": str(tmp_path / "elsewhere")}),
                ("ok", "ingest_document", {"file_path": str(docs / "contract.txt")}),
                ("ok_folder", "ingest_folder", {"folder_path": str(docs)}),
            ]:
                out[key] = await client.call_tool(tool, {**args, "case_name": "Matter", "wait_seconds": 0})
        return out

    results = anyio.run(main)
    texts = {k: " ".join(getattr(c, "text", "") for c in r.content) for k, r in results.items()}
    for key in ("etc", "link", "outside_folder"):
        assert results[key].is_error, texts[key]
        assert f"Folders CaseTrack may read for Claude: {docs}." in texts[key], texts[key]
    # A system folder is never allowed, so the refusal does not suggest adding it as a root.
    assert "system folder /etc" in texts["link"] and "root:" not in texts["link"]
    assert (
        "CASETRACK_ALLOWED_ROOTS" in texts["outside_folder"]
        and "casetrack daemon stop" in texts["outside_folder"]
    )
    assert not results["ok"].is_error, texts["ok"]
    assert not results["ok_folder"].is_error, texts["ok_folder"]
    jobs = [j for j in tool_service.jobs.recent()]
    queued = sorted(p for j in jobs for p in j.paths)
    assert queued == [str((docs / "contract.txt").resolve())] * 2  # the folder's link to /etc/passwd is not
    # ... and the tool says so: which entry it left out and why.
    assert (
        "Skipped 1 entry of the folder:" in texts["ok_folder"]
        and "passwd.txt: a link to a file outside" in texts["ok_folder"]
    )
    assert [e["name"] for e in results["ok_folder"].structured_content["skipped"]] == ["passwd.txt"]


# -- names and log lines ----------------------------------------------------------------------------


@pytest.fixture
def registry(tmp_path: Path) -> Any:
    reg = CaseRegistry(tmp_path / "registry.sqlite", tmp_path / "cases")
    yield reg
    reg.close()


def test_case_names_are_bounded_and_never_pass_for_an_id(registry: CaseRegistry) -> None:
    a = registry.create("Smith v. Jones")
    assert registry.create("x" * MAX_NAME_LENGTH).name == "x" * MAX_NAME_LENGTH
    with pytest.raises(CaseTrackError, match=f"at most {MAX_NAME_LENGTH} characters"):
        registry.create("x" * (MAX_NAME_LENGTH + 1))
    for bad in (a.id, a.id.upper(), "0123456789ab"):
        with pytest.raises(CaseTrackError, match="looks like a case id"):
            registry.create(bad)
    for bad in ("Smith\x1b[2J", "Smith\u202ev. Jones", "nul\x00"):
        with pytest.raises(CaseTrackError, match="control or invisible"):
            registry.create(bad)
    assert registry.create("Smith\nv.\tJones 2").name == "Smith v. Jones 2"  # whitespace collapses
    assert registry.create("Case 0123456789ab").name == "Case 0123456789ab"


def _legacy_case_named(registry_path: Path, cases_dir: Path, name: str) -> str:
    """A case written before names were checked (a name equal to another case's id)."""
    case_id = "feedfacecafe"
    (cases_dir / case_id).mkdir()
    with sqlite3.connect(registry_path) as conn:
        conn.execute(
            "INSERT INTO cases VALUES (?,?,?,?,?,?,?,?)",
            (case_id, name, name.casefold(), "other", "en", "active", time.time(), time.time()),
        )
    return case_id


def test_an_ambiguous_reference_is_refused_for_destructive_commands(
    registry: CaseRegistry, tmp_path: Path
) -> None:
    a = registry.create("Smith v. Jones")
    b_id = _legacy_case_named(tmp_path / "registry.sqlite", tmp_path / "cases", a.id)
    assert registry.get(a.id).id == a.id  # reads: the exact id wins
    with pytest.raises(AmbiguousCaseError) as e:
        registry.get(a.id, destructive=True)
    assert "'Smith v. Jones' (id " + a.id in e.value.message and b_id in e.value.message
    assert "\"Smith v. Jones\" for 'Smith v. Jones'" in (e.value.hint or "") and b_id in (e.value.hint or "")
    assert registry.get(b_id, destructive=True).name == a.id
    short = registry.create(b_id[:6])  # a name that is also the start of another case's id
    assert registry.get(b_id[:6]).id == short.id  # reads: the name wins over an id prefix
    with pytest.raises(AmbiguousCaseError, match="could mean two cases"):
        registry.get(b_id[:6], destructive=True)


def test_case_delete_by_an_ambiguous_reference_deletes_nothing(home: Path) -> None:
    runner = CliRunner()
    created = runner.invoke(cli_group, ["case", "create", "Smith v. Jones", "--json"])
    a_id = json.loads(created.output)["id"]
    b_id = _legacy_case_named(home / "registry.sqlite", home / "cases", a_id)
    refused = runner.invoke(cli_group, ["case", "delete", a_id, "--yes"])
    assert refused.exit_code != 0 and "could mean two cases" in refused.output and b_id in refused.output
    assert (home / "cases" / a_id).is_dir() and (home / "cases" / b_id).is_dir()
    deleted = runner.invoke(cli_group, ["case", "delete", b_id, "--yes"])
    assert deleted.exit_code == 0, deleted.output
    assert (home / "cases" / a_id).is_dir() and not (home / "cases" / b_id).exists()


def test_safe_for_log_keeps_a_file_name_on_one_line() -> None:
    forged = "contract.pdf: ingested\n2024-01-01 INFO casetrack: admin logged in"
    assert "\n" not in safe_for_log(forged) and "\\n2024-01-01" in safe_for_log(forged)
    assert safe_for_log("a\rb\tc\x1b[31m\u2028d") == "a\\rb\\tc\\x1b[31m\\u2028d"
    assert safe_for_log(Path("/Users/ana/Contrato de Locação.pdf")) == "/Users/ana/Contrato de Locação.pdf"


@posix_only
def test_the_folder_walk_logs_a_forged_name_on_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "x.txt\nINFO forged.txt").symlink_to("/etc/passwd")
    with caplog.at_level(logging.INFO, logger="casetrack.ingest.files"):
        scan_folder(folder, recursive=False)
    assert len(caplog.records) == 1 and "\n" not in caplog.records[0].getMessage()


def test_a_link_leaving_the_folder_is_reported_by_ingest_folder(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from casetrack.cli.main import cli

    folder = tmp_path / "client"
    folder.mkdir()
    (folder / "memo.txt").write_text("The deposition is set for May 4.\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("Not part of the client folder.\n")
    (folder / "passwd.txt").symlink_to(outside)
    runner = CliRunner()
    assert runner.invoke(cli, ["case", "create", "Links"]).exit_code == 0
    done = runner.invoke(cli, ["ingest-folder", "--case", "Links", str(folder), "--json"])
    report = json.loads(done.stdout)
    by_name = {f["name"]: f for f in report["files"]}
    assert by_name["memo.txt"]["status"] == "ingested"
    assert by_name["passwd.txt"]["status"] == "error" and done.exit_code == 3, by_name


def test_a_missing_folder_is_said_not_to_exist(tmp_path: Path) -> None:
    # Issue 30: a missing folder was reported as "is not a folder".
    with pytest.raises(CaseTrackError, match="does not exist") as missing:
        scan_folder(tmp_path / "nowhere", recursive=False)
    assert "is not a folder" not in str(missing.value)
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(CaseTrackError, match="is a file, not a folder"):
        scan_folder(tmp_path / "a.txt", recursive=False)

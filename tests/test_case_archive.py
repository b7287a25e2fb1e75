"""Portable cases, the quick tier: the archive's checks on real (empty) cases, no models needed.

Export -> tamper / truncate / newer schema / traversal -> import refused, with nothing written
under the data directory; names, leftovers, the writer lock, privacy; the MCP tools through a
real client. Cases with documents, byte-identical searches and re-embedding: test_case_archive_slow.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casetrack.app import CaseTrack
from casetrack.app.portable import export_case, import_case
from casetrack.atomic_files import pid_alive
from casetrack.config import resolve_settings
from casetrack.errors import CaseBusyError, CaseExistsError, CaseTrackError
from casetrack.store.case_archive import MANIFEST, ArchiveError
from casetrack.store.lock import WriterLock
from tests.cli_runner import run, run_json

CLI_ENV = {"CASETRACK_CLI_DAEMON": "never"}


def make_app(home: Path, **kw: Any) -> CaseTrack:
    return CaseTrack(resolve_settings(home, home / "no-models", environ={}, **kw))


def tree(home: Path) -> list[str]:
    """Everything under a data directory (SQLite's -wal/-shm of the registry come and go)."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if not p.name.endswith(("-wal", "-shm")))


@pytest.fixture
def exported(tmp_path: Path) -> tuple[CaseTrack, Path]:
    app = make_app(tmp_path / "home")
    app.create_case("Smith v. Jones", "contract", "pt")
    archive = tmp_path / "smith.ctcase"
    report = export_case(app, "Smith v. Jones", archive)
    assert report.documents == 0 and report.members >= 3
    return app, archive


def rewrite(
    archive: Path,
    out: Path,
    change: Callable[[str, bytes], bytes | None],
    extra: dict[str, bytes] | None = None,
    comment: bytes | None = None,
) -> Path:
    """A copy of `archive` with members changed (None drops one) and `extra` members added; the zip's
    own CRCs are recomputed, so only CaseTrack's checksums can tell."""
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = change(info.filename, src.read(info.filename))
            if data is not None:
                dst.writestr(info.filename, data)
        for name, data in (extra or {}).items():
            dst.writestr(name, data)
        dst.comment = src.comment if comment is None else comment
    return out


def with_manifest(
    archive: Path, out: Path, edit: Callable[[dict[str, Any]], None], extra: dict[str, bytes] | None = None
) -> Path:
    """A copy whose manifest is edited and whose comment (the manifest's checksum) matches it."""
    with zipfile.ZipFile(archive) as zf:
        manifest = json.loads(zf.read(MANIFEST))
    edit(manifest)
    text = json.dumps(manifest).encode()
    return rewrite(
        archive,
        out,
        lambda name, data: text if name == MANIFEST else data,
        extra,
        hashlib.sha256(text).hexdigest().encode(),
    )


def refused(app: CaseTrack, archive: Path, *words: str) -> ArchiveError:
    home = app.settings.data_dir
    before, cases = tree(home), [r.id for r in app.registry.list()]
    with pytest.raises(ArchiveError) as err:
        import_case(app, archive, "Copy")
    assert tree(home) == before and [r.id for r in app.registry.list()] == cases  # nothing written
    for word in words:
        assert word in err.value.message, err.value.message
    assert "Nothing was imported" in err.value.message or "Install CaseTrack" in str(err.value)
    return err.value


def test_archive_is_private_and_leaves_out_locks_caches_and_temp_files(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    record = app.create_case("Acme")
    case_dir = app.registry.case_dir(record.id)
    app.case_summary("Acme")  # opens it: journal, lance/, bm25/
    (case_dir / "ocr" / "abc").mkdir(parents=True)
    (case_dir / "ocr" / "abc" / "page-1.json").write_text("{}")
    (case_dir / "case.json.123.tmp").write_text("{}")
    (case_dir / "writer.lock").write_text("1")
    (case_dir / "journal.sqlite.damaged-1700000000").write_text("x")
    archive = tmp_path / "acme.ctcase"
    export_case(app, "Acme", archive)
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        manifest = json.loads(zf.read(MANIFEST))
    assert "case/case.json" in names and "case/journal.sqlite" in names and MANIFEST in names
    assert any(n.startswith("case/bm25/") for n in names)
    assert not [
        n
        for n in names
        if "ocr/" in n or n.endswith((".tmp", "writer.lock", "-wal", "-shm")) or "damaged" in n
    ]
    assert manifest["schema_version"] == 1 and manifest["case"]["name"] == "Acme"
    assert {m["path"] for m in manifest["members"]} == set(names) - {MANIFEST}
    assert all(len(m["sha256"]) == 64 and m["size"] >= 0 for m in manifest["members"])
    assert not list(tmp_path.glob(".acme.ctcase.*"))  # no temp file left beside it


def test_round_trip_gives_a_new_id_the_settings_and_the_name_asked_for(
    exported: tuple[CaseTrack, Path],
) -> None:
    app, archive = exported
    app.set_case_settings("Smith v. Jones", keep_revoked=True)
    export_case(app, "Smith v. Jones", archive, overwrite=True)
    with pytest.raises(CaseExistsError) as err:
        import_case(app, archive)
    assert err.value.hint and "--as" in err.value.hint
    report = import_case(app, archive, "Smith v. Jones (copy)")
    original, copy = app.registry.get("Smith v. Jones"), app.registry.get("Smith v. Jones (copy)")
    assert copy.id != original.id and report.case["id"] == copy.id
    assert (copy.case_type, copy.language) == ("contract", "pt")
    info = json.loads((app.registry.case_dir(copy.id) / "case.json").read_text())
    assert info["id"] == copy.id and info["name"] == "Smith v. Jones (copy)"
    assert app.case_summary(copy.id)["settings"]["keep_revoked"] is True
    assert stat.S_IMODE(app.registry.case_dir(copy.id).stat().st_mode) == 0o700
    assert not [p for p in app.settings.cases_dir.iterdir() if p.name.startswith(".")]  # no temp folder left


def test_into_a_fresh_data_directory(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    _, archive = exported
    other = make_app(tmp_path / "other")
    report = import_case(other, archive)
    assert report.case["name"] == "Smith v. Jones" and [r.name for r in other.registry.list()] == [
        "Smith v. Jones"
    ]
    # A fresh process finds it too (the registry row is on disk).
    again = make_app(tmp_path / "other")
    assert again.registry.get("Smith v. Jones").id == report.case["id"] and not again.registry.rebuilt


def test_a_flipped_byte_in_a_member_is_refused_naming_it(
    exported: tuple[CaseTrack, Path], tmp_path: Path
) -> None:
    app, archive = exported

    def flip(name: str, data: bytes) -> bytes:
        if name != "case/journal.sqlite":
            return data
        return data[:100] + bytes([data[100] ^ 0x01]) + data[101:]

    refused(app, rewrite(archive, tmp_path / "flipped.ctcase", flip), "case/journal.sqlite", "checksum")


def test_a_flipped_byte_in_the_file_is_refused(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    app, archive = exported
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("case/case.json")
    raw = bytearray(archive.read_bytes())
    at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
    raw[at] ^= 0xFF
    bad = tmp_path / "bitrot.ctcase"
    bad.write_bytes(bytes(raw))
    refused(app, bad, "case/case.json")


def test_a_truncated_archive_is_refused(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    app, archive = exported
    cut = tmp_path / "cut.ctcase"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    refused(app, cut, "cut short")


def test_a_changed_manifest_is_refused(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    app, archive = exported

    def edit(name: str, data: bytes) -> bytes:
        return data.replace(b'"Smith v. Jones"', b'"Smith v. Jonas"') if name == MANIFEST else data

    refused(app, rewrite(archive, tmp_path / "manifest.ctcase", edit), MANIFEST)


def test_a_newer_archive_schema_is_refused_with_the_version_to_install(
    exported: tuple[CaseTrack, Path], tmp_path: Path
) -> None:
    app, archive = exported

    def newer(manifest: dict[str, Any]) -> None:
        manifest.update(schema_version=2, casetrack_version="9.1.0")

    error = refused(
        app, with_manifest(archive, tmp_path / "newer.ctcase", newer), "archive format 2", "9.1.0"
    )
    assert error.hint and "Install CaseTrack 9.1.0 or newer" in error.hint


def test_members_outside_the_case_or_not_listed_are_refused(
    exported: tuple[CaseTrack, Path], tmp_path: Path
) -> None:
    app, archive = exported
    evil = b"owned"
    member = {"path": "case/../../evil.txt", "sha256": hashlib.sha256(evil).hexdigest(), "size": len(evil)}
    traversal = with_manifest(
        archive,
        tmp_path / "traversal.ctcase",
        lambda m: m["members"].append(member),
        {"case/../../evil.txt": evil},
    )
    refused(app, traversal, "case/../../evil.txt")
    assert not (app.settings.data_dir / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()
    unlisted = rewrite(archive, tmp_path / "unlisted.ctcase", lambda n, d: d, {"case/extra.bin": b"x"})
    refused(app, unlisted, "case/extra.bin", "not listed")
    dropped = rewrite(archive, tmp_path / "dropped.ctcase", lambda n, d: None if n == "case/case.json" else d)
    refused(app, dropped, "case/case.json", "missing")


def test_not_an_archive(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    app, _ = exported
    text = tmp_path / "notes.ctcase"
    text.write_text("just some notes")
    refused(app, text, "notes.ctcase")
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("a.txt", "a")
    with pytest.raises(ArchiveError, match="not a CaseTrack case archive"):
        import_case(app, plain)
    with pytest.raises(CaseTrackError, match="No file or folder"):
        import_case(app, tmp_path / "missing.ctcase")


def test_export_holds_the_writer_lock_and_refuses_while_another_writer_runs(tmp_path: Path) -> None:
    app = make_app(tmp_path / "home")
    record = app.create_case("Busy")
    lock_path = app.registry.case_dir(record.id) / "writer.lock"
    app.case_summary("Busy")
    seen: list[bool] = []

    def during(stage: str, done: int, total: int, what: str) -> None:
        probe = WriterLock(lock_path, "Busy")
        seen.append(probe.try_acquire())
        probe.release()

    export_case(app, "Busy", tmp_path / "busy.ctcase", progress=during)
    assert seen and not any(seen)  # nobody else could write the case while it was copied
    holder = WriterLock(lock_path, "Busy").acquire()
    try:
        with pytest.raises(CaseBusyError):
            export_case(app, "Busy", tmp_path / "busy2.ctcase")
    finally:
        holder.release()
    assert not (tmp_path / "busy2.ctcase").exists()


def test_export_destination_checks(exported: tuple[CaseTrack, Path], tmp_path: Path) -> None:
    app, archive = exported
    with pytest.raises(CaseTrackError, match="already exists") as err:
        export_case(app, "Smith v. Jones", archive)
    assert err.value.hint and "--force" in err.value.hint
    with pytest.raises(CaseTrackError, match="does not exist"):
        export_case(app, "Smith v. Jones", tmp_path / "nowhere" / "x.ctcase")
    with pytest.raises(CaseTrackError, match="is a folder"):
        export_case(app, "Smith v. Jones", tmp_path)


def test_a_leftover_temp_folder_is_cleaned_and_never_read_as_a_case(exported: tuple[CaseTrack, Path]) -> None:
    app, archive = exported
    dead = 999_999
    while pid_alive(dead):
        dead -= 1
    leftover = app.settings.cases_dir / f".import-{dead}-deadbeef"
    (leftover / "lance").mkdir(parents=True)
    (leftover / "case.json").write_text(json.dumps({"name": "Half case"}))
    assert [r.name for r in make_app(app.settings.data_dir).registry.list()] == ["Smith v. Jones"]
    import_case(app, archive, "Second")
    assert not leftover.exists()
    assert sorted(r.name for r in app.registry.list()) == ["Second", "Smith v. Jones"]


def test_a_case_folder_copied_by_hand_is_imported_with_a_new_id(tmp_path: Path) -> None:
    there = make_app(tmp_path / "there")
    record = there.create_case("Hand copy")
    there.case_summary("Hand copy")
    folder = there.registry.case_dir(record.id)
    here = make_app(tmp_path / "here")
    report = import_case(here, folder)
    assert report.kind == "folder" and report.case["name"] == "Hand copy" and report.case["id"] != record.id
    with pytest.raises(CaseExistsError):
        import_case(here, folder)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CaseTrackError, match="not a CaseTrack case folder"):
        import_case(here, tmp_path / "empty")

    def files(path: Path) -> list[str]:
        return sorted(n for n in os.listdir(path) if not n.endswith(("-wal", "-shm")))

    assert files(folder) == files(here.registry.case_dir(report.case["id"]))


def test_cli_export_and_import_json(tmp_path: Path) -> None:
    base = ("--data-dir", str(tmp_path / "home"), "--models-dir", str(tmp_path / "no-models"))
    run(*base, "case", "create", "Doe", env=CLI_ENV)
    out = run_json(*base, "case", "export", "Doe", str(tmp_path / "doe.ctcase"), "--no-sources", env=CLI_ENV)
    assert out["case"] == "Doe" and out["sources_included"] is False and Path(out["path"]).is_file()
    taken = run(*base, "case", "import", str(tmp_path / "doe.ctcase"), ok=False, env=CLI_ENV)
    assert taken.exit_code == 1 and '--as "Doe (imported)"' in taken.output
    imported = run_json(*base, "case", "import", str(tmp_path / "doe.ctcase"), "--as", "Doe 2", env=CLI_ENV)
    assert imported["case"]["name"] == "Doe 2" and imported["kind"] == "archive"
    assert {c["name"] for c in run_json(*base, "case", "list", env=CLI_ENV)} == {"Doe", "Doe 2"}


def test_mcp_export_and_import(tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    from casetrack.daemon.service import Service
    from casetrack.mcp.server import SessionState, build_server

    out = tmp_path / "out"
    out.mkdir()
    settings = resolve_settings(
        tmp_path / "home", tmp_path / "no-models", environ={}, allowed_roots=[out], home_dir=tmp_path
    )
    notified: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        notified.append((progress, total, message))

    async def calls() -> list[Any]:
        service = Service(settings)
        try:
            async with Client(build_server(service, SessionState())) as client:
                await client.call_tool("create_case", {"name": "Roe"})
                outside = await client.call_tool(
                    "export_case", {"destination_path": str(tmp_path / "roe.ctcase")}
                )
                exported = await client.call_tool(
                    "export_case",
                    {"destination_path": str(out / "roe.ctcase")},
                    progress_callback=on_progress,
                )
                taken = await client.call_tool("import_case", {"source_path": str(out / "roe.ctcase")})
                imported = await client.call_tool(
                    "import_case",
                    {"source_path": str(out / "roe.ctcase"), "new_name": "Roe copy"},
                    progress_callback=on_progress,
                )
                listed = await client.call_tool("list_cases", {})
                return [outside, exported, taken, imported, listed]
        finally:
            service.close()

    outside, exported, taken, imported, listed = anyio.run(calls)
    assert outside.is_error and "outside the folders" in outside.content[0].text
    assert not (tmp_path / "roe.ctcase").exists()
    assert not exported.is_error and exported.structured_content["path"] == str(out / "roe.ctcase")
    assert (
        taken.is_error
        and "import_case(source_path=" in taken.content[0].text
        and "new_name" in taken.content[0].text
    )
    assert not imported.is_error, imported.content[0].text
    case = imported.structured_content["case"]
    assert case["name"] == "Roe copy" and case["active"] is True
    assert listed.structured_content["active_case"] == case["id"]
    assert any(m and m.startswith("exporting") for _, _, m in notified)
    assert any(m and m.startswith("verifying") for _, _, m in notified)


def test_an_imported_case_watches_nothing_and_forgets_folders_this_computer_lacks(
    exported: tuple[CaseTrack, Path], tmp_path: Path
) -> None:
    from casetrack.app.watching import set_watch, watched_folders

    app, archive = exported
    here, gone = tmp_path / "here", tmp_path / "gone"
    here.mkdir()
    gone.mkdir()
    set_watch(app, "Smith v. Jones", here, recursive=True)
    with app.writing("Smith v. Jones") as store:
        for folder in (here, gone):
            store.remember_folder(
                {"path": str(folder.resolve()), "recursive": False, "unsupported": {}, "mailboxes": {}}
            )
    export_case(app, "Smith v. Jones", archive, overwrite=True)
    gone.rmdir()  # the other computer has `here` (the same machine) but not `gone`
    other = make_app(tmp_path / "other")
    report = import_case(other, archive)
    assert watched_folders(other, "Smith v. Jones") == []
    with other.reading("Smith v. Jones") as store:
        assert [f["path"] for f in store.folders()] == [str(here.resolve())]
    assert len(report.warnings) == 2
    assert "not watched here" in report.warnings[0] and "--watch FOLDER" in report.warnings[0]
    assert str(gone.resolve()) in report.warnings[1] and "--sync" in report.warnings[1]
    assert watched_folders(app, "Smith v. Jones") != []  # the original keeps its own

"""A case as one portable file (`.ctcase`): pack, verify, unpack.

The archive is a zip. `case/...` holds the case folder as the case itself reads it (case.json, a
consistent copy of journal.sqlite, lance/, bm25/ and its other small files; never writer.lock, the
OCR page caches or temp files), `sources/<doc_id>/<file>` the original files, and `manifest.json`
the archive's schema version, the CaseTrack version that wrote it, the case record, the model
fingerprints and the SHA-256 and size of every member. The zip comment holds the manifest's own
SHA-256, so a damaged manifest is named as such.

Reading is two passes: `verify` reads every member once and writes nothing; only then does
`unpack` write them, checking each again as it goes (the file could change between the passes).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from casetrack import atomic_files
from casetrack.errors import CaseTrackError, Fix

FORMAT = "casetrack-case"
SCHEMA_VERSION = 1  # the newest archive schema this CaseTrack reads and the one it writes
MANIFEST = "manifest.json"
CASE = "case/"
SOURCES = "sources/"
JOURNAL = "journal.sqlite"
_CHUNK = 1 << 20
# Never part of a case's portable state: locks, OCR page caches (kept only while a file is being
# ingested), temp files, SQLite side files (the journal is copied through the backup API), files
# set aside as damaged, and the sources folder of an imported case (sources travel as sources/).
_SKIP_TOP = frozenset(
    {
        "writer.lock",
        "case.json.lock",
        "ocr",
        "sources",
        JOURNAL,
        f"{JOURNAL}-wal",
        f"{JOURNAL}-shm",
        f"{JOURNAL}-journal",
    }
)
_SKIP_NAME = re.compile(r"(^\.tantivy-.*\.lock$)|(\.tmp$)|(\.part$)|(\.damaged-\d+)|(^\.import-)")
# Already compressed: deflating them again costs time for nothing.
_STORED_SUFFIXES = frozenset({".lance", ".pdf", ".docx", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".zip"})

Progress = Callable[[int, int, str], None]  # bytes done, bytes in all, member


class ArchiveError(CaseTrackError):
    """A .ctcase file that cannot be imported: damaged, cut short, newer, or not an archive."""


@dataclass(frozen=True)
class Member:
    path: str
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "size": self.size}


@dataclass
class Manifest:
    """An archive's manifest.json, checked: every field the importer relies on is there."""

    raw: dict[str, Any]
    members: list[Member] = field(default_factory=list)

    @property
    def case(self) -> dict[str, Any]:
        return dict(self.raw.get("case") or {})

    @property
    def models(self) -> dict[str, dict[str, Any]]:
        models = self.raw.get("models")
        return dict(models) if isinstance(models, dict) else {}

    @property
    def sources(self) -> list[dict[str, Any]]:
        return [s for s in self.raw.get("sources") or [] if isinstance(s, dict)]

    @property
    def total_bytes(self) -> int:
        return sum(m.size for m in self.members)


# -- what a case folder contributes ------------------------------------------------------------


def case_files(case_dir: Path) -> list[tuple[str, Path]]:
    """(member name under case/, file) of every file of a case folder that travels, in a stable order."""
    out: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(case_dir):
        here = Path(dirpath)
        top = here == case_dir
        dirnames[:] = sorted(d for d in dirnames if not (top and d in _SKIP_TOP) and not _SKIP_NAME.search(d))
        for name in sorted(filenames):
            if (top and name in _SKIP_TOP) or _SKIP_NAME.search(name) or not (here / name).is_file():
                continue
            out.append((CASE + (here / name).relative_to(case_dir).as_posix(), here / name))
    return out


def journal_image(journal: Path) -> bytes:
    """A consistent copy of a SQLite journal (its -wal included), through SQLite's backup API."""
    src = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=30.0)
    dst = sqlite3.connect(":memory:")
    try:
        src.backup(dst)
        return bytes(dst.serialize())
    finally:
        src.close()
        dst.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


# -- pack ------------------------------------------------------------------------------------


@dataclass
class _Writer:
    zf: zipfile.ZipFile
    total: int
    progress: Progress | None
    done: int = 0
    members: list[Member] = field(default_factory=list)

    def add(self, name: str, chunks: Iterable[bytes]) -> Member:
        info = zipfile.ZipInfo(name, date_time=time.localtime(time.time())[:6])
        info.external_attr = 0o100600 << 16
        stored = PurePosixPath(name).suffix.lower() in _STORED_SUFFIXES
        info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
        digest, size = hashlib.sha256(), 0
        with self.zf.open(info, "w", force_zip64=True) as out:
            for block in chunks:
                out.write(block)
                digest.update(block)
                size += len(block)
                self.done += len(block)
                if self.progress is not None:
                    self.progress(self.done, self.total, name)
        member = Member(name, digest.hexdigest(), size)
        self.members.append(member)
        return member


def _blocks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        yield from iter(lambda: f.read(_CHUNK), b"")


def pack(
    dest: Path,
    files: list[tuple[str, Path]],
    blobs: dict[str, bytes],
    manifest: dict[str, Any],
    progress: Progress | None = None,
) -> tuple[dict[str, Any], list[Member]]:
    """Write `files` and `blobs` (member name -> bytes) and the manifest (`manifest` + format,
    schema and members) into `dest`: a private (0600) temp file beside it, fsynced, renamed over
    it. Returns the manifest written and the members."""
    total = sum(len(b) for b in blobs.values()) + sum(p.stat().st_size for _, p in files)
    with (
        atomic_files.replacing(dest) as raw,
        zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf,
    ):
        writer = _Writer(zf, total, progress)
        for name, data in blobs.items():
            writer.add(name, [data])
        for name, path in files:
            writer.add(name, _blocks(path))
        full = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            **manifest,
            "members": [m.to_json() for m in writer.members],
        }
        text = json.dumps(full, indent=1, ensure_ascii=False).encode("utf-8")
        zf.writestr(zipfile.ZipInfo(MANIFEST, date_time=time.localtime(time.time())[:6]), text)
        zf.comment = hashlib.sha256(text).hexdigest().encode("ascii")
    return full, writer.members


def clean_parts(dest: Path) -> None:
    """Remove temp files a killed export of `dest` left beside it (their process is gone)."""
    atomic_files.remove_stale_temps(dest)


# -- verify ----------------------------------------------------------------------------------


def _damaged(archive: Path, what: str) -> ArchiveError:
    return ArchiveError(
        f"{archive.name} is damaged: {what}. Nothing was imported.",
        fix=Fix(
            "Copy the archive again from where it came from (or export the case again), then "
            "import that copy",
            f'casetrack case import "{archive}"',
            "import_case",
            {"source_path": str(archive)},
        ),
    )


def open_archive(archive: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(archive)
    except FileNotFoundError as e:
        raise ArchiveError(f"No file at {archive}.", "Check the path of the .ctcase file.") from e
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise _damaged(
            archive,
            "it is cut short or is not a CaseTrack case archive (its table of contents could not be read)",
        ) from e


def read_manifest(archive: Path, zf: zipfile.ZipFile, newest: int = SCHEMA_VERSION) -> Manifest:
    """The archive's manifest, checked against the zip comment, the format and schema version."""
    try:
        text = zf.read(MANIFEST)
    except KeyError as e:  # a cut-short archive can show the table of contents of a .docx inside it
        raise _damaged(
            archive, f"it has no {MANIFEST}: it is cut short or is not a CaseTrack case archive"
        ) from e
    except (zipfile.BadZipFile, zlib.error, OSError) as e:
        raise _damaged(archive, f"member {MANIFEST} cannot be read") from e
    if hashlib.sha256(text).hexdigest().encode("ascii") != zf.comment.strip():
        raise _damaged(archive, f"member {MANIFEST} does not match its checksum")
    try:
        raw = json.loads(text)
        assert isinstance(raw, dict) and raw.get("format") == FORMAT
        version = int(raw["schema_version"])
    except (ValueError, AssertionError, KeyError, TypeError) as e:
        raise _damaged(archive, f"member {MANIFEST} is not a CaseTrack case manifest") from e
    if version > newest:
        writer = str(raw.get("casetrack_version") or "a newer version")
        raise ArchiveError(
            f"{archive.name} was written by CaseTrack {writer} in archive format {version}; this CaseTrack reads "
            f"formats up to {newest}. Nothing was imported.",
            f"Install CaseTrack {writer} or newer (bash installer/install.sh from that release), then: "
            f'casetrack case import "{archive}"',
        )
    try:
        members = [Member(str(m["path"]), str(m["sha256"]), int(m["size"])) for m in raw["members"]]
    except (KeyError, TypeError, ValueError) as e:
        raise _damaged(archive, f"member {MANIFEST} has no valid member list") from e
    return Manifest(raw, members)


def _check_names(archive: Path, zf: zipfile.ZipFile, manifest: Manifest) -> None:
    """Member names are safe relative paths; the zip holds exactly the manifest's members."""
    listed = [m.path for m in manifest.members]
    for name in listed:
        parts = PurePosixPath(name).parts
        if (
            not name.startswith((CASE, SOURCES))
            or "\\" in name
            or name.startswith("/")
            or ".." in parts
            or len(parts) < 2
            or ":" in parts[0]
        ):
            raise _damaged(archive, f"member name {name!r} is not a path inside a case")
    if len(set(listed)) != len(listed):
        raise _damaged(archive, "a member is listed twice in its manifest")
    names = [i.filename for i in zf.infolist()]
    if len(set(names)) != len(names):
        raise _damaged(archive, "it holds two members of the same name")
    extra = sorted(set(names) - set(listed) - {MANIFEST})
    missing = sorted(set(listed) - set(names))
    if extra:
        raise _damaged(archive, f"member {extra[0]} is not listed in its manifest")
    if missing:
        raise _damaged(archive, f"member {missing[0]} is missing")
    for required in (CASE + "case.json", CASE + JOURNAL):
        if required not in listed:
            raise _damaged(archive, f"member {required} is missing")


def read_member(
    archive: Path,
    zf: zipfile.ZipFile,
    member: Member,
    sink: IO[bytes] | None,
    on_block: Callable[[int], None] | None = None,
) -> None:
    """Stream one member (into `sink`, if any), checking its size and SHA-256 against the manifest."""
    digest, size = hashlib.sha256(), 0
    try:
        if zf.getinfo(member.path).file_size != member.size:
            raise _damaged(archive, f"member {member.path} does not have the size its manifest gives")
        with zf.open(member.path) as f:
            for block in iter(lambda: f.read(_CHUNK), b""):
                size += len(block)
                if size > member.size:
                    break
                digest.update(block)
                if sink is not None:
                    sink.write(block)
                if on_block is not None:
                    on_block(len(block))
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as e:
        raise _damaged(archive, f"member {member.path} cannot be read ({e})") from e
    if size != member.size or digest.hexdigest() != member.sha256:
        raise _damaged(archive, f"member {member.path} does not match its checksum")


def verify(archive: Path, progress: Progress | None = None) -> Manifest:
    """Check the manifest and every member's size and SHA-256, writing nothing anywhere."""
    with open_archive(archive) as zf:
        manifest = read_manifest(archive, zf)
        _check_names(archive, zf, manifest)
        done, total = 0, manifest.total_bytes
        for member in manifest.members:

            def step(n: int, name: str = member.path) -> None:
                nonlocal done
                done += n
                if progress is not None:
                    progress(done, total, name)

            read_member(archive, zf, member, None, step)
    return manifest


# -- unpack ----------------------------------------------------------------------------------


def private_write(path: Path) -> IO[bytes]:
    """A new file opened for writing, 0600, its folders 0700 (refuses to replace a file)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb")


def unpack(archive: Path, manifest: Manifest, target: Path, progress: Progress | None = None) -> None:
    """Write a verified archive's members under `target` (case/ at its root, sources/ in
    `target/sources`), checking every member again as it is written."""
    with open_archive(archive) as zf:
        done, total = 0, manifest.total_bytes
        for member in manifest.members:
            rel = member.path.removeprefix(CASE) if member.path.startswith(CASE) else member.path
            with private_write(target / rel) as out:
                read_member(archive, zf, member, out)
                out.flush()
                os.fsync(out.fileno())
            done += member.size
            if progress is not None:
                progress(done, total, member.path)


def copy_file(src: Path, dest: Path) -> None:
    with private_write(dest) as out:
        for block in _blocks(src):
            out.write(block)
        out.flush()
        os.fsync(out.fileno())

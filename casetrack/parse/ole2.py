"""Read the stream names of an OLE2 compound file (legacy Office, Outlook .msg, encrypted OOXML).

Detection only needs to know which streams exist ("WordDocument", "EncryptedPackage", ...)
to tell the user what the file is; nothing here reads stream contents.
"""

from __future__ import annotations

import struct
from pathlib import Path

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_OLE_FREE = 0xFFFFFFFF
_OLE_MAX_SECTOR = 0xFFFFFFFA


def ole_stream_names(path: Path, max_entries: int = 4096) -> list[str]:
    """Names in an OLE2 compound file's directory, walking the FAT chain.

    The directory can sit anywhere in the file (in big files, often near the end), so a
    byte scan of the first KiBs is not enough to tell a .doc from an encrypted .docx.
    Only the 109 FAT sectors listed in the header are used: enough for files up to ~7 MB
    with 512-byte sectors, and the directory chain is almost always covered even then.

    Raises OSError or struct.error on unreadable or truncated files.
    """
    names: list[str] = []
    with path.open("rb") as f:
        header = f.read(512)
        if len(header) < 512 or not header.startswith(OLE_MAGIC):
            return names
        sector_shift = struct.unpack_from("<H", header, 0x1E)[0]
        if sector_shift not in (9, 12):
            return names
        sector_size = 1 << sector_shift
        dir_start = struct.unpack_from("<I", header, 0x30)[0]
        difat = [s for s in struct.unpack_from("<109I", header, 0x4C) if s < _OLE_MAX_SECTOR]

        def read_sector(sid: int) -> bytes:
            f.seek((sid + 1) * sector_size)
            return f.read(sector_size)

        fat: list[int] = []
        for sid in difat:
            data = read_sector(sid)
            fat.extend(struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4]))

        sid = dir_start
        seen: set[int] = set()
        while sid < _OLE_MAX_SECTOR and sid not in seen and len(names) < max_entries:
            seen.add(sid)
            data = read_sector(sid)
            for off in range(0, len(data) - 127, 128):
                name_len = struct.unpack_from("<H", data, off + 0x40)[0]
                if 2 <= name_len <= 64:
                    names.append(data[off : off + name_len - 2].decode("utf-16-le", "replace"))
            sid = fat[sid] if sid < len(fat) else _OLE_FREE
    return names

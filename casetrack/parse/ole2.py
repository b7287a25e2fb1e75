"""Read the stream names of an OLE2 compound file (legacy Office, Outlook .msg, encrypted OOXML).

Detection only needs to know which streams exist ("WordDocument", "EncryptedPackage", ...)
to tell the user what the file is; nothing here reads stream contents.
"""

from __future__ import annotations

from pathlib import Path

import olefile
from olefile.olefile import NotOleFileError

OLE_MAGIC: bytes = olefile.MAGIC


def is_ole(path: Path) -> bool:
    """Whether the file starts as an OLE2 compound file does (an Outlook .msg, a legacy .doc)."""
    try:
        with path.open("rb") as f:
            return f.read(len(OLE_MAGIC)) == OLE_MAGIC
    except OSError:
        return False


def ole_stream_names(path: Path, max_entries: int = 4096, top_level_only: bool = False) -> list[str]:
    """Names of the storages and streams in an OLE2 compound file's directory tree.

    olefile follows the DIFAT, so the directory is found wherever it sits (in big files,
    often past the first 7 MB). `top_level_only` leaves out what sits inside storages, such
    as the "WordDocument" of a .doc embedded in a workbook or attached to an e-mail. Returns
    [] when the file is not OLE2 or too short to hold a header.

    Raises OSError on unreadable, truncated or damaged files, whatever olefile tripped on.
    """
    with path.open("rb") as f:
        if f.read(len(OLE_MAGIC)) != OLE_MAGIC:
            return []
        f.seek(0)
        try:
            with olefile.OleFileIO(f) as ole:
                entries: list[list[str]] = ole.listdir(streams=True, storages=True)
        except NotOleFileError:
            return []
        except Exception as e:
            # olefile raises OleFileError (an OSError) for the damage it checks for, but
            # fuzzing also gave ValueError and MemoryError (a forged sector shift asks for
            # terabytes), and a storage of a thousand chained siblings a RecursionError.
            raise OSError(f"damaged OLE2 directory ({type(e).__name__}: {e})") from e
    # Each storage and stream comes as its path from the root; the last part is its name.
    names = (entry[-1] for entry in entries if len(entry) == 1 or not top_level_only)
    return list(dict.fromkeys(names))[:max_entries]

"""How a file is parsed: its password, how its scanned pages are OCR'd and who hears of each page
read. Every format's parser takes one (`formats.Parser`); it crosses into the parser's child
process pickled, its `on_page` left behind (parse/isolated.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

# Called as each page of a file is read: (pages done, pages in the file).
PageProgress = Callable[[int, int], None]

# Pages OCR'd below this mean word confidence (0-100) are listed in the ingest report: read them
# against the scan before quoting (clean 300-DPI scans read at ~90-96; noisy faxes ~60-80).
LOW_CONFIDENCE = 70.0


def no_progress(done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class ParseOptions:
    """`ocr_languages`: tesseract's languages for scanned pages ("eng", "por", "eng+por"); None
    turns OCR off (such pages are then listed as needing OCR). `ocr_cache`: a folder where each
    OCR'd page is kept as soon as it is read, so a file interrupted half-way (kill -9, power
    loss) resumes at the page it stopped on; the caller deletes it once the document is stored.
    `keep_revoked`: struck-through text (revoked provisions in DOCX and HTML) is left out of the
    page text by default and counted in a warning; True keeps it, marked "[revogado: ...]" in a
    Portuguese document and "[revoked: ...]" otherwise (parse/revoked.py). `on_page(done, total)`
    as each page of a paged file (PDF, image) is read; not part of the options' equality.
    """

    password: str | None = None
    ocr_languages: str | None = "eng"
    ocr_cache: str | None = None
    ocr_page_timeout: float = 180.0
    ocr_dpi: int = 300
    keep_revoked: bool = False
    on_page: PageProgress = field(default=no_progress, compare=False, repr=False)

"""OCR'd pages kept on disk as soon as each is read, so a file interrupted half-way (kill -9,
power loss) resumes at the page it stopped on; the caller deletes the folder once the document is
stored (`ParseOptions.ocr_cache`)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from casetrack import atomic_files
from casetrack.domain import ExtractionMethod, Page, Paragraph, ParagraphKind, Span
from casetrack.parse.options import ParseOptions

log = logging.getLogger(__name__)

CACHE_VERSION = 2  # 2: transcript pages carry their margin numbers


class PageCache:
    """OCR'd pages of one file, one JSON file each (0600), written atomically; a no-op without
    a folder. Keyed by the file's size and modification time as well as the settings, so an
    edited file or other languages are read afresh."""

    def __init__(self, folder: str | None, source: Path, options: ParseOptions) -> None:
        self.folder = Path(folder) if folder else None
        try:
            stat = source.stat()
            stamp = f"{stat.st_size}-{int(stat.st_mtime)}"
        except OSError:
            stamp = "unknown"
        self.key = f"v{CACHE_VERSION}-{stamp}-{options.ocr_languages}-{options.ocr_dpi}"
        self.reused = 0  # pages taken from an interrupted ingest

    def resumed_warning(self) -> str | None:
        """The ingest report's note when pages came from an interrupted ingest."""
        if not self.reused:
            return None
        return f"OCR resumed: {self.reused} page(s) read before an interruption were reused, not read again"

    def _path(self, number: int) -> Path:
        assert self.folder is not None
        return self.folder / f"page-{number:05d}.json"

    def get(self, number: int) -> Page | None:
        if self.folder is None:
            return None
        try:
            data = json.loads(self._path(number).read_text(encoding="utf-8"))
            page = _page_from_json(data) if data.get("key") == self.key else None
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError):  # a torn or foreign file: read the page again
            return None
        self.reused += page is not None
        return page

    def put(self, page: Page) -> None:
        if self.folder is None or page.number is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            target = self._path(page.number)
            atomic_files.write_json(target, {"key": self.key, **_page_json(page)})
        except OSError as e:  # only resuming is at stake
            log.warning("could not keep OCR'd page %s: %s", page.number, e)


def _page_json(page: Page) -> dict[str, Any]:
    return {
        "number": page.number,
        "text": page.text,
        "lines": [[s.number, s.start, s.end] for s in page.lines],
        "paragraphs": [[p.number, p.start, p.end, p.kind.value] for p in page.paragraphs],
        "method": page.extraction_method.value,
        "confidence": page.ocr_confidence,
        "line_confidences": list(page.line_confidences),
    }


def _page_from_json(data: dict[str, Any]) -> Page:
    return Page(
        number=data["number"],
        text=data["text"],
        lines=tuple(Span(n, s, e) for n, s, e in data["lines"]),
        paragraphs=tuple(Paragraph(n, s, e, ParagraphKind(k)) for n, s, e, k in data["paragraphs"]),
        extraction_method=ExtractionMethod(data["method"]),
        ocr_confidence=data["confidence"],
        line_confidences=tuple(float(c) for c in data["line_confidences"]),
    )

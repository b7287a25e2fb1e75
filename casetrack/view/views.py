"""`PageViews`: the page view's operations over a case store, with the process's cache of page
geometry (an OCR'd page takes seconds to read again; stepping back to it should not).

Owned by the app (`CaseTrack.page_views`), built on first use; nothing here runs at import.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from casetrack.errors import CaseTrackError
from casetrack.store.case_store import CaseStore
from casetrack.store.documents import resolve_document
from casetrack.view.geometry import (
    PageGeometry,
    image_ocr_geometry,
    pdf_ocr_geometry,
    pdf_text_geometry,
)
from casetrack.view.image import DEFAULT_WIDTH, highlighted_png, page_png
from casetrack.view.page import DRAWN_TYPES, GeometryReader, build_page_view, original_problem
from casetrack.view.records import PageView
from casetrack.view.targets import ViewRequest, resolve

CACHED_PAGES = 64  # geometry of this many pages kept (a few kB each: boxes and line texts)


class PageViews:
    def __init__(self, ocr_languages: str | None = None, ocr_timeout: float = 180.0) -> None:
        """`ocr_languages`: tesseract's languages for scanned pages (None: the case's language)."""
        self.ocr_languages = ocr_languages
        self.ocr_timeout = ocr_timeout
        self._cache: OrderedDict[tuple[str, int, int, str, int, bool], PageGeometry] = OrderedDict()
        self._lock = threading.Lock()

    def _languages(self, store: CaseStore) -> str:
        if self.ocr_languages:
            return self.ocr_languages
        from casetrack.ocr import ocr_languages

        return ocr_languages(store.record.language)

    def _reader(self, store: CaseStore) -> GeometryReader:
        languages = self._languages(store)

        def read(path: Path, file_type: str, page_index: int, ocr: bool) -> PageGeometry:
            st = os.stat(path)
            key = (str(path), st.st_mtime_ns, st.st_size, languages if ocr else "", page_index, ocr)
            with self._lock:
                kept = self._cache.get(key)
                if kept is not None:
                    self._cache.move_to_end(key)
                    return kept
            if file_type == "image":
                geo = image_ocr_geometry(path, page_index, languages, self.ocr_timeout)
            elif ocr:
                geo = pdf_ocr_geometry(path, page_index, languages, timeout=self.ocr_timeout)
            else:
                geo = pdf_text_geometry(path, page_index)
            with self._lock:
                self._cache[key] = geo
                while len(self._cache) > CACHED_PAGES:
                    self._cache.popitem(last=False)
            return geo

        return read

    def page_view(self, store: CaseStore, request: ViewRequest) -> PageView:
        """The page `request` names, its cited lines marked and placed on the page."""
        target = resolve(store, request)
        reader = self._reader(store)
        return build_page_view(store, target.entry, target.page_index, target.cited, reader)

    def page_image(
        self, store: CaseStore, document: str, page_index: int, width: int = DEFAULT_WIDTH
    ) -> bytes:
        """The page drawn as a PNG `width` pixels wide, from the document's original."""
        entry = resolve_document(store, document)
        file_type = str(entry.meta.get("file_type") or "")
        if file_type not in DRAWN_TYPES:
            raise CaseTrackError(
                f"{entry.name} is a {file_type or 'text'} document: its pages have no picture.",
                "Use get_page_view: it lays out the page's text with its line numbers.",
            )
        problem = original_problem(entry, store.record.name)
        if problem is not None:
            raise CaseTrackError(problem)
        count = int(entry.meta.get("page_count") or 1)
        if not 0 <= page_index < count:
            raise CaseTrackError(
                f"{entry.name} has {count} pages; page_index {page_index} is out of range.",
                "Give a page_index from 0 (the first page) to the page count minus one.",
            )
        return page_png(Path(str(entry.source_path)), file_type, page_index, width)

    def highlighted_png(self, store: CaseStore, request: ViewRequest, width: int = DEFAULT_WIDTH) -> bytes:
        """The page `request` names with its cited lines highlighted, as PNG (`show --out`)."""
        view = self.page_view(store, request)
        entry = resolve_document(store, view.document_id)
        path = Path(entry.source_path) if entry.source_path else None
        return highlighted_png(view, path, width)

"""A DOCX package made ready for docx2python: its main part found through the package
relationships, page breaks and struck-through runs marked in the raw XML (docx/pages.py,
docx/strike.py), and, for parts written by non-Word tools, the `r:` prefix declared. The
package is the file itself when nothing needs marking, else an in-memory copy."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lxml import etree

from casetrack.errors import CorruptFileError
from casetrack.parse.docx.pages import mark_page_breaks
from casetrack.parse.docx.strike import document_language, mark_struck_runs
from casetrack.parse.zip_limits import check_package, refuse_dtd, stream_members


def corrupt(name: str, why: str) -> CorruptFileError:
    return CorruptFileError(
        f"{name} is a damaged or invalid DOCX file ({why}).",
        hint="Open it in Word, save it again (File > Save As > .docx) and re-ingest it.",
    )


_R_NAMESPACE = b"http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_ROOT_TAG = re.compile(rb"<(?![?!])[^\s>/]+")
_MAIN_PART_REL = re.compile(rb"<Relationship\b[^>]*>")


def main_part_name(zf: zipfile.ZipFile) -> str:
    """The main document part, found the way Word does: through the package relationships."""
    try:
        rels = zf.read("_rels/.rels")
    except KeyError:
        return "word/document.xml"
    for m in _MAIN_PART_REL.finditer(rels):
        tag = m.group(0)
        if re.search(rb'Type="[^"]*/officeDocument"', tag):
            target = re.search(rb'Target="([^"]*)"', tag)
            if target:
                return target.group(1).decode("utf-8").lstrip("/")
    return "word/document.xml"


def _declare_r_prefix(data: bytes) -> bytes:
    """Declare the `r:` prefix on a part's root element if it does not.

    docx2python's run merging reads `elem.nsmap["r"]` and raises KeyError on parts (often
    footnotes/endnotes written by non-Word tools) that never declare it.
    """
    if b"xmlns:r=" in data[:4096]:
        return data
    m = _ROOT_TAG.search(data)
    if m is None:
        return data
    return data[: m.end()] + b' xmlns:r="' + _R_NAMESPACE + b'"' + data[m.end() :]


_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


@dataclass
class Package:
    source: Path | io.BytesIO
    page_mode: str | None
    language: str = "en"  # of the marker kept struck-through text gets (only read when any is)


def _styles_root(zf: zipfile.ZipFile, main_name: str) -> Any | None:
    name = main_name.rsplit("/", 1)[0] + "/styles.xml" if "/" in main_name else "styles.xml"
    try:
        data = zf.read(name)
        # Most documents have no struck style: skip parsing the part a second time.
        return etree.fromstring(data, _SAFE_XML) if b"strike" in data else None
    except (KeyError, etree.XMLSyntaxError):
        return None  # docx2python reports a broken styles part itself


def prepare_package(path: Path, fix_r_prefix: bool = False) -> Package:
    """The package docx2python should read: the file itself, or an in-memory copy.

    Page breaks are marked in the raw XML because docx2python merges a run's w:t elements
    when it loads a part, which moves a w:lastRenderedPageBreak to the end of the run.
    """
    with zipfile.ZipFile(path) as zf:
        # Detection checked the sizes too; a parser called alone must not trust it. docx2python
        # reads each part whole and its XML parser expands entities: sizes proven by streaming,
        # and no entity may be declared.
        check_package(zf, path.name)
        stream_members(zf)
        refuse_dtd(zf, path.name)
        main_name = main_part_name(zf)
        try:
            root = etree.fromstring(zf.read(main_name), _SAFE_XML)
        except KeyError as e:
            raise corrupt(path.name, f"no main document part {main_name}") from e
        struck = mark_struck_runs(root, _styles_root(zf, main_name))
        page_mode = mark_page_breaks(root)
        if page_mode is None and not struck and not fix_r_prefix:
            return Package(path, None)
        main_xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
        out = io.BytesIO()
        # Stored, not deflated: the copy lives for one parse, and images need no recompression.
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
            for info in zf.infolist():
                data = main_xml if info.filename == main_name else zf.read(info)
                if fix_r_prefix and info.filename.endswith(".xml"):
                    data = _declare_r_prefix(data)
                dst.writestr(zipfile.ZipInfo(info.filename, info.date_time), data)
    out.seek(0)
    return Package(out, page_mode, document_language(root) if struck else "en")

"""Bad redactions: Free Law Project's x-ray examples, and boxes that are not redactions."""

from __future__ import annotations

from pathlib import Path

import pdfplumber
import pytest

from casetrack.parse import parse_file
from casetrack.parse.pdf.redaction import bad_redaction_boxes, bad_redaction_warning
from tests.conftest import DATA, require

XRAY = DATA / "legal_docs_us_courts" / "x-ray"


@pytest.mark.parametrize(
    ("name", "boxes"),
    [
        ("rectangles_yes.pdf", 3),  # boxes drawn first, black text printed over them
        ("rectangles_yes_2.pdf", 1),
        ("rectangles_no.pdf", 0),  # horizontal rules only
    ],
)
def test_xray_examples(name: str, boxes: int) -> None:
    path = require(XRAY / name)
    with pdfplumber.open(path) as pdf:
        assert bad_redaction_boxes(pdf.pages[0], path, 0) == boxes
        assert bad_redaction_boxes(pdf.pages[0]) == boxes  # the layout alone agrees here


def test_ingest_warning_names_the_page() -> None:
    doc = parse_file(require(XRAY / "rectangles_yes.pdf"))
    assert doc.warnings == (
        "p. 1: 3 black boxes cover text that can still be copied (bad redaction); "
        "the hidden text is indexed and searchable",
    )
    assert "did not disclose all relevant medical history" in doc.pages[0].text
    assert parse_file(require(XRAY / "rectangles_no.pdf")).warnings == ()


def test_warning_wording() -> None:
    assert bad_redaction_warning(3, 1).startswith("p. 3: 1 black box covers text that can still be copied")


@pytest.mark.parametrize(
    "relative",
    [
        # A full-page fill in a spot colour (tint 0 = white) that pdfminer reports as black.
        "legal_docs_us_courts/recap_documents/cafc_3.pdf",
        # Text boxes framed by black rings, which pdfminer splits into two filled boxes.
        "pdf_robustness/pypdf_resources/test Orient.pdf",
        # Dark red text printed on a blue box: dark on dark, but not the box's colour.
        "pdf_robustness/pypdf_resources/Sample_Td-matrix.pdf",
    ],
)
def test_boxes_that_are_not_redactions(relative: str) -> None:
    path = require(DATA / relative)
    with pdfplumber.open(path) as pdf:
        assert bad_redaction_boxes(pdf.pages[0], path, 0) == 0


def test_never_fails_a_parse() -> None:
    class Broken:
        @property
        def layout(self) -> object:
            raise RuntimeError("pdfminer choked")

    assert bad_redaction_boxes(Broken(), Path("missing.pdf")) == 0

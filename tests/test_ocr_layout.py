"""casetrack.ocr: page OCR (recognize), its layout (layout) and orientation (orient), on real scans
with the real tesseract. Full 300 DPI pages against their references are the slow tier."""

from __future__ import annotations

import math
import time

import numpy as np
import pdfplumber
import psutil
import pytest
from PIL import Image, ImageDraw, ImageFont
from rapidfuzz.distance import Levenshtein

from casetrack.ocr import OcrPage, OcrTimeoutError, margin_text, ocr_image, render_pdf_page, source_box
from casetrack.ocr.layout import is_noise, parse_tsv
from casetrack.ocr.orient import as_gray, estimate_skew, upright
from tests.conftest import DATA, require

TESS = DATA / "ocr" / "tesseract_test"
OCRMYPDF = DATA / "ocr" / "ocrmypdf_resources"
COURTS = DATA / "legal_docs_us_courts"


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_THREAD_LIMIT", "1")  # what the entry point sets (engine docstring)


def cer(hyp: str, ref: str) -> float:
    hyp, ref = " ".join(hyp.split()), " ".join(ref.split())
    return Levenshtein.distance(hyp, ref) / len(ref)


def phototest() -> tuple[Image.Image, str]:
    image = Image.open(require(TESS / "phototest.tif"))
    return image, (TESS / "phototest.gold.txt").read_text(encoding="utf-8")


# -- whole pages ------------------------------------------------------------------------------------


def test_phototest_reads_with_low_cer_in_two_paragraphs() -> None:
    image, gold = phototest()
    page = ocr_image(image, "eng", dpi=200)
    assert cer(page.text, gold) <= 0.02
    assert [len(p.lines) for p in page.paragraphs] == [3, 5]  # as the gold text's blank line says
    assert page.paragraphs[0].lines[0].text == "This is a lot of 12 point text to test the"
    assert (page.rotation, page.skew, page.width, page.height, page.dpi) == (0, 0.0, 640, 480, 200)
    assert page.confidence is not None and page.confidence > 85
    tops = [line.box[1] for line in page.lines]
    assert tops == sorted(tops)
    for line in page.lines:
        x0, y0, x1, y1 = line.box
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480 and 20 <= y1 - y0 <= 60
        assert 0 <= line.confidence <= 100
    assert 0 < page.seconds < 30 and page.words == len(gold.split())


@pytest.mark.parametrize(("variant", "turn"), [("180", 180), ("L", 90), ("R", 270)])
def test_a_rotated_scan_comes_out_upright(variant: str, turn: int) -> None:
    _, gold = phototest()
    image = Image.open(require(TESS / f"phototest-rotated-{variant}.png"))
    page = ocr_image(image, "eng", dpi=200)
    assert page.rotation == turn
    assert cer(page.text, gold) <= 0.02
    assert (page.width, page.height) == (640, 480)
    # The first line's box, mapped back, lies where that line is in the file as given.
    x0, y0, _, _ = source_box(page, next(page.lines).box)
    # 180: at the bottom; turned 90 clockwise to read, it lay with its top to the left; 270: right.
    assert {180: y0 > 300, 90: x0 < 150, 270: x0 > 330}[turn], (x0, y0)


def test_two_columns_read_column_by_column() -> None:
    linn = Image.open(require(OCRMYPDF / "linn.png"))
    columns = linn.crop((0, 1250, linn.width, 2310))  # "Recording a Sequence" to "Additional Features"
    page = ocr_image(columns, "eng", dpi=300)
    text = page.text
    left = ["Recording a Sequence", "To record a sequence", "Editing", "To erase a wrong note"]
    right = ["simply use LOCATE", "Creating a Song", "Composition Without Compromise"]
    at = {phrase: text.find(phrase) for phrase in left + right}
    assert all(i >= 0 for i in at.values()), at
    assert max(at[p] for p in left) < min(at[p] for p in right), at
    for line in page.lines:  # no line runs across the gutter
        assert not ("RECORD and PLAY" in line.text and "LOCATE" in line.text), line.text
        assert line.box[2] - line.box[0] < linn.width * 0.55


def test_a_skewed_scan_is_straightened() -> None:
    image, gold = phototest()
    tilted = as_gray(image).rotate(-4, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    page = ocr_image(tilted, "eng", dpi=200)
    assert abs(page.skew - 4.0) <= 0.2
    assert cer(page.text, gold) <= 0.02


def test_a_blank_page_has_no_text_and_no_confidence() -> None:
    page = ocr_image(Image.new("L", (1700, 2200), 255), "eng", dpi=200)
    assert page.paragraphs == () and page.confidence is None and page.text == ""
    assert (page.rotation, page.skew) == (0, 0.0)


def test_colour_and_alpha_images_are_read() -> None:
    image, gold = phototest()
    rgba = image.convert("RGBA")
    rgba.putalpha(Image.new("L", image.size, 255))
    page = ocr_image(rgba, "eng", dpi=200)
    assert cer(page.text, gold) <= 0.02


def test_the_timeout_kills_tesseract() -> None:
    image = Image.open(require(OCRMYPDF / "linn.png"))
    started = time.monotonic()
    with pytest.raises(OcrTimeoutError) as caught:
        ocr_image(image, "eng", timeout=0.3)
    assert time.monotonic() - started < 5
    assert "took too long" in caught.value.message and caught.value.hint
    alive = [p for p in psutil.Process().children(recursive=True) if "tesseract" in p.name()]
    assert not alive


def test_margin_text_reads_a_bates_stamp_with_page_boxes() -> None:
    image, _ = phototest()
    page = Image.new("L", (2550, 3300), 255)
    page.paste(image.convert("L").resize((1920, 1440)), (300, 900))
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=44)
    draw.text((1900, 3150), "ACME-0004567", fill=0, font=font)
    draw.text((200, 90), "CONFIDENTIAL", fill=0, font=font)
    lines = margin_text(page, "eng", dpi=300)
    assert [line.text for line in lines] == ["CONFIDENTIAL", "ACME-0004567"]
    top, bottom = lines[0].box, lines[1].box
    assert abs(top[0] - 200) < 20 and abs(top[1] - 100) < 30
    assert abs(bottom[0] - 1900) < 20 and abs(bottom[1] - 3160) < 30
    assert not any("quick brown" in line.text for line in lines)


# -- layout: the TSV parser and the noise rule ------------------------------------------------------

_HEADER = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"


def _row(
    block: int, par: int, line: int, word: int, box: tuple[int, int, int, int], conf: float, text: str
) -> str:
    return "\t".join(map(str, (5, 1, block, par, line, word, *box, conf, text)))


def test_parse_tsv_groups_words_and_drops_noise() -> None:
    tsv = "\n".join(
        [
            _HEADER,
            "4\t1\t1\t1\t1\t0\t10\t10\t300\t30\t-1\t",  # a line row: not a word
            _row(1, 1, 1, 1, (10, 10, 50, 30), 90.0, "Hello"),
            _row(1, 1, 1, 2, (70, 12, 60, 30), 80.0, "world"),
            _row(1, 1, 1, 3, (140, 12, 5, 5), 95.0, " "),  # empty text
            _row(1, 1, 2, 1, (10, 50, 200, 4), 30.0, "—~—"),  # a rule: no letter or digit
            _row(1, 2, 1, 1, (10, 90, 20, 20), 40.0, "aN"),  # specks
            _row(1, 2, 1, 2, (40, 90, 20, 20), -1.0, "zz"),  # a negative confidence
            _row(2, 1, 1, 1, (400, 10, 20, 30), 91.0, "2"),  # a page number: short, but sure
            "5\t1\t2\t1\t1\t2\t400\t10\tbad\t30\t91\tx",  # a malformed row
        ]
    )
    paragraphs, confidence = parse_tsv(tsv)
    assert [[line.text for line in p.lines] for p in paragraphs] == [["Hello world"], ["2"]]
    hello = paragraphs[0].lines[0]
    assert hello.box == (10, 10, 130, 42) and hello.confidence == 85.0
    assert confidence == pytest.approx((90 + 80 + 91) / 3, abs=0.01)
    assert parse_tsv(_HEADER) == ((), None)
    shifted, _ = parse_tsv(tsv, offset=(5, 100))
    assert shifted[0].lines[0].box == (15, 110, 135, 142)


@pytest.mark.parametrize(
    ("text", "confidence", "noise"),
    [
        ("—", 95.0, True),
        ("| ~ |", 20.0, True),
        ("...", 90.0, True),
        ("aN", 40.0, True),
        ("i", 49.9, True),
        ("i", 66.0, False),
        ("12", 91.0, False),
        ("§ 3", 30.0, True),
        ("Hesse", 20.0, False),
        ("Chapter 2", 16.0, False),
        ("The end.", 95.0, False),
    ],
)
def test_the_noise_rule(text: str, confidence: float, noise: bool) -> None:
    assert is_noise(text, confidence) is noise


# -- orientation and boxes --------------------------------------------------------------------------


@pytest.mark.parametrize("angle", [-7.0, -2.5, -0.8, 0.6, 1.5, 4.0])
def test_estimate_skew_finds_the_angle(angle: float) -> None:
    image, _ = phototest()
    tilted = as_gray(image).rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)
    assert abs(estimate_skew(tilted) - angle) <= 0.15


def test_estimate_skew_of_a_blank_page_is_zero() -> None:
    assert estimate_skew(Image.new("L", (800, 600), 255)) == 0.0


@pytest.mark.parametrize("mode", ["1", "L", "P", "RGB", "RGBA", "LA", "CMYK", "I;16", "I", "F"])
def test_as_gray_gives_one_channel(mode: str) -> None:
    image, _ = phototest()
    gray_in = image.convert("L")
    if mode == "I;16":
        converted = Image.fromarray(np.asarray(gray_in, dtype=np.uint16) * 257)
    else:
        converted = gray_in.convert(mode)
    assert converted.mode == mode
    gray = as_gray(converted)
    assert gray.mode in ("1", "L") and gray.size == image.size
    assert abs(float(np.asarray(gray.convert("L")).mean()) - float(np.asarray(gray_in).mean())) < 3


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
@pytest.mark.parametrize("skew", [0.0, 3.0, -2.0])
def test_source_box_inverts_the_turn_and_the_deskew(rotation: int, skew: float) -> None:
    source = Image.new("L", (600, 400), 255)
    ImageDraw.Draw(source).rectangle((100, 50, 139, 69), fill=0)
    turned = upright(source, rotation, skew)
    ys, xs = np.nonzero(np.asarray(turned) < 128)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    page = OcrPage((), None, rotation, skew, turned.width, turned.height, 0.0)
    x0, y0, x1, y1 = source_box(page, box)
    slack = 3 + math.ceil(abs(math.sin(math.radians(skew))) * 120)
    assert abs(x0 - 100) <= slack and abs(y0 - 50) <= slack
    assert abs(x1 - 140) <= slack and abs(y1 - 70) <= slack


# -- the slow tier: full pages against their references ---------------------------------------------


def _linn() -> str:
    return (OCRMYPDF / "linn.txt").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_cardinal_pages_come_out_upright(index: int) -> None:
    rendered = render_pdf_page(require(OCRMYPDF / "cardinal.pdf"), index)
    page = ocr_image(rendered.image, "eng", dpi=rendered.dpi)
    assert page.rotation == [0, 270, 180, 90][index]
    assert cer(page.text, _linn()) <= 0.02


@pytest.mark.slow
@pytest.mark.parametrize("name", ["linn.pdf", "skew.pdf", "rotated_skew.pdf"])
def test_linn_and_its_skewed_scans_meet_the_cer_target(name: str) -> None:
    rendered = render_pdf_page(require(OCRMYPDF / name), 0)
    page = ocr_image(rendered.image, "eng", dpi=rendered.dpi)
    assert cer(page.text, _linn()) <= 0.02


@pytest.mark.slow
@pytest.mark.parametrize("index", [0, 1])
def test_the_scotus_scan_matches_its_native_twin(index: int) -> None:
    rendered = render_pdf_page(require(COURTS / "image-pdf.pdf"), index)
    page = ocr_image(rendered.image, "eng", dpi=rendered.dpi)
    with pdfplumber.open(require(COURTS / "vector-pdf.pdf")) as pdf:
        reference = pdf.pages[index].extract_text()
    assert cer(page.text, reference) <= 0.02

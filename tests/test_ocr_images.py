"""casetrack.ocr.images, headers and render: image files and PDF pages as pages for OCR.

The bomb files are written here byte by byte (a valid PNG IHDR, TIFF IFDs) so they claim sizes no
real file of that size could hold; the scans are read in place from ../shared/data.
"""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, TiffImagePlugin

from casetrack.errors import CorruptFileError, EncryptedFileError, ParseError
from casetrack.ocr import (
    MAX_PIXELS,
    PIXEL_LIMIT,
    ImageTooLargeError,
    image_page_count,
    image_pages,
    pdf_page_count,
    render_pdf_page,
)
from casetrack.ocr.headers import HeaderError, declared_sizes
from casetrack.ocr.render import fitting_dpi
from tests.conftest import DATA, REPO, require

TESS = DATA / "ocr" / "tesseract_test"
OCRMYPDF = DATA / "ocr" / "ocrmypdf_resources"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def bomb_png(width: int = 50_000, height: int = 50_000) -> bytes:
    """A valid PNG header declaring `width` x `height` 8-bit grey, with a tiny IDAT."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + _chunk(b"IEND", b"")
    )


def _ifd(width: int, height: int, data_at: int, next_at: int) -> bytes:
    entries = [
        (256, 4, 1, width),
        (257, 4, 1, height),
        (258, 3, 1, 8),
        (259, 3, 1, 1),
        (262, 3, 1, 1),
        (273, 4, 1, data_at),
        (277, 3, 1, 1),
        (278, 4, 1, height),
        (279, 4, 1, width * height),
    ]
    return (
        struct.pack("<H", len(entries))
        + b"".join(struct.pack("<HHII", *e) for e in entries)
        + struct.pack("<I", next_at)
    )


def bomb_tiff(frames: list[tuple[int, int]]) -> bytes:
    """A little-endian TIFF whose IFDs declare `frames` sizes; each frame's data is 64 white bytes."""
    ifd_size = 2 + 9 * 12 + 4
    out = bytearray(b"II*\0" + struct.pack("<I", 8))
    data_at = 8 + ifd_size * len(frames)
    for i, (width, height) in enumerate(frames):
        next_at = 8 + ifd_size * (i + 1) if i + 1 < len(frames) else 0
        out += _ifd(width, height, data_at + 64 * i, next_at)
    out += b"\xff" * 64 * len(frames)
    return bytes(out)


# -- decompression bombs ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["png", "tiff"])
def test_a_gigapixel_header_is_refused_before_decoding(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"bomb.{kind}"
    path.write_bytes(bomb_png() if kind == "png" else bomb_tiff([(50_000, 50_000)]))
    started = time.perf_counter()
    with pytest.raises(ImageTooLargeError) as caught:
        next(image_pages(path))
    assert time.perf_counter() - started < 2.0  # decoding 2.5 gigapixels would take far longer
    error = caught.value
    assert isinstance(error, ParseError) and error.code == "too_large"
    assert "declares 50000 x 50000 pixels (2.5 gigapixels), over the 150-megapixel limit" in error.message
    assert error.hint and "300 DPI" in error.hint
    with pytest.raises(ImageTooLargeError):
        image_page_count(path)


def test_a_tiff_frame_claiming_gigapixels_refuses_the_file(tmp_path: Path) -> None:
    path = tmp_path / "fax.tif"
    path.write_bytes(bomb_tiff([(1728, 2200), (60_000, 40_000), (1728, 2200)]))
    assert [s for s in declared_sizes(path).sizes] == [(1728, 2200), (60_000, 40_000), (1728, 2200)]  # type: ignore[union-attr]
    with pytest.raises(
        ImageTooLargeError, match=r"fax.tif \(page 2\) declares 60000 x 40000 pixels \(2.4 gigapixels\)"
    ):
        next(image_pages(path))


def test_bombs_are_refused_in_little_memory(tmp_path: Path) -> None:
    """In a child capped at 300 MB of address space more than it has: decoding 2.5 GP would fail."""
    (tmp_path / "bomb.png").write_bytes(bomb_png())
    (tmp_path / "bomb.tif").write_bytes(bomb_tiff([(50_000, 50_000)]))
    script = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        from casetrack.ocr import ImageTooLargeError, image_pages
        vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (vm + 300 * 2**20, resource.RLIM_INFINITY))
        for name in ("bomb.png", "bomb.tif"):
            try:
                list(image_pages(Path({str(tmp_path)!r}) / name))
            except ImageTooLargeError:
                print("refused", name)
    """)
    if not Path("/proc/self/status").exists():
        pytest.skip("needs Linux /proc to size the address-space cap")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert done.stdout.split("\n")[:2] == ["refused bomb.png", "refused bomb.tif"], done.stderr


def test_formats_without_a_header_reader_are_checked_through_pil(tmp_path: Path) -> None:
    gif = (
        b"GIF89a"
        + struct.pack("<HH", 13_000, 13_000)
        + b"\x00\x00\x00"
        + b",\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;"
    )
    (tmp_path / "big.gif").write_bytes(gif)  # 169 MP: over our limit, under PIL's own hard stop
    with pytest.raises(ImageTooLargeError, match="declares 13000 x 13000 pixels"):
        next(image_pages(tmp_path / "big.gif"))
    huge = b"GIF89a" + struct.pack("<HH", 65_000, 65_000) + gif[10:]
    (tmp_path / "huge.gif").write_bytes(huge)  # PIL's DecompressionBombError, turned into ours
    with pytest.raises(ImageTooLargeError, match="150 megapixels"):
        next(image_pages(tmp_path / "huge.gif"))


def test_the_limits_fit_real_scans() -> None:
    assert 600 * 600 * 11.7 * 16.5 < PIXEL_LIMIT  # A3 at 600 DPI
    assert (
        Image.MAX_IMAGE_PIXELS is not None and PIXEL_LIMIT < Image.MAX_IMAGE_PIXELS * 2
    )  # ours, not PIL's error
    assert 300 * 300 * 8.5 * 11 < MAX_PIXELS


# -- damaged files ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("half.png", lambda: (TESS / "phototest-rotated-180.png").read_bytes()[:2600]),
        ("half.jpg", lambda: _jpeg_bytes()[:3000]),
        ("junk.png", lambda: b"this is not an image at all"),
        ("empty.tif", lambda: b""),
        ("header.tif", lambda: b"II*\0\x08\0\0\0\x09\0"),
        ("header.png", lambda: b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0"),
    ],
)
def test_damaged_images_raise_corrupt_file(tmp_path: Path, name: str, content: object) -> None:
    path = tmp_path / name
    path.write_bytes(content())  # type: ignore[operator]
    with pytest.raises(CorruptFileError) as caught:
        list(image_pages(path))
    assert caught.value.hint and name in caught.value.message


def _jpeg_bytes() -> bytes:
    out = io.BytesIO()
    Image.open(require(TESS / "phototest.tif")).convert("L").save(out, "JPEG", quality=90)
    return out.getvalue()


def test_a_damaged_page_fails_after_the_good_ones(tmp_path: Path) -> None:
    """Pages are decoded one at a time: the pages before a damaged one are yielded first."""
    path = tmp_path / "three.tif"
    pages = [Image.open(require(TESS / "phototest.tif")).convert("L")] * 3
    pages[0].save(path, save_all=True, append_images=pages[1:], compression="tiff_adobe_deflate")
    with Image.open(path) as image:
        assert isinstance(image, TiffImagePlugin.TiffImageFile)
        image.seek(2)
        offset, length = image.tag_v2[273][0], image.tag_v2[279][0]
    data = bytearray(path.read_bytes())
    data[offset + 2 : offset + length] = b"\x55" * (length - 2)
    path.write_bytes(bytes(data))
    seen = []
    with pytest.raises(CorruptFileError, match=r"three.tif, page 3,"):
        for page in image_pages(path):
            seen.append(page.index)
    assert seen == [0, 1]


# -- pages ------------------------------------------------------------------------------------------


def test_a_multi_page_tiff_yields_its_pages_one_by_one(tmp_path: Path) -> None:
    sources = [
        Image.open(require(TESS / name)) for name in ("phototest.tif", "eurotext.tif", "8087_054.3B.tif")
    ]
    path = tmp_path / "fax.tif"
    sources[0].save(path, save_all=True, append_images=sources[1:], compression="group4", dpi=(300, 300))
    assert image_page_count(path) == 3
    pages = image_pages(path)
    first = next(pages)
    assert (first.index, first.image.size, first.image.mode, first.dpi) == (0, (640, 480), "1", 300)
    rest = list(pages)
    assert [(p.index, p.image.size) for p in rest] == [(1, (1024, 800)), (2, (2560, 3300))]
    # Each page is its own copy: reading the next frame did not change the first.
    assert np.array_equal(np.asarray(first.image), np.asarray(sources[0]))


def test_single_images_are_one_page(tmp_path: Path) -> None:
    linn = require(OCRMYPDF / "linn.png")
    assert image_page_count(linn) == 1
    (page,) = image_pages(linn)
    assert page.image.mode == "L" and page.image.size == (2550, 3300) and page.dpi is None  # no pHYs
    (photo,) = image_pages(require(TESS / "phototest-rotated-180.png"))
    assert photo.dpi == 200


def test_a_fax_gets_square_pixels(tmp_path: Path) -> None:
    path = tmp_path / "standard-fax.tif"
    Image.open(require(TESS / "eurotext.tif")).resize((1024, 392)).save(
        path, dpi=(204, 98), compression="group4"
    )
    (page,) = image_pages(path)
    assert page.dpi == 204 and page.image.size == (1024, round(392 * 204 / 98))


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    image = Image.open(require(TESS / "phototest.tif")).convert("L")
    exif = Image.Exif()
    exif[0x0112] = 6  # the camera was turned: show the pixels turned 90 degrees clockwise
    path = tmp_path / "photo.jpg"
    image.save(path, "JPEG", exif=exif.tobytes(), dpi=(200, 200))
    (page,) = image_pages(path)
    assert page.image.size == (480, 640) and page.dpi == 200


def test_a_huge_jpeg_is_decoded_at_a_reduced_scale(tmp_path: Path) -> None:
    path = tmp_path / "camera.jpg"
    Image.new("L", (4000, 3000), 255).save(path, "JPEG", dpi=(600, 600))  # 12 MP
    (page,) = image_pages(path, max_pixels=2_500_000)  # decoded at 1/2 (2000 x 1500), then fitted
    assert page.image.size == (1825, 1369) and page.image.width * page.image.height <= 2_500_000
    assert page.dpi == 274  # 600 / 2 * 0.913


def test_declared_sizes_of_real_files() -> None:
    assert declared_sizes(require(TESS / "phototest.tif")).sizes == ((640, 480),)  # type: ignore[union-attr]
    assert declared_sizes(require(OCRMYPDF / "linn.png")).format == "PNG"  # type: ignore[union-attr]
    assert declared_sizes(require(OCRMYPDF / "linn.pdf")) is None


def test_a_looping_tiff_chain_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "loop.tif"
    data = bytearray(bomb_tiff([(100, 100)]))
    data[8 + 2 + 9 * 12 : 8 + 2 + 9 * 12 + 4] = struct.pack("<I", 8)  # next IFD: itself
    path.write_bytes(bytes(data))
    with pytest.raises(HeaderError, match="loops"):
        declared_sizes(path)
    with pytest.raises(CorruptFileError):
        list(image_pages(path))


# -- PDF pages --------------------------------------------------------------------------------------


def test_a_pdf_page_renders_at_300_dpi() -> None:
    page = render_pdf_page(require(OCRMYPDF / "linn.pdf"), 0)
    assert page.dpi == 300 and page.image.mode == "L"
    assert abs(page.image.width - 2550) <= 1 and abs(page.image.height - 3300) <= 1
    assert (page.width_pt, page.height_pt) == (612.0, 792.0)
    half = render_pdf_page(OCRMYPDF / "linn.pdf", 0, dpi=150)
    assert abs(half.image.width - 1275) <= 1 and abs(half.image.height - 1650) <= 1


def test_a_landscape_page_renders_as_shown() -> None:
    assert pdf_page_count(require(OCRMYPDF / "cardinal.pdf")) == 4
    page = render_pdf_page(OCRMYPDF / "cardinal.pdf", 1)
    assert page.image.width > page.image.height


def test_a_huge_page_is_rendered_within_the_pixel_cap() -> None:
    page = render_pdf_page(require(OCRMYPDF / "poster.pdf"), 0)  # 25 x 50 inches
    assert page.image.width * page.image.height <= MAX_PIXELS
    assert page.dpi == 178 and abs(page.image.width - 25 * 178) <= 1
    small = render_pdf_page(require(OCRMYPDF / "2400dpi.pdf"), 0)  # a 2400 DPI image on a small page
    assert small.dpi == 300 and small.image.size[0] <= 510


def test_fitting_dpi() -> None:
    assert fitting_dpi(612, 792, 300) == 300
    assert fitting_dpi(8400, 8400, 300) == 54
    assert fitting_dpi(1800, 3600, 300, max_pixels=10_000_000) == 89


@pytest.mark.slow
def test_the_hugemono_page_is_capped() -> None:
    page = render_pdf_page(require(OCRMYPDF / "hugemono.pdf"), 0)  # 116 inches square
    assert page.dpi == 54 and page.image.width * page.image.height <= MAX_PIXELS


def test_pdf_errors_are_parse_errors(tmp_path: Path) -> None:
    with pytest.raises(CorruptFileError):
        render_pdf_page(require(OCRMYPDF / "invalid.pdf"), 0)
    protected = require(DATA / "pdf_robustness" / "pdfplumber_tests" / "pdfs" / "password-example.pdf")
    with pytest.raises(EncryptedFileError):
        render_pdf_page(protected, 0)
    assert render_pdf_page(protected, 0, password="test").image.width > 0
    with pytest.raises(CorruptFileError):
        pdf_page_count(tmp_path / "missing.pdf")
    with pytest.raises(IndexError):
        render_pdf_page(OCRMYPDF / "linn.pdf", 1)

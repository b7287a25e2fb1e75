"""Image files as pages for OCR: PNG, JPEG, TIFF (multi-page TIFF, fax) and whatever else PIL opens.

* `image_page_count(path)`: a TIFF has one page per frame; every other image is one page.
* `image_pages(path)` yields `ScanPage`s one at a time (a 500-page fax is never all in memory);
  each is grey or 1-bit, upright per its EXIF orientation, with square pixels (a 204 x 98 DPI
  fax is stretched to 204 x 204) and at most `max_pixels` (render.MAX_PIXELS, 40 MP: bigger pages
  are scaled down, a JPEG decoded at a reduced scale). `ScanPage.dpi` is the resolution after that,
  None when the file does not say (or says 72/96, a screen default): tesseract then estimates it.

Decompression bombs: the declared sizes of every frame are read from the header before anything
is decoded (`headers.declared_sizes`), and a file is refused with `ImageTooLargeError` when one
frame is over PIXEL_LIMIT. 150 megapixels holds a 600 DPI A3 scan (70 MP) and a 1200 DPI letter
scan (135 MP) and stays under PIL's own hard stop (179 MP), so PIL's DecompressionBombError never
pre-empts our message; its warning (89-179 MP) is silenced because the size was checked. A damaged
or truncated file raises `CorruptFileError`, never a decoder traceback.
"""

from __future__ import annotations

import math
import struct
import warnings
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from casetrack.errors import CorruptFileError, ImageTooLargeError
from casetrack.ocr.headers import Declared, HeaderError, declared_sizes
from casetrack.ocr.orient import as_gray
from casetrack.ocr.render import MAX_PIXELS

PIXEL_LIMIT = 150_000_000
_SCREEN_DPI = {72, 96}  # what software writes when it knows nothing
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error, zlib.error)


@dataclass(frozen=True)
class ScanPage:
    index: int  # 0-based page (frame) of the file
    image: Image.Image  # mode "1" or "L"
    dpi: int | None  # None: unknown, let tesseract estimate it


def _pixels(count: int) -> str:
    return f"{count / 1e9:.1f} gigapixels" if count >= 1e9 else f"{count / 1e6:.0f} megapixels"


def _refuse(name: str, width: int, height: int, limit: int, page: int | None) -> ImageTooLargeError:
    where = f" (page {page + 1})" if page is not None else ""
    return ImageTooLargeError(
        f"{name}{where} declares {width} x {height} pixels ({_pixels(width * height)}), over the "
        f"{limit / 1e6:.0f}-megapixel limit; it was not decoded (it may be a decompression bomb).",
        "Re-scan or export it at 300 DPI (a letter page is 2550 x 3300 pixels) and ingest that file.",
    )


def _corrupt(name: str, error: BaseException, page: int | None = None) -> CorruptFileError:
    where = f", page {page + 1}," if page is not None else ""
    return CorruptFileError(
        f"{name}{where} is damaged or cut short and cannot be read as an image ({error}).",
        "Open it in an image viewer; re-scan or re-save it and ingest it again.",
    )


def _check_header(path: Path, limit: int) -> Declared | None:
    try:
        declared = declared_sizes(path)
    except (HeaderError, struct.error) as e:
        raise _corrupt(path.name, e) from e
    except OSError as e:
        raise CorruptFileError(
            f"{path.name} could not be read ({e.strerror or e}).",
            "Check that the file exists and is readable.",
        ) from e
    sizes = declared.sizes if declared else ()
    for page, (width, height) in enumerate(sizes):
        if width * height > limit:
            raise _refuse(path.name, width, height, limit, page if len(sizes) > 1 else None)
        if width == 0 or height == 0:
            raise _corrupt(path.name, ValueError("it declares no pixels"), page)
    return declared


@contextmanager
def _opened(path: Path, limit: int) -> Iterator[Image.Image]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # sizes checked first
            image = Image.open(path)
    except Image.DecompressionBombError as e:
        raise ImageTooLargeError(
            f"{path.name} declares more than {limit / 1e6:.0f} megapixels; it was not decoded.",
            "Re-scan or export it at 300 DPI and ingest that file.",
        ) from e
    except UnidentifiedImageError as e:
        raise CorruptFileError(
            f"{path.name} is not an image this program can read.",
            "Save it as PNG, JPEG or TIFF and ingest it again.",
        ) from e
    except _DECODE_ERRORS as e:
        raise _corrupt(path.name, e) from e
    with image:
        yield image


def _frames(image: Image.Image) -> int:
    return int(getattr(image, "n_frames", 1)) if image.format == "TIFF" else 1


def image_page_count(path: Path, pixel_limit: int = PIXEL_LIMIT) -> int:
    """Pages of an image file: a TIFF's frames, otherwise 1."""
    declared = _check_header(path, pixel_limit)
    if declared is not None:
        return len(declared.sizes) if declared.format == "TIFF" else 1
    with _opened(path, pixel_limit) as image:
        try:
            return _frames(image)
        except _DECODE_ERRORS as e:
            raise _corrupt(path.name, e) from e


def _dpi(value: object) -> tuple[float, float] | None:
    """A plausible (x, y) resolution from PIL's info["dpi"], else None."""
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    try:
        x, y = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        return None
    if not (70 <= x <= 2400 and 70 <= y <= 2400) or (round(x) == round(y) and round(x) in _SCREEN_DPI):
        return None
    return x, y


def _draft(frame: Image.Image, max_pixels: int) -> float:
    """Let a JPEG decode at 1/2, 1/4 or 1/8 scale when it is far over `max_pixels`; the scale used."""
    width, height = frame.size
    if frame.format != "JPEG" or width * height <= max_pixels:
        return 1.0
    f = math.sqrt(max_pixels / (width * height))
    frame.draft("L", (math.ceil(width * f), math.ceil(height * f)))
    return frame.size[0] / width


def prepare(frame: Image.Image, max_pixels: int = MAX_PIXELS) -> tuple[Image.Image, int | None]:
    """A decoded frame as a page for OCR (module docstring) and its DPI (None: unknown)."""
    dpi = _dpi(frame.info.get("dpi"))
    scale = _draft(frame, max_pixels)
    frame.load()
    before = frame.size
    image = ImageOps.exif_transpose(frame) or frame
    if dpi:
        dpi = (dpi[0] * scale, dpi[1] * scale)
        if image.size != before and image.size == before[::-1]:
            dpi = (dpi[1], dpi[0])
    image = as_gray(image)
    size = image.size
    if dpi and abs(dpi[0] - dpi[1]) > 0.1 * max(dpi):  # fax: stretch the coarse axis
        size = (round(size[0] * max(dpi) / dpi[0]), round(size[1] * max(dpi) / dpi[1]))
        dpi = (max(dpi), max(dpi))
    if size[0] * size[1] > max_pixels:
        f = math.sqrt(max_pixels / (size[0] * size[1]))
        size = (max(1, math.floor(size[0] * f)), max(1, math.floor(size[1] * f)))
        dpi = (dpi[0] * f, dpi[1] * f) if dpi else None
    if size != image.size:
        gray = image.convert("L") if image.mode != "L" else image
        image = gray.resize(size, Image.Resampling.LANCZOS, reducing_gap=2.0)
    return image, round(dpi[0]) if dpi else None


def image_pages(
    path: Path, *, pixel_limit: int = PIXEL_LIMIT, max_pixels: int = MAX_PIXELS
) -> Iterator[ScanPage]:
    """The pages of an image file, one at a time, ready for `ocr_image` (module docstring)."""
    _check_header(path, pixel_limit)
    with _opened(path, pixel_limit) as image:
        try:
            count = _frames(image)
        except _DECODE_ERRORS as e:
            raise _corrupt(path.name, e) from e
        for index in range(count):
            page = index if count > 1 else None
            try:
                image.seek(index)
                width, height = image.size
                if width * height > pixel_limit:  # a frame the header walk did not see
                    raise _refuse(path.name, width, height, pixel_limit, page)
                frame, dpi = prepare(image, max_pixels)
            except ImageTooLargeError:
                raise
            except Image.DecompressionBombError as e:
                raise _refuse(path.name, *image.size, pixel_limit, page) from e
            except (*_DECODE_ERRORS, MemoryError) as e:
                raise _corrupt(path.name, e, page) from e
            yield ScanPage(index, frame, dpi)

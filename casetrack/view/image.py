"""Page pictures: a PDF page or a scan drawn as PNG (what `get_page_image` returns), and a page
with its cited lines highlighted (`casetrack show --out page.png`), drawn here with the same
boxes the HTML view draws.

A text page (DOCX, TXT, RTF, HTML, e-mail, or a PDF whose original is gone) has no picture: its
highlighted PNG is its lines typeset with their numbers, the cited ones marked.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from casetrack.view.records import PageView

MAX_WIDTH = 2400  # pixels: a page image wider than this is not asked for (a 300-DPI letter page is 2550)
DEFAULT_WIDTH = 1200
HIGHLIGHT = (255, 213, 0, 110)  # translucent yellow, as the HTML view draws it
HIGHLIGHT_EDGE = (230, 160, 0, 255)
PAD = 2.0  # points around a line's box, so the highlight covers the glyphs' ascenders and descenders


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def render_page(path: Path, file_type: str, page_index: int, width_px: int) -> Image.Image:
    """The page as shown, `width_px` wide (at most MAX_WIDTH), in RGB."""
    width_px = max(100, min(int(width_px), MAX_WIDTH))
    if file_type == "image":
        return _image_page(path, page_index, width_px)
    import pypdfium2 as pdfium

    from casetrack.ocr import PDFIUM_LOCK

    with PDFIUM_LOCK:
        doc = pdfium.PdfDocument(path)
        try:
            page = doc[page_index]
            try:
                w_pt, _h_pt = page.get_size()
                bitmap = page.render(scale=width_px / float(w_pt))
                image: Image.Image = bitmap.to_pil().convert("RGB")
                bitmap.close()
            finally:
                page.close()
        finally:
            doc.close()
    return image


def _image_page(path: Path, page_index: int, width_px: int) -> Image.Image:
    from casetrack.ocr import image_pages

    for scan in image_pages(path):
        if scan.index == page_index:
            frame = scan.image.convert("RGB")
            scan.image.close()
            scale = width_px / frame.width
            return frame.resize((width_px, max(1, round(frame.height * scale))))
        scan.image.close()
    raise IndexError(f"{path.name} has no page {page_index + 1}")


def page_png(path: Path, file_type: str, page_index: int, width_px: int = DEFAULT_WIDTH) -> bytes:
    """The page as a PNG (no highlight: the view draws it over the picture)."""
    return _png(render_page(path, file_type, page_index, width_px))


def highlighted(view: PageView, picture: Image.Image | None) -> Image.Image:
    """The page with its cited lines highlighted: the picture with a box over each cited line, or,
    without one, the page's lines typeset."""
    if picture is None or view.width is None:
        return _text_page(view)
    scale = picture.width / view.width
    overlay = Image.new("RGBA", picture.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in view.highlights:
        draw.rectangle(
            (
                (box.x0 - PAD) * scale,
                (box.top - PAD) * scale,
                (box.x1 + PAD) * scale,
                (box.bottom + PAD) * scale,
            ),
            fill=HIGHLIGHT,
            outline=HIGHLIGHT_EDGE,
        )
    return Image.alpha_composite(picture.convert("RGBA"), overlay).convert("RGB")


def _font(size: int) -> Any:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType: the bitmap font
        return ImageFont.load_default()


def _text_page(view: PageView, width: int = 1200, size: int = 18) -> Image.Image:
    font = _font(size)
    pitch = int(size * 1.6)
    top = 3 * pitch
    lines = view.lines or ()
    height = top + pitch * (len(lines) + 2)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    title = f"{view.document}" + (f", p. {view.page}" if view.page is not None else "")
    draw.text((24, pitch), title, fill="black", font=font)
    for i, line in enumerate(lines):
        y = top + i * pitch
        if line.cited:
            draw.rectangle((90, y - 3, width - 16, y + pitch - 5), fill=(255, 231, 128))
        draw.text((24, y), f"{line.number:>5}", fill=(120, 120, 120), font=font)
        draw.text((100, y), line.text[:140], fill="black", font=font)
    return image


def highlighted_png(view: PageView, path: Path | None, width_px: int = DEFAULT_WIDTH) -> bytes:
    """`highlighted` as PNG bytes; the picture is drawn when the view has one."""
    picture = None
    if view.kind == "image" and path is not None and view.file_type:
        picture = render_page(path, view.file_type, view.page_index, width_px)
    return _png(highlighted(view, picture))

"""Test documents made on the spot: native-text PDFs (written by hand, Helvetica), their scans
(rendered with pdfium and saved as image-only PDFs or TIFFs) and mixed PDFs (pages of both)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PIL import Image

LETTER = (612, 792)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def text_pdf(
    path: Path, pages: Sequence[Sequence[str]], stamps: Sequence[str | None] | None = None, size: int = 12
) -> Path:
    """A PDF with one page per item of `pages` (its lines, top to bottom, 1.5 line spacing) and,
    when given, a production stamp at the bottom right of each page."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    kids = []
    for i, lines in enumerate(pages):
        ops = [f"BT /F1 {size} Tf {1.5 * size:.1f} TL 72 720 Td"]
        ops += [f"({_escape(line)}) Tj T*" for line in lines]
        ops.append("ET")
        stamp = stamps[i] if stamps and i < len(stamps) else None
        if stamp:
            ops.append(f"BT /F1 10 Tf 430 36 Td ({_escape(stamp)}) Tj ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {LETTER[0]} {LETTER[1]}] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {content} 0 R >>".encode()
        )
        kids.append(len(objects))
    objects[1] = (
        f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def page_images(pdf: Path, dpi: int = 300) -> list[Image.Image]:
    """Each page of `pdf` rendered as a greyscale image, as a scanner would see it."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf))
    try:
        return [doc[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L") for i in range(len(doc))]
    finally:
        doc.close()


def scanned_pdf(path: Path, images: Sequence[Image.Image], dpi: int = 300) -> Path:
    """An image-only PDF (no text layer) of `images`, one page each."""
    first, *rest = images
    first.save(path, "PDF", resolution=dpi, save_all=True, append_images=list(rest))
    return path


def tiff(path: Path, images: Sequence[Image.Image], dpi: int = 300) -> Path:
    """A multi-page TIFF (a fax) of `images`."""
    first, *rest = [im.convert("1") for im in images]
    first.save(path, "TIFF", save_all=True, append_images=rest, compression="group4", dpi=(dpi, dpi))
    return path


def merged_pdf(path: Path, parts: Sequence[tuple[Path, int]]) -> Path:
    """A PDF of the pages given as (pdf, 0-based page index), in that order."""
    import pypdfium2

    out = pypdfium2.PdfDocument.new()
    for source, index in parts:
        doc = pypdfium2.PdfDocument(str(source))
        out.import_pages(doc, [index])
        doc.close()
    out.save(str(path))
    out.close()
    return path

"""Transcripts made on the spot, for tests and bench/transcripts.py: a stamped, line-numbered
deposition (cover page plus an excerpt of printed pages 44-48) as a native PDF written by hand
(Courier, margin numbers right-aligned in the left margin, "Page N" at the top right, a Bates
stamp and the reporter's footer at the bottom), the same pages condensed four to a sheet (2x2,
read down the left column, then down the right, as condensed transcripts print them), and a
hearing transcript as plain text (the court reporter's ASCII: page number at the top right,
form feed between pages); and any of these PDFs "scanned" (`scanned_images`: grey, turned a little,
grainy) for OCR, kept as a greyscale TIFF (`grey_tiff`) or an image-only PDF."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

LETTER = (612.0, 792.0)
LINES = 25

# One transcript page: its printed number and its 25 lines ("" for a blank numbered line).
COVER = (
    1,
    (
        "IN THE UNITED STATES DISTRICT COURT",
        "FOR THE NORTHERN DISTRICT OF ILLINOIS",
        "",
        "HARBOR FREIGHT LOGISTICS, INC.,      )",
        "                 Plaintiff,          )",
        "       v.                            )  No. 1:21-cv-04417",
        "MERIDIAN COLD STORAGE, LLC,          )",
        "                 Defendant.          )",
        "",
        "       VIDEOTAPED DEPOSITION OF JOHN A. SMITH",
        "                 Chicago, Illinois",
        "              Tuesday, March 8, 2022",
        "",
        "      The videotaped deposition of JOHN A. SMITH,",
        "called as a witness by the Defendant, taken before",
        "Karen L. Ostrowski, Certified Shorthand Reporter,",
        "at 200 West Madison Street, Suite 3900, Chicago,",
        "Illinois, commencing at 9:14 a.m.",
        "",
        "APPEARANCES:",
        "      MS. RACHEL ODUYA, Brandt & Kessler LLP,",
        "      on behalf of the Plaintiff;",
        "      MR. DAVID PELLEGRINO, Whitcombe Shaw LLP,",
        "      on behalf of the Defendant.",
        "",
    ),
)

EXCERPT = (
    (
        44,
        (
            "Q.   When did you first visit the Joliet warehouse?",
            "A.   In the second week of January 2021, I believe",
            "it was the eleventh.",
            "Q.   Who went with you on that visit?",
            "A.   Tom Becker, our regional safety manager, and",
            "one of the drivers, Luis Ortega.",
            "Q.   What did you see when you arrived?",
            "A.   The loading dock doors on the east side were",
            "stuck half open. There was frost on the inside of",
            "the trailers that had been parked there overnight.",
            "Q.   Did you take any photographs?",
            "A.   Yes. I took about thirty photographs with my",
            "phone and sent them to our insurance broker the",
            "same afternoon.",
            "Q.   Did you speak with anyone from Meridian that",
            "day?",
            "A.   I spoke with the site supervisor, a man named",
            "Gary Hollis. He told me the compressor on unit",
            "four had failed over the weekend and that a",
            "technician was on the way.",
            "Q.   Did he say when the compressor had failed?",
            "A.   He said Saturday night, around eleven.",
            "",
            "Q.   What did you do after that conversation?",
            "A.   I called our dispatcher and told her to stop",
        ),
    ),
    (
        45,
        (
            "routing refrigerated loads to Joliet until further",
            "notice.",
            "Q.   Mr. Smith, I'm handing you what has been marked",
            "as Exhibit 14. Do you recognize this document?",
            "A.   Yes. That is the temperature log for cold room",
            "B from January 9 through January 12.",
            "Q.   Where did you get this log?",
            "A.   Gary Hollis e-mailed it to me on January 13 at",
            "my request.",
            "Q.   Can you read the reading for Sunday at 6:00",
            "a.m.?",
            "A.   It says 47 degrees Fahrenheit.",
            "Q.   And what temperature was cold room B supposed",
            "to hold under the storage agreement?",
            "A.   Thirty-eight degrees or below, at all times.",
            "",
            "MR. PELLEGRINO:   Objection, calls for a legal",
            "conclusion.",
            "BY MS. ODUYA:",
            "Q.   You can answer.",
            "A.   My understanding was thirty-eight or below.",
            "That was the number in the rate sheet, and it was",
            "the number we quoted to our customers.",
            "Q.   How much product was in cold room B that",
            "weekend?",
        ),
    ),
    (
        46,
        (
            "A.   About 1,150 cases of frozen seafood for Lakeshore",
            "Provisions and some dairy for another customer.",
            "Q.   What happened to the seafood?",
            "A.   Lakeshore rejected all of it. Their quality",
            "manager came out on the fourteenth, probed the",
            "cases and refused the whole lot.",
            "Q.   Did Harbor Freight pay Lakeshore for the loss?",
            "A.   We credited them $212,400 against their",
            "February invoices.",
            "Q.   Who approved that credit?",
            "A.   I did, with our CFO, Ellen Marsh.",
            "Q.   Before January 2021, had you ever complained to",
            "Meridian about temperatures at Joliet?",
            "A.   Yes, twice. Once in August 2020 about a door",
            "seal and once in November about an alarm that did",
            "not go off.",
            "Q.   Were those complaints in writing?",
            "A.   The November one was. I sent an e-mail to",
            "Gary Hollis and copied their account manager.",
            "",
            "Q.   Did Meridian respond?",
            "A.   They said the alarm had been reset and tested.",
            "Q.   Did you check whether it had been tested?",
            "A.   No. I took them at their word. In hindsight",
            "that was a mistake.",
        ),
    ),
    (
        47,
        (
            "Q.   Let's talk about the contract itself. Who",
            "negotiated the storage agreement for Harbor",
            "Freight?",
            "A.   I did, together with our outside counsel.",
            "Q.   Did you read section 9 before you signed it?",
            "A.   I read the whole agreement. Section 9 is the",
            "limitation of liability clause.",
            "Q.   What is your understanding of that clause?",
            "A.   That Meridian's liability for lost goods is",
            "capped at fifty cents per pound unless we declared",
            "a higher value in writing.",
            "Q.   Did Harbor Freight ever declare a higher value",
            "for the Lakeshore product?",
            "A.   Not in a separate document, no. But the rate",
            "sheet listed the product as seafood and the",
            "insurance certificate showed the values.",
            "Q.   Is the rate sheet part of the agreement?",
            "A.   I always understood it to be. It is attached as",
            "Schedule B.",
            "",
            "Q.   Did anyone at Meridian ever tell you that the",
            "cap would apply to a compressor failure?",
            "A.   No. Nobody ever raised it until after the loss.",
            "Q.   When did you first hear about the cap from",
            "Meridian?",
        ),
    ),
    (
        48,
        (
            "A.   In a letter from their general counsel dated",
            "March 2, 2021. It offered $18,975 and said that",
            "was the most we could recover.",
            "Q.   Did you respond to that letter?",
            "A.   Our counsel did. We rejected the offer.",
            "Q.   Mr. Smith, have you discussed your testimony",
            "today with anyone other than your lawyers?",
            "A.   No.",
            "Q.   Did you review any documents to prepare?",
            "A.   I reviewed the temperature logs, my e-mails",
            "with Gary Hollis and the Lakeshore rejection",
            "notice.",
            "MS. ODUYA:   I have nothing further at this time.",
            "MR. PELLEGRINO:   I have a few questions.",
            "",
            "              CROSS-EXAMINATION",
            "BY MR. PELLEGRINO:",
            "Q.   Mr. Smith, Harbor Freight never bought extra",
            "insurance from Meridian, correct?",
            "A.   That's correct. We had our own cargo policy.",
            "Q.   And your cargo insurer paid part of this claim?",
            "A.   They paid $150,000 after the deductible.",
            "Q.   So the net loss to Harbor Freight was about",
            "$62,400?",
            "A.   Before legal fees, yes.",
        ),
    ),
)

DEPOSITION = (COVER, *EXCERPT)
BATES_PREFIX = "HFL"
BATES_FIRST = 1201
FOOTER = "OSTROWSKI REPORTING (312) 555-0148"

HEARING = (
    (
        1,
        (
            "UNITED STATES DISTRICT COURT",
            "DISTRICT OF MASSACHUSETTS",
            "",
            "ORCHARD MEDICAL SUPPLY CO.,       )",
            "          Plaintiff,              )",
            "     v.                           )  Civil Action",
            "BAYVIEW HEALTH PARTNERS,          )  No. 22-10388",
            "          Defendant.              )",
            "",
            "   TRANSCRIPT OF MOTION HEARING",
            "   BEFORE THE HONORABLE MARGARET T. QUINLAN",
            "   UNITED STATES DISTRICT JUDGE",
            "",
            "   John Joseph Moakley United States Courthouse",
            "   Courtroom No. 11",
            "   Boston, Massachusetts",
            "   June 14, 2023, 2:05 p.m.",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
        ),
    ),
    (
        2,
        (
            "         P R O C E E D I N G S",
            "THE CLERK:   Civil action 22-10388, Orchard Medical",
            "Supply versus Bayview Health Partners.",
            "THE COURT:   Good afternoon. We are here on the",
            "defendant's motion to compel the production of the",
            "plaintiff's pricing spreadsheets. Mr. Okafor?",
            "MR. OKAFOR:   Thank you, Your Honor. The requests",
            "go to the heart of the rebate dispute. Orchard says",
            "it was underpaid on eleven invoices in 2021, but it",
            "will not produce the spreadsheets it used to",
            "calculate those invoices.",
            "THE COURT:   Ms. Lindqvist, why not produce them?",
            "MS. LINDQVIST:   They hold the margins for every",
            "other customer, Your Honor. We offered a redacted",
            "set limited to the Bayview accounts.",
            "THE COURT:   I am going to grant the motion in part.",
            "The plaintiff will produce the Bayview tabs in",
            "native form within fourteen days, under the",
            "attorneys' eyes only tier of the protective order.",
            "The other customers' tabs stay out for now.",
            "MR. OKAFOR:   Understood, Your Honor.",
            "THE COURT:   Anything else today? Then we are",
            "adjourned.",
            "(Whereupon the hearing concluded at 2:31 p.m.)",
            "",
        ),
    ),
)


@dataclass(frozen=True)
class Text:
    """A string drawn at (x, y) in points from the bottom left, in Courier (or Helvetica)."""

    x: float
    y: float
    size: float
    text: str
    font: str = "F1"  # F1 Courier, F2 Helvetica


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_pdf(path: Path, pages: Sequence[Sequence[Text]], size: tuple[float, float] = LETTER) -> Path:
    """A PDF with one page per item of `pages`, each string drawn where it says."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    kids = []
    for items in pages:
        ops = [
            f"BT /{t.font} {t.size:g} Tf 1 0 0 1 {t.x:.2f} {t.y:.2f} Tm ({_escape(t.text)}) Tj ET"
            for t in items
        ]
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {size[0]:g} {size[1]:g}] "
            f"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents {len(objects)} 0 R >>".encode()
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


def _courier_width(text: str, size: float) -> float:
    return 0.6 * size * len(text)


def page_items(
    number: int,
    lines: Sequence[str],
    box: tuple[float, float, float, float],
    size: float,
    stamp: str | None = None,
    footer: str | None = None,
) -> list[Text]:
    """One transcript page laid out in `box` (x0, y0, x1, y1): "Page N" at the top right, the 25
    margin numbers right-aligned left of the text, the footer centred and the stamp at the bottom
    right."""
    x0, y0, x1, y1 = box
    width, height = x1 - x0, y1 - y0
    pitch = 0.82 * height / (LINES + 2)
    top = y1 - 0.09 * height
    number_right = x0 + 0.16 * width
    text_x = x0 + 0.2 * width
    header = f"Page {number}"
    items = [Text(x1 - 0.08 * width - _courier_width(header, size), y1 - 0.05 * height, size, header)]
    for i, line in enumerate(lines, start=1):
        y = top - i * pitch
        label = str(i)
        items.append(Text(number_right - _courier_width(label, size), y, size, label))
        if line:
            items.append(Text(text_x, y, size, line))
    if footer:
        items.append(
            Text(
                x0 + (width - _courier_width(footer, size * 0.8)) / 2, y0 + 0.05 * height, size * 0.8, footer
            )
        )
    if stamp:
        items.append(
            Text(
                x1 - 0.06 * width - _courier_width(stamp, size * 0.8), y0 + 0.025 * height, size * 0.8, stamp
            )
        )
    return items


def bates(pdf_page: int) -> str:
    return f"{BATES_PREFIX}{BATES_FIRST + pdf_page - 1:07d}"


def deposition_pdf(path: Path, pages: Sequence[tuple[int, Sequence[str]]] = DEPOSITION) -> Path:
    """The deposition, one transcript page per PDF page, each stamped HFL000120N."""
    box = (0.0, 0.0, *LETTER)
    return write_pdf(
        path, [page_items(n, lines, box, 12, bates(i), FOOTER) for i, (n, lines) in enumerate(pages, start=1)]
    )


def condensed_pdf(path: Path, pages: Sequence[tuple[int, Sequence[str]]] = DEPOSITION) -> Path:
    """The deposition condensed four pages to a landscape-free letter sheet: top left, bottom left,
    top right, bottom right."""
    w, h = LETTER
    quadrants = [
        (36, h / 2, w / 2 - 6, h - 36),
        (36, 36, w / 2 - 6, h / 2),
        (w / 2 + 6, h / 2, w - 36, h - 36),
        (w / 2 + 6, 36, w - 36, h / 2),
    ]
    sheets: list[list[Text]] = []
    for start in range(0, len(pages), 4):
        items: list[Text] = []
        for (n, lines), box in zip(pages[start : start + 4], quadrants, strict=False):
            items += page_items(n, lines, box, 5.6)
        sheets.append(items)
    return write_pdf(path, sheets)


def hearing_txt(path: Path, pages: Sequence[tuple[int, Sequence[str]]] = HEARING) -> Path:
    """The hearing as a court reporter's ASCII file: the page number right-aligned on the first
    line of each page, numbered lines double-spaced, a form feed between pages."""
    out: list[str] = []
    for k, (n, lines) in enumerate(pages):
        out.append(("\f" if k else "") + f"{n:>64}")
        out.append("")
        for i, line in enumerate(lines, start=1):
            out.append(f"{i:>2}   {line}".rstrip())
            out.append("")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def printed(pages: Sequence[tuple[int, Sequence[str]]], page: int, line: int) -> str:
    """The text of printed page:line."""
    return dict(pages)[page][line - 1]


def scanned_images(pdf: Path, dpi: int = 200, angle: float = 1.2, noise: float = 18.0) -> list[Image.Image]:
    """Each page of `pdf` as a scanner gives it back: rendered in grey at `dpi`, turned `angle`
    degrees (one way on odd pages, the other on even ones), with grain (Gaussian, sigma `noise`
    grey levels), dark specks and a slight blur; the same pixels on every call."""
    import numpy as np
    import pypdfium2
    from PIL import ImageFilter

    doc = pypdfium2.PdfDocument(str(pdf))
    try:
        pages = [doc[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L") for i in range(len(doc))]
    finally:
        doc.close()
    out = []
    for k, page in enumerate(pages):
        rng = np.random.default_rng(k)
        turned = page.rotate(angle if k % 2 else -angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
        grey = np.asarray(turned, dtype=np.float32) + rng.normal(0.0, noise, (turned.height, turned.width))
        grey[rng.random(grey.shape) < 0.0008] = 0.0
        out.append(
            Image.fromarray(np.clip(grey, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6))
        )
    return out


def grey_tiff(path: Path, images: Sequence[Image.Image], dpi: int = 200) -> Path:
    """A multi-page greyscale TIFF of `images` (a scanner's, not a fax's: no dithering)."""
    first, *rest = images
    first.save(path, "TIFF", save_all=True, append_images=rest, compression="tiff_deflate", dpi=(dpi, dpi))
    return path

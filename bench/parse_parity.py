"""Parser parity: a fixed sample of files parsed through `parse_file`, one digest per file, so a
change to casetrack/parse/ that should change nothing can be shown to change nothing.

The sample (`sample`): real files from ../shared/data (US court filings incl. scans, the
pdfplumber / pypdf / pdf.js / py-pdf robustness PDFs incl. encrypted and damaged ones, CUAD PDFs
incl. the two ABBYY scans, OCR test images and scanned PDFs, DOCX fixtures, LeNER-Br and CUAD
texts, Markdown, HTML, unsupported formats) plus files made here from real text, for the formats
../shared/data has none of: RTF (code pages, tables, footnotes, lists, hidden and deleted text,
fields, truncated and broken files), e-mails (plain, alternative, HTML with struck text,
mislabelled charsets, attachments, a forwarded message, a damaged multipart, a mailbox), and
tests/transcript_maker.py's deposition (stamped, line-numbered), its condensed sheets, a hearing
.txt and a scan of the deposition (TIFF and image-only PDF), tests/pdf_maker.py's Bates-stamped
pages. Some files are parsed a second time with a password (encrypted PDFs) or
`keep_revoked=True` (DOCX, HTML, e-mail).

Each digest: file type, title, warnings, transcript label, the page progress calls, and per page
its number, a hash of its text, of its line spans, of its paragraph spans and kinds, of its line
confidences and transcript pages, its extraction method, OCR flags and confidence, its Bates stamp
and a hash of the whole `Page`; or the error's class, message and hint. Paths of the data and of
the scratch folder are written as <data> and <made>, so two runs compare.

A file that takes longer than --budget seconds (20) in the run that writes the baseline is kept out
of the sample (listed as skipped); a run given --against parses the baseline's files only and
prints every difference.

Usage:
  python bench/parse_parity.py --out /tmp/parity_before.json
  python bench/parse_parity.py --out /tmp/parity_after.json --against /tmp/parity_before.json
  (--isolated parses in the daemon's parser child process, parse/isolated.py)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.domain import Page, ParsedDocument  # noqa: E402
from casetrack.errors import CaseTrackError  # noqa: E402

DATA = REPO.parent / "shared" / "data"
BUDGET_S = 20.0


@dataclass(frozen=True)
class Case:
    """One parse: the file, its key in the digest file and the options it is parsed with."""

    path: Path
    key: str
    password: str | None = None
    keep_revoked: bool = False


# --------------------------------------------------------------------------------------------
# the sample
# --------------------------------------------------------------------------------------------


def pick(paths: Iterable[Path], n: int) -> list[Path]:
    """`n` files spread evenly over the sorted list (all when there are fewer)."""
    ordered = sorted(p for p in paths if p.is_file())
    if len(ordered) <= n:
        return ordered
    step = len(ordered) / n
    return [ordered[int(i * step)] for i in range(n)]


def real_files() -> list[Path]:
    courts = DATA / "legal_docs_us_courts"
    robust = DATA / "pdf_robustness"
    cuad = DATA / "legal_span_bench/cuad_pdf"
    ocr = DATA / "ocr"
    files = (
        pick(courts.rglob("*"), 60)  # every filing, scan, .doc, .docx, .wpd, .txt
        + pick((robust / "pdfplumber_tests/pdfs").iterdir(), 18)
        + [robust / "pdfplumber_tests/pdfs/scotus-transcript-p1.pdf"]
        + pick((robust / "pypdf_resources").glob("*.pdf"), 8)
        + pick((robust / "pypdf_resources/encryption").glob("*.pdf"), 4)
        + pick((robust / "pdfjs_subset").glob("*.pdf"), 12)
        + pick((robust / "py-pdf_sample-files").rglob("*.pdf"), 5)
        + pick((robust / "py-pdf_sample-files").rglob("*.odt"), 1)
        + [robust / "py-pdf_sample-files/015-arabic/habibi.html"]
        + pick(cuad.rglob("*.pdf"), 8)
        + [p for p in cuad.rglob("*") if p.name.upper().startswith(("PRIMEENERGY", "WESTERN COPPER"))]
        + pick((ocr / "tesseract_test").glob("*.png"), 3)
        + pick((ocr / "tesseract_test").glob("*.tif"), 4)
        + pick((ocr / "ocrmypdf_resources").iterdir(), 6)
        + pick((DATA / "docx").rglob("*.docx"), 200)  # all of them: fast
        + pick((DATA / "docx").rglob("*.md"), 3)
        + pick((DATA / "lener_br/raw_text").glob("*.txt"), 4)
        + pick((DATA / "legal_span_bench/corpus/cuad").glob("*.txt"), 2)
        + pick((DATA / "acord").rglob("*.xlsx"), 1)
        + [
            REPO / "casetrack/samples/peticao_inicial.md",
            REPO / "tests/fixtures/planalto_lei_8112_fragment.htm",
        ]
    )
    return list(dict.fromkeys(files))


def passwords() -> dict[Path, str]:
    listed = json.loads((DATA / "pdf_robustness/_passwords.json").read_text(encoding="utf-8"))
    found = {DATA / "pdf_robustness" / rel: str(entry["password"]) for rel, entry in listed.items()}
    return {p: found[p] for p in pick(found, 5)}


def sample(made: Path) -> list[Case]:
    cases = [Case(p, _key(p, made)) for p in real_files() + made_files(made)]
    cases += [Case(p, _key(p, made) + "#password", password=pw) for p, pw in passwords().items()]
    revocable = {".docx", ".htm", ".html", ".eml"}
    cases += [
        Case(c.path, c.key + "#keep_revoked", keep_revoked=True)
        for c in list(cases)
        if c.path.suffix.lower() in revocable and "#" not in c.key and c.path.name != "pdf_named.docx"
    ]
    return cases


def _key(path: Path, made: Path) -> str:
    for root, name in ((made, "<made>"), (DATA, "<data>"), (REPO, "<repo>")):
        if path.is_relative_to(root):
            return f"{name}/{path.relative_to(root)}"
    return str(path)


# --------------------------------------------------------------------------------------------
# files made from real text
# --------------------------------------------------------------------------------------------


def made_files(made: Path) -> list[Path]:
    if made.exists():
        shutil.rmtree(made)
    made.mkdir(parents=True)
    return transcripts(made) + rtf_files(made) + emails(made) + docx_files(made) + odd_files(made)


def _paragraphs(path: Path, n: int) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [" ".join(p.split()) for p in text.split("\n") if len(p.split()) > 3][:n]


def transcripts(made: Path) -> list[Path]:
    from tests import pdf_maker
    from tests import transcript_maker as tm

    depo = tm.deposition_pdf(made / "Smith_depo.pdf")
    out = [depo, tm.condensed_pdf(made / "Smith_condensed.pdf"), tm.hearing_txt(made / "hearing.txt")]
    scans = tm.scanned_images(depo)
    out.append(tm.grey_tiff(made / "Smith_depo_scan.tif", scans[:2]))
    out.append(pdf_maker.scanned_pdf(made / "Smith_depo_scan.pdf", scans[2:4], dpi=200))
    lener = sorted((DATA / "lener_br/raw_text").glob("*.txt"))[0]
    words = " ".join(_paragraphs(lener, 30)).split()
    pages = [[" ".join(words[i + k * 12 : i + k * 12 + 12]) for k in range(30)] for i in range(0, 1800, 360)]
    stamps = [f"ABC{1200 + i:07d}" for i in range(len(pages))]
    out.append(pdf_maker.text_pdf(made / "production.pdf", pages, stamps))
    return out


def _rtf_text(text: str) -> str:
    """Text as RTF writes it: cp1252 letters as \\'hh, the rest as \\uN with a "?" fallback."""
    out = []
    for ch in text:
        if ch in "\\{}":
            out.append("\\" + ch)
        elif ord(ch) < 128:
            out.append(ch)
        else:
            try:
                out.append("".join(f"\\'{b:02x}" for b in ch.encode("cp1252")))
            except UnicodeEncodeError:
                code = ord(ch)
                if code > 0xFFFF:
                    code -= 0x10000
                    hi, lo = 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)
                    out.append(f"\\u{hi - 65536}?\\u{lo - 65536}?")
                else:
                    out.append(f"\\u{code if code < 32768 else code - 65536}?")
    return "".join(out)


def rtf_files(made: Path) -> list[Path]:
    lener = sorted((DATA / "lener_br/raw_text").glob("*.txt"))
    cuad = sorted((DATA / "legal_span_bench/corpus/cuad").glob("*.txt"))
    pt, en = _paragraphs(lener[1], 40), _paragraphs(cuad[3], 40)
    head = (
        r"{\rtf1\ansi\ansicpg1252\deff0\uc1"
        r"{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fswiss\fcharset204 Arial Cyr;}}"
        r"{\colortbl;\red0\green0\blue0;}"
        r"{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 heading 1;}{\s2 T\'edtulo 2;}{\cs10 Default Font;}}"
        r"{\info{\title " + _rtf_text(pt[0][:60]) + r"}{\author X}}"
        r"{\*\generator Parity;}{\header {\pard Cabe\'e7alho\par}}"
    )
    body = [r"\pard\s1 " + _rtf_text(pt[0][:80]) + r"\par"]
    for k, para in enumerate(pt[1:20]):
        if k % 5 == 0:
            body.append(
                r"\pard{\listtext " + str(k // 5 + 1) + r".\tab}\ls1\ilvl0 " + _rtf_text(para) + r"\par"
            )
        elif k % 7 == 0:
            body.append(r"\pard\s2 " + _rtf_text(para[:70]) + r"{\v oculto}\par")
        else:
            half = len(para) // 2
            body.append(
                r"\pard\plain "
                + _rtf_text(para[:half])
                + r"\line "
                + _rtf_text(para[half:])
                + r"{\super\chftn}"
                r"{\footnote\pard{\super\chftn} " + _rtf_text(pt[20 + k][:120]) + r"\par}\par"
            )
    body.append(r"\trowd\cellx3000\cellx6000\cellx9000")
    for row in range(3):
        cells = pt[25 + row].split()[:9]
        body.append(
            r"\pard\intbl " + r"\cell ".join(_rtf_text(" ".join(cells[i * 3 : i * 3 + 3])) for i in range(3))
        )
        body.append(r"\cell\row")
    body.append(
        r"\pard {\deleted texto apagado}" + _rtf_text(pt[30]) + r"\emdash\ldblquote fim\rdblquote\par"
    )
    body.append(r"\pard{\f1 \'cf\'f0\'e8\'e2\'e5\'f2} \u-10179?\u-8704? \'e7\'e3o\~e\_b\-c\par")
    made_pt = made / "contrato_pt.rtf"
    made_pt.write_bytes(("\n".join([head, *body]) + "}").encode("ascii"))

    en_body = [
        r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Calibri;}}"
        r"{\*\listtable{\list\listtemplateid1{\listlevel\levelnfc0{\leveltext\'02\'00.;}}}}"
    ]
    for k, para in enumerate(en[:30]):
        if k % 6 == 0:
            en_body.append(
                r'\pard{\field{\*\fldinst HYPERLINK "http://example.com"}{\fldrslt '
                + _rtf_text(para[:40])
                + r"}} "
                + _rtf_text(para[40:])
                + r"\par"
            )
        elif k % 6 == 3:
            en_body.append(
                r"\pard{\pict\pngblip 89504e470d0a1a0a}{\*\bkmkstart b1}" + _rtf_text(para) + r"\par"
            )
        else:
            en_body.append(
                r"\pard\outlinelevel1 " + _rtf_text(para) + r"\par"
                if k % 9 == 1
                else r"\pard " + _rtf_text(para) + r"\par"
            )
    en_body.append(r"\trowd\pard\intbl a\nestcell b\nestcell\nestrow c\cell d\cell\row")
    agreement = made / "agreement_en.rtf"
    agreement.write_bytes(("\n".join(en_body) + "}").encode("ascii"))

    out = [made_pt, agreement]
    small = {
        "mac.rtf": rb"{\rtf1\mac\deff0 Caf\8e cr\8fme\par}",
        "pc.rtf": rb"{\rtf1\pc A\'87\'a0o\par}",
        "bom.rtf": b"\xef\xbb\xbf  \n" + rb"{\rtf1\ansi\uc2 a\u231 cxb\u231\'e7\'e7c\par}",
        "cp932.rtf": rb"{\rtf1\ansi\ansicpg932 \'82\'a0\'82\'a2\par}",
        "truncated.rtf": made_pt.read_bytes()[:2500],
        "trailing.rtf": rb"{\rtf1\ansi Texto\par}" + b" trailing junk",
        "bad_bin.rtf": rb"{\rtf1 a\bin9999 xyz}",
        "bad_escape.rtf": rb"{\rtf1 a\'zz b}",
        "no_text.rtf": rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\pard\par}",
        "not_rtf.rtf": b"just text that says it is rtf",
        "lone_backslash.rtf": rb"{\rtf1 abc\par}" + b"\\",
    }
    for name, data in small.items():
        (made / name).write_bytes(data)
        out.append(made / name)
    return out


def _message(subject: str, sender: str = "Alice Smith <alice@firm.com>") -> EmailMessage:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = "Bob Jones <bob@client.com>, carol@client.com"
    m["Cc"] = '"Doe, John" <john@other.com>'
    m["Date"] = "Mon, 04 Mar 2024 10:15:00 -0500"
    m["Subject"] = subject
    m["Message-ID"] = f"<{hashlib.sha1(subject.encode()).hexdigest()[:10]}@firm.com>"
    return m


def emails(made: Path) -> list[Path]:
    lener = sorted((DATA / "lener_br/raw_text").glob("*.txt"))
    body_pt = "\n\n".join(_paragraphs(lener[2], 12))
    html_page = (REPO / "tests/fixtures/planalto_lei_8112_fragment.htm").read_bytes()
    pdf = DATA / "legal_docs_us_courts/vector-pdf.pdf"
    out: list[Path] = []

    def save(name: str, m: EmailMessage | bytes) -> None:
        path = made / name
        path.write_bytes(m if isinstance(m, bytes) else m.as_bytes())
        out.append(path)

    m = _message("Contrato de locação: minuta")
    m.set_content(body_pt + "\n\n\n-- \nAlice\n")
    m.add_attachment(pdf.read_bytes(), maintype="application", subtype="pdf", filename="opinion.pdf")
    m.add_attachment(
        b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, maintype="image", subtype="png", filename="scan.png"
    )
    save("plain_with_attachments.eml", m)

    m = _message("Alternative bodies")
    m.set_content("Plain body.\n\nSecond paragraph of the plain body.\n")
    m.add_alternative(
        "<html><body><h1>HTML body</h1><p>Not read: plain exists.</p></body></html>", subtype="html"
    )
    save("alternative.eml", m)

    m = _message("Lei 8.112 consolidada")
    m.set_content(html_page.decode("cp1252", "replace"), subtype="html")
    save("html_struck.eml", m)

    m = _message("Empty plain, HTML read")
    m.set_content("   \n")
    m.add_alternative(
        "<p>Only <s>struck</s> the <b>HTML</b> body.</p><table><tr><td>a</td><td>b</td></tr></table>",
        subtype="html",
    )
    save("empty_plain.eml", m)

    latin = (
        b"From: =?iso-8859-1?q?Jo=E3o_Silva?= <joao@x.com.br>\r\nTo: maria@y.com.br\r\n"
        b"Subject: =?utf-8?b?QcOnw6NvIHBlbmFs?=\r\nDate: Tue, 5 Mar 2024 09:00:00 -0300\r\n"
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"Prezada Maria,=0D=0A=0D=0AA a=E7=E3o foi distribu=EDda =93hoje=94.=0D=0A=0D=0AAtt.=0D=0A"
    )
    save("latin1_qp.eml", latin)
    save(
        "unknown_charset.eml",
        b"From: a@b.com\nTo: c@d.com\nSubject: Charset\nDate: Wed, 6 Mar 2024 10:00:00 +0000\n"
        b"Content-Type: text/plain; charset=x-unknown-label\n\n" + "Ação, exceção, coração.\n".encode(),
    )
    inner = _message("Original message", "Carol <carol@client.com>")
    inner.set_content("The original text of the forwarded message.\n")
    m = _message("Fwd: Original message")
    m.set_content("See below.\n")
    m.add_attachment(inner)
    save("forwarded.eml", m)
    save(
        "damaged_multipart.eml",
        b"From: a@b.com\nTo: c@d.com\nSubject: Broken\nDate: Wed, 6 Mar 2024 10:00:00 +0000\n"
        b"MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nraw text of a multipart without a boundary\n",
    )
    m = _message("Attachments only")
    m.add_attachment(b"%PDF-1.4 tiny", maintype="application", subtype="pdf", filename="../../etc/x.pdf")
    save("no_body.eml", m)
    save(
        "bad_headers.eml",
        b'From: "Unclosed <a@b.com\nTo: ,,,@@\nSubject: Bad headers\nDate: not a date\n\nBody.\n',
    )
    save("not_mail.eml", b"Just some text without any header at all.\n")
    mail_as_txt = made / "message.txt"
    mail_as_txt.write_bytes(latin)
    out.append(mail_as_txt)
    mbox = made / "box.mbox"
    mbox.write_bytes(b"From alice@firm.com Mon Mar  4 10:15:00 2024\n" + _message("One").as_bytes() + b"\n")
    out.append(mbox)
    return out


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def _docx(path: Path, body: str, parts: dict[str, str] | None = None, r_prefix: bool = True) -> Path:
    """A Word package whose body is `body` (WordprocessingML), with extra parts (styles, numbering,
    footnotes, endnotes, settings) related to the main part by their names."""
    parts = parts or {}
    rels = "".join(
        f'<Relationship Id="rId{k}" Type="{_REL}{name}" Target="{name}.xml"/>'
        for k, name in enumerate(parts, 2)
    )
    r_decl = f' xmlns:r="{R_NS}"' if r_prefix else ""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        zf.writestr(
            "_rels/.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{_REL}officeDocument" Target="word/document.xml"/></Relationships>',
        )
        zf.writestr(
            "word/_rels/document.xml.rels",
            '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f"{rels}</Relationships>",
        )
        zf.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document xmlns:w="{W_NS}" xmlns:r="{R_NS}"><w:body>{body}</w:body></w:document>',
        )
        for name, xml in parts.items():
            root = {"footnotes": "w:footnotes", "endnotes": "w:endnotes"}.get(name, f"w:{name}")
            zf.writestr(
                f"word/{name}.xml", f'<?xml version="1.0"?><{root} xmlns:w="{W_NS}"{r_decl}>{xml}</{root}>'
            )
    return path


def _p(text: str, ppr: str = "", rpr: str = "") -> str:
    return f'<w:p><w:pPr>{ppr}</w:pPr><w:r><w:rPr>{rpr}</w:rPr><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def _num(num_id: str, ilvl: int) -> str:
    return f'<w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>'


def docx_files(made: Path) -> list[Path]:
    lener = sorted((DATA / "lener_br/raw_text").glob("*.txt"))
    pt = _paragraphs(lener[3], 40)
    out = []
    explicit = (
        _p(pt[0])
        + f'<w:p><w:r><w:t>{pt[1][:60]}</w:t><w:br w:type="page"/><w:t>{pt[1][60:120]}</w:t></w:r></w:p>'
        + f'<w:p><w:pPr><w:sectPr><w:type w:val="nextPage"/></w:sectPr></w:pPr><w:r><w:t>{pt[2]}</w:t></w:r></w:p>'
        + f"<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>{pt[3]}</w:t></w:r></w:p>"
        + f"<w:p><w:r><w:t>{pt[4][:50]}</w:t></w:r></w:p>"
        + '<w:p><w:pPr><w:sectPr><w:type w:val="continuous"/></w:sectPr></w:pPr><w:r><w:t>Seis</w:t></w:r></w:p>'
        + '<w:tbl><w:tr><w:tc><w:p><w:r><w:br w:type="page"/><w:t>cell a</w:t></w:r></w:p></w:tc>'
        + '<w:tc><w:p><w:r><w:br w:type="page"/><w:t>cell b</w:t></w:r></w:p></w:tc></w:tr>'
        + f"<w:tr><w:tc>{_p(pt[5][:80])}{_p(pt[6][:80])}</w:tc></w:tr></w:tbl>"
        + '<w:p><w:r><w:pict><w:txbxContent><w:p><w:r><w:br w:type="page"/><w:t>box</w:t></w:r></w:p>'
        + "</w:txbxContent></w:pict></w:r></w:p>"
        + "<w:p><w:pageBreakBefore/><w:r><w:t>odd pPr</w:t></w:r></w:p>"
        + _p(pt[7])
    )
    out.append(_docx(made / "explicit_breaks.docx", explicit))
    styles = (
        '<w:style w:type="character" w:styleId="Base"><w:rPr><w:dstrike/></w:rPr></w:style>'
        '<w:style w:type="character" w:styleId="Revogado"><w:basedOn w:val="Base"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Riscado"><w:rPr><w:strike/></w:rPr></w:style>'
        '<w:style w:type="paragraph" w:styleId="Ttulo1"><w:name w:val="heading 1"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Titulo"><w:name w:val="Title"/></w:style>'
        '<w:style w:type="paragraph" w:styleId="Lista"><w:pPr>' + _num("1", 1) + "</w:pPr></w:style>"
    )
    struck = (
        _p("Lei de teste", '<w:pStyle w:val="Titulo"/>')
        + _p("Capítulo I", '<w:pStyle w:val="Ttulo1"/>')
        + _p("Art. 5º Texto original do artigo.", rpr="<w:strike/>")
        + _p("III - ascensão;", rpr="<w:strike/>").replace(
            "</w:p>",
            '<w:r><w:t xml:space="preserve"> (Revogado pela Lei nº 9.527, de 1997)</w:t></w:r></w:p>',
        )
        + _p("gone by style", rpr='<w:rStyle w:val="Revogado"/>')
        + _p("all struck", '<w:pStyle w:val="Riscado"/>')
        + _p("shown", '<w:pStyle w:val="Riscado"/>', '<w:strike w:val="0"/>')
        + "<w:p><w:r><w:t>Um </w:t></w:r><w:r><w:rPr><w:strike/></w:rPr><w:lastRenderedPageBreak/>"
        + '<w:t>riscado</w:t></w:r><w:r><w:t xml:space="preserve"> Dois</w:t></w:r></w:p>'
        + "".join(_p(t) for t in pt[8:14])
    )
    out.append(_docx(made / "struck_styles.docx", struck, {"styles": styles}))
    numbering = (
        '<w:abstractNum w:abstractNumId="0">'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
        '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2)"/></w:lvl>'
        '<w:lvl w:ilvl="2"><w:numFmt w:val="upperRoman"/><w:lvlText w:val="(%3)"/><w:isLgl/></w:lvl>'
        '<w:lvl w:ilvl="3"><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl>'
        '<w:lvl w:ilvl="4"><w:numFmt w:val="decimalZero"/><w:lvlText w:val="%5"/></w:lvl>'
        '<w:lvl w:ilvl="5"><w:numFmt w:val="none"/><w:lvlText w:val=""/></w:lvl>'
        '<w:lvl w:ilvl="6"><w:numFmt w:val="upperLetter"/><w:lvlText w:val="%7."/></w:lvl>'
        '<w:lvl w:ilvl="7"><w:numFmt w:val="lowerRoman"/><w:lvlText w:val="%8"/></w:lvl>'
        "</w:abstractNum>"
        '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>'
        '<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/>'
        '</w:lvlOverride><w:lvlOverride w:ilvl="1"><w:lvl w:ilvl="1"><w:numFmt w:val="upperRoman"/>'
        '<w:lvlText w:val="%2 -"/></w:lvl></w:lvlOverride></w:num>'
        '<w:num w:numId="3"/>'
    )
    items = [(n, lvl) for n in ("1", "2") for lvl in (0, 1, 1, 2, 3, 4, 5, 6, 7, 7, 0)] + [("0", 0), ("9", 0)]
    listed = "".join(_p(f"{pt[14 + k % 20][:50]}", _num(n, lvl)) for k, (n, lvl) in enumerate(items))
    listed += _p("by style", '<w:pStyle w:val="Lista"/>') + _p("", _num("1", 0))
    listed += (
        '<w:p><w:r><w:t xml:space="preserve">Note here</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r>'
        '<w:r><w:endnoteReference w:id="1"/></w:r></w:p>'
    )
    notes = (
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        '<w:footnote w:id="2"><w:p><w:r><w:t>The footnote text.</w:t></w:r></w:p>'
        "<w:p><w:r><w:t>Its second paragraph.</w:t></w:r></w:p></w:footnote>"
        '<w:footnote w:id="3"><w:p><w:r><w:t>Never referenced.</w:t></w:r></w:p></w:footnote>'
    )
    endnotes = '<w:endnote w:id="1"><w:p><w:r><w:t>An endnote.</w:t></w:r></w:p></w:endnote>'
    settings = '<w:endnotePr><w:numFmt w:val="upperLetter"/></w:endnotePr>'
    parts = {
        "numbering": numbering,
        "styles": styles,
        "footnotes": notes,
        "endnotes": endnotes,
        "settings": settings,
    }
    out.append(_docx(made / "numbered_notes.docx", listed, parts))
    out.append(_docx(made / "notes_without_r_prefix.docx", listed, parts, r_prefix=False))
    broken = made / "broken_xml.docx"
    _docx(broken, _p("text"))
    with zipfile.ZipFile(broken) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    members["word/document.xml"] = members["word/document.xml"][:-30]
    with zipfile.ZipFile(broken, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    out.append(broken)
    missing = made / "missing_main.docx"
    with zipfile.ZipFile(missing, "w") as zf:
        zf.writestr("[Content_Types].xml", "wordprocessingml.document.main+xml")
        zf.writestr(
            "_rels/.rels",
            f'<Relationships><Relationship Id="rId1" Type="{_REL}officeDocument" Target="/word/gone.xml"/></Relationships>',
        )
    out.append(missing)
    return out


def odd_files(made: Path) -> list[Path]:
    pdf = DATA / "legal_docs_us_courts/vector-pdf.pdf"
    docx = sorted((DATA / "docx").rglob("*.docx"))[5]
    files = {
        "empty.txt": b"",
        "blank.md": b"   \n\n  \n",
        "prefixed.pdf": b"X-Gateway: scanned\r\n\r\n" + pdf.read_bytes(),
        "pdf_named.docx": pdf.read_bytes(),
        "truncated.docx": docx.read_bytes()[:3000],
        "utf16.txt": "\ufeffLinha um\r\nAção dois\r\n".encode("utf-16-le"),
        "cp1252.txt": "Ação penal\n\nexceção\n".encode("cp1252"),
        "page.html": b"<!doctype html><html lang=pt><head><meta charset=iso-8859-1><title>T\xedtulo</title></head>"
        b"<body><p>Par\xe1grafo <strike>revogado</strike> um.<p>Dois<br>linhas</body></html>",
        "gzip.bin": b"\x1f\x8b\x08\x00" + b"\x00" * 40,
    }
    out = []
    for name, data in files.items():
        (made / name).write_bytes(data)
        out.append(made / name)
    return out


# --------------------------------------------------------------------------------------------
# digests
# --------------------------------------------------------------------------------------------


def _sha(value: Any) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def page_digest(p: Page) -> dict[str, Any]:
    return {
        "number": p.number,
        "chars": len(p.text),
        "text": _sha(p.text),
        "lines": _sha(p.lines),
        "paragraphs": _sha(p.paragraphs),
        "method": p.extraction_method.value,
        "needs_ocr": p.needs_ocr,
        "ocr_confidence": p.ocr_confidence,
        "line_confidences": _sha(p.line_confidences),
        "line_pages": _sha(p.line_pages),
        "bates": p.bates,
        "page": _sha(p),
    }


def doc_digest(doc: ParsedDocument) -> dict[str, Any]:
    return {
        "file_type": doc.file_type.value,
        "title": doc.title,
        "warnings": list(doc.warnings),
        "transcript": doc.transcript,
        "pages": [page_digest(p) for p in doc.pages],
    }


def _clean(text: str | None, made: Path) -> str | None:
    return None if text is None else text.replace(str(made), "<made>").replace(str(DATA), "<data>")


Parse = Callable[[Case, Callable[[int, int], None]], ParsedDocument]


def in_process(case: Case, on_page: Callable[[int, int], None]) -> ParsedDocument:
    from casetrack.parse import parse_file
    from casetrack.parse.options import ParseOptions

    options = ParseOptions(password=case.password, keep_revoked=case.keep_revoked)
    return parse_file(case.path, options=options, on_page=on_page)


def isolated() -> tuple[Parse, Callable[[], None]]:
    from casetrack.parse.isolated import IsolatedParser
    from casetrack.parse.options import ParseOptions

    parser = IsolatedParser()

    def parse(case: Case, on_page: Callable[[int, int], None]) -> ParsedDocument:
        options = ParseOptions(password=case.password, keep_revoked=case.keep_revoked)
        return parser.parse(case.path, options=options, on_page=on_page)

    return parse, parser.close


def digest(case: Case, parse: Parse, made: Path) -> dict[str, Any]:
    calls: list[tuple[int, int]] = []
    start = time.perf_counter()
    try:
        record: dict[str, Any] = {"ok": True, **doc_digest(parse(case, lambda d, t: calls.append((d, t))))}
    except CaseTrackError as e:
        record = {
            "ok": False,
            "error": type(e).__name__,
            "message": _clean(e.message, made),
            "hint": _clean(e.hint, made),
        }
    except Exception as e:  # a parser bug is a result too: it must not change either
        record = {"ok": False, "error": type(e).__name__, "message": _clean(str(e)[:300], made), "hint": None}
    record["progress"] = [len(calls), list(calls[-1]) if calls else None, _sha(calls)]
    record["seconds"] = round(time.perf_counter() - start, 2)
    if record["ok"]:
        record["warnings"] = [_clean(w, made) for w in record["warnings"]]
    return record


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    after = json.loads(json.dumps(after))  # as a baseline read back from its file: tuples are lists
    out = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            out.append(f"{key}: only in {'after' if a is None else 'before'}")
            continue
        if "skipped" in a:
            continue
        fields = sorted(k for k in set(a) | set(b) if k != "seconds" and a.get(k) != b.get(k))
        if fields:
            out.append(f"{key}: {', '.join(fields)} differ")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="the digests, as JSON")
    parser.add_argument("--against", type=Path, help="a baseline written by an earlier run: compare")
    parser.add_argument(
        "--budget", type=float, default=BUDGET_S, help="seconds a file may take (baseline run)"
    )
    parser.add_argument(
        "--made", type=Path, default=Path("/tmp/casetrack_parse_parity"), help="scratch folder"
    )
    parser.add_argument("--isolated", action="store_true", help="parse in the parser child process")
    args = parser.parse_args(argv)

    baseline = json.loads(args.against.read_text(encoding="utf-8"))["files"] if args.against else None
    cases = sample(args.made)
    parse: Parse = in_process
    close: Callable[[], None] = lambda: None  # noqa: E731
    if args.isolated:
        parse, close = isolated()
    results: dict[str, Any] = {}
    started = time.perf_counter()
    try:
        for n, case in enumerate(cases, start=1):
            if baseline is not None and "skipped" in baseline.get(case.key, {}):
                results[case.key] = baseline[case.key]
                continue
            record = digest(case, parse, args.made)
            if baseline is None and record["seconds"] > args.budget:
                record = {"skipped": f"slow: {record['seconds']:.1f} s"}
            results[case.key] = record
            status = "ok" if record.get("ok") else record.get("error") or record.get("skipped")
            print(
                f"[{n}/{len(cases)}] {case.key}: {status} ({record.get('seconds', '-')} s)", file=sys.stderr
            )
    finally:
        close()
    args.out.write_text(
        json.dumps(
            {"files": results, "seconds": round(time.perf_counter() - started, 1)},
            indent=1,
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    parsed = [r for r in results.values() if "skipped" not in r]
    pages = sum(len(r.get("pages", ())) for r in parsed)
    failed = sum(1 for r in parsed if not r["ok"])
    skipped = len(results) - len(parsed)
    print(
        f"{len(results)} parses of {len({k.split('#')[0] for k in results})} files: {len(parsed) - failed} documents "
        f"({pages} pages), {failed} errors, {skipped} skipped as slow; {time.perf_counter() - started:.0f} s"
    )
    if baseline is None:
        return 0
    diff = differences(baseline, results)
    for line in diff:
        print(line)
    print(f"{len(diff)} differences against {args.against}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())

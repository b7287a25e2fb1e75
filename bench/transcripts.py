"""Transcripts (issue 17): page:line citations checked against the printed page, and documents
that are no transcript left unchanged.

--part cites: a case of the made deposition (tests/transcript_maker.py: a stamped, line-numbered
PDF, cover + printed pages 44-48), its condensed copy (four pages a sheet), the made hearing .txt
and the Supreme Court transcript of the pdfplumber tests (../shared/data, read in place), ingested
with the real models; each passage of PASSAGES is searched for inside its document and the top
result's citation is printed beside the page:line read off the printed page by hand (the PDFs
rendered with pypdfium2 and looked at; the .txt opened in an editor; the SCOTUS page through
pdfplumber's own layout rendering in comparisons/). A row matches when the transcript cite is
exactly the expected one.

--part unchanged: a fixed sample of real files (CUAD contracts, US court filings, pdfplumber and
pdf.js robustness PDFs, CUAD .txt) parsed twice in this process, with the transcript reading off
(`with_transcripts` and the condensed-sheet split replaced by no-ops: the code before them) and
on; every page's text, line spans and numbers, paragraphs and Bates stamp compared. OCR is off
(scanned files fail the same way both times).

Usage: python bench/transcripts.py [--part cites|unchanged|all] [--models-dir ../shared/models]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from tests import transcript_maker as tm  # noqa: E402

DATA = REPO.parent / "shared" / "data"
SCOTUS = DATA / "pdf_robustness/pdfplumber_tests/pdfs/scotus-transcript-p1.pdf"
DEPO, CONDENSED, HEARING = "Smith_depo.pdf", "Smith_condensed.pdf", "hearing_2023-06-14.txt"

# (document, passage searched for, the cite read off the printed page, the PDF page / sheet)
PASSAGES: list[tuple[str, str, str, int | None]] = [
    (
        DEPO,
        "When did you first visit the Joliet warehouse? In the second week of January 2021, I believe it was "
        "the eleventh.",
        "Smith Dep. 44:1-3",
        2,
    ),
    (
        DEPO,
        "The loading dock doors on the east side were stuck half open. There was frost on the inside of the "
        "trailers that had been parked there overnight.",
        "Smith Dep. 44:8-10",
        2,
    ),
    (
        DEPO,
        "I spoke with the site supervisor, a man named Gary Hollis. He told me the compressor on unit four had "
        "failed over the weekend",
        "Smith Dep. 44:17-19",
        2,
    ),
    (
        DEPO,
        "Did he say when the compressor had failed? He said Saturday night, around eleven.",
        "Smith Dep. 44:21-22",
        2,
    ),
    (
        DEPO,
        "Mr. Smith, I'm handing you what has been marked as Exhibit 14. Do you recognize this document?",
        "Smith Dep. 45:3-4",
        3,
    ),
    (DEPO, "Gary Hollis e-mailed it to me on January 13 at my request.", "Smith Dep. 45:8-9", 3),
    (DEPO, "MR. PELLEGRINO: Objection, calls for a legal conclusion.", "Smith Dep. 45:17-18", 3),
    (
        DEPO,
        "My understanding was thirty-eight or below. That was the number in the rate sheet, and it was the "
        "number we quoted to our customers.",
        "Smith Dep. 45:21-23",
        3,
    ),
    (
        DEPO,
        "About 1,150 cases of frozen seafood for Lakeshore Provisions and some dairy for another customer.",
        "Smith Dep. 46:1-2",
        4,
    ),
    (
        DEPO,
        "Lakeshore rejected all of it. Their quality manager came out on the fourteenth, probed the cases and "
        "refused the whole lot.",
        "Smith Dep. 46:4-6",
        4,
    ),
    (DEPO, "We credited them $212,400 against their February invoices.", "Smith Dep. 46:8-9", 4),
    (
        DEPO,
        "Yes, twice. Once in August 2020 about a door seal and once in November about an alarm that did not go "
        "off.",
        "Smith Dep. 46:14-16",
        4,
    ),
    (DEPO, "No. I took them at their word. In hindsight that was a mistake.", "Smith Dep. 46:24-25", 4),
    (
        DEPO,
        "That Meridian's liability for lost goods is capped at fifty cents per pound unless we declared a higher "
        "value in writing.",
        "Smith Dep. 47:9-11",
        5,
    ),
    (
        DEPO,
        "Did anyone at Meridian ever tell you that the cap would apply to a compressor failure?",
        "Smith Dep. 47:21-22",
        5,
    ),
    (
        DEPO,
        "In a letter from their general counsel dated March 2, 2021. It offered $18,975 and said that was the "
        "most we could recover.",
        "Smith Dep. 48:1-3",
        6,
    ),
    (
        DEPO,
        "I reviewed the temperature logs, my e-mails with Gary Hollis and the Lakeshore rejection notice.",
        "Smith Dep. 48:10-12",
        6,
    ),
    (
        DEPO,
        "Mr. Smith, Harbor Freight never bought extra insurance from Meridian, correct?",
        "Smith Dep. 48:18-19",
        6,
    ),
    (
        CONDENSED,
        "Lakeshore rejected all of it. Their quality manager came out on the fourteenth, probed the cases "
        "and refused the whole lot.",
        "Smith Dep. 46:4-6",
        1,
    ),
    (
        CONDENSED,
        "That Meridian's liability for lost goods is capped at fifty cents per pound unless we declared a "
        "higher value in writing.",
        "Smith Dep. 47:9-11",
        2,
    ),
    (
        HEARING,
        "June 14, 2023, 2:05 p.m. P R O C E E D I N G S THE CLERK: Civil action 22-10388, Orchard Medical "
        "Supply versus Bayview Health Partners.",
        "Tr. 1:17-2:3",
        None,
    ),
    (
        HEARING,
        "The plaintiff will produce the Bayview tabs in native form within fourteen days",
        "Tr. 2:17-18",
        None,
    ),
    (
        SCOTUS.name,
        "The above-entitled matter came on for oral argument before the Supreme Court of the United "
        "States at 1:01 p.m.",
        "Tr. 1:12-14",
        1,
    ),
    (
        SCOTUS.name,
        "CHARLES M. SEVILLA, ESQ., San Diego, Cal.; on behalf of the Respondent.",
        "Tr. 1:18-19",
        1,
    ),
]

# Questions in a lawyer's words (no passage reproduced): (document, question, the answer's printed
# page:line read off the page). A row matches when the pin-cite is on that page and its lines hold
# the answer's line.
QUESTIONS: list[tuple[str, str, tuple[int, int]]] = [
    (DEPO, "Who approved the credit given to Lakeshore?", (46, 11)),
    (DEPO, "What temperature did the log show on Sunday morning?", (45, 12)),
    (DEPO, "How much did the cargo insurer pay on the claim?", (48, 22)),
    (HEARING, "At what time did the hearing conclude?", (2, 24)),
]


def _question_rows(app: CaseTrack) -> tuple[list[str], int]:
    rows, right = [], 0
    for k, (doc, question, (page, line)) in enumerate(QUESTIONS, start=1):
        p = app.search("Transcripts", question, top_k=1, documents=[doc]).hits[0].provenance
        ok = (
            p.transcript_page == page and p.transcript_page_end is None and p.line_start <= line <= p.line_end
        )
        right += ok
        rows.append(
            f"| Q{k} | {doc} | {question} | {page}:{line} | {p.citation()} | {'yes' if ok else 'NO'} |"
        )
    return rows, right


def cites(models_dir: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="transcripts-bench-") as tmp:
        root = Path(tmp)
        files = [
            tm.deposition_pdf(root / DEPO),
            tm.condensed_pdf(root / CONDENSED),
            tm.hearing_txt(root / HEARING),
            SCOTUS,
        ]
        app = CaseTrack(resolve_settings(root / "home", models_dir, environ={}))
        try:
            app.create_case("Transcripts", "civil", "en")
            results = app.ingest("Transcripts", files)
            assert [r.status for r in results] == ["ingested"] * len(files), results
            rows, right = [], 0
            for k, (doc, passage, expected, page) in enumerate(PASSAGES, start=1):
                hit = app.search("Transcripts", passage, top_k=1, documents=[doc]).hits[0]
                p = hit.provenance
                ok = p.transcript_cite() == expected and p.page == page
                right += ok
                short = passage if len(passage) <= 60 else passage[:57] + "..."
                rows.append(
                    f"| {k} | {doc} | {short} | {expected}{f' (p. {page})' if page else ''} | "
                    f"{hit.citation} | {'yes' if ok else 'NO'} |"
                )
            questions, answered = _question_rows(app)
        finally:
            app.close()
    print(
        "| # | document | passage searched for | printed page:line (read off the page) | CaseTrack's citation "
        "| same |"
    )
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n{right} of {len(PASSAGES)} citations give the printed page:line (and PDF page).\n")
    print("| # | document | question | answer's printed page:line | CaseTrack's pin-cite | holds it |")
    print("|---|---|---|---|---|---|")
    print("\n".join(questions))
    print(f"\n{answered} of {len(QUESTIONS)} pin-cites hold the answer's printed line.")


def _sample() -> list[Path]:
    def pick(paths: Any, n: int) -> list[Path]:
        found = sorted(p for p in paths if p.stat().st_size < 6_000_000)
        return found[:: max(1, len(found) // n)][:n]

    return (
        pick((DATA / "legal_span_bench/cuad_pdf").rglob("*.pdf"), 24)
        + pick((DATA / "legal_docs_us_courts").rglob("*.pdf"), 40)
        + pick((DATA / "pdf_robustness/pdfplumber_tests/pdfs").glob("*.pdf"), 14)
        + pick((DATA / "pdf_robustness/pdfjs_subset").glob("*.pdf"), 6)
        + pick((DATA / "legal_span_bench/corpus/cuad").glob("*.txt"), 4)
    )


def _digest(path: Path) -> Any:
    from casetrack.parse import parse_file
    from casetrack.parse.options import ParseOptions

    try:
        doc = parse_file(path, options=ParseOptions(ocr_languages=None))
    except Exception as e:
        return type(e).__name__
    return doc.transcript, [
        hashlib.sha1(
            repr((p.number, p.text, p.lines, p.paragraphs, p.bates, p.line_pages)).encode()
        ).hexdigest()
        for p in doc.pages
    ]


def unchanged() -> None:
    import casetrack.parse.formats as formats
    import casetrack.parse.pdf.layout as layout
    import casetrack.parse.text.parser as text

    sample = _sample()
    # The two places that read transcripts: the paged formats' post-processing and the .txt parser.
    on_reader, on_split = formats.with_transcripts, layout.condensed_blocks
    formats.with_transcripts = text.with_transcripts = lambda doc, raw=None: doc  # type: ignore[assignment]
    layout.condensed_blocks = lambda words: None  # type: ignore[assignment]
    before = {p: _digest(p) for p in sample}
    formats.with_transcripts = text.with_transcripts = on_reader
    layout.condensed_blocks = on_split
    after = {p: _digest(p) for p in sample}
    parsed = [p for p in sample if not isinstance(before[p], str)]
    pages = sum(len(before[p][1]) for p in parsed)
    changed = [p.name for p in sample if before[p] != after[p]]
    print(
        f"{len(sample)} files ({len(parsed)} parsed, {pages} pages; {len(sample) - len(parsed)} fail the same way "
        f"both times: scans with OCR off, empty or broken files); changed by the transcript reading: {changed}"
    )
    print("transcripts found:", sorted({p.name for p in parsed if after[p][0]}))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=["cites", "unchanged", "all"], default="all")
    parser.add_argument("--models-dir", type=Path, default=REPO.parent / "shared" / "models")
    args = parser.parse_args()
    if args.part in ("unchanged", "all"):
        unchanged()
    if args.part in ("cites", "all"):
        cites(args.models_dir)


if __name__ == "__main__":
    main()

"""Case names in the table of authorities: how often the name read before a full US case
citation (legal/us_citations.py `case_name`) is the one written there, on US court documents from
../shared/data/legal_docs_us_courts, against names marked by hand (bench/gold/authority_names.json).

Each document is read by CaseTrack's own parser (PDF text layer) and its pages joined as ingest
joins them; every full case citation eyecite finds is scored:
  correct   the name read equals the gold name (whitespace aside)
  wrong     a name was read and differs (a false name is worse than none)
  missed    the gold has a name and none was read
  true none the gold has no name (a short form "Bender, 1997 WL 582901", a cite with no name
            before it) and none was read; "false name" when one was read anyway

    python bench/authority_names.py            # the scores
    python bench/authority_names.py --draft    # print the names read, to start a gold file by hand
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from casetrack.legal.extract import PAGE_JOIN
from casetrack.legal.us_citations import find_us_citations
from casetrack.parse import parse_file

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "legal_docs_us_courts"
GOLD = Path(__file__).resolve().parent / "gold" / "authority_names.json"
DOCUMENTS = [
    "recap_documents/ca1_00117684624.pdf",
    "recap_documents/ca5_00516242060.pdf",
    "recap_documents/ca8_.pdf",
    "recap_documents/ca9_19.pdf",
    "extra_from_history/recap_issues/gov.uscourts.njd.387907.32.0.pdf",
    "extra_from_history/recap_issues/gov.uscourts.nysd.413741.11.0.pdf",
    "missouri.pdf",
    "vector-pdf.pdf",
    "extra_from_history/opinion_text.txt",
]


def citations(relative: str) -> list[tuple[str, str | None]]:
    """(citation, name read) of each full case citation of a document, in reading order."""
    parsed = parse_file(DATA / relative)
    text = PAGE_JOIN.join(p.text for p in parsed.pages)
    return [(" ".join(c.text.split()), c.name) for c in find_us_citations(text) if c.kind == "case"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--draft", action="store_true", help="print the names read as a gold file to edit")
    args = parser.parse_args()
    started = time.perf_counter()
    read = {doc: citations(doc) for doc in DOCUMENTS}
    if args.draft:
        draft = {doc: [{"citation": c, "name": n} for c, n in found] for doc, found in read.items()}
        json.dump(draft, sys.stdout, indent=1, ensure_ascii=False)
        return
    gold = json.loads(GOLD.read_text(encoding="utf-8"))["documents"]
    counts = {"correct": 0, "wrong": 0, "missed": 0, "true none": 0, "false name": 0}
    errors = []
    for doc in DOCUMENTS:
        marked = gold[doc]
        if [g["citation"] for g in marked] != [c for c, _ in read[doc]]:
            raise SystemExit(
                f"{doc}: the citations found differ from the gold's; make the gold again (--draft)"
            )
        for g, (cite, name) in zip(marked, read[doc], strict=True):
            want = g["name"]
            if want is None:
                outcome = "true none" if name is None else "false name"
            elif name is None:
                outcome = "missed"
            else:
                outcome = "correct" if " ".join(name.split()) == want else "wrong"
            counts[outcome] += 1
            if outcome not in ("correct", "true none"):
                errors.append(f"  {outcome}: {doc} {cite}: read {name!r}, gold {want!r}")
    named = counts["correct"] + counts["wrong"] + counts["missed"]
    read_names = counts["correct"] + counts["wrong"] + counts["false name"]
    print(
        f"{len(DOCUMENTS)} documents, {sum(counts.values())} full case citations, {named} with a name written"
    )
    print(f"  {counts}")
    print(
        f"  precision (names read that are right): {counts['correct']}/{read_names} = {counts['correct'] / read_names:.3f}"
    )
    print(
        f"  recall (written names read right): {counts['correct']}/{named} = {counts['correct'] / named:.3f}"
    )
    print(f"  ({time.perf_counter() - started:.1f} s)")
    print("\n".join(errors))


if __name__ == "__main__":
    main()

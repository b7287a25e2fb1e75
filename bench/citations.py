"""Citation-grade answers (issue 12): every part of the proof, one command.

Runs, in order, each printing its own markdown table:
  bench/cite_width.py      pin-cite width (median / p90 lines) on CUAD and US court PDFs, and how
                           often the pin-cite overlaps the gold span when the right chunk is returned
  bench/cite_verbatim.py   300 passages of 10-80 words (50 documents, EN contracts and court PDFs
                           and PT decisions, cases of 60+ documents), as pasted and with 3% noise
                           + hyphenation: top-1 document + page + overlapping characters; plain BM25
  bench/cite_keywords.py   39 keyword terms (EN + PT) with hand-verified gold sections: hit@1, MRR@10
  bench/cite_verify.py     verify_citation on 200+ generated cases, per class

The cases are cached (first build: ~15 min of ingest per case on 2 cores). `--en` and `--pt` are
DATA_DIR:CASE of the EN (45 CUAD PDFs + US court PDFs) and PT (70 LeNER-Br texts) cases the
verbatim and keyword parts use; cite_width and cite_verify build their own under /tmp.

Usage:
  .venv/bin/python bench/citations.py --en /tmp/cite-kw-en:cite-width --pt /tmp/cite-cache:cite_pt
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> int:
    print(f"\n## {' '.join(args)}\n", flush=True)
    started = time.monotonic()
    code = subprocess.call([sys.executable, *args], cwd=REPO)
    print(f"\n({args[0]}: exit {code}, {time.monotonic() - started:.0f} s)", flush=True)
    return code


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--en", required=True, help="DATA_DIR:CASE of the EN case")
    parser.add_argument("--pt", required=True, help="DATA_DIR:CASE of the PT case")
    parser.add_argument(
        "--skip", default="", help="comma list of parts to skip: width,verbatim,keywords,verify"
    )
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    codes = []
    if "width" not in skip:
        codes.append(run(["bench/cite_width.py"]))
    if "verbatim" not in skip:
        codes.append(
            run(
                [
                    "bench/cite_verbatim.py",
                    "--case",
                    args.en,
                    "--case",
                    args.pt,
                    "--docs",
                    "50",
                    "--per-doc",
                    "6",
                ]
            )
        )
    if "keywords" not in skip:
        codes.append(
            run(["bench/cite_keywords.py", "--case", f"cite_en={args.en}", "--case", f"cite_pt={args.pt}"])
        )
    if "verify" not in skip:
        codes.append(run(["bench/cite_verify.py"]))
    sys.exit(max(codes, default=0))


if __name__ == "__main__":
    main()

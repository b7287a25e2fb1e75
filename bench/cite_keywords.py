"""Keyword terms: does a two-or-three-word legal term find the clause ABOUT it first?

`bench/questions/keyword_terms.json` holds 39 terms (24 EN over 45 CUAD contracts + 22 US court
PDFs, 15 PT over 70 Brazilian decisions and laws) with every place that is about each term
(its heading, its defining or deciding sentence), found and verified by hand by someone who did
not see the search code. A result is relevant when its chunk is in a gold document on a gold
page (PDF) or overlaps the gold lines (TXT). Prints hit@1 and MRR@10 for the default pipeline,
the pipeline with the optional topic cue (search/topic.py, off by default) and plain BM25 over
pages.

Usage:
  .venv/bin/python bench/cite_keywords.py --case cite_en=/tmp/cite-kw-en:cite_en --case cite_pt=/tmp/cite-cache:cite_pt
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.blind import DATA, PageBM25  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.ranking.config import SearchConfig  # noqa: E402

SET = REPO / "bench" / "questions" / "keyword_terms.json"


def relevant(gold: list[dict[str, Any]], document: str, page: int | None, lines: tuple[int, int]) -> bool:
    for g in gold:
        if Path(g["file"]).name != document:
            continue
        if g.get("page") is not None:
            if page == g["page"]:
                return True
        elif g.get("lines") and lines[0] <= g["lines"][1] and g["lines"][0] <= lines[1]:
            return True
    return False


def metrics(flags: list[bool]) -> tuple[float, float]:
    rr = next((1 / (i + 1) for i, ok in enumerate(flags[:10]) if ok), 0.0)
    return float(bool(flags[:1] and flags[0])), rr


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", action="append", required=True, help="SETCASE=DATA_DIR:CASE (repeat)")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    spec = json.loads(SET.read_text())
    systems = {"pipeline": SearchConfig(), "+ topic cue": SearchConfig.of(topic_weight=2.0)}
    table: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for arg in args.case:
        key, rest = arg.split("=", 1)
        data, case = rest.rsplit(":", 1)
        app = CaseTrack(resolve_settings(Path(data), args.models_dir, environ={}))
        have = {d["name"] for d in app.case_summary(case)["documents"]}
        want = {Path(f).name for f in spec["cases"][key]["files"]}
        if want - have:
            print(f"{case}: missing {len(want - have)} of the set's files: {sorted(want - have)[:3]}")
        bm25 = PageBM25([DATA / f for f in spec["cases"][key]["files"]])
        for term in (t for t in spec["terms"] if t["case"] == key):
            row = table.setdefault(f"{key} ({term['lang']})", {})
            for name, cfg in systems.items():
                try:
                    hits = app.search(case, term["term"], top_k=10, config=cfg).hits
                except Exception:  # a failed query is a miss
                    hits = []
                flags = []
                for h in hits:
                    p = h.chunk_provenance or h.provenance
                    flags.append(relevant(term["gold"], p.document, p.page, (p.line_start, p.line_end)))
                row.setdefault(name, []).append(metrics(flags))
                if args.verbose and name == "pipeline":
                    print(
                        f"  {term['term']}: {'HIT' if flags[:1] == [True] else 'miss'} top: {hits[0].citation if hits else '-'}"
                    )
            ranked = bm25.search(term["term"], 10)
            row.setdefault("plain BM25", []).append(metrics([relevant(term["gold"], *r) for r in ranked]))
    print("\n| case | terms | system | hit@1 | MRR@10 |")
    print("|---|---|---|---|---|")
    for key, row in table.items():
        for name, vals in row.items():
            n = len(vals)
            print(
                f"| {key} | {n} | {name} | {sum(v[0] for v in vals) / n:.3f} | {sum(v[1] for v in vals) / n:.3f} |"
            )


if __name__ == "__main__":
    main()

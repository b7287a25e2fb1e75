"""Same results before and after a refactor: every blind-set question through `CaseTrack.search`,
its whole response written down (ids, scores, citations, pins, relevance, labels, stages), so two
checkouts can be compared line by line.

Run it once from a checkout of the code before the change and once after, on the same cached
cases (the `--cache` folders `bench/blind.py` built), then compare:

  python bench/search_parity.py --set bench/blind_set5/blind_set.json --cache /tmp/blind5 --out before.json
  python bench/search_parity.py --compare before.json after.json

Each question runs three ways: as written (top 10), the second page (offset 5, top 5) and the
per-document view. Timings are left out (they differ run to run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.domain import SearchHit, SearchResponse  # noqa: E402


def _hit(h: SearchHit) -> dict[str, Any]:
    chunk = h.chunk_provenance or h.provenance
    return {
        "chunk_id": h.chunk_id,
        "score": round(h.score, 5),
        "citation": h.citation,
        "chunk_citation": chunk.citation(),
        "snippet": h.snippet,
        "relevance": h.relevance,
        "match": h.match,
    }


def _response(r: SearchResponse) -> dict[str, Any]:
    out: dict[str, Any] = {
        "hits": [_hit(h) for h in r.hits],
        "stages_used": list(r.stages_used),
        "no_good_match": r.no_good_match,
        "warnings": list(r.warnings),
    }
    if r.documents:
        out["documents"] = [
            [d.document, round(d.score, 5), d.matching_chunks, _hit(d.best)] for d in r.documents
        ]
    return out


def dump(set_path: Path, cache: Path, models_dir: str) -> dict[str, Any]:
    spec = json.loads(set_path.read_text())
    app = CaseTrack(resolve_settings(cache, models_dir, environ={}))
    out: dict[str, Any] = {}
    try:
        for q in spec["questions"]:
            case = f"blind-{q['case']}"
            row: dict[str, Any] = {}
            for label, kwargs in (
                ("top10", {"top_k": 10}),
                ("page2", {"top_k": 5, "offset": 5}),
                ("documents", {"top_k": 5, "per_document": True}),
            ):
                try:
                    row[label] = _response(app.search(case, q["question"], **kwargs))
                except Exception as e:  # an error is a result too: it must be the same error
                    row[label] = {"error": f"{type(e).__name__}: {e}"}
            out[q["id"]] = row
    finally:
        app.close()
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Prints each difference; returns how many questions differ."""
    differ = 0
    for qid in sorted(set(before) | set(after)):
        a, b = before.get(qid), after.get(qid)
        if a == b:
            continue
        differ += 1
        for label in sorted(set(a or {}) | set(b or {})):
            x, y = (a or {}).get(label), (b or {}).get(label)
            if x != y:
                print(f"{qid} [{label}]:\n  before {json.dumps(x)[:600]}\n  after  {json.dumps(y)[:600]}")
    print(f"{differ} of {len(set(before) | set(after))} questions differ")
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", type=Path, help="blind_set.json")
    parser.add_argument("--cache", type=Path, help="the data dir bench/blind.py built for that set")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        raise SystemExit(1 if compare(before, after) else 0)
    if not (args.set and args.cache and args.out):
        parser.error("--set, --cache and --out (or --compare BEFORE AFTER)")
    args.out.write_text(json.dumps(dump(args.set, args.cache, args.models_dir), indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()

"""Verbatim lookup: a pasted passage must find its own source first (issue 12).

Passages of 10-80 words are drawn at random (seeded) from the page text of documents of real
cases (each with 30+ other documents), then searched as they are and again with noise: 3% of
their letters garbled (substituted, dropped or doubled, as OCR does), line-break hyphenation
split ("Okla- homa") or joined, and straight quotes curled. A passage is found when the top
result is its document, on its page, and cites characters overlapping the passage (or holds an
identical copy of the passage: a running header, a clause repeated, a document filed twice). Plain BM25
over the same pages (bench/blind.py's `PageBM25`) is scored beside it (top page only).

Usage:
  .venv/bin/python bench/cite_verbatim.py --case /tmp/cite-width-cache/data:cite-width \\
      --case /tmp/cite-cache:cite_pt --docs 50 --per-doc 6
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.blind import PageBM25  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.parse import parse_file  # noqa: E402
from casetrack.quote.fold import fold_text  # noqa: E402

_WORD = re.compile(r"\S+")


def draw(text: str, rng: random.Random) -> tuple[int, int] | None:
    """A random run of 10-80 words of `text` starting at a word: its character span."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if len(words) < 12:
        return None
    n = rng.randint(10, min(80, len(words)))
    i = rng.randint(0, len(words) - n)
    return words[i][0], words[i + n - 1][1]


def noisy(passage: str, rng: random.Random, rate: float = 0.03) -> str:
    """`passage` with `rate` of its letters garbled, hyphenation split or joined, quotes curled."""
    out = passage.replace("-\n", "") if rng.random() < 0.5 else passage
    chars = list(out)
    letters = [i for i, c in enumerate(chars) if c.isalpha()]
    for i in rng.sample(letters, max(1, round(len(letters) * rate))) if letters else []:
        op = rng.random()
        if op < 0.6:
            chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyzrnil1")
        elif op < 0.8:
            chars[i] = ""
        else:
            chars[i] = chars[i] * 2
    out = "".join(chars)
    words = out.split()
    long = [k for k, w in enumerate(words) if len(w) >= 8 and w.isalpha()]
    for k in rng.sample(long, min(2, len(long))):  # "Okla- homa", as copied from a justified PDF
        w = words[k]
        words[k] = w[: len(w) // 2] + "- " + w[len(w) // 2 :]
    return " ".join(words).replace('"', "\u201c").replace("'", "\u2019")


def samples(app: CaseTrack, case: str, docs: int, per_doc: int, rng: random.Random) -> list[dict[str, Any]]:
    summary = app.case_summary(case)
    chosen = sorted(summary["documents"], key=lambda d: d["name"])
    rng.shuffle(chosen)
    out: list[dict[str, Any]] = []
    used = 0
    for d in chosen:
        if used >= docs:
            break
        path = Path(d["source_path"])
        try:
            pages = [p for p in parse_file(path).pages if len(p.text.split()) >= 30]
        except Exception:
            continue
        if not pages:
            continue
        used += 1
        for _ in range(per_doc):
            page = rng.choice(pages)
            span = draw(page.text, rng)
            if span:
                out.append(
                    {
                        "case": case,
                        "document": d["name"],
                        "path": str(path),
                        "page": page.number,
                        "span": span,
                        "text": page.text[span[0] : span[1]],
                    }
                )
    return out


def found(hit: Any, s: dict[str, Any]) -> bool:
    """Top result at the passage's place, or at an identical copy of it (a running header, a
    clause repeated, a document filed twice): no search can tell those apart."""
    p = hit.provenance
    if (
        p.document == s["document"]
        and p.page == s["page"]
        and p.char_start < s["span"][1]
        and s["span"][0] < p.char_end
    ):
        return True
    return fold_text(s["text"]) in fold_text(hit.text)


def bm25_found(bm25: PageBM25, query: str, s: dict[str, Any]) -> bool:
    """The same rule for plain BM25's top page (its place, or an identical copy on that page)."""
    top = bm25.ranked(query, 1)
    if not top:
        return False
    name, page, _ = bm25.units[top[0]]
    return (name == Path(s["path"]).name and page == s["page"]) or fold_text(s["text"]) in fold_text(
        bm25.texts[top[0]]
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", action="append", required=True, help="DATA_DIR:CASE (repeat)")
    parser.add_argument("--docs", type=int, default=50, help="documents drawn from, over all cases")
    parser.add_argument("--per-doc", type=int, default=6)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--no-bm25", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: dict[str, list[float]] = {}
    misses: list[str] = []
    per_case = -(-args.docs // len(args.case))
    for spec in args.case:
        data, case = spec.rsplit(":", 1)
        app = CaseTrack(resolve_settings(Path(data), args.models_dir, environ={}))
        drawn = samples(app, case, per_case, args.per_doc, rng)
        bm25 = (
            None
            if args.no_bm25
            else PageBM25(
                sorted(
                    {Path(s["path"]) for s in drawn}
                    | {Path(d["source_path"]) for d in app.case_summary(case)["documents"]}
                )
            )
        )
        n_docs = len(app.case_summary(case)["documents"])
        print(
            f"{case}: {len(drawn)} passages from {len({s['document'] for s in drawn})} of {n_docs} documents",
            flush=True,
        )
        for variant in ("verbatim", "noisy"):
            key = f"{case} {variant}"
            for s in drawn:
                query = s["text"] if variant == "verbatim" else noisy(s["text"], rng)
                t = time.perf_counter()
                try:
                    hits = app.search(case, query, top_k=5).hits
                except Exception as e:  # a failed query is a miss
                    hits = []
                    misses.append(f"{key}: error {type(e).__name__}: {e}")
                ms = (time.perf_counter() - t) * 1000
                ok = bool(hits) and found(hits[0], s)
                if not ok and len(misses) < 12:
                    got = hits[0].citation if hits else "nothing"
                    misses.append(f"{key}: {s['document']} p.{s['page']} -> {got} | {query[:80]!r}")
                rows.setdefault(key, []).append(float(ok))
                rows.setdefault(f"{key} ms", []).append(ms)
                if bm25 is not None:
                    rows.setdefault(f"{key} bm25", []).append(float(bm25_found(bm25, query, s)))
    print("\n| case | variant | passages | pipeline top-1 doc+page+span | plain BM25 top-1 page | p50 ms |")
    print("|---|---|---|---|---|---|")
    for key, vals in rows.items():
        if key.endswith((" ms", " bm25")):
            continue
        case, variant = key.rsplit(" ", 1)
        b = rows.get(f"{key} bm25")
        ms = sorted(rows[f"{key} ms"])[len(vals) // 2]
        bm = f"{sum(b):.0f}/{len(b)} = {sum(b) / len(b):.3f}" if b else "-"
        print(
            f"| {case} | {variant} | {len(vals)} | {sum(vals):.0f}/{len(vals)} = {sum(vals) / len(vals):.3f} | {bm} | {ms:.0f} |"
        )
    for variant in ("verbatim", "noisy"):
        vals = [v for k, vs in rows.items() if k.endswith(f" {variant}") for v in vs]
        print(
            f"| all | {variant} | {len(vals)} | {sum(vals):.0f}/{len(vals)} = {sum(vals) / len(vals):.3f} | | |"
        )
    print("\nmisses (first 12):", *misses[:12], sep="\n  ")


if __name__ == "__main__":
    main()

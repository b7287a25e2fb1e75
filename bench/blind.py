"""Unseen questions: score a blind question set through the real pipeline, beside plain BM25.

The set (`--set`, JSON) was written by someone who never saw the search code, the other question
sets or the plans: cases of real files from ../shared/data (each with 30+ documents), questions
in EN and PT (a third naming their document, a third sharing few words with the answer) and a
gold document + page (PDF) or file lines (TXT) per question, verified against the text. It is
scored, never tuned on: run it before a change and after, and record both.

Metrics per question (a failed search scores as a miss):
  page_hit@1/@5  a top-k result is in the gold document on a gold page (PDF) or cites lines that
                 overlap the gold lines (TXT); "pipeline" judges the result's own citation (its
                 pin-cite since issue 12), "pipeline (chunk)" the whole chunk's range
  doc_hit@5      a top-5 result is in the gold document
Baseline: plain BM25 (lowercased word tokens, no stemming, no stop words, k1 1.2, b 0.75) over
the same files' pages, TXT files cut into 25-line blocks.

The caller's words (issue 27): with `--words FILE` (question id -> {"keywords": [...],
"likely_wording": "..."}, written by someone who saw only the questions), each system also runs
given those words: "bm25 +words" and "pipeline +pasted" with question, keywords and wording as
one query; "pipeline +words" with them as `search_case`'s own `keywords` / `likely_wording`
(when this checkout's search takes them).

Questions of kind "no_answer" (the case does not say it) are scored apart: how often the
pipeline says `no_good_match`. Also reported: the labels' calibration (for each `match` label of
the top 5 results, the share whose chunk holds the gold answer, and whose own citation does),
and result lists that show one citation twice.

Usage:
  .venv/bin/python bench/blind.py --set /work/blind/blind_set.json --cache /tmp/blind-cache --out r.json
  .venv/bin/python bench/blind.py --set S --cache C --words words.json --out r.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402

DATA = REPO.parent / "shared" / "data"
_WORD = re.compile(r"\w+")
BLOCK_LINES = 25


def gold_ok(gold: dict[str, Any], document: str, page: int | None, lines: tuple[int, int]) -> bool:
    if document != Path(gold["file"]).name:
        return False
    pages = gold.get("pages") or ([gold["page"]] if gold.get("page") is not None else [])
    if pages:
        return page is not None and page in pages
    a, b = gold["lines"]
    return bool(lines[0] <= b and a <= lines[1])


def cited(hit: Any) -> tuple[str, int | None, tuple[int, int]]:
    p = hit.provenance
    return p.document, p.page, (p.line_start, p.line_end)


def source(set_dir: Path, name: str) -> Path:
    """A set's file: under ../shared/data, or "./docs/x.txt" beside the set (documents its
    writer wrote, so that no gold is in ../shared)."""
    return (set_dir / name).resolve() if name.startswith("./") else DATA / name


def chunk_range(hit: Any) -> tuple[str, int | None, tuple[int, int]]:
    """The whole chunk's place (since issue 12 a hit's own provenance is its pin-cite)."""
    p = getattr(hit, "chunk_provenance", None) or hit.provenance
    return p.document, p.page, (p.line_start, p.line_end)


# -- plain BM25 over pages ---------------------------------------------------------------------


class PageBM25:
    """Pages of PDFs (and 25-line blocks of text files) under a textbook BM25."""

    def __init__(self, files: list[Path], k1: float = 1.2, b: float = 0.75) -> None:
        from casetrack.parse import parse_file

        self.units: list[tuple[str, int | None, tuple[int, int]]] = []
        self.texts: list[str] = []
        self.tfs: list[Counter[str]] = []
        for path in files:
            if path.suffix.lower() in (".txt", ".md"):
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                for i in range(0, len(lines), BLOCK_LINES):
                    self._add(
                        path.name, None, (i + 1, i + BLOCK_LINES), "\n".join(lines[i : i + BLOCK_LINES])
                    )
                continue
            try:
                parsed = parse_file(path)
            except Exception as e:  # a file our parser rejects is not in either system
                print(f"  bm25 baseline: {path.name}: {type(e).__name__}: {e}", flush=True)
                continue
            for page in parsed.pages:
                self._add(path.name, page.number, (0, 0), page.text)
        self.k1, self.b = k1, b
        self.avg = sum(sum(t.values()) for t in self.tfs) / max(len(self.tfs), 1)
        df: Counter[str] = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(self.tfs)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def _add(self, name: str, page: int | None, lines: tuple[int, int], text: str) -> None:
        self.units.append((name, page, lines))
        self.texts.append(text)
        self.tfs.append(Counter(w.lower() for w in _WORD.findall(text)))

    def search(self, query: str, k: int) -> list[tuple[str, int | None, tuple[int, int]]]:
        return [self.units[i] for i in self.ranked(query, k)]

    def ranked(self, query: str, k: int) -> list[int]:
        """Indexes of the best `k` units (`units[i]`, `texts[i]`)."""
        terms = [w.lower() for w in _WORD.findall(query)]
        scores = []
        for i, tf in enumerate(self.tfs):
            length = sum(tf.values())
            s = 0.0
            for t in terms:
                f = tf.get(t, 0)
                if f:
                    s += (
                        self.idf[t]
                        * f
                        * (self.k1 + 1)
                        / (f + self.k1 * (1 - self.b + self.b * length / self.avg))
                    )
            if s > 0:
                scores.append((s, i))
        scores.sort(reverse=True)
        return [i for _, i in scores[:k]]


# -- the run -------------------------------------------------------------------------------------


def build_cases(app: CaseTrack, spec: dict[str, Any], set_dir: Path) -> dict[str, str]:
    names: dict[str, str] = {}
    for key, case in spec["cases"].items():
        name = f"blind-{key}"
        names[key] = name
        if not any(r.name == name for r in app.registry.list()):
            app.create_case(
                name,
                "contract" if case.get("language", "en") == "en" else "other",
                case.get("language", "en"),
            )
        have = {d["name"] for d in app.case_summary(name)["documents"]}
        missing = [source(set_dir, f) for f in case["files"] if Path(f).name not in have]
        if missing:
            t = time.monotonic()
            print(f"  ingesting {len(missing)} files into {name} ...", flush=True)
            results = app.ingest(name, missing)
            bad = [f"{r.name}: {r.status}" for r in results if not r.ok]
            print(
                f"  {name}: {time.monotonic() - t:.0f} s" + (f", not ingested: {bad}" if bad else ""),
                flush=True,
            )
    return names


def score(ranked: list[tuple[str, int | None, tuple[int, int]]], gold: dict[str, Any]) -> dict[str, float]:
    ok = [gold_ok(gold, *r) for r in ranked]
    docs = [r[0] for r in ranked]
    want = Path(gold["file"]).name
    return {
        "page_hit@1": float(any(ok[:1])),
        "page_hit@5": float(any(ok[:5])),
        "doc_hit@5": float(want in docs[:5]),
    }


def pasted(question: str, words: dict[str, Any] | None) -> str:
    """The question with the caller's keywords and likely wording appended, as one query."""
    if not words:
        return question
    return " ".join([question, *words.get("keywords", []), words.get("likely_wording", "")]).strip()


def run_pipeline(app: CaseTrack, case: str, question: str, extra: dict[str, Any]) -> dict[str, Any]:
    """One search: its pin-cite and chunk places, labels and flags (a failure is recorded)."""
    out: dict[str, Any] = {}
    try:
        resp = app.search(case, question, top_k=10, **extra)
    except Exception as e:  # a failed query is a miss
        return {"error": f"{type(e).__name__}: {e}", "ranked": [], "chunks": [], "labels": []}
    out["ranked"] = [cited(h) for h in resp.hits]
    out["chunks"] = [chunk_range(h) for h in resp.hits]
    out["labels"] = [(h.match, h.relevance) for h in resp.hits]
    out["top"] = [h.citation for h in resp.hits[:3]]
    out["no_good_match"] = bool(getattr(resp, "no_good_match", False))
    citations = [h.citation for h in resp.hits[:10]]
    out["duplicates"] = len(citations) - len(set(citations))
    return out


def calibration(rows: list[dict[str, Any]], system: str) -> dict[str, dict[str, float]]:
    """For each label of the top-5 results of answerable questions: how many, and the share whose
    chunk holds the gold answer ("chunk") and whose own citation does ("pin")."""
    table: dict[str, dict[str, float]] = {}
    for r in rows:
        run = r.get("runs", {}).get(system)
        if r["gold"] is None or run is None:
            continue
        for (label, _), pin, chunk in list(zip(run["labels"], run["ranked"], run["chunks"], strict=True))[:5]:
            cell = table.setdefault(str(label), {"n": 0, "chunk": 0, "pin": 0})
            cell["n"] += 1
            cell["chunk"] += gold_ok(r["gold"], *chunk)
            cell["pin"] += gold_ok(r["gold"], *pin)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", required=True, help="blind_set.json")
    parser.add_argument("--cache", required=True, help="data dir for the cases (reused when present)")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--out", help="per-question JSON")
    parser.add_argument("--words", help="the caller's keywords and likely wording per question (JSON)")
    parser.add_argument("--no-bm25", action="store_true", help="skip the page BM25 baseline")
    parser.add_argument(
        "--config",
        default="",
        help="search settings by flat name, as JSON values: words_wording_weight=0.5,boost=false",
    )
    parser.add_argument("--only", default="", help="comma list of pipeline systems to run (default: all)")
    args = parser.parse_args()
    spec = json.loads(Path(args.set).read_text())
    words: dict[str, Any] = json.loads(Path(args.words).read_text()) if args.words else {}
    app = CaseTrack(resolve_settings(Path(args.cache), args.models_dir, environ={}))
    set_dir = Path(args.set).resolve().parent
    names = build_cases(app, spec, set_dir)
    baselines = (
        {}
        if args.no_bm25
        else {
            key: PageBM25([source(set_dir, f) for f in case["files"]]) for key, case in spec["cases"].items()
        }
    )
    pipelines = _pipelines(app, bool(words), _config(args.config))
    if args.only:
        pipelines = {k: v for k, v in pipelines.items() if k in args.only.split(",")}
    rows = [_question(app, names, q, words.get(q["id"]), pipelines, baselines) for q in spec["questions"]]
    systems = [n for p in pipelines for n in (p, f"{p} (chunk)")]
    systems += (["bm25"] + (["bm25 +words"] if words else [])) if baselines else []
    answerable = [r for r in rows if r["gold"] is not None]
    summary = _table(answerable, systems)
    for p in pipelines:
        _report_flags(rows, p)
        table = calibration(rows, p)
        summary.setdefault("calibration", {})[p] = table
        print(
            f"\nlabels of {p}, top 5 of answerable questions: label n, share whose chunk / citation holds the answer"
        )
        for label, cell in sorted(table.items(), key=lambda kv: -kv[1]["n"]):
            n = cell["n"]
            print(f"  {label:8s} {n:4.0f}  chunk {cell['chunk'] / n:.3f}  pin {cell['pin'] / n:.3f}")
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "questions": rows}, indent=1))


def _config(text: str) -> dict[str, Any]:
    """`--config` as search arguments: {"config": SearchConfig.of(...)} or {} (the defaults)."""
    if not text:
        return {}
    from casetrack.search.ranking.config import SearchConfig

    changes = dict(item.split("=", 1) for item in text.split(",") if item.strip())
    return {"config": SearchConfig.of(**{k.strip(): json.loads(v) for k, v in changes.items()})}


def _takes_words(app: CaseTrack) -> bool:
    """Does this checkout's search take the caller's words as its own arguments?"""
    try:
        from casetrack.search.ranking.request import SearchOptions
    except ImportError:  # a checkout from before issue 26
        return False
    return "keywords" in getattr(SearchOptions, "__annotations__", {})


def _pipelines(app: CaseTrack, with_words: bool, config: dict[str, Any]) -> dict[str, Any]:
    """The pipeline systems to run: (question, words) -> (query text, extra search arguments)."""
    pipelines: dict[str, Any] = {"pipeline": lambda q, w: (q, dict(config))}
    if with_words:
        pipelines["pipeline +pasted"] = lambda q, w: (pasted(q, w), dict(config))
        if _takes_words(app):
            pipelines["pipeline +words"] = lambda q, w: (
                q,
                {
                    "keywords": list(w.get("keywords", [])),
                    "likely_wording": w.get("likely_wording") or None,
                    **config,
                },
            )
    return pipelines


def _question(
    app: CaseTrack,
    names: dict[str, str],
    q: dict[str, Any],
    w: dict[str, Any] | None,
    pipelines: dict[str, Any],
    baselines: dict[str, PageBM25],
) -> dict[str, Any]:
    """One question through every system."""
    row: dict[str, Any] = {
        "id": q["id"],
        "case": q["case"],
        "kind": q["kind"],
        "lang": q.get("lang"),
        "fresh": bool(q.get("fresh")),
        "gold": q.get("gold"),
        "runs": {},
    }
    for system, make in pipelines.items():
        text, extra = make(q["question"], w or {})
        run = run_pipeline(app, names[q["case"]], text, extra)
        row["runs"][system] = run
        if q.get("gold") is not None:
            row[system] = score(run["ranked"], q["gold"])
            row[f"{system} (chunk)"] = score(run["chunks"], q["gold"])
    if baselines and q.get("gold") is not None:
        bm25 = baselines[q["case"]]
        row["bm25"] = score(bm25.search(q["question"], 10), q["gold"])
        if w is not None:
            row["bm25 +words"] = score(bm25.search(pasted(q["question"], w), 10), q["gold"])
    return row


def _table(rows: list[dict[str, Any]], systems: list[str]) -> dict[str, Any]:
    groups = {"all": rows}
    for field in ("kind", "case", "lang", "fresh"):
        for value in sorted({str(r[field]) for r in rows}):
            groups[f"{field}={value}"] = [r for r in rows if str(r[field]) == value]
    print(
        "\n| subset | n | "
        + " | ".join(f"{s} {m}" for s in systems for m in ("page@1", "page@5", "doc@5"))
        + " |"
    )
    print("|---|---|" + "---|" * (3 * len(systems)))
    summary: dict[str, Any] = {}
    for label, group in groups.items():
        cells = []
        for s in systems:
            for m in ("page_hit@1", "page_hit@5", "doc_hit@5"):
                hits = sum(r[s][m] for r in group)
                summary.setdefault(label, {})[f"{s} {m}"] = hits / len(group)
                cells.append(f"{int(hits)}/{len(group)} = {hits / len(group):.3f}")
        print(f"| {label} | {len(group)} | " + " | ".join(cells) + " |")
    return summary


def _report_flags(rows: list[dict[str, Any]], system: str) -> None:
    runs = [(r, r["runs"][system]) for r in rows if system in r["runs"]]
    flagged = [r["id"] for r, run in runs if r["gold"] is not None and run.get("no_good_match")]
    answerable = sum(1 for r, _ in runs if r["gold"] is not None)
    print(f"\n{system}: no_good_match on {len(flagged)} of {answerable} answerable questions: {flagged}")
    none = [(r, run) for r, run in runs if r["gold"] is None]
    if none:
        said = sum(1 for _, run in none if run.get("no_good_match"))
        print(f"{system}: no_good_match on {said} of {len(none)} questions the case does not answer")
    dup = sum(1 for _, run in runs if run.get("duplicates"))
    print(f"{system}: {dup} result lists show one citation twice")
    errors = [(r["id"], run["error"]) for r, run in runs if "error" in run]
    print(
        f"{system}: {len(errors)} failed queries (scored as misses)" + (f": {errors[:3]}" if errors else "")
    )


if __name__ == "__main__":
    main()

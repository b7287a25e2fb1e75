"""Fit the labels' calibration: from each result's evidence to the chance that it holds the answer.

Runs spent question sets (questions with verified gold, cases already built by bench/blind.py)
through `CaseTrack.search`, with and without the caller's words when a words file is given, and
records for each of the top 10 results its `Evidence` (ranking/relevance.py) and whether its
chunk holds the gold answer. Fits a logistic model on those (numpy, L2-regularised IRLS), reports
each set's fit when left out (leave-one-set-out: how the labels would do on questions the fit
never saw), and prints the weights to put in `ranking/relevance.py` (`CALIBRATED`).

Questions that the case does not answer ("no_answer", in the set or in `--no-answer FILE`) add
their results as negatives and measure `no_good_match`.

Usage:
  .venv/bin/python bench/calibrate_labels.py \\
      --set bench/blind_set3/blind_set.json=/work/cache/blind3=/work/words_dev/words_set3.json ... \\
      [--no-answer dev_no_answer.json] --out fit.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("LANCEDB_LOG", "error")

from bench.blind import chunk_range, gold_ok  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.ranking.config import SearchConfig  # noqa: E402
from casetrack.search.ranking.relevance import FEATURES, Calibration  # noqa: E402

BUCKETS = (0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 1.01)


def collect(spec_path: Path, cache: Path, words_path: Path | None, models: str) -> list[dict[str, Any]]:
    """One sample per top-10 result: the set, question, words or not, features, holds, rank."""
    spec = json.loads(spec_path.read_text())
    words = json.loads(words_path.read_text()) if words_path else {}
    app = CaseTrack(resolve_settings(cache, models, environ={}))
    cfg = SearchConfig.of(labels_model=None)  # features do not depend on the model
    out: list[dict[str, Any]] = []
    try:
        for q in spec["questions"]:
            variants: list[dict[str, Any]] = [{}]
            w = words.get(q["id"])
            if w:
                variants.append(
                    {"keywords": w.get("keywords", []), "likely_wording": w.get("likely_wording")}
                )
            for extra in variants:
                try:
                    resp = app.search(f"blind-{q['case']}", q["question"], top_k=10, config=cfg, **extra)
                except Exception as e:  # a failed query is recorded, not fatal
                    print(f"  {q['id']}: {type(e).__name__}: {e}", flush=True)
                    continue
                for h in resp.hits:
                    ev = h.evidence
                    holds = bool(q.get("gold")) and gold_ok(q["gold"], *chunk_range(h))
                    out.append(
                        {
                            "set": spec_path.stem,
                            "group": f"{spec_path.parent.name}/{q['case']}",
                            "id": q["id"],
                            "words": bool(extra),
                            "answerable": q.get("gold") is not None,
                            "rank": ev.rank,
                            "verbatim": ev.verbatim is not None,
                            "x": ev.features(),
                            "holds": holds,
                        }
                    )
    finally:
        app.close()
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, rounds: int = 50) -> np.ndarray:
    """Logistic regression by iteratively reweighted least squares (the bias not regularised)."""
    w = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[0] = 0.0
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + reg * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(reg) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def reliability(p: np.ndarray, y: np.ndarray) -> list[tuple[str, int, float]]:
    rows = []
    for lo, hi in zip(BUCKETS, BUCKETS[1:], strict=False):
        inside = (p >= lo) & (p < hi)
        if inside.any():
            rows.append((f"{lo:.2f}-{min(hi, 1.0):.2f}", int(inside.sum()), float(y[inside].mean())))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", action="append", required=True, help="SET_JSON=CACHE[=WORDS_JSON]")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--samples", type=Path, help="reuse (or write) the collected samples here")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.samples and args.samples.exists():
        samples = json.loads(args.samples.read_text())
    else:
        samples = []
        for item in args.set:
            parts = item.split("=")
            spec, cache = Path(parts[0]), Path(parts[1])
            words = Path(parts[2]) if len(parts) > 2 and parts[2] else None
            print(f"collecting {spec} ...", flush=True)
            samples += collect(spec, cache, words, args.models_dir)
        if args.samples:
            args.samples.write_text(json.dumps(samples))
    rated = [s for s in samples if not s["verbatim"]]
    x = np.array([s["x"] for s in rated], dtype=float)
    y = np.array([float(s["holds"]) for s in rated])
    # Left out in turn: each set's case (questions on other documents, other wording habits).
    groups = sorted({s.get("group", s["set"]) for s in rated})
    print(f"\n{len(rated)} results ({int(y.sum())} hold the answer) from {len(groups)} cases")
    held = np.zeros(len(rated))
    for name in groups:
        test = np.array([s.get("group", s["set"]) == name for s in rated])
        w = fit(x[~test], y[~test])
        held[test] = 1 / (1 + np.exp(-np.clip(x[test] @ w, -30, 30)))
    print("\nleft-out cases, predicted chance -> share that holds the answer:")
    for bucket, n, share in reliability(held, y):
        print(f"  {bucket}  n={n:5d}  holds {share:.3f}")
    w = fit(x, y)
    print("\nweights (all sets):")
    for name, value in zip(FEATURES, w, strict=True):
        print(f"  {name:15s} {value:+.4f}")
    model = Calibration(tuple(round(float(v), 4) for v in w))
    print(f"\nCALIBRATED = Calibration({model.weights})")
    tops = [s for s, p in zip(rated, held, strict=True) if s["rank"] == 1]
    firsts = {(s["set"], s["id"], s["words"]): p for s, p in zip(rated, held, strict=True) if s["rank"] == 1}
    for threshold in (0.1, 0.15, 0.2, 0.25, 0.3):
        answerable = [k for k, s in zip(firsts, tops, strict=True) if s["answerable"]]
        flagged = sum(1 for k in answerable if firsts[k] < threshold)
        none = [k for k, s in zip(firsts, tops, strict=True) if not s["answerable"]]
        said = sum(1 for k in none if firsts[k] < threshold)
        print(
            f"no_good_match below {threshold:.2f} (left-out fits): {flagged}/{len(answerable)} answerable flagged, "
            f"{said}/{len(none)} unanswerable flagged"
        )
    if args.out:
        args.out.write_text(json.dumps({"features": FEATURES, "weights": list(model.weights)}, indent=1))


if __name__ == "__main__":
    main()

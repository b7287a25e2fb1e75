"""Relevance scale: does `no_good_match` tell "nothing here says that" from "here is the answer"?

Runs our own lawyer questions (bench/questions/lawyer_{en,pt}.json, gold known) and queries
about things no legal case holds (recipes, sport, weather, physics; EN and PT) against the
retrieval benchmark's cases, and prints the top result's relevance for each group: how often a
real question is flagged `no_good_match` (a false alarm) and how often an off-topic one is not
(a miss), plus the relevance quartiles. The thresholds in casetrack/search/relevance.py were set
with this; the blind question set (bench/blind.py) reports the flag rate on unseen questions.

Usage:
  .venv/bin/python bench/relevance_scale.py --cache /tmp/bench-cache
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402

OFF_TOPIC = {
    "en": [
        "recipe for chocolate cake with strawberries",
        "who won the 1998 football world cup final",
        "quantum entanglement of photons",
        "how do I change a flat tire on a bicycle",
        "best hiking trails in the Alps in summer",
        "what is the boiling point of nitrogen",
        "guitar chords for a blues song",
        "how many moons does Jupiter have",
        "knitting pattern for a wool scarf",
        "photosynthesis in desert cactus plants",
        "purple elephants dancing on Mars",
        "train schedule from Paris to Lyon on Sunday",
    ],
    "pt": [
        "receita de bolo de chocolate com morangos",
        "quem ganhou a final da copa do mundo de 1998",
        "previsão do tempo para amanhã em Lisboa",
        "como trocar o pneu furado da bicicleta",
        "melhores praias do nordeste para surfar",
        "qual é o ponto de ebulição do nitrogênio",
        "acordes de violão para tocar samba",
        "quantas luas tem o planeta Júpiter",
        "elefantes roxos dançando em Marte",
        "horário do ônibus de Campinas para Santos",
        "como plantar tomate em vaso na varanda",
        "fotossíntese em cactos do deserto",
    ],
}


def quartiles(values: list[float]) -> str:
    v = sorted(values)
    if not v:
        return "-"
    return " / ".join(f"{v[min(len(v) - 1, int(q * len(v)))]:.2f}" for q in (0.1, 0.25, 0.5, 0.75, 0.9))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", default="/tmp/bench-cache")
    parser.add_argument("--models-dir", default=str(REPO.parent / "shared" / "models"))
    args = parser.parse_args()
    cache = Path(args.cache)
    manifest = json.loads((cache / "manifest.json").read_text())
    app = CaseTrack(resolve_settings(cache / "data", args.models_dir, environ={}))
    print("| case | queries | n | top-1 relevance p10/p25/p50/p75/p90 | flagged no_good_match |")
    print("|---|---|---|---|---|")
    for lang in ("en", "pt"):
        case = next(c for c, e in manifest.items() if e["dataset"] == f"lawyer_{lang}")
        questions = [
            q["question"] if isinstance(q, dict) else q
            for q in json.loads((REPO / f"bench/questions/lawyer_{lang}.json").read_text())["questions"]
        ]
        for label, queries in (("lawyer questions", questions), ("off-topic", OFF_TOPIC[lang])):
            tops, flagged = [], 0
            for query in queries:
                resp = app.search(case, query, top_k=5)
                tops.append(resp.hits[0].relevance or 0.0 if resp.hits else 0.0)
                flagged += resp.no_good_match or not resp.hits
            print(
                f"| {case} | {label} | {len(queries)} | {quartiles(tops)} | {flagged}/{len(queries)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""The chronology against dates marked by hand (bench/chronology_gold/, see its README).

The gold documents are ingested into a fresh case (the real pipeline: parse, chunk, embed, store)
and the case's chronology is built as `casetrack chronology` builds it. A gold event is found when
an event's sentence holds the gold's context (whitespace aside) and its date text overlaps the
gold's; each event counts once. Reported: precision and recall of the dated events (sentence
found) and of their dates' values (found with the same value and precision), over all documents,
the dev documents (read while the rules were written) and the held-out ones, by language and by
kind of document, and the time the chronology took.

Usage:
  .venv/bin/python bench/chronology.py            # ingest into a temp case, then score
  .venv/bin/python bench/chronology.py --text     # parse + events only (no store; fast, for iterating)
  .venv/bin/python bench/chronology.py --show     # also list every miss and every extra
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DATA = REPO.parent / "shared" / "data"
MODELS = REPO.parent / "shared" / "models"
GOLD = REPO / "bench" / "chronology_gold"


@dataclass(frozen=True)
class Found:
    sentence: str
    date_text: str
    value: str  # "2021-03-05" or "2021-03"


def norm(text: str) -> str:
    return " ".join(text.split())


def load_gold() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(GOLD.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["id"] = path.stem
        doc["path"] = DATA / doc["source"]
        docs.append(doc)
    return docs


def by_text(docs: list[dict[str, Any]]) -> dict[str, list[Found]]:
    """Events per gold document through parse + `document_events` only (no store)."""
    from casetrack.legal.extract import document_metadata
    from casetrack.parse import parse_file
    from casetrack.search.chronology.events import document_events

    out: dict[str, list[Found]] = {}
    for doc in docs:
        pages = [p.text for p in parse_file(doc["path"]).pages]
        meta = document_metadata(pages, "auto", doc["path"].name)
        when = date.fromisoformat(meta.doc_date.date) if meta.doc_date else None
        language = "pt" if meta.languages[:1] == ("pt",) else "en"
        out[doc["id"]] = [
            Found(
                norm(pages[e.page][e.start : e.end]),
                norm(e.date_text),
                e.value.isoformat()[: 7 if e.precision == "month" else 10],
            )
            for e in document_events(pages, language, when)
        ]
    return out


def by_case(docs: list[dict[str, Any]]) -> tuple[dict[str, list[Found]], float, int]:
    """Events per gold document from a real case's chronology; (events, seconds, events total)."""
    from casetrack.app import CaseTrack
    from casetrack.config import resolve_settings

    with tempfile.TemporaryDirectory(prefix="chronology-bench-") as tmp:
        settings = resolve_settings(Path(tmp) / "data", MODELS, environ={}, install_models=None)
        app = CaseTrack(settings)
        try:
            app.create_case("Chronology bench", "other", "pt")  # the multilingual E1: EN and PT documents
            results = app.ingest("Chronology bench", [d["path"] for d in docs])
            failed = [(r.path, r.error) for r in results if r.status != "ingested"]
            if failed:
                raise SystemExit(f"ingest failed: {failed}")
            started = time.perf_counter()
            answer = app.chronology("Chronology bench")
            seconds = time.perf_counter() - started
        finally:
            app.close()
    names = {d["path"].name: d["id"] for d in docs}
    out: dict[str, list[Found]] = {d["id"]: [] for d in docs}
    for e in answer["events"]:
        out[names[e["document"]]].append(Found(norm(e["sentence"]), norm(e["date_text"]), e["date"]))
    return out, seconds, answer["total"]


@dataclass
class Score:
    gold: int = 0
    found: int = 0
    hits: int = 0
    right: int = 0  # hits with the gold's value and precision

    def add(self, other: Score) -> None:
        self.gold += other.gold
        self.found += other.found
        self.hits += other.hits
        self.right += other.right

    def row(self, name: str, docs: int) -> str:
        def ratio(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "-"

        return (
            f"| {name} | {docs} | {self.gold} | {self.found} | {ratio(self.hits, self.found)} | "
            f"{ratio(self.hits, self.gold)} | {ratio(self.right, self.found)} | {ratio(self.right, self.gold)} |"
        )


def score(doc: dict[str, Any], found: list[Found], show: bool) -> Score:
    s = Score(gold=len(doc["events"]), found=len(found))
    used: set[int] = set()
    for gold in doc["events"]:
        context, text = norm(gold["context"]), norm(gold["text"])
        hit = next(
            (
                i
                for i, f in enumerate(found)
                if i not in used and context in f.sentence and (text in f.date_text or f.date_text in text)
            ),
            None,
        )
        if hit is None:
            if show:
                print(f"  MISS  {doc['id']}: {gold['text']!r} in {gold['context']!r}")
            continue
        used.add(hit)
        s.hits += 1
        if found[hit].value == gold["date"]:
            s.right += 1
        elif show:
            print(f"  VALUE {doc['id']}: {found[hit].value} for {gold['date']} ({gold['text']!r})")
    for i, f in enumerate(found):
        if i not in used and show:
            print(f"  EXTRA {doc['id']}: {f.date_text!r} = {f.value} in {f.sentence[:100]!r}")
    return s


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--text", action="store_true", help="parse + events only, no case")
    parser.add_argument("--show", action="store_true", help="list every miss and extra")
    args = parser.parse_args()
    docs = load_gold()
    if args.text:
        found, seconds, total = by_text(docs), 0.0, 0
    else:
        found, seconds, total = by_case(docs)
    groups: dict[str, tuple[Score, list[str]]] = defaultdict(lambda: (Score(), []))
    for doc in docs:
        s = score(doc, found[doc["id"]], args.show)
        for group in ("all", doc["set"], doc["language"], doc["kind"]):
            groups[group][0].add(s)
            groups[group][1].append(doc["id"])
    print("| documents | n | gold events | found | event P | event R | date P | date R |")
    print("|---|---|---|---|---|---|---|---|")
    for name in (
        "all",
        "dev",
        "held_out",
        "en",
        "pt",
        "contract",
        "letter",
        "order",
        "judgment",
        "acordao",
        "other",
    ):
        if name in groups:
            print(groups[name][0].row(name, len(groups[name][1])))
    if not args.text:
        print(f"\nchronology of the case ({len(docs)} documents, {total} events): {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()

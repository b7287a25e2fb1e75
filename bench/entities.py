"""Legal metadata extractors (issue 15): precision and recall, one command.

Parts, each printing a markdown table:
  lener      legislation, jurisprudence (+ CNJ / old process numbers) and tribunal mentions against the
             LeNER-Br CoNLL gold (LEGISLACAO, JURISPRUDENCIA, and ORGANIZACAO spans that name a court).
             Span rule: OVERLAP. A predicted span is correct when it overlaps a gold span of its class;
             a gold span is found when a predicted span overlaps it. Exact boundaries are reported too.
             Tribunal mentions inside a gold LEGISLACAO/JURISPRUDENCIA span ("Súmula 333/TST") are left out
             of the tribunal score: LeNER-Br is flat NER and labels only the outer entity.
  cnj        every CNJ-shaped number in the 70 LeNER-Br raw texts, and 2,000 synthetic numbers (valid and
             invalid check digits; punctuated, 20 bare digits, spaced; tribunal decoding spot-checked)
  us         US citations on the US court documents (pdftotext) against eyecite's own output on the same
             text, and 30 hand-labelled citations (bench/questions/us_citations_labels.json)
  doctype    document type on the 75 hand-labelled documents (bench/questions/doctype_labels.json):
             accuracy on the rules' dev half, the held-out half, and all
  docdate    how often a date is found on those documents, by rule, and accuracy against blind labels
             (bench/questions/docdate_labels.json)
  speed      extract_entities throughput on LeNER-Br and US texts

Usage:
  .venv/bin/python bench/entities.py                 # all parts
  .venv/bin/python bench/entities.py --part lener --splits test
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.legal.cnj import check_digits, find_cnj  # noqa: E402
from casetrack.legal.docdate import find_doc_date  # noqa: E402
from casetrack.legal.doctype import classify  # noqa: E402
from casetrack.legal.extract import extract_entities  # noqa: E402
from casetrack.legal.model import EntityKind  # noqa: E402
from casetrack.legal.us_citations import eyecite, find_us_citations  # noqa: E402

DATA = REPO.parent / "shared" / "data"
LENER = DATA / "lener_br"
QUESTIONS = REPO / "bench" / "questions"
# A court in a gold ORGANIZACAO span: written independently of casetrack.legal.tribunals.
COURT = re.compile(
    r"tribunal|supremo|\b(?:ST[FJM]|TS[TE]|TRF|TRT|TRE|TJ[A-Z]{0,3}|TCU|TCE|CNJ|CARF|CJF)\b", re.I
)

Span = tuple[int, int]


# -- LeNER-Br ---------------------------------------------------------------------------------------

_NO_SPACE_BEFORE = set(".,;:)]º°ª»”%") | {"''"}
_NO_SPACE_AFTER = set("([«“") | {"``"}


def conll_documents(split: str) -> list[tuple[str, dict[str, list[Span]]]]:
    """The split as texts of ~200 sentences (joined by newlines) with gold spans per class."""
    docs: list[tuple[str, dict[str, list[Span]]]] = []
    text, gold, cur = "", dict[str, list[Span]](), None
    prev = ""
    sentences = 0
    for line in (LENER / split / f"{split}.conll").read_text(encoding="utf-8").splitlines():
        parts = line.split(" ")
        if len(parts) < 2:
            if cur:
                gold.setdefault(cur[0], []).append((cur[1], cur[2]))
                cur = None
            text, prev, sentences = text + "\n", "", sentences + 1
            if sentences >= 200:
                docs.append((text, gold))
                text, gold, sentences = "", {}, 0
            continue
        token, tag = parts[0], parts[-1]
        token = {"``": '"', "''": '"'}.get(token, token)
        glue = (
            not prev
            or prev in _NO_SPACE_AFTER
            or parts[0] in _NO_SPACE_BEFORE
            or prev == '"'
            and token.isalnum()
            and False
        )
        start = len(text) + (0 if glue or text.endswith("\n") else 1)
        text = text + ("" if glue or text.endswith("\n") else " ") + token
        end = len(text)
        if tag.startswith("B-") or (tag.startswith("I-") and (not cur or cur[0] != tag[2:])):
            if cur:
                gold.setdefault(cur[0], []).append((cur[1], cur[2]))
            cur = [tag[2:], start, end]
        elif tag.startswith("I-") and cur:
            cur[2] = end
        else:
            if cur:
                gold.setdefault(cur[0], []).append((cur[1], cur[2]))
            cur = None
        prev = parts[0]
    if text.strip():
        docs.append((text, gold))
    return docs


def _overlaps(a: Span, spans: list[Span]) -> bool:
    return any(a[0] < e and s < a[1] for s, e in spans)


def score(pred: list[Span], gold: list[Span], text: str) -> dict[str, float]:
    tp_p = sum(_overlaps(p, gold) for p in pred)
    tp_g = sum(_overlaps(g, pred) for g in gold)
    strip = {(text[s:e].strip(" .,;")) for s, e in gold}
    exact = sum(text[s:e].strip(" .,;") in strip and _overlaps((s, e), gold) for s, e in pred)
    return {"pred": len(pred), "gold": len(gold), "tp_p": tp_p, "tp_g": tp_g, "exact": exact}


def part_lener(splits: list[str]) -> None:
    print("\n### LeNER-Br CoNLL gold (overlap match; exact = same span text)\n")
    print("| split | class | gold | predicted | precision | recall | F1 | exact-boundary precision |")
    print("|---|---|---|---|---|---|---|---|")
    for split in splits:
        totals: dict[str, Counter[str]] = {c: Counter() for c in ("legislation", "jurisprudence", "tribunal")}
        for text, gold in conll_documents(split):
            ents = extract_entities(text, "pt")
            leg = [(e.start, e.end) for e in ents if e.kind == EntityKind.LEGISLATION]
            jur = [
                (e.start, e.end)
                for e in ents
                if e.kind in (EntityKind.JURISPRUDENCE, EntityKind.CNJ, EntityKind.PROCESS)
            ]
            outer = gold.get("LEGISLACAO", []) + gold.get("JURISPRUDENCIA", [])
            trib = [
                (e.start, e.end)
                for e in ents
                if e.kind == EntityKind.TRIBUNAL and not any(s <= e.start and e.end <= t for s, t in outer)
            ]
            courts = [(s, e) for s, e in gold.get("ORGANIZACAO", []) if COURT.search(text[s:e])]
            for name, pred, g in (
                ("legislation", leg, gold.get("LEGISLACAO", [])),
                ("jurisprudence", jur, gold.get("JURISPRUDENCIA", [])),
                ("tribunal", trib, courts),
            ):
                totals[name].update(score(pred, g, text))
        for name, t in totals.items():
            p = t["tp_p"] / t["pred"] if t["pred"] else 0.0
            r = t["tp_g"] / t["gold"] if t["gold"] else 0.0
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            ex = t["exact"] / t["pred"] if t["pred"] else 0.0
            print(
                f"| {split} | {name} | {t['gold']} | {t['pred']} | {p:.3f} | {r:.3f} | {f1:.3f} | {ex:.3f} |"
            )


def lener_misses(split: str, cls: str, limit: int = 15) -> None:
    """Print missed gold spans and wrong predictions of one class (for error analysis: --misses)."""
    kinds = {
        "LEGISLACAO": (EntityKind.LEGISLATION,),
        "JURISPRUDENCIA": (EntityKind.JURISPRUDENCE, EntityKind.CNJ, EntityKind.PROCESS),
    }[cls]
    fn, fp = [], []
    for text, gold in conll_documents(split):
        pred = [(e.start, e.end) for e in extract_entities(text, "pt") if e.kind in kinds]
        fn += [text[s:e] for s, e in gold.get(cls, []) if not _overlaps((s, e), pred)]
        fp += [
            text[max(0, s - 30) : e + 10].replace("\n", " ")
            for s, e in pred
            if not _overlaps((s, e), gold.get(cls, []))
        ]
    print(f"missed {len(fn)}:", fn[:limit])
    print(f"wrong {len(fp)}:", fp[:limit])


# -- CNJ ------------------------------------------------------------------------------------------

_CNJ_SHAPE = re.compile(
    r"(?<![\d.])\d{1,7}\s?-\s?\d{2}\s?\.\s?\d{4}\s?\.\s?\d\s?\.\s?\d{2}\s?\.\s?\d{4}(?!\d)|(?<!\d)\d{20}(?!\d)"
)
SPOT = {
    (8, 26): "TJSP",
    (4, 3): "TRF3",
    (5, 2): "TRT2",
    (6, 26): "TRE-SP",
    (8, 7): "TJDFT",
    (8, 19): "TJRJ",
    (8, 13): "TJMG",
    (8, 21): "TJRS",
    (4, 1): "TRF1",
    (5, 15): "TRT15",
    (3, 0): "STJ",
    (1, 0): "STF",
    (5, 0): "TST",
    (7, 0): "STM",
    (6, 0): "TSE",
    (8, 1): "TJAC",
    (8, 27): "TJTO",
    (5, 24): "TRT24",
}


def part_cnj() -> None:
    print("\n### CNJ numbers\n")
    shaped = found = valid = 0
    for path in sorted((LENER / "raw_text").glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        spans = [m.span() for m in _CNJ_SHAPE.finditer(text)]
        got = list(find_cnj(text))
        shaped += len(spans)
        found += sum(any(c.start < e and s < c.end for c in got) for s, e in spans)
        valid += sum(c.valid for c in got)
    print(
        f"LeNER-Br raw texts: {shaped} CNJ-shaped numbers (punctuated, or 20 bare digits); found {found} "
        f"({found / max(shaped, 1):.1%}); {valid} of the found have valid check digits.\n"
    )
    rng = random.Random(15)
    rows: Counter[str] = Counter()
    for i in range(2000):
        j, tr = rng.choice(list(SPOT))
        n, y, o = f"{rng.randrange(10**7):07d}", str(rng.randrange(1990, 2025)), f"{rng.randrange(10**4):04d}"
        dd = check_digits(n, y, str(j), f"{tr:02d}", o)
        bad = i % 2 == 1
        if bad:
            dd = f"{(int(dd) + rng.randrange(1, 97)) % 100:02d}"
        form = ("punct", "bare", "spaced")[i % 6 // 2]
        num = {
            "punct": f"{n}-{dd}.{y}.{j}.{tr:02d}.{o}",
            "bare": f"{n}{dd}{y}{j}{tr:02d}{o}",
            "spaced": f"{n} {dd} {y} {j} {tr:02d} {o}",
        }[form]
        text = f"Autos do processo nº {num}, em trâmite."
        got = list(find_cnj(text))
        label = f"{form} {'invalid' if bad else 'valid'}"
        rows[label + " total"] += 1
        rows[label + " found"] += bool(got)
        rows[label + " flag ok"] += bool(got) and got[0].valid != bad
        rows[label + " tribunal ok"] += bool(got) and got[0].tribunal == SPOT[(j, tr)]
    print("| synthetic (2,000) | total | found | valid flag right | tribunal right |")
    print("|---|---|---|---|---|")
    for form in ("punct", "bare", "spaced"):
        for v in ("valid", "invalid"):
            k = f"{form} {v}"
            print(
                f"| {k} | {rows[k + ' total']} | {rows[k + ' found']} | {rows[k + ' flag ok']} | {rows[k + ' tribunal ok']} |"
            )
    print(
        "\n(bare and spaced numbers are accepted only with valid check digits: for them, "
        "'found' on invalid numbers counts false accepts, expected 0)"
    )


# -- US citations ----------------------------------------------------------------------------------


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=False).stdout


def us_documents() -> list[tuple[str, str]]:
    root = DATA / "legal_docs_us_courts"
    out = [(str(p.relative_to(DATA)), pdf_text(p)) for p in sorted(root.rglob("*.pdf"))]
    out.append(
        (
            "legal_docs_us_courts/extra_from_history/opinion_text.txt",
            (root / "extra_from_history" / "opinion_text.txt").read_text(encoding="utf-8"),
        )
    )
    return [(p, t) for p, t in out if t.strip()]


def part_us() -> None:
    print("\n### US citations\n")
    get_citations, _ = eyecite()
    ref = ours = both = 0
    kinds: Counter[str] = Counter()
    for _, text in us_documents():
        eye = [c.span() for c in get_citations(text) if type(c).__name__ != "UnknownCitation"]
        mine = find_us_citations(text)
        ref += len(eye)
        ours += len(mine)
        both += sum(any(c.start < e and s < c.end for c in mine) for s, e in eye)
        kinds.update(c.kind for c in mine)
    print(
        f"Against eyecite on the raw text ({len(us_documents())} documents): eyecite {ref} citations (no "
        f"UnknownCitation), ours {ours}; eyecite's found by ours {both}/{ref} ({both / max(ref, 1):.1%}); "
        f"ours not overlapping eyecite-on-raw-text: {ours - both} (citations across a line break, found once whitespace is "
        f"squeezed, and U.S.C./C.F.R. sections eyecite misses). Kinds: {dict(kinds)}.\n"
    )
    labels = json.loads((QUESTIONS / "us_citations_labels.json").read_text(encoding="utf-8"))["citations"]
    texts: dict[str, str] = {}
    found = keyed = 0
    per_kind: Counter[str] = Counter()
    misses = []
    for lab in labels:
        path = DATA / lab["path"]
        text = texts.setdefault(
            lab["path"], pdf_text(path) if path.suffix == ".pdf" else path.read_text(encoding="utf-8")
        )
        m = re.search(r"\s+".join(map(re.escape, lab["needle"].split())), text)
        if not m:
            misses.append(f"needle not found: {lab['needle']}")
            continue
        cm = re.search(r"\s+".join(map(re.escape, lab["cite"].split())), text[m.start() : m.end()])
        s = m.start() + (cm.start() if cm else 0)
        cites = [
            c for c in find_us_citations(text) if c.start <= s < c.end or (c.start >= s and c.start < s + 4)
        ]
        per_kind[lab["kind"] + " total"] += 1
        if cites:
            found += 1
            per_kind[lab["kind"] + " found"] += 1
            if cites[0].key == lab["key"]:
                keyed += 1
                per_kind[lab["kind"] + " key"] += 1
            else:
                misses.append(f"{lab['cite']} -> {cites[0].key!r}, expected {lab['key']!r}")
        else:
            misses.append(f"not found: {lab['cite']} ({lab['needle']})")
    print(
        f"Hand labels: {len(labels)} citations; found {found}, right key (short forms and id. resolved) {keyed}.\n"
    )
    print("| kind | labelled | found | right key |\n|---|---|---|---|")
    for kind in ("case", "short_case", "id", "statute"):
        print(
            f"| {kind} | {per_kind[kind + ' total']} | {per_kind[kind + ' found']} | {per_kind[kind + ' key']} |"
        )
    for miss in misses:
        print(f"- {miss}")


# -- document type and date -------------------------------------------------------------------------


def labelled_pages(path: str) -> list[str]:
    full = DATA / path
    if full.suffix == ".pdf":
        out = subprocess.run(
            ["pdftotext", str(full), "-"], capture_output=True, text=True, check=False
        ).stdout
        return out.split("\f")
    return [full.read_text(encoding="utf-8", errors="replace")]


def part_doctype() -> None:
    print("\n### Document type (hand labels)\n")
    docs = json.loads((QUESTIONS / "doctype_labels.json").read_text(encoding="utf-8"))["documents"]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong = []
    dates: Counter[str] = Counter()
    got_dates: dict[str, str | None] = {}
    for d in docs:
        pages = labelled_pages(d["path"])
        got = classify(pages, d["path"])
        for split in (d["split"], "all"):
            total[split] += 1
            right[split] += got.type == d["type"]
        if got.type != d["type"]:
            wrong.append(f"{d['path']}: labelled {d['type']}, got {got.type} {list(got.evidence)}")
        lang = "pt" if d["path"].startswith("lener_br") else "en"
        found = find_doc_date(pages, lang)
        dates[found.rule if found else "none"] += 1
        got_dates[d["path"]] = found.date if found else None
    print("| documents | n | accuracy |\n|---|---|---|")
    for split in ("dev", "heldout", "all"):
        print(
            f"| {split} | {total[split]} | {right[split]}/{total[split]} = {right[split] / max(total[split], 1):.1%} |"
        )
    print("\nTypes labelled:", dict(Counter(d["type"] for d in docs)))
    for w in wrong:
        print(f"- {w}")
    print(f"\n### Document date on the same {len(docs)} documents\n")
    print("Rule that fired (none: no date found):", dict(dates.most_common()))
    score_dates(got_dates)


def score_dates(got: dict[str, str | None]) -> None:
    """Against bench/questions/docdate_labels.json, labelled blind (a helper who never read the rules):
    right = the labelled date or one of its `also` alternatives; a document labelled null is right
    when no date is found."""
    gold = json.loads((QUESTIONS / "docdate_labels.json").read_text(encoding="utf-8"))
    outcome: Counter[str] = Counter()
    wrong = []
    for g in gold:
        found, ok = got.get(g["path"]), [g["date"], *g.get("also", [])] if g["date"] else [None]
        if g["date"] is None:
            kind = "null: none found (right)" if found is None else "null: a date found (wrong)"
        elif found is None:
            kind = "dated: none found (miss)"
        else:
            kind = "dated: right" if found in ok else "dated: wrong date"
        outcome[kind] += 1
        if kind.endswith("(wrong)") or kind == "dated: wrong date":
            wrong.append(f"{g['path']}: labelled {g['date']}, got {found}")
    right = outcome["dated: right"] + outcome["null: none found (right)"]
    dated = sum(v for k, v in outcome.items() if k.startswith("dated"))
    print(
        f"\nAgainst blind labels ({len(gold)} documents): {right}/{len(gold)} = {right / len(gold):.1%} right; "
        f"of the {dated} with a date, {outcome['dated: right']} right ({outcome['dated: right'] / max(dated, 1):.1%})"
    )
    for kind, n in sorted(outcome.items()):
        print(f"- {kind}: {n}")
    for w in wrong:
        print(f"- {w}")


# -- speed -----------------------------------------------------------------------------------------


def part_speed() -> None:
    print("\n### Speed\n")
    pt = [p.read_text(encoding="utf-8") for p in sorted((LENER / "raw_text").glob("*.txt"))]
    en = [t for _, t in us_documents()]
    eyecite()
    for name, texts, lang in (("LeNER-Br (pt)", pt, "pt"), ("US courts (en, eyecite)", en, "en")):
        chars = sum(len(t) for t in texts)
        started = time.perf_counter()
        n = sum(len(extract_entities(t, lang)) for t in texts)
        secs = time.perf_counter() - started
        print(
            f"- {name}: {len(texts)} texts, {chars / 1e6:.2f} M chars, {n} entities, {secs:.2f} s "
            f"({secs / (chars / 3000) * 1000:.1f} ms per 3,000-char page)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=["lener", "cnj", "us", "doctype", "speed", "all"], default="all")
    parser.add_argument("--splits", default="test,dev,train", help="LeNER-Br splits (comma-separated)")
    parser.add_argument("--misses", metavar="SPLIT:CLASS", help="print misses, e.g. test:LEGISLACAO")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"data missing: {DATA}")
    if args.misses:
        split, cls = args.misses.split(":")
        lener_misses(split, cls)
        return
    parts = ["lener", "cnj", "us", "doctype", "speed"] if args.part == "all" else [args.part]
    for part in parts:
        if part == "lener":
            part_lener(args.splits.split(","))
        elif part == "cnj":
            part_cnj()
        elif part == "us":
            part_us()
        elif part == "doctype":
            part_doctype()
        else:
            part_speed()


if __name__ == "__main__":
    main()

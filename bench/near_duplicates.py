"""Near-duplicates at ingest (quote/similar.py, ingest/near_duplicates.py): which threshold on the
exact word similarity tells a near-copy from a document that only shares a template, measured on
real near-twins and on synthetic edits.

Corpus: the 645 contracts of ../shared/data/legal_span_bench/corpus (184 ContractNLI NDAs, 461
CUAD agreements). As at ingest, each document's MinHash (3-shingles, datasketch) goes into an LSH
index (threshold LSH_THRESHOLD); a document's LSH candidates are compared word by word
(`compare`), and a pair is flagged when its similarity reaches the threshold.
  real pairs: every pair of the corpus; positives by hand (bench/gold/near_duplicate_pairs.json);
  synthetic: 100 documents drawn at random (seed 29), each edited three ways and looked up in the
    index of the corpus: one word replaced, 5% of its words replaced at random places, one
    paragraph (a block between blank lines, at most 10% of the words) deleted.

    python bench/near_duplicates.py
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

from datasketch import MinHashLSH

from casetrack.quote.similar import LSH_THRESHOLD, NUM_PERM, compare, minhash, words

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "legal_span_bench" / "corpus"
GOLD = Path(__file__).resolve().parent / "gold" / "near_duplicate_pairs.json"
THRESHOLDS = (0.97, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7)


def _edit_words(text: str, rng: random.Random, share: float) -> str:
    tokens = re.split(r"(\s+)", text)
    spots = [i for i, t in enumerate(tokens) if t.strip()]
    for i in rng.sample(spots, max(1, int(len(spots) * share)) if share else 1):
        tokens[i] = "xyzzy"
    return "".join(tokens)


def _drop_paragraph(text: str, rng: random.Random) -> str:
    blocks = re.split(r"\n\s*\n", text)
    total = len(words(text))
    small = [i for i, b in enumerate(blocks) if 0 < len(words(b)) <= 0.1 * total]
    if not small:
        return _edit_words(text, rng, 0.0)
    drop = rng.choice(small)
    return "\n\n".join(b for i, b in enumerate(blocks) if i != drop)


def main() -> None:
    files = sorted(CORPUS.glob("*/*.txt"))
    names = [f"{f.parent.name}/{f.name}" for f in files]
    texts = {n: f.read_text(encoding="utf-8", errors="replace") for n, f in zip(names, files, strict=True)}
    started = time.perf_counter()
    sigs = {n: minhash(words(t)) for n, t in texts.items()}
    per_doc_sig = (time.perf_counter() - started) / len(names) * 1000
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    for n, m in sigs.items():
        lsh.insert(n, m)

    compared: dict[tuple[str, str], float] = {}
    compare_ms: list[float] = []
    query_ms: list[float] = []
    for n in names:
        t0 = time.perf_counter()
        found = [c for c in lsh.query(sigs[n]) if c != n]
        query_ms.append((time.perf_counter() - t0) * 1000)
        for c in found:
            pair = (min(n, c), max(n, c))
            if pair not in compared:
                t0 = time.perf_counter()
                compared[pair] = compare(texts[pair[0]], texts[pair[1]]).similarity
                compare_ms.append((time.perf_counter() - t0) * 1000)

    gold = json.loads(GOLD.read_text(encoding="utf-8"))

    def resolve(prefix: str) -> str:
        [match] = [n for n in names if n.startswith(prefix)]
        return match

    positives: set[tuple[str, ...]] = {
        tuple(sorted((resolve(a), resolve(b)))) for a, b, _ in gold["positive"]
    }
    hard = {tuple(sorted((resolve(a), resolve(b)))) for a, b, _ in gold["negative"]}
    print(
        f"{len(names)} documents; signature {per_doc_sig:.1f} ms/doc; LSH query {sum(query_ms) / len(query_ms):.2f} ms/doc"
    )
    print(
        f"candidate pairs compared: {len(compared)} of {len(names) * (len(names) - 1) // 2}; "
        f"compare {sum(compare_ms) / max(len(compare_ms), 1):.1f} ms/pair (max {max(compare_ms, default=0):.0f})"
    )
    missing = [p for p in positives if p not in compared]
    print(
        f"positives the LSH stage found: {len(positives) - len(missing)}/{len(positives)}; hard negatives found: "
        f"{sum(p in compared for p in hard)}/{len(hard)}"
    )
    for pair in sorted(positives | hard, key=lambda p: -compared.get(p, 0.0)):
        label = "positive" if pair in positives else "negative"
        print(f"  {label}  {compared.get(pair, float('nan')):.3f}  {pair[0][:55]} | {pair[1][:55]}")

    rng = random.Random(29)
    sample = rng.sample(names, 100)
    variants: dict[str, list[tuple[str, dict[str, float]]]] = {
        "one word": [],
        "5% of words": [],
        "one paragraph": [],
    }
    for n in sample:
        text = texts[n]
        edited = {
            "one word": _edit_words(text, rng, 0.0),
            "5% of words": _edit_words(text, rng, 0.05),
            "one paragraph": _drop_paragraph(text, rng),
        }
        for kind, new in edited.items():
            found = lsh.query(minhash(words(new)))
            sims = {c: compare(texts[c], new).similarity for c in found}
            variants[kind].append((n, sims))

    _table(compared, positives, variants, texts)
    print(f"({time.perf_counter() - started:.0f} s)")


def _table(
    compared: dict[tuple[str, str], float],
    positives: set[tuple[str, ...]],
    variants: dict[str, list[tuple[str, dict[str, float]]]],
    texts: dict[str, str],
) -> None:
    """Precision and recall of each threshold, on the real pairs and the synthetic edits."""
    print(
        f"\nthreshold | real pairs: flagged, precision, recall (of {len(positives)}) | synthetic recall: "
        "one word, 5% words, one paragraph | synthetic flagged against another document"
    )
    for threshold in THRESHOLDS:
        flagged = {p for p, s in compared.items() if s >= threshold}
        tp = len(flagged & positives)
        precision = tp / len(flagged) if flagged else 1.0
        recalls, wrong = [], 0
        for rows in variants.values():
            recalls.append(sum(sims.get(n, 0.0) >= threshold for n, sims in rows) / len(rows))
            wrong += sum(
                any(
                    s >= threshold
                    for c, s in sims.items()
                    if c != n and (min(c, n), max(c, n)) not in positives and texts[c] != texts[n]
                )
                for n, sims in rows
            )
        print(
            f"  {threshold:.2f} | {len(flagged)} flagged, P {precision:.3f}, R {tp}/{len(positives)} = {tp / len(positives):.3f} "
            f"| {recalls[0]:.2f}, {recalls[1]:.2f}, {recalls[2]:.2f} | {wrong}"
        )


if __name__ == "__main__":
    main()

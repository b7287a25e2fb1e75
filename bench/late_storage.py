"""Late-interaction (E12) storage benchmark: token codec x pruning against float32 MaxSim.

CUAD contracts (../shared/data/legal_span_bench) are cut into ~480-token windows of whole
words. For each query a pool of ~50 windows (every window of its gold contract plus windows of
other contracts) is ranked by MaxSim with float32, unpruned token vectors (the reference) and
with every codec x pruning variant. Printed per variant: stored bytes per chunk (mean, p95),
Kendall tau and top-10 overlap against the reference ranking, and MRR of the first window that
overlaps a gold span. Then encode throughput, batched-vs-alone differences and MaxSim time.

A second table repeats the codecs at 96 dims (the production model's width) on a random
orthogonal projection of the stand-in's vectors: a proxy for how the codecs behave at that
width, not a measurement of the production model.

Usage: .venv/bin/python bench/late_storage.py [--docs 10] [--queries-per-doc 5] [--pool 50]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import kendall_tau, mean, percentile, reciprocal_rank, top_k_overlap  # noqa: E402
from casetrack.embed.catalog import load_model_spec  # noqa: E402
from casetrack.embed.late import LateInteractionEncoder, default_pruning, maxsim_many  # noqa: E402
from casetrack.embed.token_codec import (  # noqa: E402
    CHUNK_BYTE_BUDGET,
    TokenPruning,
    decode_tokens,
    encode_tokens,
    prune_positions,
    punctuation_ids,
    tokens_within_budget,
)
from casetrack.embed.tokens import load_tokenizer  # noqa: E402

SHARED = REPO.parent / "shared"
BENCH = SHARED / "data/legal_span_bench"
WINDOW = 480
Vectors = npt.NDArray[np.float32]


def windows(text: str, counts: list[int], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Char ranges of consecutive whole-word windows of at most WINDOW tokens."""
    out, start, used = [], 0, 0
    for i, n in enumerate(counts):
        if used + n > WINDOW and i > start:
            out.append((spans[start][0], spans[i - 1][1]))
            start, used = i, 0
        used += n
    if start < len(counts):
        out.append((spans[start][0], spans[-1][1]))
    return out


def load_corpus(
    args: argparse.Namespace, tokenizer: Any
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(chunks, queries): chunks carry doc and char range; queries carry their gold chunk ids."""
    tests = json.loads((BENCH / "benchmarks/cuad.json").read_text())["tests"]
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in tests:
        files = {s["file_path"] for s in t["snippets"]}
        if len(files) == 1:
            by_doc[files.pop()].append(t)
    rng = random.Random(7)
    candidates = sorted(
        d for d, ts in by_doc.items() if len({t["category"] for t in ts}) >= args.queries_per_doc
    )
    rng.shuffle(candidates)
    chunks: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    for doc in candidates:
        text = (BENCH / "corpus" / doc).read_text(encoding="utf-8")
        spans = [m.span() for m in re.finditer(r"\S+", text)]
        counts = [
            len(e.ids)
            for e in tokenizer.encode_batch([text[a:b] for a, b in spans], add_special_tokens=False)
        ]
        ranges = windows(text, counts, spans)
        if not 6 <= len(ranges) <= 30:  # whole contracts fit a pool of 50 with room for others
            continue
        first = len(chunks)
        chunks += [{"doc": doc, "start": a, "end": b, "text": text[a:b]} for a, b in ranges]
        seen: set[str] = set()
        for t in sorted(by_doc[doc], key=lambda t: t["category"]):
            if t["category"] in seen or len(seen) == args.queries_per_doc:
                continue
            seen.add(t["category"])
            gold = {
                first + k
                for k, (a, b) in enumerate(ranges)
                for s in t["snippets"]
                if a < s["span"][1] and s["span"][0] < b
            }
            queries.append({"text": t["query"], "doc": doc, "gold": gold})
        if len({c["doc"] for c in chunks}) == args.docs:
            break
    for q in queries:
        own = [i for i, c in enumerate(chunks) if c["doc"] == q["doc"]]
        others = [i for i, c in enumerate(chunks) if c["doc"] != q["doc"]]
        q["pool"] = own + rng.sample(others, max(0, args.pool - len(own)))
    return chunks, queries


def evaluate(queries: list[dict[str, Any]], qvecs: list[Vectors], docs: list[Vectors]) -> dict[str, float]:
    """Mean tau and top-10 overlap against `ref` scores (stored on each query), and MRR."""
    taus, overlaps, rr = [], [], []
    for q, qv in zip(queries, qvecs, strict=True):
        scores = maxsim_many(qv, [docs[i] for i in q["pool"]])
        if "ref" not in q:
            q["ref"] = scores
        taus.append(kendall_tau(q["ref"], scores))
        overlaps.append(top_k_overlap(scores, q["ref"], 10))
        ranked = [q["pool"][i] for i in np.argsort(-scores)]
        rr.append(reciprocal_rank([c in q["gold"] for c in ranked]))
    return {"tau": mean(taus), "top10": mean(overlaps), "mrr": mean(rr)}


def variants(dim: int) -> list[tuple[str, str, TokenPruning, bool]]:
    """(codec, label, pruning, cap keeps the first tokens instead of dropping repeats)."""
    out: list[tuple[str, str, TokenPruning, bool]] = [
        ("f32", "all tokens", TokenPruning(False, False), False),
        ("f32", "-special", TokenPruning(True, False), False),
        ("f32", "-special -punct", TokenPruning(True, True), False),
    ]
    for codec in ("f16", "i8", "b1"):
        cap = tokens_within_budget(dim, codec, CHUNK_BYTE_BUDGET)
        out += [(codec, "all tokens", TokenPruning(False, False), False)]
        out += [(codec, "-special -punct", TokenPruning(True, True), False)]
        for special, punct, label in (
            (False, False, "all tokens"),
            (True, True, "-special -punct"),
            (False, True, "-punct"),
            (True, False, "-special"),
        ):
            out += [(codec, f"{label} cap {cap} (repeats)", TokenPruning(special, punct, cap), False)]
        out += [(codec, f"-special -punct cap {cap} (first)", TokenPruning(True, True, cap), True)]
    return out


def table(
    title: str,
    queries: list[dict[str, Any]],
    qvecs: list[Vectors],
    full: list[Vectors],
    meta: list[tuple[list[int], list[int]]],
    punct: npt.NDArray[np.int64],
) -> None:
    dim = full[0].shape[1]
    print(f"\n## {title} ({len(queries)} queries, pools of {len(queries[0]['pool'])}, dim {dim})")
    print("| codec | pruning | bytes/chunk mean | p95 | tokens mean | Kendall tau | top-10 overlap | MRR |")
    print("|---|---|---|---|---|---|---|---|")
    for q in queries:
        q.pop("ref", None)
    for codec, label, pruning, first in variants(dim):
        docs, sizes = [], []
        for vecs, (ids, special) in zip(full, meta, strict=True):
            keep = prune_positions(
                ids, special, TokenPruning(pruning.drop_special, pruning.drop_punctuation), punct
            )
            if pruning.max_kept is not None:
                keep = keep[: pruning.max_kept] if first else prune_positions(ids, special, pruning, punct)
            kept = vecs[keep]
            if codec == "f32":
                docs.append(kept)
                sizes.append(kept.nbytes)
                continue
            blob = encode_tokens(kept, codec)
            sizes.append(len(blob))
            docs.append(decode_tokens(blob, len(kept), dim, codec))
        m = evaluate(queries, qvecs, docs)
        tokens = mean(len(d) for d in docs)
        print(
            f"| {codec} | {label} | {mean(sizes):,.0f} | {percentile(sizes, 95):,.0f} | {tokens:.0f} | "
            f"{m['tau']:.3f} | {m['top10']:.3f} | {m['mrr']:.3f} |"
        )


def throughput(encoder: LateInteractionEncoder, texts: list[str]) -> None:
    print("\n## Encode throughput (default pruning; chunks/s) and batched vs one-by-one")
    tok = load_tokenizer(encoder.spec)
    for length in (256, 512):
        cut = [tok.decode(tok.encode(t, add_special_tokens=False).ids[: length - 2]) for t in texts[:16]]
        alone: list[Vectors] = []
        for bs in (1, 4, 8):
            rates = []
            for _ in range(2):  # best of two: the machine is shared
                t0 = time.perf_counter()
                out = encoder.encode_documents(cut, batch_size=bs)
                rates.append(len(cut) / (time.perf_counter() - t0))
            rate = max(rates)
            if bs == 1:
                alone = out
            diff = max(float(np.abs(a - b).max()) for a, b in zip(alone, out, strict=True))
            print(f"~{length} tokens, batch {bs}: {rate:.1f} chunks/s; max |batched - alone| = {diff:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=str(SHARED / "models/colbert-standin-minilm"))
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--queries-per-doc", type=int, default=5)
    parser.add_argument("--pool", type=int, default=50)
    args = parser.parse_args()
    started = time.perf_counter()

    spec = load_model_spec(Path(args.model))
    tokenizer = load_tokenizer(spec, truncate_at=spec.max_tokens)
    chunks, queries = load_corpus(args, load_tokenizer(spec))
    print(
        f"# {spec.fingerprint}: {len(chunks)} chunks of <= {WINDOW} tokens from "
        f"{len({c['doc'] for c in chunks})} CUAD contracts, {len(queries)} queries"
    )

    # Unpruned vectors once; every pruning variant is a subset of their rows.
    encoder = LateInteractionEncoder(spec, pruning=TokenPruning(False, False))
    texts = [c["text"] for c in chunks]
    t0 = time.perf_counter()
    full = encoder.encode_documents(texts)
    print(f"encoded {len(texts)} chunks in {time.perf_counter() - t0:.1f} s (batch 1)")
    # The encoder's own token ids: windows are < max_tokens, so only a document marker differs.
    marker = spec.extra.get("document_marker_id")
    meta = [
        (e.ids[:1] + [marker] + e.ids[1:], [1, 1] + e.special_tokens_mask[1:])
        if marker is not None
        else (e.ids, e.special_tokens_mask)
        for e in tokenizer.encode_batch(texts)
    ]
    assert all(len(ids) == len(v) for (ids, _), v in zip(meta, full, strict=True))
    t0 = time.perf_counter()
    qvecs = [encoder.encode_query(q["text"]) for q in queries]
    qlen = mean(len(v) for v in qvecs)
    print(f"queries: {qlen:.0f} tokens mean, {1000 * (time.perf_counter() - t0) / len(qvecs):.1f} ms each")
    punct = punctuation_ids(tokenizer)
    table(f"{spec.name}, {spec.dim} dims", queries, qvecs, full, meta, punct)

    # 96-dim proxy: a random orthogonal projection, rows renormalised.
    basis, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((spec.dim or 384, 96)))
    project = basis.astype(np.float32)

    def unit(x: Vectors) -> Vectors:
        y = x @ project
        return (y / np.linalg.norm(y, axis=1, keepdims=True)).astype(np.float32)

    table(
        "Proxy, 96 dims (random projection)",
        queries,
        [unit(q) for q in qvecs],
        [unit(v) for v in full],
        meta,
        punct,
    )

    print("\n## MaxSim for one query against 50 candidates (default pruning), ms")
    dim = spec.dim or 0
    pruning = default_pruning(spec)
    cands = [
        v[prune_positions(ids, sp, pruning, punct)] for v, (ids, sp) in zip(full[:50], meta[:50], strict=True)
    ]
    for codec in ("f16", "i8", "b1"):
        blobs = [encode_tokens(c, codec) for c in cands]
        t0 = time.perf_counter()
        for _ in range(20):
            docs = [decode_tokens(b, len(c), dim, codec) for b, c in zip(blobs, cands, strict=True)]
        t1 = time.perf_counter()
        for _ in range(20):
            maxsim_many(qvecs[0], docs)
        t2 = time.perf_counter()
        decode, score = 50 * (t1 - t0), 50 * (t2 - t1)
        print(f"{codec}: decode {decode:.1f} + score {score:.1f} ({len(qvecs[0])} query tokens)")

    throughput(LateInteractionEncoder(spec), texts)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

"""Contracts' section labels in the keyword index, before and after (issue 15).

A contract's chunks carry the path of the section they start in ("7.3 › (d)", "Article V"),
indexed before the chunk's text (`store/lance_schema.keyword_texts`). The labels change nothing
but the keyword (BM25) list: chunk boundaries, texts and embeddings are the same. So this bench
builds the BM25 index of the same chunks twice, without and with the labels, runs the same
queries against both and reports the keyword list's metrics and how much its top 10 moved. No
model runs; the chunks are cut as ingest cuts them (the primary model's tokenizer counts).

  cuad        CUAD / LegalBench-RAG contracts (TXT): gold contract hit@1/@5, span recall@5/@10
  contractnli ContractNLI NDAs (TXT), each query inside its NDA: span recall@1/@5

Usage: .venv/bin/python bench/section_labels.py [--docs 40] [--queries 150]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import Range, mean, span_recall  # noqa: E402
from bench.retrieval_data import LOADERS, Dataset, PageToFile  # noqa: E402
from casetrack.chunk.chunker import chunk_document  # noqa: E402
from casetrack.chunk.structure import structure_plan  # noqa: E402
from casetrack.domain import ChunkDraft  # noqa: E402
from casetrack.parse import parse_file  # noqa: E402
from casetrack.store.bm25 import Bm25Index  # noqa: E402

MODELS = REPO.parent / "shared" / "models"


def _counter() -> object:
    """The primary model's token counter, as ingest chunks with it."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(next(MODELS.glob("*e5*/tokenizer.json"))))
    return lambda texts: [len(e.ids) for e in tok.encode_batch(list(texts), add_special_tokens=False)]


def chunk_case(ds: Dataset, staging: Path) -> dict[str, tuple[list[ChunkDraft], PageToFile | None]]:
    count = _counter()
    out = {}
    for name, data in ds.docs.items():
        path = staging / name
        path.write_bytes(data)
        doc = parse_file(path)
        plan = structure_plan(doc, name)
        drafts = chunk_document(doc, count, breaks=plan.breaks if plan else None)  # type: ignore[arg-type]
        labelled = plan.label(drafts) if plan else drafts
        try:
            mapper = PageToFile(data.decode("utf-8"), doc.pages[0].text)
        except (ValueError, UnicodeDecodeError):
            mapper = None
        out[name] = (labelled, mapper)
    return out


def build(
    index_dir: Path,
    language: str,
    chunks: dict[str, tuple[list[ChunkDraft], PageToFile | None]],
    labels: bool,
) -> Bm25Index:
    index = Bm25Index(index_dir, language)
    for name, (drafts, _) in chunks.items():
        pairs = [
            (f"{name}#{i}", f"{d.section}\n{d.text}" if labels and d.section else d.text)
            for i, d in enumerate(drafts)
        ]
        index.replace_document(name, pairs)
    index.close_writer()
    index.reload()
    return index


def score(
    ds: Dataset,
    index: Bm25Index,
    chunks: dict[str, tuple[list[ChunkDraft], PageToFile | None]],
    ks: tuple[int, ...],
) -> tuple[dict[str, float], list[list[str]]]:
    rows: dict[str, list[float]] = {}
    tops: list[list[str]] = []
    for q in ds.queries:
        scope = {q.scope} if q.scope else None
        hits = index.search(q.text, 10, doc_ids=scope)
        tops.append([h.chunk_id for h in hits])
        docs = [h.doc_id for h in hits]
        rows.setdefault("doc hit@1", []).append(float(docs[:1] == [q.gold_doc]))
        rows.setdefault("doc hit@5", []).append(float(q.gold_doc in docs[:5]))
        drafts, mapper = chunks[q.gold_doc]
        for k in ks:
            ranges: list[Range] = []
            for h in hits[:k]:
                if h.doc_id == q.gold_doc and mapper is not None:
                    d = drafts[int(h.chunk_id.rsplit("#", 1)[1])]
                    ranges.append(mapper.to_file(d.char_start, d.char_end))
            rows.setdefault(f"span recall@{k}", []).append(span_recall(q.spans, ranges))
    return {k: mean(v) for k, v in rows.items()}, tops


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args()
    for name, ks in (("cuad", (5, 10)), ("contractnli", (1, 5))):
        started = time.monotonic()
        ds = LOADERS[name](args.docs, args.queries)
        with tempfile.TemporaryDirectory() as tmp:
            staging = Path(tmp) / "files"
            staging.mkdir()
            chunks = chunk_case(ds, staging)
            n_chunks = sum(len(d) for d, _ in chunks.values())
            n_labelled = sum(1 for d, _ in chunks.values() for c in d if c.section)
            n_mapped = sum(1 for _, m in chunks.values() if m is not None)
            results = {}
            tops = {}
            for labels in (False, True):
                index = build(Path(tmp) / f"bm25-{labels}", ds.language, chunks, labels)
                results[labels], tops[labels] = score(ds, index, chunks, ks)
        moved = mean(float(a != b) for a, b in zip(tops[False], tops[True], strict=True))
        print(
            f"== {name}: {len(chunks)} documents, {n_chunks} chunks ({n_labelled} labelled), "
            f"{len(ds.queries)} queries, {n_mapped} documents' offsets mapped to the gold's, "
            f"{time.monotonic() - started:.0f} s"
        )
        print("| metric | without labels | with labels |\n|---|---|---|")
        for metric in results[False]:
            print(f"| {metric} | {results[False][metric]:.3f} | {results[True][metric]:.3f} |")
        print(f"queries whose keyword top 10 changed: {moved:.3f}")


if __name__ == "__main__":
    main()

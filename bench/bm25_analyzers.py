"""BM25-only comparison of tantivy analyzer variants per language (no embeddings), ~30 s.

JurisTCU (pt; 1,651 enunciados, 150 queries, graded 0-3): nDCG@10, also with the queries' accents
stripped. ACORD (en; 3,931 clauses, graded 0-4): nDCG@5/@10. CUAD questions (en) over ~250-word
chunks of 461 contracts: chunk hit@10 (a top-10 chunk overlaps a gold span), doc hit@10, and
in-doc hit@3 (the bare question searched inside the gold contract only, as inside one case).
Queries are built as CaseTrack builds them: a SHOULD term query per distinct token. "stop (query
side)": stopwords dropped from queries only. "dual": stem->fold and fold->stem tokens indexed at
each position. "chosen": casetrack.store.analyzers as shipped. Δ: paired difference to row 1, 95%.
Usage: .venv/bin/python bench/bm25_analyzers.py
"""

from __future__ import annotations

import collections
import csv
import json
import re
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import tantivy

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import hit_at_k, mean, ndcg_at_k, paired_difference  # noqa: E402
from casetrack.store.analyzers import CaseAnalyzer  # noqa: E402

DATA = REPO.parent / "shared" / "data"
PT = "portuguese"


@dataclass(frozen=True)
class Variant:
    name: str
    index_filters: str  # names of FILTERS, applied in order after the simple tokenizer
    query_filters: str = ""  # "": same as the index
    dual_alt: str = ""  # a second chain whose tokens are indexed at the same positions
    language: str = "english"
    casetrack: bool = False  # ignore the filters: casetrack.store.analyzers as shipped


FILTERS: dict[str, Callable[[str], tantivy.Filter]] = {
    "lower": lambda _: tantivy.Filter.lowercase(),
    "fold": lambda _: tantivy.Filter.ascii_fold(),
    "stem": tantivy.Filter.stemmer,
    "stop": tantivy.Filter.stopword,
}


def make_analyzer(filters: str, language: str) -> tantivy.TextAnalyzer:
    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(40))
    for name in filters.split():
        builder = builder.filter(FILTERS[name](language))
    return builder.build()


def dual_form(main: tantivy.TextAnalyzer, alt: tantivy.TextAnalyzer, text: str) -> tantivy.PreTokenizedString:
    """Both chains' tokens at each position (the same tokenizer, so they pair up 1:1)."""
    out: list[tantivy.Token] = []
    for a, b in zip(main.pre_tokenize(text).tokens, alt.pre_tokenize(text).tokens, strict=True):
        out += [a] if b.text == a.text else [a, tantivy.Token(b.text, a.position, a.char_offset_from)]
    return tantivy.PreTokenizedString(text, out)


class Engine:
    """One in-RAM tantivy index (one segment, so ties break the same way every run)."""

    def __init__(self, v: Variant, docs: Iterable[tuple[str, str]]) -> None:
        self.case = CaseAnalyzer({"english": "en", PT: "pt"}[v.language]) if v.casetrack else None
        index_an = self.case.tokenizer if self.case else make_analyzer(v.index_filters, v.language)
        self.query_an = make_analyzer(v.query_filters or v.index_filters, v.language)
        alt_an = make_analyzer(v.dual_alt, v.language) if v.dual_alt else None
        sb = tantivy.SchemaBuilder()
        sb.add_text_field("id", stored=True, tokenizer_name="raw")
        sb.add_text_field("doc", tokenizer_name="raw")  # the id up to '#': a chunk's contract
        sb.add_text_field("text", tokenizer_name="bench", index_option="position")
        self.schema = sb.build()
        index = tantivy.Index(self.schema)
        index.register_tokenizer("bench", index_an)
        writer = index.writer(heap_size=200_000_000, num_threads=1)
        for doc_id, text in docs:
            doc = tantivy.Document(id=doc_id, doc=doc_id.partition("#")[0])
            form = self.case.index_form(text) if self.case else None
            form = dual_form(index_an, alt_an, text) if alt_an else form
            doc.add_text("text", text) if form is None else doc.add_pre_tokenized_text("text", form)
            writer.add_document(doc)
        writer.commit()
        index.reload()
        self.searcher = index.searcher()

    def search(self, text: str, limit: int, must: tantivy.Query | None = None) -> list[str]:
        tokens = self.case.terms(text) if self.case else list(dict.fromkeys(self.query_an.analyze(text)))
        if not tokens:
            return []
        should = [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "text", t)) for t in tokens]
        q = tantivy.Query.boolean_query(should)
        if must is not None:
            q = tantivy.Query.boolean_query([(tantivy.Occur.Must, q), (tantivy.Occur.Must, must)])
        hits = self.searcher.search(q, limit=limit).hits
        return [self.searcher.doc(addr)["id"][0] for _score, addr in hits]


def ndcg(ranking: list[str], rels: dict[str, int], k: int) -> float:
    # These tables have always averaged a query without relevant documents in as 0 (none of the
    # judged queries is one today), where bench/retrieval.py leaves it out.
    return ndcg_at_k(ranking, rels, k) or 0.0


def read_jsonl(path: Path) -> list[dict[str, str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [{k: str(v) for k, v in json.loads(line).items()} for line in lines]


def read_qrels(*paths: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
    return qrels


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    lines = ["| " + " | ".join(r) + " |" for r in [header, ["---"] * len(header), *rows]]
    print(f"\n### {title}\n", *lines, sep="\n")


def delta(values: list[float], reference: list[float]) -> str:
    """Paired mean difference with a 95% interval (1.96 standard errors): is a gap noise?"""
    diff, half_width = paired_difference(values, reference)
    return f"{diff:+.4f} ± {half_width:.4f}"


PT_VARIANTS = [  # the first row is the reference of the Δ column
    Variant("stem -> fold (shipped before)", "lower stem fold"),
    Variant("lowercase", "lower"),
    Variant("lowercase + fold", "lower fold"),
    Variant("lowercase + stem", "lower stem"),
    Variant("lowercase + stop (index)", "lower stop"),
    Variant("fold -> stem", "lower fold stem"),
    Variant("stop (index) + stem -> fold", "lower stop stem fold"),
    Variant("stop (index) + fold -> stem", "lower stop fold stem"),
    Variant("stop (query side) + stem -> fold", "lower stem fold", "lower stop stem fold"),
    Variant("dual: stem -> fold | fold -> stem", "lower stem fold", dual_alt="lower fold stem"),
    Variant("dual + stop (query side)", "lower stem fold", "lower stop stem fold", "lower fold stem"),
    Variant("chosen: dual + plural -ões -> -ão (casetrack)", "", casetrack=True),
]
EN_VARIANTS = [
    Variant("stem + fold (shipped before)", "lower stem fold"),
    Variant("lowercase + fold", "lower fold"),
    Variant("stop (index) + fold", "lower stop fold"),
    Variant("stop (index) + stem + fold", "lower stop stem fold"),
    Variant("stop (query side) + stem + fold", "lower stem fold", "lower stop stem fold"),
    Variant("chosen: stop (index) + stem + fold (casetrack)", "", casetrack=True),
]


def bench_portuguese() -> None:
    root = DATA / "juristcu_pool"
    docs = [(r["_id"], r["text"]) for r in read_jsonl(root / "corpus.jsonl")]
    qrels = read_qrels(root / "qrels.tsv")
    queries = [q for q in read_jsonl(root / "queries.jsonl") if q["_id"] in qrels]
    sources = sorted({q["source"] for q in queries})
    rows: list[list[str]] = []
    reference: list[float] = []
    for v in PT_VARIANTS:
        engine = Engine(replace(v, language=PT), docs)
        scores: dict[str, list[float]] = collections.defaultdict(list)
        for q in queries:
            score = ndcg(engine.search(q["text"], 10), qrels[q["_id"]], 10)
            scores["all"].append(score)
            scores[q["source"]].append(score)
            bare = "".join(c for c in unicodedata.normalize("NFD", q["text"]) if not unicodedata.combining(c))
            unaccented = engine.search(bare, 10)
            scores["unaccented"].append(ndcg(unaccented, qrels[q["_id"]], 10))
        reference = reference or scores["all"]
        cells = [f"{mean(scores[k]):.4f}" for k in ["all", *sources]]
        rows.append([v.name, *cells, delta(scores["all"], reference), f"{mean(scores['unaccented']):.4f}"])
    header = ["variant", "all", *sources, "all Δ", "all, query accents stripped"]
    table(f"JurisTCU nDCG@10 ({len(queries)} queries, {len(docs)} docs)", header, rows)


def portuguese_notes() -> None:
    """Inflection classes each order keeps together, and what the chosen analyzer costs to index."""
    docs = [r["text"] for r in read_jsonl(DATA / "juristcu_pool" / "corpus.jsonl")]
    stem_fold, fold_stem = make_analyzer("lower stem fold", PT), make_analyzer("lower fold stem", PT)
    vocab = {w for text in docs for w in make_analyzer("lower", PT).analyze(text)}
    classes: dict[str, set[str]] = collections.defaultdict(set)
    for w in vocab:
        classes[stem_fold.analyze(w)[0]].add(w)
    split = [ws for ws in classes.values() if len({fold_stem.analyze(w)[0] for w in ws}) > 1]
    biggest: set[str] = max(split, key=len)
    print(f"\nJurisTCU vocabulary: {len(vocab)} words, {len(classes)} stem -> fold classes;")
    print(f"fold -> stem splits {len(split)} of them, e.g. {sorted(biggest)[:6]}")
    chosen = CaseAnalyzer("pt")
    plurals = sorted(w for w in vocab if w.endswith("ões"))
    for label, an in (("stem -> fold", stem_fold.analyze), ("chosen", chosen.terms)):
        met = sum(an(w) == an(w[:-3] + "ão") for w in plurals)
        print(f"-ões plurals that meet their -ão singular, {label}: {met}/{len(plurals)}")
    texts = sorted((DATA / "lener_br/raw_text").glob("*.txt"))[:10]
    tokens = " ".join(p.read_text(encoding="utf-8") for p in texts).split()
    chunks = [(str(i), " ".join(tokens[i : i + 380])) for i in range(0, len(tokens), 380)]
    for v in [PT_VARIANTS[0], PT_VARIANTS[-1]]:
        t = time.perf_counter()
        Engine(replace(v, language=PT), chunks)
        rate = len(chunks) / (time.perf_counter() - t)
        print(f"indexing {len(chunks)} LeNER-Br 380-word chunks, {v.name}: {rate:.0f}/s")


def bench_acord() -> list[list[str]]:
    root = DATA / "acord"
    docs = [(r["_id"], r["text"]) for r in read_jsonl(root / "corpus.jsonl")]
    queries = {r["_id"]: r["text"] for r in read_jsonl(root / "queries.jsonl")}
    test = read_qrels(root / "qrels" / "test.tsv")
    every = read_qrels(*(root / "qrels" / f"{s}.tsv" for s in ("train", "valid", "test")))
    rows: list[list[str]] = []
    reference: list[float] = []
    for v in EN_VARIANTS:
        engine = Engine(v, docs)
        res: dict[str, float] = {}
        for name, qrels in (("test", test), ("all", every)):
            full = {q: engine.search(queries[q], len(docs)) for q in qrels}
            # ~1,000 judged clauses per query, most of the corpus-wide top 10 unjudged: score the
            # condensed list (unjudged clauses dropped), as the dataset's explicit negatives intend.
            condensed = {q: [d for d in r if d in qrels[q]] for q, r in full.items()}
            for k in (5, 10):
                values = [ndcg(condensed[q], qrels[q], k) for q in qrels]
                res[f"{name}@{k}"] = mean(values)
            res[f"{name} full@10"] = mean([ndcg(full[q], qrels[q], 10) for q in qrels])
        reference = reference or values  # all@10
        keys = ("test@5", "test@10", "all@5", "all@10", "test full@10")
        rows.append([v.name, *(f"{res[k]:.4f}" for k in keys), delta(values, reference)])
    return rows


def cuad_chunks(words_per_chunk: int = 250) -> tuple[list[tuple[str, str]], dict[str, list[int]]]:
    """Cut each CUAD contract into consecutive ~250-word chunks; remember their start offsets."""
    chunks: list[tuple[str, str]] = []
    starts: dict[str, list[int]] = {}
    for path in sorted((DATA / "legal_span_bench" / "corpus" / "cuad").glob("*.txt")):
        key, text = f"cuad/{path.name}", path.read_text(encoding="utf-8")
        cut = [0, *[m.start() for m in re.finditer(r"\S+", text)][words_per_chunk::words_per_chunk]]
        starts[key] = cut
        ends = [*cut[1:], len(text)]
        chunks += [(f"{key}#{i}", text[s:e]) for i, (s, e) in enumerate(zip(cut, ends, strict=True))]
    return chunks, starts


def chunk_hits(chunk_ids: list[str], gold: list[tuple[str, int, int]], starts: dict[str, list[int]]) -> bool:
    for cid in chunk_ids:
        key, i = cid.rpartition("#")[0], int(cid.rpartition("#")[2])
        s, e = starts[key][i], ([*starts[key], 1 << 62])[i + 1]
        if any(g[0] == key and g[1] < e and g[2] > s for g in gold):
            return True
    return False


def bench_cuad() -> list[list[str]]:
    tests = json.loads((DATA / "legal_span_bench/benchmarks/cuad.json").read_text(encoding="utf-8"))["tests"]
    chunks, starts = cuad_chunks()
    rows: list[list[str]] = []
    reference: tuple[list[float], list[float]] | None = None
    for v in EN_VARIANTS:
        engine = Engine(v, chunks)
        hit_chunk, hit_doc, hit_in_doc = [], [], []
        for t in tests:
            gold = [(s["file_path"], s["span"][0], s["span"][1]) for s in t["snippets"]]
            ranked = engine.search(t["query"], 100)
            hit_chunk.append(float(chunk_hits(ranked[:10], gold, starts)))
            contracts = list(dict.fromkeys(c.rpartition("#")[0] for c in ranked))
            hit_doc.append(hit_at_k(contracts, {g[0] for g in gold}, 10))
            in_doc = tantivy.Query.term_query(engine.schema, "doc", gold[0][0])
            hit_in_doc.append(float(chunk_hits(engine.search(t["question"], 3, in_doc), gold, starts)))
        reference = reference or (hit_chunk, hit_in_doc)
        cells = [f"{mean(x):.4f}" for x in (hit_chunk, hit_doc, hit_in_doc)]
        rows.append([v.name, *cells, delta(hit_chunk, reference[0]), delta(hit_in_doc, reference[1])])
    return rows


def main() -> None:
    bench_portuguese()
    portuguese_notes()
    header = ["variant", "test @5", "test @10", "all @5", "all @10", "test @10, unjudged kept", "all @10 Δ"]
    table("ACORD nDCG, judged clauses only (test split: 58 queries; all: 114)", header, bench_acord())
    header = ["variant", "chunk hit@10", "doc hit@10", "in-doc hit@3 (question only)", "chunk Δ", "in-doc Δ"]
    table("CUAD (4,034 queries; ~250-word chunks of 461 contracts)", header, bench_cuad())


if __name__ == "__main__":
    main()

"""Datasets, deterministic subsets and metrics for the retrieval benchmark (`bench/retrieval.py`).

Every dataset becomes a `Dataset`: the documents to stage as files (name -> bytes) and the
queries with their gold (document names, character spans, PDF page ranges or graded qrels).
Subsets are drawn by a seeded hash order (`stable_order`), so the same flags always give the
same corpus, and a larger `--docs` keeps the same queries' gold documents.

Identical documents (same bytes) are staged once: the ingest pipeline would keep only the first
copy and report the others as duplicates. Gold pointing at a dropped copy moves to the kept one
(graded datasets keep the highest grade of the group).

The metrics (span recall, nDCG, ...) are `bench/metrics.py`'s.
"""

from __future__ import annotations

import bisect
import csv
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.metrics import Range

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SPAN = DATA / "legal_span_bench"
DATASETS = ("cuad", "cuad_pdf", "contractnli", "acord", "juristcu", "lawyer_en", "lawyer_pt")
QUESTIONS = Path(__file__).resolve().parent / "questions"


# --------------------------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------------------------


@dataclass
class Query:
    qid: str
    text: str
    gold_doc: str = ""  # staged file name of the gold document (span and page datasets)
    spans: list[Range] = field(default_factory=list)  # gold character ranges in `gold_doc`'s file text
    pages: list[Range] = field(default_factory=list)  # gold PDF page ranges, inclusive
    qrels: dict[str, int] = field(default_factory=dict)  # staged file name -> grade (graded datasets)
    scope: str | None = None  # restrict the search to this document (ContractNLI)
    passages: dict[str, list[Range]] = field(default_factory=dict)  # file name -> gold ranges ("passage")
    kind: str = ""  # question kind (lawyer questions: concept, paraphrase, citation, ...)


@dataclass
class Dataset:
    name: str
    language: str  # "en" | "pt"
    kind: str  # "span" | "page" | "graded" | "passage"
    docs: dict[str, bytes]  # staged file name -> content
    queries: list[Query]
    subset: str  # how the subset was drawn, for the report


def stable_order(keys: Iterable[str], seed: str = "casetrack-bench") -> list[str]:
    """A fixed pseudo-random order: sorted by sha1(seed + key)."""
    return sorted(keys, key=lambda k: hashlib.sha1(f"{seed}\0{k}".encode()).hexdigest())


def dedupe(docs: dict[str, bytes]) -> tuple[dict[str, bytes], dict[str, str]]:
    """Keep one file per content (the first name in sorted order); alias map name -> kept name."""
    kept: dict[str, bytes] = {}
    by_sha: dict[str, str] = {}
    alias: dict[str, str] = {}
    for name in sorted(docs):
        sha = hashlib.sha256(docs[name]).hexdigest()
        alias[name] = by_sha.setdefault(sha, name)
        if alias[name] == name:
            kept[name] = docs[name]
    return kept, alias


def trim(text: str, a: int, b: int) -> Range:
    """A gold span without leading/trailing whitespace (no chunk covers whitespace at its edges)."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _json(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _jsonl(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --------------------------------------------------------------------------------------------
# Loaders
# --------------------------------------------------------------------------------------------


def load_cuad(n_docs: int, n_queries: int) -> Dataset:
    """CUAD (LegalBench-RAG): N contracts in hash order; Q queries whose gold is among them."""
    tests = _json(SPAN / "benchmarks/cuad.json")["tests"]
    files = sorted({t["snippets"][0]["file_path"] for t in tests})
    chosen = stable_order(files)[:n_docs]
    docs, alias = dedupe({Path(f).name: (SPAN / "corpus" / f).read_bytes() for f in chosen})
    texts = {name: data.decode("utf-8") for name, data in docs.items()}
    queries = []
    for i, t in enumerate(tests):
        name = alias.get(Path(t["snippets"][0]["file_path"]).name)
        if name is not None:
            spans = [trim(texts[name], *s["span"]) for s in t["snippets"]]
            queries.append(Query(f"cuad-{i}", t["query"], gold_doc=name, spans=spans))
    queries = _pick(queries, n_queries)
    note = (
        f"{len(docs)} of {len(files)} contracts in hash order; {len(queries)} queries in hash order among "
        "the tests whose gold contract is staged (the other contracts are distractors)"
    )
    return Dataset("cuad", "en", "span", docs, queries, note)


def load_cuad_pdf(n_docs: int, n_queries: int) -> Dataset:
    """Staged CUAD PDFs: N PDFs in hash order; queries = cuad.json tests on them with located pages."""
    tests = _json(SPAN / "benchmarks/cuad.json")["tests"]
    gold = _json(SPAN / "benchmarks/cuad_pdf_page_gold.json")["spans"]
    pdfs = sorted({g["pdf"] for g in gold})
    chosen = stable_order(pdfs)[:n_docs]
    docs, alias = dedupe({Path(p).name: (SPAN / p).read_bytes() for p in chosen})
    queries: dict[int, Query] = {}
    for g in gold:
        if g["pdf"] in chosen and g.get("pages"):
            i = g["test_index"]
            q = queries.setdefault(
                i, Query(f"cuad-{i}", tests[i]["query"], gold_doc=alias[Path(g["pdf"]).name])
            )
            q.pages.append((g["pages"][0], g["pages"][1]))
    picked = _pick(list(queries.values()), n_queries)
    note = (
        f"{len(docs)} of {len(pdfs)} staged PDFs in hash order; {len(picked)} cuad.json queries on them "
        "(hash order) whose gold span was located on a page"
    )
    return Dataset("cuad_pdf", "en", "page", docs, picked, note)


def load_contractnli(n_docs: int, n_queries: int) -> Dataset:
    """ContractNLI test: N NDAs in hash order; Q queries scoped to them (search filtered to the NDA)."""
    tests = _json(SPAN / "benchmarks/contractnli_test.json")["tests"]
    files = sorted({t["scope_file"] for t in tests})
    chosen = stable_order(files)[:n_docs]
    docs, alias = dedupe({Path(f).name: (SPAN / "corpus" / f).read_bytes() for f in chosen})
    texts = {name: data.decode("utf-8") for name, data in docs.items()}
    queries = []
    for i, t in enumerate(tests):
        name = alias.get(Path(t["scope_file"]).name)
        if name is not None:
            assert all(s["file_path"] == t["scope_file"] for s in t["snippets"])
            spans = [trim(texts[name], *s["span"]) for s in t["snippets"]]
            queries.append(Query(f"cnli-{i}", t["query"], gold_doc=name, spans=spans, scope=name))
    queries = _pick(queries, n_queries)
    note = (
        f"{len(docs)} of {len(files)} test NDAs in hash order; {len(queries)} queries in hash order among "
        "those scoped to them; each search is filtered to its NDA"
    )
    return Dataset("contractnli", "en", "span", docs, queries, note)


def _graded(
    name: str,
    language: str,
    corpus: dict[str, str],
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
    n_docs: int,
    n_queries: int,
    pool: str,
) -> Dataset:
    """Q queries in hash order; corpus = their judged `pool` documents, then distractors up to N."""
    chosen_q = stable_order([q for q in queries if any(g > 0 for g in qrels.get(q, {}).values())])[:n_queries]
    min_grade = 1 if pool == "positive" else 0
    judged = stable_order(
        {d for q in chosen_q for d, g in qrels[q].items() if g >= min_grade and d in corpus}
    )
    judged_set = set(judged)
    rest = [d for d in stable_order(corpus) if d not in judged_set]
    ids = (judged + rest)[: max(n_docs, 1)]
    docs, alias = dedupe({f"{d}.txt": corpus[d].encode("utf-8") for d in ids})
    out = []
    for q in chosen_q:
        grades: dict[str, int] = {}
        for d, g in qrels[q].items():
            kept = alias.get(f"{d}.txt")
            if kept is not None:
                grades[kept] = max(grades.get(kept, 0), g)
        if any(g > 0 for g in grades.values()):
            out.append(Query(f"{name}-{q}", queries[q], qrels=grades))
    judged_in = sum(1 for d in judged if f"{d}.txt" in alias)
    note = (
        f"{len(out)} queries in hash order; corpus = their {judged_in} judged documents "
        f"({'grade >= 1' if min_grade else 'any grade'}) plus {len(ids) - judged_in} distractors in hash "
        f"order ({len(docs)} files after merging identical texts); qrels restricted to the corpus"
    )
    return Dataset(name, language, "graded", docs, out, note)


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return qrels


def load_acord(n_docs: int, n_queries: int) -> Dataset:
    """ACORD test split (graded 0-4)."""
    d = DATA / "acord"
    corpus = {r["_id"]: r["text"] for r in _jsonl(d / "corpus.jsonl")}
    queries = {r["_id"]: r["text"] for r in _jsonl(d / "queries.jsonl")}
    return _graded(
        "acord", "en", corpus, queries, _read_qrels(d / "qrels/test.tsv"), n_docs, n_queries, "positive"
    )


def load_juristcu(n_docs: int, n_queries: int) -> Dataset:
    """JurisTCU judged pool (graded 0-3, Portuguese)."""
    d = DATA / "juristcu_pool"
    corpus = {r["_id"]: r["text"] for r in _jsonl(d / "corpus.jsonl")}
    queries = {r["_id"]: r["text"] for r in _jsonl(d / "queries.jsonl")}
    return _graded(
        "juristcu", "pt", corpus, queries, _read_qrels(d / "qrels.tsv"), n_docs, n_queries, "judged"
    )


def load_lawyer(language: str, n_docs: int, n_queries: int) -> Dataset:
    """CaseTrack's own lawyer questions (`bench/questions/`, written blind to the search code):
    the whole listed corpus (n_docs only trims it for --quick) and the first n_queries questions;
    gold = every occurrence of each gold quote in its file."""
    spec = _json(QUESTIONS / f"lawyer_{language}.json")
    files = list(spec["corpus"])
    gold_files = {g["file"] for q in spec["questions"] for g in q["gold"]}
    files = sorted(gold_files) + [f for f in files if f not in gold_files]
    questions = spec["questions"][:n_queries]
    if n_docs < len(files):  # keep the chosen questions' files first
        needed = {g["file"] for q in questions for g in q["gold"]}
        files = [f for f in files if f in needed] + [f for f in files if f not in needed]
        files = files[: max(n_docs, len(needed))]
    docs, alias = dedupe({Path(f).name: (DATA / f).read_bytes() for f in files})
    texts = {Path(f).name: (DATA / f).read_bytes().decode("utf-8") for f in files}
    queries = []
    for q in questions:
        passages: dict[str, list[Range]] = {}
        for g in q["gold"]:
            name = Path(g["file"]).name
            text, quote = texts[name], g["quote"]
            at = text.find(quote)
            assert at >= 0, f"{q['id']}: quote not in {name}"
            while at >= 0:
                passages.setdefault(alias[name], []).append(trim(text, at, at + len(quote)))
                at = text.find(quote, at + 1)
        queries.append(Query(q["id"], q["question"], passages=passages, kind=q["kind"]))
    note = (
        f"{len(queries)} questions written for CaseTrack (bench/questions/README.md); corpus = "
        f"{len(docs)} files of {len(files)} listed (identical files merged)"
    )
    return Dataset(f"lawyer_{language}", language, "passage", docs, queries, note)


def load_lawyer_en(n_docs: int, n_queries: int) -> Dataset:
    return load_lawyer("en", n_docs, n_queries)


def load_lawyer_pt(n_docs: int, n_queries: int) -> Dataset:
    return load_lawyer("pt", n_docs, n_queries)


LOADERS = {
    "cuad": load_cuad,
    "cuad_pdf": load_cuad_pdf,
    "contractnli": load_contractnli,
    "acord": load_acord,
    "juristcu": load_juristcu,
    "lawyer_en": load_lawyer_en,
    "lawyer_pt": load_lawyer_pt,
}


def _pick(queries: list[Query], n: int) -> list[Query]:
    by_id = {q.qid: q for q in queries}
    return [by_id[k] for k in stable_order(by_id)[:n]]


# --------------------------------------------------------------------------------------------
# Offsets: CaseTrack page text of a TXT file -> character offsets in the file's own text
# --------------------------------------------------------------------------------------------


class PageToFile:
    """Maps half-open ranges of CaseTrack's page text back to the file text the gold spans index.

    The TXT parser (casetrack/parse/text/ + pagebuilder.py) keeps every non-whitespace
    character in order and only rewrites whitespace: runs inside a line become one space, lines
    are stripped, blank lines dropped, lines joined by "\\n" and paragraphs by "\\n\\n" (plus NFC,
    a no-op on this corpus). So the k-th non-whitespace character of the page is the k-th of the
    file; a page range maps to the file range from its first to its last non-whitespace character.
    Raises ValueError when the two texts do not hold the same non-whitespace characters.
    """

    def __init__(self, file_text: str, page_text: str) -> None:
        self.file_pos = [i for i, ch in enumerate(file_text) if not ch.isspace()]
        self.page_pos = [i for i, ch in enumerate(page_text) if not ch.isspace()]
        same = len(self.file_pos) == len(self.page_pos) and all(
            file_text[a] == page_text[b] for a, b in zip(self.file_pos, self.page_pos, strict=True)
        )
        if not same:
            raise ValueError("page text and file text differ in more than whitespace")

    def to_file(self, start: int, end: int) -> Range:
        """The file range of page range [start, end); empty (s, s) when it holds no visible character."""
        i = bisect.bisect_left(self.page_pos, start)
        j = bisect.bisect_left(self.page_pos, end) - 1
        if i > j:
            at = (
                self.file_pos[i]
                if i < len(self.file_pos)
                else (self.file_pos[-1] + 1 if self.file_pos else 0)
            )
            return at, at
        return self.file_pos[i], self.file_pos[j] + 1


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def unique(items: Iterable[str]) -> list[str]:
    """Items in first-seen order without repeats."""
    return list(dict.fromkeys(items))

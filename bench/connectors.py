"""Terms and connectors: exactness against a brute-force scan, and latency at 10k and 100k chunks.

Exactness: two real cases (CUAD contracts in English, LeNER-Br judgments in Portuguese) ingested
into `--cache` (E1 only: a connectors search needs no model, ingest needs E1). Each expression is
written twice by hand: as the string a lawyer types (parsed by CaseTrack) and as a small tree of
this script's own (`W`, `R`, `NEAR` ...), evaluated by brute force over EVERY chunk of the case
(its own folding, tokenizing and O(n^2) pair loops; sentences are CaseTrack's own provenance,
`pincite/layout.sentences`, the definition /s promises). The passages CaseTrack finds
(`search/connectors/search.find_matches`: tantivy candidates, then its matcher) are compared with
the scan's: recall = found & scanned / scanned, precision = found & scanned / found, and every
miss or extra is printed.

Latency: `app.search` of the English expressions, warm, on cases of 10k and 100k chunks that
repeat the English case's rows (`build_replica`: bench/latency.py's replication, without the
embedding columns and ANN index a connectors search never reads), p50/p95 of `timings_ms`.

Usage: python bench/connectors.py [--cache /work/cache-connectors/bench] [--sizes 10000,100000]
       [--cases en=CASE,pt=CASE]  (measure existing cases of --cache/data as they are)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.metrics import median, percentile  # noqa: E402
from casetrack.app import CaseTrack  # noqa: E402
from casetrack.config import resolve_settings  # noqa: E402
from casetrack.search.connectors.parse import parse  # noqa: E402
from casetrack.search.connectors.search import find_matches  # noqa: E402
from casetrack.search.filters import SearchFilters  # noqa: E402
from casetrack.search.pincite.layout import sentences  # noqa: E402
from casetrack.search.ranking.scope import scope_of  # noqa: E402
from casetrack.store import lance_tables as lt  # noqa: E402

SHARED = REPO.parent / "shared"
CUAD = SHARED / "data/legal_span_bench/corpus/cuad"
LENER = SHARED / "data/lener_br/raw_text"
E1 = "multilingual-e5-small-enpt"
CASES = {"en": ("Connectors EN", CUAD, 12), "pt": ("Connectors PT", LENER, 12)}

# -- the reference: a tree per expression, evaluated by brute force --------------------------------

Occ = tuple[int, int]
Ref = Callable[["Doc"], set[Occ]]


@dataclass
class Doc:
    words: list[str]
    sentence: list[int]
    paragraph: list[int]


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def doc_of(text: str) -> Doc:
    """The text's words (folded), each with its sentence (CaseTrack's spans) and paragraph."""
    spans = sentences(text)
    out = Doc([], [], [])
    for m in re.finditer(r"[^\W_]+", text):
        out.words.append(fold(m.group()))
        out.sentence.append(next((i for i, (s, e) in enumerate(spans) if s <= m.start() < e), -1))
        out.paragraph.append(text.count("\n\n", 0, m.start()))
    return out


def W(word: str) -> Ref:  # noqa: N802 - the reference's little language
    """A word: itself or its plural (+s, +es), any case, no accents."""
    return lambda d: {(i, i) for i, w in enumerate(d.words) if w in (word, word + "s", word + "es")}


def R(root: str) -> Ref:  # noqa: N802
    """A root (!): any word starting with it."""
    return lambda d: {(i, i) for i, w in enumerate(d.words) if w.startswith(root)}


def X(pattern: str) -> Ref:  # noqa: N802
    """A wildcard word: each * one character; a trailing run of n * up to n characters."""
    body = pattern.rstrip("*")
    trailing = len(pattern) - len(body)
    rx = re.compile(body.replace("*", ".") + (f".{{0,{trailing}}}" if trailing else ""))
    return lambda d: {(i, i) for i, w in enumerate(d.words) if rx.fullmatch(w)}


def P(*parts: Ref) -> Ref:  # noqa: N802
    """Words in a row."""

    def run(d: Doc) -> set[Occ]:
        sets = [p(d) for p in parts]
        return {
            (i, i + len(parts) - 1)
            for i in range(len(d.words))
            if all((i + k, i + k) in s for k, s in enumerate(sets))
        }

    return run


def OR(*parts: Ref) -> Ref:  # noqa: N802
    return lambda d: set().union(*(p(d) for p in parts))


def AND(*parts: Ref) -> Ref:  # noqa: N802
    def run(d: Doc) -> set[Occ]:
        combos: set[Occ] = {(10**9, -1)}
        for p in parts:
            found = p(d)
            combos = {(min(a[0], b[0]), max(a[1], b[1])) for a in combos for b in found}
        return combos

    return run


def NOT(keep: Ref, drop: Ref) -> Ref:  # noqa: N802
    return lambda d: set() if drop(d) else keep(d)


def _gap(a: Occ, b: Occ) -> int | None:
    if b[0] > a[1]:
        return b[0] - a[1]
    if a[0] > b[1]:
        return -(a[0] - b[1])
    return None


def NEAR(a: Ref, b: Ref, n: int, ordered: bool = False) -> Ref:  # noqa: N802
    def run(d: Doc) -> set[Occ]:
        out = set()
        for x in a(d):
            for y in b(d):
                g = _gap(x, y)
                if g is not None and abs(g) <= n and (g > 0 or not ordered):
                    out.add((min(x[0], y[0]), max(x[1], y[1])))
        return out

    return run


def PRE(a: Ref, b: Ref, n: int) -> Ref:  # noqa: N802
    return NEAR(a, b, n, ordered=True)


def SAME(a: Ref, b: Ref, unit: str, ordered: bool = False) -> Ref:  # noqa: N802
    def run(d: Doc) -> set[Occ]:
        of = d.sentence if unit == "s" else d.paragraph
        out = set()
        for x in a(d):
            for y in b(d):
                g = _gap(x, y)
                if g is None or (ordered and g < 0):
                    continue
                if of[x[0]] == of[x[1]] == of[y[0]] == of[y[1]] != -1:
                    out.add((min(x[0], y[0]), max(x[1], y[1])))
        return out

    return run


def S(a: Ref, b: Ref) -> Ref:  # noqa: N802
    return SAME(a, b, "s")


def PAR(a: Ref, b: Ref) -> Ref:  # noqa: N802
    return SAME(a, b, "p")


EN: list[tuple[str, Ref]] = [
    ("terminat! w/10 notice", NEAR(R("terminat"), W("notice"), 10)),
    ("terminat! /5 notice", NEAR(R("terminat"), W("notice"), 5)),
    ("terminat! pre/5 notice", PRE(R("terminat"), W("notice"), 5)),
    ("notice +3 terminat!", PRE(W("notice"), R("terminat"), 3)),
    ('indemnif! /s "gross negligence"', S(R("indemnif"), P(W("gross"), W("negligence")))),
    ("indemnif! /s negligen!", S(R("indemnif"), R("negligen"))),
    ("indemnif! /p negligen!", PAR(R("indemnif"), R("negligen"))),
    (
        "assign! /p consent & (unreasonabl! /3 withh!)",
        AND(PAR(R("assign"), W("consent")), NEAR(R("unreasonabl"), R("withh"), 3)),
    ),
    ("assign! /s consent", S(R("assign"), W("consent"))),
    ("assign! w/5 consent", NEAR(R("assign"), W("consent"), 5)),
    (
        '"governing law" /s (delaware or york or california)',
        S(P(W("governing"), W("law")), OR(W("delaware"), W("york"), W("california"))),
    ),
    ('"governing law" & delaware', AND(P(W("governing"), W("law")), W("delaware"))),
    ("confidential! /s disclos! % employee", NOT(S(R("confidential"), R("disclos")), W("employee"))),
    ("confidential! and not trade", NOT(R("confidential"), W("trade"))),
    ("warrant! /s merchantab!", S(R("warrant"), R("merchantab"))),
    ("warranty AND merchantability", AND(W("warranty"), W("merchantability"))),
    ("licen* /p exclusiv!", PAR(X("licen*"), R("exclusiv"))),
    ("licens! w/3 grant!", NEAR(R("licens"), R("grant"), 3)),
    ("arbitrat! /p (binding or final)", PAR(R("arbitrat"), OR(W("binding"), W("final")))),
    ("audit! w/10 record!", NEAR(R("audit"), R("record"), 10)),
    ("royalt! /s percent!", S(R("royalt"), R("percent"))),
    ("payment /s (days or business)", S(W("payment"), OR(W("days"), W("business")))),
    ("days pre/3 notice", PRE(W("days"), W("notice"), 3)),
    ("written pre/1 notice", PRE(W("written"), W("notice"), 1)),
    ("insur! /p (liability or coverage)", PAR(R("insur"), OR(W("liability"), W("coverage")))),
    (
        '"force majeure" /s (strike! or war or flood!)',
        S(P(W("force"), W("majeure")), OR(R("strike"), W("war"), R("flood"))),
    ),
    ("non-compet! /p year!", PAR(P(W("non"), R("compet")), R("year"))),
    ("exclusiv! but not territor!", NOT(R("exclusiv"), R("territor"))),
    ("(renew! or extend!) /s term w/5 year!", S(OR(R("renew"), R("extend")), NEAR(W("term"), R("year"), 5))),
    ("breach! w/15 cure! w/15 days", NEAR(NEAR(R("breach"), R("cure"), 15), W("days"), 15)),
    ("sever! /p invalid! % arbitrat!", NOT(PAR(R("sever"), R("invalid")), R("arbitrat"))),
    ("successor! & assign! & binding", AND(R("successor"), R("assign"), W("binding"))),
    (
        "liabil! /s (indirect or consequential) /s damage!",
        S(S(R("liabil"), OR(W("indirect"), W("consequential"))), R("damage")),
    ),
    ("shall pre/2 indemnif!", PRE(W("shall"), R("indemnif"), 2)),
    ("wom*n or employ!", OR(X("wom*n"), R("employ"))),
    ("agree! +s terminat!", SAME(R("agree"), R("terminat"), "s", ordered=True)),
]

PT: list[tuple[str, Ref]] = [
    ("recurso /p provimento", PAR(W("recurso"), W("provimento"))),
    ("provimento pre/3 recurso", PRE(W("provimento"), W("recurso"), 3)),
    ("nega! w/3 provimento", NEAR(R("nega"), W("provimento"), 3)),
    ("rescis! /s contrat!", S(R("rescis"), R("contrat"))),
    ("rescisão /s contrato", S(W("rescisao"), W("contrato"))),
    ("rescisao /s contrato", S(W("rescisao"), W("contrato"))),
    ("dano! w/3 mora!", NEAR(R("dano"), R("mora"), 3)),
    ('"danos morais" /p indeniza!', PAR(P(W("danos"), W("morais")), R("indeniza"))),
    ("indenizaç! /s valor", S(R("indenizac"), W("valor"))),
    ("apela! /s sentença", S(R("apela"), W("sentenca"))),
    ("ministério w/2 público", NEAR(W("ministerio"), W("publico"), 2)),
    ("ministerio pre/1 publico", PRE(W("ministerio"), W("publico"), 1)),
    ("código /s consumidor", S(W("codigo"), W("consumidor"))),
    ("(art. or artigo) pre/2 5", PRE(OR(W("art"), W("artigo")), W("5"), 2)),
    ("prescri! /p prazo", PAR(R("prescri"), W("prazo"))),
    ("honorári! /s advocat!", S(R("honorari"), R("advocat"))),
    ("responsabilidad! /s civil", S(R("responsabilidad"), W("civil"))),
    ("tribunal & justiça & recurso", AND(W("tribunal"), W("justica"), W("recurso"))),
    ("sentença % apelação", NOT(W("sentenca"), W("apelacao"))),
    ("juros /s correção", S(W("juros"), W("correcao"))),
    ("juros w/5 (mora or legais)", NEAR(W("juros"), OR(W("mora"), W("legais")), 5)),
    ("relator! /p voto", PAR(R("relator"), W("voto"))),
    ("súmula /s STJ", S(W("sumula"), W("stj"))),
    ('"processo civil" /p recurso', PAR(P(W("processo"), W("civil")), W("recurso"))),
    ("consumidor! /s fornecedor!", S(R("consumidor"), R("fornecedor"))),
    ("contrat! pre/3 (prestação or compra)", PRE(R("contrat"), OR(W("prestacao"), W("compra")), 3)),
    ("reforma! /s sentença but not improced!", NOT(S(R("reforma"), W("sentenca")), R("improced"))),
    ("lei /s 8.078", S(W("lei"), P(W("8"), W("078")))),
    ("provimento and not negado", NOT(W("provimento"), W("negado"))),
    ("execuç*o /p título", PAR(X("execuc*o"), W("titulo"))),
    ("(dano or danos) +3 mora!", PRE(OR(W("dano"), W("danos")), R("mora"), 3)),
]


def build_cases(app: CaseTrack) -> None:
    have = {c.name for c in app.registry.list()}
    for language, (name, folder, count) in CASES.items():
        if name not in have:
            app.create_case(name, "other", language)
        files = sorted(folder.glob("*.txt"))[:count]  # files already in the case are skipped
        started = time.perf_counter()
        results = app.ingest(name, files)
        chunks = sum(r.chunks for r in results)
        print(
            f"{name}: {len(files)} files, {chunks} chunks in {time.perf_counter() - started:.0f} s",
            flush=True,
        )


def exactness(app: CaseTrack, name: str, language: str, table: list[tuple[str, Ref]]) -> dict[str, Any]:
    with app.reading(name) as store:
        chunks = store.lance.table(lt.CHUNKS)
        assert chunks is not None
        rows = chunks.search().select(["chunk_id", "text"]).limit(10**7).to_arrow().to_pylist()
        docs = {r["chunk_id"]: doc_of(r["text"]) for r in rows}
        scope = scope_of(store, SearchFilters())
        documents = len(store.documents())
        out: dict[str, Any] = {
            "documents": documents,
            "chunks": len(rows),
            "expressions": len(table),
            "rows": [],
        }
        tp = fn = fp = 0
        for query, ref in table:
            want = {c for c, d in docs.items() if ref(d)}
            found = {m.chunk_id for m in find_matches(store, parse(query), scope).matches}
            both = want & found
            tp, fn, fp = tp + len(both), fn + len(want - found), fp + len(found - want)
            row = {
                "query": query,
                "scan": len(want),
                "found": len(found),
                "missed": sorted(want - found)[:5],
                "invented": sorted(found - want)[:5],
            }
            out["rows"].append(row)
            flag = "" if want == found else "  <-- differs"
            print(f"  {language} {query:<55} scan {len(want):>4}  found {len(found):>4}{flag}", flush=True)
        out["recall"] = round(tp / (tp + fn), 4) if tp + fn else 1.0
        out["precision"] = round(tp / (tp + fp), 4) if tp + fp else 1.0
        out["matching_passages"] = tp + fn
    return out


LATENCY_QUERIES = [q for q, _ in EN]
REPLICA_DOC = 1000  # chunks per replicated document, as bench/latency.py


def build_replica(app: CaseTrack, source: str, size: int) -> str:
    """A case of `size` chunks repeating `source`'s rows (text, provenance, E1 vector) through the
    same commit protocol as bench/latency.py, without the heavy embedding columns (passage windows,
    sparse, E7, late-interaction tokens) a connectors search never reads, and without the ANN index:
    tantivy and the text are what it reads, as large as they would be."""
    name = f"Connectors {size}"
    if name in {c.name for c in app.registry.list()}:
        if app.case_summary(name).get("chunk_count") == size:
            return name
        app.delete_case(name)  # a build cut short
    with app.reading(source) as base:
        table = base.lance.table(lt.CHUNKS)
        assert table is not None
        rows = table.to_arrow()
        models = base.models()
    drop = [c for c in lt.EMBEDDING_COLUMNS if c != lt.VECTOR and c in rows.column_names]
    rows = rows.drop_columns(drop)
    app.create_case(name)
    started = time.perf_counter()
    with app.writing(name) as store:
        store.record_models({k: v for k, v in models.items() if k == "E1"})
        made = 0
        while made < size:
            n = min(REPLICA_DOC, size - made)
            part = rows.take([(made + i) % rows.num_rows for i in range(n)])
            part = part.set_column(part.schema.get_field_index("seq"), "seq", [list(range(n))])
            doc = f"replica-{made // REPLICA_DOC:05d}"
            meta: dict[str, Any] = {
                "name": f"{doc}.txt",
                "source_path": None,
                "sha256": doc,
                "file_type": "text",
                "size_bytes": 0,
                "page_count": 1,
                "chunk_count": n,
                "needs_ocr_pages": [],
                "ingested_at": time.time(),
                "embed_model": None,
                "embed_models": [],
                "warnings": [],
            }
            store.commit_document(doc, f"{doc}.txt", None, doc, part, meta)
            made += n
        table = store.lance.table(lt.CHUNKS)
        assert table is not None
        table.optimize()
    print(
        f"{name}: {size} chunks replicated from {source} in {time.perf_counter() - started:.0f} s", flush=True
    )
    return name


def latency(app: CaseTrack, source: str, sizes: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for size in sizes:
        case = build_replica(app, source, size)
        for q in LATENCY_QUERIES[:3]:
            app.search(case, q, top_k=10, syntax="connectors")
        times: dict[str, list[float]] = {}
        matches = []
        for q in LATENCY_QUERIES:
            started = time.perf_counter()
            r = app.search(case, q, top_k=10, syntax="connectors")
            times.setdefault("app", []).append((time.perf_counter() - started) * 1000)
            for stage, ms in r.timings_ms.items():
                times.setdefault(stage, []).append(ms)
            matches.append(r.total_matches or 0)
            if any("only those were checked" in w for w in r.warnings):
                print(f"  {size} {q}: candidates capped", flush=True)
        out[str(size)] = {
            stage: (round(median(v), 1), round(percentile(v, 95, "nearest"), 1)) for stage, v in times.items()
        }
        out[str(size)]["median_matches"] = median([float(m) for m in matches])
        print(
            f"{size:>7} connectors p50/p95 total {out[str(size)]['total']} app {out[str(size)]['app']} "
            + ", ".join(f"{k} {v}" for k, v in out[str(size)].items() if k not in ("total", "app")),
            flush=True,
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache", type=Path, default=Path("/work/cache-connectors/bench"))
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-exactness", action="store_true")
    parser.add_argument(
        "--cases",
        default="",
        help="en=CASE,pt=CASE: measure these cases of --cache's data folder as they are (no ingest)",
    )
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("CASETRACK_MODELS_DIR", SHARED / "models"))
    )
    args = parser.parse_args()
    only_e1 = args.cache / "models-e1"
    if not only_e1.exists():
        only_e1.mkdir(parents=True)
        (only_e1 / E1).symlink_to(args.models_dir / E1)
    app = CaseTrack(resolve_settings(args.cache / "data", only_e1, environ={}, memory_mode="standard"))
    names = {lang: name for lang, (name, _, _) in CASES.items()}
    if args.cases:
        names = dict(pair.split("=", 1) for pair in args.cases.split(","))
    else:
        build_cases(app)
    report: dict[str, Any] = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count()}
    for language, table in () if args.skip_exactness else (("en", EN), ("pt", PT)):
        report[language] = exactness(app, names[language], language, table)
        r = report[language]
        print(
            f"{language}: {r['expressions']} expressions over {r['documents']} documents, {r['chunks']} chunks, "
            f"{r['matching_passages']} matching passages: recall {r['recall']}, precision {r['precision']}",
            flush=True,
        )
    if not args.skip_latency:
        sizes = [int(x) for x in args.sizes.split(",")]
        report["latency"] = latency(app, names["en"], sizes)
    app.close()
    print(json.dumps({k: v for k, v in report.items() if k not in ("en", "pt")}, indent=2))


if __name__ == "__main__":
    main()

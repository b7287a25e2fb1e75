"""OCR benchmark: accuracy, orientation, speed and memory of casetrack.ocr against raw tesseract.

Measures, on ../shared/data (MANIFEST.md sections 5 and 7):
  * accuracy: CER and WER of `ocr_image` on each reference pair (phototest, eurotext, 8071_093.3B,
    8087_054.3B, linn.png, linn.pdf p1, SCOTUS image-pdf.pdf pp. 1-2 against vector-pdf.pdf's text
    layer read with pdfplumber), and of raw `pytesseract.image_to_string` on the same image;
  * cost: seconds per page (wall, and CPU of the tesseract processes) of ours and of raw
    image_to_string on the same image at the same DPI, and their ratio (target <= 2x);
  * orientation: cardinal.pdf's four pages, skew.pdf, rotated_skew.pdf and the three rotated
    phototest variants: the turn and skew found, and the CER against the upright reference
    (upright = CER <= 0.05);
  * throughput (pages/s) with 1 and 2 pages at a time, and peak RSS (this process, from
    ru_maxrss; the largest tesseract process, sampled with psutil);
  * the product's path: `casetrack.parse.parse_file` (the page verdict, render, OCR, the page
    layout CaseTrack stores and cites) on the same files, CER of each page's stored text, seconds
    and peak RSS of the whole parse;
  * --decisions: what the defaults rest on: OMP_THREAD_LIMIT unset vs 1, OSD on every page with and
    without the deskew vs --psm 1, OSD's cost, and the render of the huge pages (poster, hugemono).

Normalisation for CER/WER: Unicode NFC, then every run of whitespace becomes one space and the ends
are stripped; nothing else (case, punctuation, quotes and hyphens count). CER = character
Levenshtein distance / reference length; WER = word-level Levenshtein / reference words (rapidfuzz).

Usage: python bench/ocr.py [--out results.json] [--repeat 1] [--decisions]
The process sets OMP_THREAD_LIMIT=1 (casetrack.ocr.RECOMMENDED_ENV) unless --omp-default.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sys
import threading
import time
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pdfplumber  # noqa: E402
import psutil  # noqa: E402
import pytesseract  # noqa: E402
from PIL import Image  # noqa: E402
from rapidfuzz.distance import Levenshtein  # noqa: E402

from casetrack.ocr import RECOMMENDED_ENV, engine_info, ocr_image, render_pdf_page  # noqa: E402
from casetrack.ocr.engine import run_tesseract  # noqa: E402
from casetrack.ocr.layout import parse_tsv  # noqa: E402
from casetrack.ocr.orient import as_gray, detect_rotation, estimate_skew, upright  # noqa: E402

DATA = REPO.parent / "shared" / "data"
TESS = DATA / "ocr" / "tesseract_test"
OCRMYPDF = DATA / "ocr" / "ocrmypdf_resources"
COURTS = DATA / "legal_docs_us_courts"
UPRIGHT_CER = 0.05
T = TypeVar("T")


def norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


def cer(hyp: str, ref: str) -> float:
    hyp, ref = norm(hyp), norm(ref)
    return round(Levenshtein.distance(hyp, ref) / max(len(ref), 1), 4)


def wer(hyp: str, ref: str) -> float:
    h, r = norm(hyp).split(), norm(ref).split()
    return round(Levenshtein.distance(h, r) / max(len(r), 1), 4)


@dataclass(frozen=True)
class Sample:
    name: str
    load: Callable[[], tuple[Image.Image, int | None]]
    reference: Callable[[], str]
    languages: str = "eng"


def _file(path: Path) -> Callable[[], tuple[Image.Image, int | None]]:
    def load() -> tuple[Image.Image, int | None]:
        image = Image.open(path)
        image.load()
        dpi = image.info.get("dpi")
        return image, round(float(dpi[0])) if dpi and float(dpi[0]) >= 70 else 300

    return load


def _pdf(path: Path, index: int, dpi: int = 300) -> Callable[[], tuple[Image.Image, int | None]]:
    def load() -> tuple[Image.Image, int | None]:
        page = render_pdf_page(path, index, dpi)
        return page.image, page.dpi

    return load


def _text(path: Path) -> Callable[[], str]:
    return lambda: path.read_text(encoding="utf-8")


def _pdf_text(path: Path, index: int) -> Callable[[], str]:
    def read() -> str:
        with pdfplumber.open(path) as pdf:
            return str(pdf.pages[index].extract_text() or "")

    return read


def reference_set() -> list[Sample]:
    linn = _text(OCRMYPDF / "linn.txt")
    return [
        Sample("phototest.tif", _file(TESS / "phototest.tif"), _text(TESS / "phototest.gold.txt")),
        Sample("eurotext.tif", _file(TESS / "eurotext.tif"), _text(TESS / "eurotext.txt")),
        Sample(
            "eurotext.tif (eng+por)", _file(TESS / "eurotext.tif"), _text(TESS / "eurotext.txt"), "eng+por"
        ),
        Sample("8071_093.3B.tif", _file(TESS / "8071_093.3B.tif"), _text(TESS / "8071_093.3B.txt")),
        Sample("8087_054.3B.tif", _file(TESS / "8087_054.3B.tif"), _text(TESS / "8087_054.3B.txt")),
        Sample("linn.png", _file(OCRMYPDF / "linn.png"), linn),
        Sample("linn.pdf p1", _pdf(OCRMYPDF / "linn.pdf", 0), linn),
        Sample(
            "SCOTUS image-pdf p1", _pdf(COURTS / "image-pdf.pdf", 0), _pdf_text(COURTS / "vector-pdf.pdf", 0)
        ),
        Sample(
            "SCOTUS image-pdf p2", _pdf(COURTS / "image-pdf.pdf", 1), _pdf_text(COURTS / "vector-pdf.pdf", 1)
        ),
    ]


def orientation_set() -> list[Sample]:
    linn, photo = _text(OCRMYPDF / "linn.txt"), _text(TESS / "phototest.gold.txt")
    pages = [Sample(f"cardinal.pdf p{i + 1}", _pdf(OCRMYPDF / "cardinal.pdf", i), linn) for i in range(4)]
    pages += [
        Sample("skew.pdf", _pdf(OCRMYPDF / "skew.pdf", 0), linn),
        Sample("rotated_skew.pdf", _pdf(OCRMYPDF / "rotated_skew.pdf", 0), linn),
    ]
    pages += [
        Sample(f"phototest-rotated-{v}.png", _file(TESS / f"phototest-rotated-{v}.png"), photo)
        for v in ("180", "L", "R")
    ]
    return pages


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Callable[[], T], repeat: int) -> tuple[T, float, float]:
    """(result, best wall seconds, CPU seconds of tesseract children in that run)."""
    best: tuple[T, float, float] | None = None
    for _ in range(repeat):
        cpu, wall = child_cpu(), time.perf_counter()
        out = fn()
        run = (out, time.perf_counter() - wall, child_cpu() - cpu)
        best = run if best is None or run[1] < best[1] else best
    assert best is not None
    return best


def measure(sample: Sample, repeat: int) -> dict[str, object]:
    image, dpi = sample.load()
    reference = sample.reference()
    page, ours, ours_cpu = timed(lambda: ocr_image(image, sample.languages, dpi=dpi), repeat)
    config = f"--dpi {dpi}" if dpi else ""
    raw, raw_s, raw_cpu = timed(
        lambda: pytesseract.image_to_string(image, lang=sample.languages, config=config), repeat
    )
    text = page.text
    return {
        "name": sample.name,
        "size": list(image.size),
        "dpi": dpi,
        "cer": cer(text, reference),
        "wer": wer(text, reference),
        "raw_cer": cer(str(raw), reference),
        "s": round(ours, 2),
        "raw_s": round(raw_s, 2),
        "ratio": round(ours / raw_s, 2),
        "cpu_s": round(ours_cpu, 2),
        "raw_cpu_s": round(raw_cpu, 2),
        "cpu_ratio": round(ours_cpu / max(raw_cpu, 1e-6), 2),
        "rotation": page.rotation,
        "skew": page.skew,
        "confidence": page.confidence,
    }


def orientation(sample: Sample) -> dict[str, object]:
    image, dpi = sample.load()
    page = ocr_image(image, sample.languages, dpi=dpi)
    error = cer(page.text, sample.reference())
    return {
        "name": sample.name,
        "rotation": page.rotation,
        "skew": page.skew,
        "cer": error,
        "upright": error <= UPRIGHT_CER,
        "s": page.seconds,
    }


class ChildPeak:
    """The largest RSS of a tesseract child seen while running, sampled every 20 ms (ru_maxrss of
    children is useless here: it counts the forked Python before the exec)."""

    def __init__(self) -> None:
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(0.02):
            for child in me.children(recursive=True):
                try:
                    if "tesseract" in child.name():
                        self.peak_mb = max(self.peak_mb, child.memory_info().rss / 2**20)
                except psutil.Error:
                    pass

    def __enter__(self) -> ChildPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def throughput(samples: list[Sample], workers: int) -> tuple[float, float]:
    """(pages/s with `workers` pages at a time, peak tesseract RSS in MB)."""
    loaded = [(s.load(), s.languages) for s in samples]
    started = time.perf_counter()
    with ChildPeak() as peak, ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda item: ocr_image(item[0][0], item[1], dpi=item[0][1]), loaded))
    return round(len(loaded) / (time.perf_counter() - started), 3), round(peak.peak_mb, 1)


def peak_rss_mb() -> float:
    """This process's peak RSS (ru_maxrss: KB on Linux, bytes on macOS)."""
    scale = 2**20 if sys.platform == "darwin" else 2**10
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale, 1)


def _variant(image: Image.Image, dpi: int, psm: int, deskew: bool) -> str:
    gray = as_gray(image)
    deadline = time.monotonic() + 300
    turned = upright(gray, detect_rotation(gray, dpi, deadline), 0.0) if psm == 3 else gray
    final = upright(turned, 0, estimate_skew(turned)) if deskew else turned
    tsv = run_tesseract("tsv", final, "eng", f"--psm {psm} --dpi {dpi}", deadline)
    return "\n".join(line.text for p in parse_tsv(tsv)[0] for line in p.lines)


def decisions(repeat: int) -> dict[str, object]:
    """The measurements the defaults rest on (module docstring)."""
    out: dict[str, object] = {}
    scotus, dpi = _pdf(COURTS / "image-pdf.pdf", 0)()
    limit = os.environ.pop("OMP_THREAD_LIMIT", None)
    _, unset_s, unset_cpu = timed(lambda: pytesseract.image_to_string(scotus, config="--dpi 300"), repeat)
    os.environ["OMP_THREAD_LIMIT"] = "1"
    _, one_s, one_cpu = timed(lambda: pytesseract.image_to_string(scotus, config="--dpi 300"), repeat)
    out["omp"] = {
        "unset_s": round(unset_s, 2),
        "unset_cpu_s": round(unset_cpu, 2),
        "limit1_s": round(one_s, 2),
        "limit1_cpu_s": round(one_cpu, 2),
        "cores": os.cpu_count(),
    }
    if limit is None:
        os.environ.pop("OMP_THREAD_LIMIT")
    _, osd_s, _ = timed(lambda: detect_rotation(scotus, dpi, time.monotonic() + 60), repeat)
    _, skew_s, _ = timed(lambda: estimate_skew(scotus), repeat)
    out["osd_s"], out["skew_s"] = round(osd_s, 3), round(skew_s, 3)
    rows = []
    for sample in [*reference_set()[5:], *orientation_set()[:6]]:
        image, page_dpi = sample.load()
        ref = sample.reference()
        row: dict[str, object] = {"name": sample.name}
        for label, psm, deskew in (("osd+psm3+deskew", 3, True), ("osd+psm3", 3, False), ("psm1", 1, False)):
            text, seconds, _ = timed(functools.partial(_variant, image, page_dpi or 300, psm, deskew), 1)
            row[label] = {"cer": cer(text, ref), "s": round(seconds, 2)}
        rows.append(row)
        print(f"  {row}", flush=True)
    out["variants"] = rows
    renders: dict[str, object] = {}
    for name in ("poster.pdf", "hugemono.pdf", "2400dpi.pdf"):
        page, seconds, _ = timed(functools.partial(render_pdf_page, OCRMYPDF / name, 0), 1)
        renders[name] = {"size": list(page.image.size), "dpi": page.dpi, "s": round(seconds, 2)}
    out["render"] = renders
    return out


def table(rows: list[dict[str, object]], keys: list[str]) -> str:
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row.get(k, "")) for k in keys) + " |" for row in rows]
    return "\n".join(lines)


def pipeline_rows() -> list[dict[str, object]]:
    """CER of the text CaseTrack stores for each page (parse_file, the product's own path)."""
    from casetrack.parse import parse_file
    from casetrack.parse.options import ParseOptions

    linn, photo = _text(OCRMYPDF / "linn.txt")(), _text(TESS / "phototest.gold.txt")()
    cases = [
        ("phototest.tif", TESS / "phototest.tif", [photo]),
        ("linn.pdf", OCRMYPDF / "linn.pdf", [linn]),
        (
            "SCOTUS image-pdf.pdf",
            COURTS / "image-pdf.pdf",
            [_pdf_text(COURTS / "vector-pdf.pdf", i)() for i in range(2)],
        ),
        ("cardinal.pdf", OCRMYPDF / "cardinal.pdf", [linn] * 4),
        ("skew.pdf", OCRMYPDF / "skew.pdf", [linn]),
        ("rotated_skew.pdf", OCRMYPDF / "rotated_skew.pdf", [linn]),
    ]
    rows: list[dict[str, object]] = []
    for name, path, references in cases:
        started = time.perf_counter()
        parsed = parse_file(path, options=ParseOptions(ocr_languages="eng"))
        seconds = time.perf_counter() - started
        for page, reference in zip(parsed.pages, references, strict=True):
            rows.append(
                {
                    "name": f"{name} p{page.number}",
                    "method": page.extraction_method.value,
                    "cer": round(cer(page.text, reference), 4),
                    "wer": round(wer(page.text, reference), 4),
                    "confidence": round(page.ocr_confidence or 0.0, 1),
                    "lines": len(page.lines),
                    "paragraphs": len(page.paragraphs),
                    "s": round(seconds / len(parsed.pages), 2),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing (the fastest counts)")
    parser.add_argument("--decisions", action="store_true", help="also measure the alternatives (slow)")
    parser.add_argument("--omp-default", action="store_true", help="leave OMP_THREAD_LIMIT as it is")
    args = parser.parse_args()
    if not args.omp_default:
        os.environ.update(RECOMMENDED_ENV)
    info = engine_info()
    results: dict[str, object] = {
        "engine": {"version": info.version, "languages": list(info.languages)},
        "omp_thread_limit": os.environ.get("OMP_THREAD_LIMIT"),
        "load_average": os.getloadavg(),
    }
    accuracy = [measure(sample, args.repeat) for sample in reference_set()]
    print("## Accuracy and cost per page\n")
    print(
        table(
            accuracy,
            [
                "name",
                "size",
                "dpi",
                "cer",
                "wer",
                "raw_cer",
                "s",
                "raw_s",
                "ratio",
                "cpu_s",
                "raw_cpu_s",
                "cpu_ratio",
                "rotation",
                "skew",
                "confidence",
            ],
        ),
        flush=True,
    )
    turned = [orientation(sample) for sample in orientation_set()]
    print("\n## Orientation set\n")
    print(table(turned, ["name", "rotation", "skew", "cer", "upright", "s"]), flush=True)
    through = pipeline_rows()
    results["pipeline"] = through
    print("\n## Through CaseTrack's parser (parse_file: verdict, render, OCR, stored page text)\n")
    print(
        table(through, ["name", "method", "cer", "wer", "confidence", "lines", "paragraphs", "s"]), flush=True
    )
    pages = reference_set()
    (one, child_one), (two, child_two) = throughput(pages, 1), throughput(pages, 2)
    results.update(
        accuracy=accuracy,
        orientation=turned,
        pages_per_s={"1": one, "2": two},
        peak_rss_mb={"self": peak_rss_mb(), "tesseract": max(child_one, child_two)},
    )
    print(
        f"\nthroughput ({len(pages)} pages): {one} pages/s one at a time, {two} two at a time; "
        f"peak RSS MB: {results['peak_rss_mb']}"
    )
    if args.decisions:
        results["decisions"] = decisions(args.repeat)
        print("\n## Decisions\n\n" + json.dumps(results["decisions"], indent=1))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

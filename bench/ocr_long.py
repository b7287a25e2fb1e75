"""Long scans: does memory stay flat as a scanned PDF grows, and how fast do pages go in?

Builds image-only PDFs of N pages (pages of real CUAD contracts rendered at 300 DPI, cycled),
then ingests each with the real CLI in a fresh process (`casetrack ingest`, in-process parse:
render, OCR, chunk, embed, store) and reports wall time, pages per second and the peak RSS of
the CLI process alone and with its children (tesseract), sampled every 0.2 s. Memory that stays flat from the short to
the long file means pages are not held as images. A resume check follows: the long file is
ingested again after a kill -9 half-way, and the second run's "OCR resumed" note says how many
pages it did not read again.

Usage: python bench/ocr_long.py [--pages 8 32] [--work /tmp/ocr-long]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
MODELS = REPO.parent / "shared" / "models"
SOURCE = DATA / "legal_span_bench/cuad_pdf/Part_I/Affiliate_Agreements"


def build_scan(out: Path, pages: int, dpi: int = 300) -> Path:
    """An image-only PDF of `pages` pages, appended one page at a time (never all in memory)."""
    import pypdfium2

    sources = sorted(SOURCE.glob("*.pdf"))
    target = pypdfium2.PdfDocument.new()
    made = 0
    while made < pages:
        for src in sources:
            doc = pypdfium2.PdfDocument(str(src))
            for i in range(len(doc)):
                if made >= pages:
                    break
                image = doc[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
                tmp = out.with_suffix(".page.pdf")
                image.save(tmp, "PDF", resolution=dpi)
                page_doc = pypdfium2.PdfDocument(str(tmp))
                target.import_pages(page_doc)
                page_doc.close()
                made += 1
            doc.close()
            if made >= pages:
                break
    target.save(str(out))
    target.close()
    out.with_suffix(".page.pdf").unlink(missing_ok=True)
    return out


def ingest(home: Path, pdf: Path, kill_after_pages: int | None = None) -> dict[str, object]:
    """One `casetrack ingest` in a new process; its wall time, peak RSS and report."""
    env = {
        **os.environ,
        "CASETRACK_HOME": str(home),
        "CASETRACK_MODELS_DIR": str(MODELS),
        "LANCEDB_LOG": "error",
    }
    cmd = [sys.executable, "-m", "casetrack"]
    subprocess.run([*cmd, "case", "create", "Long"], env=env, capture_output=True)
    started = time.monotonic()
    proc = subprocess.Popen(
        [*cmd, "ingest", "--case", "Long", str(pdf), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    if kill_after_pages is not None:
        while len(list(home.glob("cases/*/ocr/*/page-*.json"))) < kill_after_pages and proc.poll() is None:
            time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return {"killed_after_pages": len(list(home.glob("cases/*/ocr/*/page-*.json")))}
    peak_main = peak_tree = 0
    watched = psutil.Process(proc.pid)
    while proc.poll() is None:  # sample the CLI process and its children (tesseract) every 0.2 s
        try:
            main_rss = watched.memory_info().rss
            tree = main_rss + sum(c.memory_info().rss for c in watched.children(recursive=True))
        except psutil.Error:
            break
        peak_main, peak_tree = max(peak_main, main_rss), max(peak_tree, tree)
        time.sleep(0.2)
    out, _ = proc.communicate()
    seconds = time.monotonic() - started
    report = json.loads(out)["files"][0]
    return {
        "seconds": round(seconds, 1),
        "status": report["status"],
        "ocr_pages": len(report["ocr_pages"]),
        "ocr_confidence": report["ocr_confidence"],
        "peak_rss_mb": round(peak_main / 2**20),
        "peak_rss_mb_with_tesseract": round(peak_tree / 2**20),
        "warnings": [w for w in report["warnings"] if w.startswith("OCR resumed")],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--work", default="/tmp/ocr-long")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for n in args.pages:
        pdf = work / f"scan-{n}.pdf"
        if not pdf.exists():
            build_scan(pdf, n)
        result = ingest(work / f"home-{n}-{time.time_ns()}", pdf)
        rows.append({"pages": n, **result, "pages_per_s": round(n / float(result["seconds"]), 2)})  # type: ignore[arg-type]
        print(json.dumps(rows[-1]), flush=True)
    longest = max(args.pages)
    home = work / f"home-resume-{time.time_ns()}"
    killed = ingest(home, work / f"scan-{longest}.pdf", kill_after_pages=longest // 2)
    resumed = ingest(home, work / f"scan-{longest}.pdf")
    print(json.dumps({"resume": {**killed, **resumed}}), flush=True)
    print(
        "\n| pages | seconds | pages/s | mean OCR confidence | peak RSS, CLI process (MB) | with tesseract (MB) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['pages']} | {r['seconds']} | {r['pages_per_s']} | {r['ocr_confidence']} | {r['peak_rss_mb']} | "
            f"{r['peak_rss_mb_with_tesseract']} |"
        )
    print(
        f"\nkill -9 after {killed['killed_after_pages']} of {longest} pages, then again: "
        f"{resumed['seconds']} s, {resumed['warnings']}"
    )


if __name__ == "__main__":
    main()

"""Embedder benchmark: throughput per role and per tier, and memory of the pool.

Measures, on CUAD contract text (../shared/data/legal_span_bench/corpus/cuad):
  * chunks/s at ~256 and ~512 tokens for each slot (E1, E7, E6, E12), warm, one process;
  * chunks/s for the whole tier (every installed model on each chunk, as ingest runs them);
  * E1 chunks/s at batch 1 vs batch 8 (why INT8 models run one text per call);
  * RSS of an idle process (CaseTrack core, no model), of a process with each tier's resident
    models loaded, and the peak RSS of a `casetrack ingest` of ~500 chunks (each in a fresh
    subprocess, so one measurement cannot inflate the next).

Usage: python bench/embed.py [--models-dir DIR] [--chunks 24] [--ingest-chunks 500]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from casetrack.embed.pool import SLOT_ORDER, EncoderPool  # noqa: E402
from casetrack.ingest.embedding import embed_chunks  # noqa: E402

SHARED = REPO.parent / "shared"
CUAD = SHARED / "data/legal_span_bench/corpus/cuad"
PYTHON = sys.executable


def windows(tokens_per_window: int, count: int, count_tokens: object) -> list[str]:
    """`count` passages of ~`tokens_per_window` E1 tokens cut from CUAD contracts."""
    out: list[str] = []
    for path in sorted(CUAD.glob("*.txt")):
        words = path.read_text(encoding="utf-8", errors="replace").split()
        # ~0.75 words per token for English contracts; trim to the budget with the real count.
        step = int(tokens_per_window * 0.72)
        for start in range(0, len(words) - step, step):
            text = " ".join(words[start : start + step])
            while count_tokens([text])[0] > tokens_per_window - 2:  # type: ignore[operator]
                text = text.rsplit(" ", 8)[0]
            out.append(text)
            if len(out) == count:
                return out
    return out


def rate(fn: object, texts: list[str], repeat: int = 1) -> float:
    fn(texts[:2])  # type: ignore[operator]  # warm-up: first call allocates the arena
    started = time.perf_counter()
    for _ in range(repeat):
        fn(texts)  # type: ignore[operator]
    return len(texts) * repeat / (time.perf_counter() - started)


def throughput(models_dir: Path, n: int) -> dict[str, object]:
    pool = EncoderPool(models_dir, "full")
    e1 = pool.get("E1", "en")
    texts = {t: windows(t, n, e1.count_tokens) for t in (256, 512)}
    out: dict[str, object] = {}
    for slot in SLOT_ORDER:
        if pool.resolve(slot, "en") is None:
            out[slot] = "not installed"
            continue
        enc = pool.get(slot, "en")
        name = "encode_documents" if slot == "E12" else "encode_passages"
        fn = getattr(enc, name)
        out[slot] = {
            "model": enc.spec.name,
            "chunks_per_s_256": round(rate(fn, texts[256]), 2),
            "chunks_per_s_512": round(rate(fn, texts[512]), 2),
        }
        print(f"{slot:<4} {enc.spec.name:<28} {out[slot]}", flush=True)

    def whole(batch: list[str]) -> None:
        embed_chunks(pool, "en", "bench", batch, lambda s, d, t: None)

    for t in (256, 512):
        out[f"whole_tier_chunks_per_s_{t}"] = round(rate(whole, texts[t]), 2)
    out["e1_batch1_vs_batch8_512"] = {
        "batch1": round(rate(lambda b: e1.encode_passages(b, batch_size=1), texts[512]), 2),
        "batch8": round(rate(lambda b: e1.encode_passages(b, batch_size=8), texts[512]), 2),
    }
    print(
        f"whole tier: {out['whole_tier_chunks_per_s_256']} chunks/s @256, "
        f"{out['whole_tier_chunks_per_s_512']} @512; E1 batch 1 vs 8: {out['e1_batch1_vs_batch8_512']}"
    )
    return out


IDLE = """
import sys
from casetrack.app import CaseTrack
from casetrack.config import resolve_settings
mode = None if sys.argv[3] in ("none", "case") else sys.argv[3]
app = CaseTrack(resolve_settings(sys.argv[1], sys.argv[2], environ={}, memory_mode=mode))
app.pool  # the pool object itself, no model
if sys.argv[3] == "case":  # a case opened: LanceDB, pyarrow and tantivy loaded
    app.create_case("Idle")
    app.open_case("Idle").close()
if mode is not None:
    pool = app.pool
    pool.preload("en")
    print(",".join(pool.loaded_models()), file=sys.stderr)
import psutil
print(psutil.Process().memory_info().rss)
"""


def rss_mb(models_dir: Path, mode: str, home: Path) -> float:
    """RSS of a fresh process with the core and the pool built; `mode` "none": nothing else,
    "case": one case opened, a tier name: that tier's resident models loaded."""
    cmd = [PYTHON, "-c", IDLE, str(home), str(models_dir), mode]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO)
    return int(done.stdout.strip().splitlines()[-1]) / 2**20


def ingest_peak(models_dir: Path, target_chunks: int, home: Path) -> dict[str, object]:
    """Peak RSS of `casetrack ingest` (standard tier) of enough CUAD contracts for ~target chunks."""
    files, chars = [], 0
    for path in sorted(CUAD.glob("*.txt")):
        files.append(path)
        chars += path.stat().st_size
        if chars >= target_chunks * 1700:  # ~1,700 characters per chunk of CUAD text (measured)
            break
    env = {**os.environ, "CASETRACK_HOME": str(home), "CASETRACK_MODELS_DIR": str(models_dir)}
    cli = [PYTHON, "-m", "casetrack", "--memory-mode", "standard"]
    subprocess.run(cli + ["case", "create", "Bench"], env=env, check=True, capture_output=True, cwd=REPO)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        cli + ["ingest", "--case", "Bench", "--json", *map(str, files)],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode not in (0, 3):
        raise SystemExit(f"ingest failed: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)["summary"]
    return {
        "files": len(files),
        "chunks": summary["chunks"],
        "seconds": round(seconds, 1),
        "chunks_per_s": round(summary["chunks"] / seconds, 2),
        # ru_maxrss of children is the largest child so far; this child is by far the largest.
        "peak_rss_mb": round(max(peak_kb, before) / 1024, 1),
        "warnings": summary.get("warnings", []),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models-dir", type=Path, default=Path(os.environ.get("CASETRACK_MODELS_DIR", SHARED / "models"))
    )
    parser.add_argument("--chunks", type=int, default=24, help="passages per throughput measurement")
    parser.add_argument("--ingest-chunks", type=int, default=500)
    args = parser.parse_args()
    results: dict[str, object] = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        results["idle_rss_mb"] = {
            m: round(rss_mb(args.models_dir, m, home / m), 1)
            for m in ("none", "case", "constrained", "standard", "full")
        }
        print(
            f"RSS after start-up (no model / per tier, resident models loaded): {results['idle_rss_mb']}",
            flush=True,
        )
        results["ingest"] = ingest_peak(args.models_dir, args.ingest_chunks, home / "ingest")
        print(f"ingest: {results['ingest']}", flush=True)
    results["throughput"] = throughput(args.models_dir, args.chunks)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

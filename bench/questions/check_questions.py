#!/usr/bin/env python3
"""Validate the lawyer-style question sets (stdlib only).

Usage (from the repository root):
    python bench/questions/check_questions.py [--data /work/shared/data]

Checks, for lawyer_pt.json and lawyer_en.json:
  * top-level shape (lang, corpus, questions) and unique question ids (across both files);
  * every question has a known kind, a non-empty question text, a note and >= 1 gold passage;
  * every gold file is listed in that file's corpus and exists under the data root;
  * every gold quote is an exact (verbatim) substring of its file, 40-400 characters long;
  * the Portuguese corpus lists all lener_br/raw_text/*.txt files;
  * coverage minimums (PT >= 25 distinct gold files, EN >= 18).
Prints counts per kind and per file, the spread of answer positions inside the documents,
and (as information only) quotes that occur more than once in their file - every
occurrence counts as gold. Exits with status 1 if any check fails.
"""

import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {"concept", "paraphrase", "citation", "fact", "party", "amount_date"}
SETS = [("lawyer_pt.json", "pt", 25), ("lawyer_en.json", "en", 18)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data",
        default=os.environ.get("CASETRACK_BENCH_DATA", "/work/shared/data"),
        help="root that corpus paths are relative to (default /work/shared/data)",
    )
    args = ap.parse_args()
    root = args.data
    errors = []
    seen_ids = set()
    cache = {}

    def read(rel):
        if rel not in cache:
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                cache[rel] = fh.read()
        return cache[rel]

    for fname, lang, min_files in SETS:
        path = os.path.join(HERE, fname)
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        print(f"== {fname}")
        if d.get("lang") != lang:
            errors.append(f"{fname}: lang is {d.get('lang')!r}, expected {lang!r}")
        corpus = d.get("corpus") or []
        if len(set(corpus)) != len(corpus):
            errors.append(f"{fname}: duplicate entries in corpus list")
        for rel in corpus:
            if not os.path.isfile(os.path.join(root, rel)):
                errors.append(f"{fname}: corpus file missing on disk: {rel}")
        if lang == "pt":
            lener = os.path.join(root, "lener_br/raw_text")
            expected = {"lener_br/raw_text/" + f for f in os.listdir(lener) if f.endswith(".txt")}
            if set(corpus) != expected:
                errors.append(
                    f"{fname}: corpus differs from lener_br/raw_text/*.txt "
                    f"(missing {sorted(expected - set(corpus))}, extra {sorted(set(corpus) - expected)})"
                )
        qs = d.get("questions") or []
        kinds = collections.Counter()
        per_file = collections.Counter()
        positions = []
        dup_quotes = 0
        for q in qs:
            qid = q.get("id")
            if not qid or qid in seen_ids:
                errors.append(f"{fname}: missing or duplicate id {qid!r}")
            seen_ids.add(qid)
            if q.get("kind") not in KINDS:
                errors.append(f"{qid}: unknown kind {q.get('kind')!r}")
            kinds[q.get("kind")] += 1
            if not (q.get("question") or "").strip():
                errors.append(f"{qid}: empty question")
            if not (q.get("note") or "").strip():
                errors.append(f"{qid}: empty note")
            gold = q.get("gold") or []
            if not gold:
                errors.append(f"{qid}: no gold passages")
            files_in_q = set()
            for g in gold:
                rel, quote = g.get("file"), g.get("quote") or ""
                if rel not in corpus:
                    errors.append(f"{qid}: gold file not in corpus list: {rel}")
                if not os.path.isfile(os.path.join(root, rel or "")):
                    errors.append(f"{qid}: gold file does not exist: {rel}")
                    continue
                text = read(rel)
                start = text.find(quote)
                if start < 0:
                    errors.append(f"{qid}: quote is NOT a verbatim substring of {rel}: {quote[:80]!r}")
                    continue
                if not 40 <= len(quote) <= 400:
                    errors.append(f"{qid}: quote length {len(quote)} outside 40-400: {quote[:60]!r}")
                if text.count(quote) > 1:
                    dup_quotes += 1
                positions.append(start / max(1, len(text)))
                files_in_q.add(rel)
            for rel in files_in_q:
                per_file[rel] += 1
        print(
            f"questions: {len(qs)}   gold passages: {sum(len(q.get('gold') or []) for q in qs)}   "
            f"distinct gold files: {len(per_file)} (corpus {len(corpus)})"
        )
        if len(per_file) < min_files:
            errors.append(f"{fname}: only {len(per_file)} distinct gold files (< {min_files})")
        print("per kind:", dict(sorted(kinds.items())))
        bins = collections.Counter(min(int(p * 5), 4) for p in positions)
        print(
            "answer position in document (fifths, 0=start .. 4=end):", {i: bins.get(i, 0) for i in range(5)}
        )
        if dup_quotes:
            print(
                f"info: {dup_quotes} gold quotes occur more than once in their file (every occurrence is gold)"
            )
        print("per file (questions with gold in the file):")
        for rel, n in sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:3d}  {rel}")
        print()

    if errors:
        print(f"FAILED: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

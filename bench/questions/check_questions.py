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


class Checker:
    """The checks of the question sets under one data root; problems are collected in `errors`."""

    def __init__(self, root):
        self.root = root
        self.errors = []
        self.seen_ids = set()
        self.cache = {}

    def read(self, rel):
        if rel not in self.cache:
            with open(os.path.join(self.root, rel), encoding="utf-8") as fh:
                self.cache[rel] = fh.read()
        return self.cache[rel]

    def check_corpus(self, fname, lang, corpus):
        """The corpus list: no duplicates, every file on disk, all of LeNER-Br for Portuguese."""
        if len(set(corpus)) != len(corpus):
            self.errors.append(f"{fname}: duplicate entries in corpus list")
        for rel in corpus:
            if not os.path.isfile(os.path.join(self.root, rel)):
                self.errors.append(f"{fname}: corpus file missing on disk: {rel}")
        if lang == "pt":
            lener = os.path.join(self.root, "lener_br/raw_text")
            expected = {"lener_br/raw_text/" + f for f in os.listdir(lener) if f.endswith(".txt")}
            if set(corpus) != expected:
                self.errors.append(
                    f"{fname}: corpus differs from lener_br/raw_text/*.txt "
                    f"(missing {sorted(expected - set(corpus))}, extra {sorted(set(corpus) - expected)})"
                )

    def check_fields(self, fname, q):
        """A question's id (unique over both sets), kind, text and note."""
        qid = q.get("id")
        if not qid or qid in self.seen_ids:
            self.errors.append(f"{fname}: missing or duplicate id {qid!r}")
        self.seen_ids.add(qid)
        if q.get("kind") not in KINDS:
            self.errors.append(f"{qid}: unknown kind {q.get('kind')!r}")
        if not (q.get("question") or "").strip():
            self.errors.append(f"{qid}: empty question")
        if not (q.get("note") or "").strip():
            self.errors.append(f"{qid}: empty note")

    def check_gold(self, qid, g, corpus):
        """One gold passage: (its position in the file as a share, whether it occurs more than
        once), or None when its file or quote is not there."""
        rel, quote = g.get("file"), g.get("quote") or ""
        if rel not in corpus:
            self.errors.append(f"{qid}: gold file not in corpus list: {rel}")
        if not os.path.isfile(os.path.join(self.root, rel or "")):
            self.errors.append(f"{qid}: gold file does not exist: {rel}")
            return None
        text = self.read(rel)
        start = text.find(quote)
        if start < 0:
            self.errors.append(f"{qid}: quote is NOT a verbatim substring of {rel}: {quote[:80]!r}")
            return None
        if not 40 <= len(quote) <= 400:
            self.errors.append(f"{qid}: quote length {len(quote)} outside 40-400: {quote[:60]!r}")
        return start / max(1, len(text)), text.count(quote) > 1

    def check_set(self, fname, lang, min_files):
        path = os.path.join(HERE, fname)
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        print(f"== {fname}")
        if d.get("lang") != lang:
            self.errors.append(f"{fname}: lang is {d.get('lang')!r}, expected {lang!r}")
        corpus = d.get("corpus") or []
        self.check_corpus(fname, lang, corpus)
        qs = d.get("questions") or []
        kinds = collections.Counter()
        per_file = collections.Counter()
        positions = []
        dup_quotes = 0
        for q in qs:
            self.check_fields(fname, q)
            kinds[q.get("kind")] += 1
            gold = q.get("gold") or []
            if not gold:
                self.errors.append(f"{q.get('id')}: no gold passages")
            files_in_q = set()
            for g in gold:
                found = self.check_gold(q.get("id"), g, corpus)
                if found is None:
                    continue
                positions.append(found[0])
                dup_quotes += found[1]
                files_in_q.add(g.get("file"))
            for rel in files_in_q:
                per_file[rel] += 1
        print(
            f"questions: {len(qs)}   gold passages: {sum(len(q.get('gold') or []) for q in qs)}   "
            f"distinct gold files: {len(per_file)} (corpus {len(corpus)})"
        )
        if len(per_file) < min_files:
            self.errors.append(f"{fname}: only {len(per_file)} distinct gold files (< {min_files})")
        print_spread(kinds, positions, dup_quotes, per_file)


def print_spread(kinds, positions, dup_quotes, per_file):
    """Counts per kind and per file, and where in their documents the answers are."""
    print("per kind:", dict(sorted(kinds.items())))
    bins = collections.Counter(min(int(p * 5), 4) for p in positions)
    print("answer position in document (fifths, 0=start .. 4=end):", {i: bins.get(i, 0) for i in range(5)})
    if dup_quotes:
        print(f"info: {dup_quotes} gold quotes occur more than once in their file (every occurrence is gold)")
    print("per file (questions with gold in the file):")
    for rel, n in sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {n:3d}  {rel}")
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--data",
        default=os.environ.get("CASETRACK_BENCH_DATA", "/work/shared/data"),
        help="root that corpus paths are relative to (default /work/shared/data)",
    )
    args = ap.parse_args()
    checker = Checker(args.data)
    for fname, lang, min_files in SETS:
        checker.check_set(fname, lang, min_files)
    if checker.errors:
        print(f"FAILED: {len(checker.errors)} problem(s)")
        for e in checker.errors:
            print("  -", e)
        return 1
    print("OK: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

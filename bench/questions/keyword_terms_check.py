#!/usr/bin/env python3
"""Re-check keyword_terms.json (stdlib + the pdftotext binary only).

For every gold entry it checks that
  * the file is listed in the files of the term's case and exists,
  * the quote has 5-40 words,
  * the alphanumeric-lowercased quote occurs in the alphanumeric-lowercased text of
    the cited page (PDF: `pdftotext -f N -l N file -`) or of the cited 1-based line
    range (.txt, page must be null),
and it checks the per-term fields (lang/case consistency). Prints every failure,
per-term gold counts and totals; exits 1 if anything failed.

Usage: python3 keyword_terms_check.py [path/to/keyword_terms.json] [--data /work/shared/data]
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def norm(s):
    return "".join(c for c in s.lower() if c.isalnum())


class Sources:
    """The cited pages and lines, read once: a PDF page's text through pdftotext, a .txt file's lines."""

    def __init__(self, data):
        self.data = data
        self.pages = {}
        self.lines = {}

    def pdf_page(self, f, n):
        key = (f, n)
        if key not in self.pages:
            r = subprocess.run(
                ["pdftotext", "-f", str(n), "-l", str(n), os.path.join(self.data, f), "-"],
                capture_output=True,
                text=True,
                errors="replace",
            )
            self.pages[key] = norm(r.stdout) if r.returncode == 0 else None
        return self.pages[key]

    def txt_lines(self, f):
        if f not in self.lines:
            with open(os.path.join(self.data, f), encoding="utf-8", errors="replace") as fh:
                self.lines[f] = fh.read().split("\n")
        return self.lines[f]


def check_pdf_gold(sources, where, g, q):
    """A PDF gold entry: an integer page, no lines, the quote on that page. The failure, or None."""
    if not isinstance(g.get("page"), int) or g["page"] < 1 or g.get("lines") is not None:
        return f"{where}: PDF gold needs integer page >= 1 and lines null"
    text = sources.pdf_page(g["file"], g["page"])
    if text is None:
        return f"{where}: pdftotext failed"
    if q not in text:
        return f"{where}: quote not on page: {g['quote'][:80]!r}"
    return None


def check_txt_gold(sources, where, g, q):
    """A .txt gold entry: no page, a line range inside the file, the quote in those lines."""
    ln = g.get("lines")
    if g.get("page") is not None or not (isinstance(ln, list) and len(ln) == 2):
        return f"{where}: txt gold needs page null and lines [a, b]"
    a, b = ln
    L = sources.txt_lines(g["file"])
    if not (1 <= a <= b <= len(L)):
        return f"{where}: bad line range (file has {len(L)} lines)"
    if q not in norm("\n".join(L[a - 1 : b])):
        return f"{where}: quote not in lines: {g['quote'][:80]!r}"
    return None


def check_gold(sources, failures, term, files, case, i, g):
    where = f"{term} #{i} {g['file']} p={g.get('page')} l={g.get('lines')}"
    if g["file"] not in files:
        failures.append(f"{where}: file not in case {case}")
        return
    nw = len(g["quote"].split())
    if not 5 <= nw <= 40:
        failures.append(f"{where}: quote has {nw} words")
    q = norm(g["quote"])
    if not q:
        failures.append(f"{where}: empty quote")
        return
    check = check_pdf_gold if g["file"].lower().endswith(".pdf") else check_txt_gold
    failure = check(sources, where, g, q)
    if failure is not None:
        failures.append(failure)


def check_cases(data, cases, failures):
    for cname, c in cases.items():
        for f in c["files"]:
            if not os.path.exists(os.path.join(data, f)):
                failures.append(f"case {cname}: listed file missing: {f}")
        if len(set(c["files"])) != len(c["files"]):
            failures.append(f"case {cname}: duplicate files in list")


def check_terms(sources, spec, failures):
    """Each term's fields and gold entries; the gold count of each (lang, term)."""
    cases = spec["cases"]
    counts = {}
    seen_terms = set()
    for t in spec["terms"]:
        term, case, lang = t["term"], t["case"], t["lang"]
        if (term, case) in seen_terms:
            failures.append(f"duplicate term {term!r} in {case}")
        seen_terms.add((term, case))
        if case not in cases:
            failures.append(f"{term}: unknown case {case}")
            continue
        if cases[case]["language"] != lang:
            failures.append(f"{term}: lang {lang} != case language {cases[case]['language']}")
        files = set(cases[case]["files"])
        if not t["gold"]:
            failures.append(f"{term}: no gold")
        for i, g in enumerate(t["gold"]):
            check_gold(sources, failures, term, files, case, i, g)
        counts[(lang, term)] = len(t["gold"])
    return counts


def print_report(failures, counts):
    for f in failures:
        print("FAIL", f)
    by_lang = {}
    for (lang, term), n in counts.items():
        by_lang.setdefault(lang, []).append((term, n))
    for lang in sorted(by_lang):
        items = by_lang[lang]
        print(f"[{lang}] {len(items)} terms, {sum(n for _, n in items)} gold places")
        for term, n in items:
            print(f"  {n:3d}  {term}")
    total = sum(counts.values())
    print(f"{len(failures)} failed, {total} gold places checked, {len(counts)} terms")


def main(argv):
    path = os.path.join(HERE, "keyword_terms.json")
    data = "/work/shared/data"
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--data":
            data = args.pop(0)
        else:
            path = a
    spec = json.load(open(path, encoding="utf-8"))
    failures = []
    check_cases(data, spec["cases"], failures)
    counts = check_terms(Sources(data), spec, failures)
    print_report(failures, counts)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Independent re-check of /work/blind5/blind_set.json (does not import build_set.py).

- schema, ids, counts per case and kind, files exist and are readable
- PDF golds: the quote is on the stated physical page, extracted page by page with
  `pdftotext -f N -l N` in both default and -layout modes, and occurs once in the document
- TXT golds: the stated [first, last] line window (cat -n numbering) contains the quote
  and is tight (dropping the first or the last line loses it); quote occurs once in the file
- the quote occurs in no other file of the same case; no gold file is in used_before.txt
- warns when a low_overlap question shares > 34% of its content words with its quote
- checks CNJ check digits of process numbers in the self-written ./docs files
Prints "N/80 golds verified" and exits 0 only if everything passes.
"""
import json, os, re, subprocess, sys, unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/work/shared/data"
SET = os.path.join(HERE, "blind_set.json")
USED = os.path.join(HERE, "used_before.txt")
KINDS = {"names_document": 7, "low_overlap": 7, "plain": 6}

STOP = set("""a an the of to in on at by for from with without and or nor but if then than that this these those
is are was were be been being do does did done have has had having can could may might must shall should will would
what which who whom whose when where why how much many long soon often far ever any some all each every both either
neither not no yes its it it's they them their there here our we us you your he him his she her i me my own other
another such same so too very just only also into onto over under up down out about after before again once
until while per via as get got gets let lets one two""".split())
STOP |= set("""o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela pelos pelas para com sem e ou
mas se que quem qual quais quando onde como quanto quanta quantos quantas porque por que ao aos à às é são foi
foram ser sido está estão esta este isto isso essa esse aquele aquela seu sua seus suas ele ela eles elas lhe lhes
nao não sim já ainda mais menos muito pouco desde até após sobre entre depois antes pode podem deve devem
tem têm ter há houve fica ficou logo""".split())


def norm(s):
    s = unicodedata.normalize("NFKC", s).lower()
    return "".join(c for c in s if c.isalnum())


def words(s):
    s = unicodedata.normalize("NFKC", s).lower()
    toks = re.findall(r"[^\W_]+", s)
    return {t[:5] for t in toks if len(t) >= 3 and t not in STOP}


def path(p):
    return os.path.join(HERE, p[2:]) if p.startswith("./docs/") else os.path.join(DATA, p)


def pdftext(p, first=None, layout=False):
    cmd = ["pdftotext"]
    if layout:
        cmd.append("-layout")
    if first is not None:
        cmd += ["-f", str(first), "-l", str(first)]
    cmd += [path(p), "-"]
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"pdftotext failed: {p}")
    return r.stdout.decode("utf-8", "replace")


def npages(p):
    r = subprocess.run(["pdfinfo", path(p)], capture_output=True, text=True)
    m = re.search(r"^Pages:\s+(\d+)", r.stdout, re.M)
    return int(m.group(1)) if m else 0


_full = {}


def full_norm(p):
    if p not in _full:
        if p.lower().endswith(".pdf"):
            _full[p] = norm(pdftext(p))
        else:
            _full[p] = norm(open(path(p), encoding="utf-8").read())
    return _full[p]


def cnj_ok(num):
    m = re.fullmatch(r"(\d{7})-(\d{2})\.(\d{4})\.(\d)\.(\d{2})\.(\d{4})", num)
    if not m:
        return False
    n, dd, a, j, tr, o = m.groups()
    return 98 - int(n + a + j + tr + o + "00") % 97 == int(dd)


def main():
    errors, warnings = [], []
    d = json.load(open(SET, encoding="utf-8"))
    for k in ("written", "description", "cases", "questions"):
        if k not in d:
            errors.append(f"missing top-level key {k}")
    used = set(l.strip() for l in open(USED, encoding="utf-8") if l.strip())
    cases = d["cases"]
    for cname, c in cases.items():
        if c.get("language") not in ("en", "pt"):
            errors.append(f"{cname}: bad language")
        fs = c.get("files", [])
        if len(set(fs)) != len(fs):
            errors.append(f"{cname}: duplicate files")
        if not 30 <= len(fs) <= 45:
            errors.append(f"{cname}: {len(fs)} files (want 30-45)")
        for f in fs:
            ap = path(f)
            if not os.path.isfile(ap) or os.path.getsize(ap) == 0:
                errors.append(f"{cname}: missing/empty {f}")
            elif len(full_norm(f)) < 500:
                errors.append(f"{cname}: little or no text in {f}")
    qs = d["questions"]
    ids = Counter(q.get("id") for q in qs)
    for i, n in ids.items():
        if n > 1:
            errors.append(f"duplicate id {i}")
    counts = Counter((q["case"], q["kind"]) for q in qs)
    for cname in cases:
        for k, n in KINDS.items():
            if counts[(cname, k)] != n:
                errors.append(f"{cname}/{k}: {counts[(cname, k)]} questions, want {n}")
    per_doc = Counter(q["gold"]["file"] for q in qs)
    for f, n in per_doc.items():
        if n > 3:
            errors.append(f"{f}: {n} questions (max 3)")

    verified = 0
    for q in qs:
        qid = q.get("id")
        bad = []
        for k in ("id", "case", "lang", "kind", "question", "gold", "answer"):
            if k not in q or q[k] in ("", None):
                bad.append(f"missing {k}")
        g = q.get("gold", {})
        f, quote = g.get("file"), g.get("answer_quote", "")
        case = cases.get(q.get("case"))
        if case is None:
            bad.append("unknown case")
        else:
            if q.get("lang") != case["language"]:
                bad.append("lang differs from case language")
            if f not in case["files"]:
                bad.append("gold file not in case")
        if q.get("kind") not in KINDS:
            bad.append("bad kind")
        if f in used:
            bad.append("gold file in used_before.txt")
        nq = norm(quote)
        if len(nq) < 20:
            bad.append("quote shorter than 20 normalised chars")
        if not bad:
            if full_norm(f).count(nq) != 1:
                bad.append(f"quote occurs {full_norm(f).count(nq)}x in gold file")
            if f.lower().endswith(".pdf"):
                pg = g.get("page")
                if not isinstance(pg, int) or "lines" in g:
                    bad.append("PDF gold needs an integer page")
                else:
                    if not 1 <= pg <= npages(f):
                        bad.append("page out of range")
                    for layout in (False, True):
                        t = norm(pdftext(f, pg, layout))
                        if t.count(nq) != 1:
                            bad.append(f"quote not once on page {pg} ({'layout' if layout else 'default'} mode)")
            else:
                ln = g.get("lines")
                if not (isinstance(ln, list) and len(ln) == 2 and 1 <= ln[0] <= ln[1]) or "page" in g:
                    bad.append("TXT gold needs lines [first,last]")
                else:
                    lines = open(path(f), encoding="utf-8").read().split("\n")
                    a, b = ln
                    if b > len(lines):
                        bad.append("line window beyond end of file")
                    else:
                        win = lambda x, y: norm("".join(lines[x - 1:y]))
                        if nq not in win(a, b):
                            bad.append(f"quote not in lines {a}-{b}")
                        if a < b and (nq in win(a + 1, b) or nq in win(a, b - 1)):
                            bad.append(f"window {a}-{b} not tight")
            for other in case["files"]:
                if other != f and nq in full_norm(other):
                    bad.append(f"quote also in {other}")
        if q.get("kind") == "low_overlap":
            qw, aw = words(q["question"]), words(quote)
            share = len(qw & aw) / max(1, len(qw))
            if share > 0.34:
                warnings.append(f"WARNING {qid}: low_overlap question shares {share:.0%} content words with quote ({sorted(qw & aw)})")
        if bad:
            errors.append(f"{qid}: " + "; ".join(bad))
        else:
            verified += 1

    # CNJ numbers in self-written documents
    for cname, c in cases.items():
        for f in c["files"]:
            if f.startswith("./docs/"):
                txt = open(path(f), encoding="utf-8").read()
                for num in re.findall(r"\b\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4}\b", txt):
                    if not cnj_ok(num):
                        errors.append(f"bad CNJ check digits {num} in {f}")
                n = len(txt.rstrip("\n").split("\n"))
                if not 35 <= n <= 60:
                    warnings.append(f"WARNING {f}: {n} lines (want 35-60)")

    for w in warnings:
        print(w)
    for e in errors:
        print("ERROR", e)
    print("per case: " + ", ".join(f"{c}={sum(counts[(c, k)] for k in KINDS)}" for c in cases))
    print(f"{verified}/{len(qs)} golds verified")
    sys.exit(0 if not errors and verified == 80 == len(qs) else 1)


if __name__ == "__main__":
    main()

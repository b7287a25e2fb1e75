#!/usr/bin/env python3
"""Re-checks every gold location in blind_set.json.

For each question:
  * the gold file exists under DATA (default /work/shared/data);
  * PDFs: the answer_quote's alphanumeric-normalised words occur contiguously, in order,
    in the cited physical page (pdftotext -f N -l N, plain and -layout output are both tried,
    line-break hyphenation is undone, pleading-paper line numbers 1..40 may be ignored);
    for `pages: [N, N+1]` the quote may be split at one point between the two pages;
  * .txt: the quote occurs inside the cited 1-based line range;
  * quote length 10-60 words (warning otherwise);
  * low_overlap questions: prints the shared content words question <-> quote;
  * duplicate check: warns when the quote is also found elsewhere in the same document
    or in another document of the same case.
Prints FAIL lines and exits 1 if any gold fails.  Python stdlib + pdftotext only.
"""
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("BLIND_DATA", os.path.join(HERE, "..", "..", "..", "shared", "data"))
SET = os.environ.get("BLIND_SET", os.path.join(HERE, "blind_set.json"))

STOP = set("""
a an the and or of to in on for at by with from as is are was were be been being it its this that these those
which who whom whose what when where why how does do did done can could may might must shall should will would
not no nor any all each every some such than then there their them they he him his she her we our us you your
i me my if into over under about after before between during upon within without against also only other
same so too very just more most much many one two has have had having out up down off own per via
get gets got still ever never even whether while because until unless
o os as um uma uns umas de do da dos das em no na nos nas por pelo pela pelos pelas para com sem sob sobre
e ou que se ao aos à às é ser foi são era há tem ter seu sua seus suas ele ela eles elas isso isto esse essa
este esta qual quais quando como onde mais menos já não sim nem mas também pode podem deve devem muito
entre até após antes desde mesmo cada outro outra outros outras lhe lhes quem cujo cuja
""".split())


def fold(s):
    s = unicodedata.normalize("NFKD", s)
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    return s.lower()


def tokens(s):
    return re.findall(r"[a-z0-9]+", fold(s))


STOP = {fold(w) for w in STOP}


def dehyphen(s):
    return re.sub(r"(\w)[-\u00ad\u2010\u2011]\s*\n\s*(\w)", r"\1\2", s)


def strip_small_numbers(toks):
    return [t for t in toks if not (t.isdigit() and int(t) <= 40)]


def find_seq(hay, needle):
    """contiguous, in-order token match (hay/needle are token lists or pre-joined strings)"""
    if not needle:
        return -1
    h = hay if isinstance(hay, str) else " " + " ".join(hay) + " "
    n = " " + " ".join(needle) + " "
    return h.find(n)


_pdf_cache = {}


def pdf_page_texts(path, page):
    key = (path, page)
    if key not in _pdf_cache:
        outs = []
        for extra in ([], ["-layout"]):
            r = subprocess.run(["pdftotext", *extra, "-f", str(page), "-l", str(page), path, "-"],
                               capture_output=True, text=True, errors="replace")
            outs.append(r.stdout)
        _pdf_cache[key] = outs
    return _pdf_cache[key]


def pdf_num_pages(path):
    r = subprocess.run(["pdfinfo", path], capture_output=True, text=True, errors="replace")
    m = re.search(r"^Pages:\s+(\d+)", r.stdout, re.M)
    return int(m.group(1)) if m else 0


_var_cache = {}


def variants(text):
    """token-string variants of a page/line text (cached)"""
    key = hash(text)
    if key not in _var_cache:
        out = []
        for t in (text, dehyphen(text)):
            tk = tokens(t)
            out.append(("tok", " " + " ".join(tk) + " "))
            out.append(("tok-nolinenum", " " + " ".join(strip_small_numbers(tk)) + " "))
        out.append(("chars", "".join(tokens(text)) + "|" + "".join(tokens(dehyphen(text)))))
        _var_cache[key] = out
    return _var_cache[key]


def match_in_texts(texts, quote):
    """returns the name of the first text variant in which the quote matches, else None"""
    qt = tokens(quote)
    qt_nl = strip_small_numbers(qt)
    qc = "".join(qt)
    for text in texts:
        for name, hay in variants(text):
            if name == "chars":
                continue
            q = qt_nl if name.endswith("nolinenum") else qt
            if find_seq(hay, q) >= 0:
                return name
    # fallback: concatenated alphanumeric characters (handles odd hyphenation/splitting)
    for text in texts:
        hay = variants(text)[-1][1]
        if qc and qc in hay:
            return "chars"
    return None


def match_split(texts_a, texts_b, quote):
    qt = tokens(quote)
    for k in range(3, len(qt) - 2):
        a = " ".join(qt[:k])
        b = " ".join(qt[k:])
        ma = match_in_texts(texts_a, a)
        mb = match_in_texts(texts_b, b) if ma else None
        if ma and mb:
            return f"split@{k}:{ma}+{mb}"
    return None


def txt_lines(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read().split("\n")


def shared_content(question, quote):
    qw = {t for t in tokens(question) if t not in STOP and len(t) > 2 and not t.isdigit()}
    aw = {t for t in tokens(quote) if t not in STOP and len(t) > 2 and not t.isdigit()}
    return sorted(qw & aw)


_doc_cache = {}


def whole_doc_units(path):
    """list of (unit_label, text) for duplicate checks: pages for PDFs, single lines for txt"""
    if path in _doc_cache:
        return _doc_cache[path]
    units = []
    if path.lower().endswith(".pdf"):
        r = subprocess.run(["pdftotext", path, "-"], capture_output=True, text=True, errors="replace")
        pages = r.stdout.split("\f")
        for p, text in enumerate(pages, start=1):
            if text.strip():
                units.append((f"page {p}", text))
    else:
        lines = txt_lines(path)
        # sliding windows of 12 lines so multi-line quotes can be found
        for i in range(0, len(lines), 6):
            units.append((f"lines {i+1}-{min(len(lines), i+12)}", "\n".join(lines[i:i + 12])))
    _doc_cache[path] = units
    return units


def main():
    data = json.load(open(SET, encoding="utf-8"))
    fails, warns = [], []
    cases = data["cases"]
    print("== case files")
    for cname, c in cases.items():
        missing = [f for f in c["files"] if not os.path.exists(os.path.join(DATA, f))]
        dup = [f for f, n in Counter(c["files"]).items() if n > 1]
        print(f"  {cname}: {len(c['files'])} files, language={c.get('language')}, missing={len(missing)}, duplicates={len(dup)}")
        for f in missing:
            fails.append(f"case {cname}: missing file {f}")
        if len(c["files"]) < 31:
            fails.append(f"case {cname}: only {len(c['files'])} files (<31)")
    cross = set(cases["contracts_en"]["files"]) & set(cases["courts_en"]["files"])
    if cross:
        fails.append(f"files shared by contracts_en and courts_en: {sorted(cross)}")

    per_case_kind = defaultdict(Counter)
    per_doc = defaultdict(Counter)
    page1 = Counter()
    ids = Counter(q["id"] for q in data["questions"])
    for i, n in ids.items():
        if n > 1:
            fails.append(f"duplicate id {i}")

    print("\n== gold checks")
    for q in data["questions"]:
        qid, case, kind, g = q["id"], q["case"], q["kind"], q["gold"]
        per_case_kind[case][kind] += 1
        per_doc[case][g["file"]] += 1
        path = os.path.join(DATA, g["file"])
        if g["file"] not in cases[case]["files"]:
            fails.append(f"{qid}: gold file not in case {case}: {g['file']}")
        quote = g["answer_quote"]
        nw = len(tokens(quote))
        if not (10 <= nw <= 60):
            warns.append(f"{qid}: quote has {nw} words (want 10-60)")
        if kind not in ("names_document", "low_overlap", "plain"):
            fails.append(f"{qid}: bad kind {kind}")
        if not os.path.exists(path):
            fails.append(f"{qid}: file missing {g['file']}")
            continue
        where = ""
        if path.lower().endswith(".pdf"):
            if "pages" in g:
                pa, pb = g["pages"]
                where = f"pages {pa}-{pb}"
                ta, tb = pdf_page_texts(path, pa), pdf_page_texts(path, pb)
                how = match_in_texts([a + "\n" + b for a in ta for b in tb], quote) or match_split(ta, tb, quote)
                cited = {pa, pb}
            else:
                p = g["page"]
                where = f"page {p}"
                how = match_in_texts(pdf_page_texts(path, p), quote)
                cited = {p}
                if p == 1:
                    page1[case] += 1
        else:
            a, b = g["lines"]
            lines = txt_lines(path)
            where = f"lines {a}-{b}"
            if not (1 <= a <= b <= len(lines)):
                fails.append(f"{qid}: line range {a}-{b} outside file ({len(lines)} lines)")
                continue
            if b - a + 1 > 16:
                warns.append(f"{qid}: line range spans {b-a+1} lines")
            how = match_in_texts(["\n".join(lines[a - 1:b])], quote)
            cited = None
        status = "ok  " if how else "FAIL"
        extra = ""
        if kind == "low_overlap":
            sh = shared_content(q["question"], quote)
            extra = f" shared_content_words={len(sh)} {sh}"
            if len(sh) > 2:
                warns.append(f"{qid}: low_overlap shares {len(sh)} content words {sh}")
        print(f"  {status} {qid} [{case}/{kind}] {os.path.basename(g['file'])} {where} via={how}{extra}")
        if not how:
            fails.append(f"{qid}: quote not found at {g['file']} {where}")
            continue
        # duplicate checks (same doc elsewhere; other docs of the same case)
        for f in cases[case]["files"]:
            fp = os.path.join(DATA, f)
            if not os.path.exists(fp):
                continue
            for label, text in whole_doc_units(fp):
                if f == g["file"]:
                    if cited is not None and label.startswith("page ") and int(label.split()[1]) in cited:
                        continue
                    if cited is None:
                        lo, hi = map(int, label.split()[1].split("-"))
                        a, b = g["lines"]
                        if not (hi < a or lo > b):
                            continue
                if match_in_texts([text], quote):
                    warns.append(f"{qid}: quote also found in {os.path.basename(f)} {label}")

    print("\n== counts per case / kind")
    for case in cases:
        c = per_case_kind[case]
        print(f"  {case}: total={sum(c.values())} names_document={c['names_document']} "
              f"low_overlap={c['low_overlap']} plain={c['plain']} docs_with_questions={len(per_doc[case])} "
              f"max_q_per_doc={max(per_doc[case].values()) if per_doc[case] else 0} answers_on_page1={page1[case]}")
        if sum(c.values()) < 24:
            fails.append(f"case {case}: fewer than 24 questions")
    cpd = per_doc["contracts_en"]
    if cpd and max(cpd.values()) > 2:
        fails.append("contracts_en: more than 2 questions on one document")
    print(f"  total questions: {len(data['questions'])}")

    print("\n== warnings")
    for w in warns:
        print("  WARN", w)
    if not warns:
        print("  none")
    print("\n== failures")
    for f in fails:
        print("  FAIL", f)
    if not fails:
        print("  none")
    failed_q = {f.split(":")[0] for f in fails if re.match(r"^[cup][0-9]+:", f)}
    print(f"\nRESULT: {len(data['questions']) - len(failed_q)} passed, {len(failed_q)} failed "
          f"(gold checks); {len(fails)} failure line(s) in total")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Independent checker for blind_set_full.json (does not import build_set.py).

Re-extracts every gold: TXT line windows are re-read from the file, PDF pages are re-extracted
with `pdftotext -f N -l N`. Checks schema, counts, uniqueness of each quote inside its case,
used_before.txt, fresh-document format, CNJ check digits and the no_answer absence checks.
Exit code 0 only if every check passes.
"""
import json
import os
import re
import subprocess
import sys
import unicodedata
import zipfile
from collections import Counter, defaultdict

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")  # ../shared/data beside the repository
BASE = os.path.dirname(os.path.abspath(__file__))
problems = []


def bad(msg):
    problems.append(msg)


def nz(s):
    return "".join(c for c in unicodedata.normalize("NFKC", s).lower() if c.isalnum())


def path_of(p):
    return os.path.join(BASE, p[2:]) if p.startswith("./") else os.path.join(DATA, p)


def read_txt(p):
    with open(path_of(p), "rb") as fh:
        raw = fh.read()
    return raw.decode("utf-8", errors="replace")


def pdf_page(p, n):
    return subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), path_of(p), "-"],
                          capture_output=True, text=True, errors="replace").stdout


def whole_text(p):
    ap = path_of(p)
    if ap.lower().endswith(".pdf"):
        return subprocess.run(["pdftotext", ap, "-"], capture_output=True, text=True,
                              errors="replace").stdout
    if ap.lower().endswith(".docx"):
        with zipfile.ZipFile(ap) as z:
            return re.sub(r"<[^>]+>", " ", z.read("word/document.xml").decode("utf-8", "replace"))
    return read_txt(p)


# Independent copy of the absence checks for no_answer questions:
# id -> (anchors, terms). A case file containing any anchor must contain none of the terms.
ABSENCE = {
    "c1q18": (["rubio"], ["relocat", "movetheteam", "teammoves"]),
    "c1q19": (["westcoastcustoms"], ["governedby", "governinglaw", "lawsofthestate", "jurisdiction"]),
    "c1q20": (["netgear"], ["quota", "salestarget", "minimumpurchase", "annualpurchase"]),
    "c2q18": (["jeaconfidential"], ["liquidated", "penalty"]),
    "c2q19": (["aspiegel"], ["aggregateliability", "liabilityshallnotexceed", "limitationofliability"]),
    "c2q20": (["urbanwindturbines"], ["solicit", "recruit", "entice"]),
    "c3q18": (["harlowmarine"], ["attorneysfees", "attorneyfees", "feeaward"]),
    "c3q19": (["vellacourt"], ["contempt", "sanction", "penalt"]),
    "c3q20": (["tidewaterpallet"], ["totalunpaid", "inexcessof", "aggregateamount"]),
    "c4q18": (["cooperaliança"], ["ltda", "eireli", "razãosocial"]),
    "c4q19": (["santatereza"], ["excônjuge", "exesposa", "alimentosàautora"]),
    "c4q20": (["translogsul"], ["saláriomensal", "salárioder", "remuneraçãomensal"]),
    "c5q18": (["lumenfield"], ["annualfeeof", "subscriptionfeeof", "perannum"]),
    "c5q19": (["quintara"], ["unitprice", "priceperunit", "perunit"]),
    "c5q20": (["pulsocriativo"], ["atrasonaentrega", "multaporatraso", "multapordia"]),
}

STOP = set("""the a an of to in on for and or under what which who whom how when where why does do did is are
was were be been can could would should must may our we us their its it this that with from by at as any
have has had get got after before into than then there about much many long first each every
o a os as de da do das dos em no na nos nas um uma para por com que qual quais quem como quando onde se
ao aos à às é foi ser ter tem pode deve caso ele ela seu sua mais ou e""".split())


def words(s):
    return [w for w in re.findall(r"[\wÀ-ÿ]+", unicodedata.normalize("NFKC", s).lower())
            if len(w) >= 3 and w not in STOP]


def cnj_ok(num):
    m = re.fullmatch(r"(\d{7})-(\d{2})\.(\d{4})\.(\d)\.(\d{2})\.(\d{4})", num)
    if not m:
        return False
    n, dd, a, j, tr, o = m.groups()
    return int(n + a + j + tr + o + dd) % 97 == 1


def main():
    with open(os.path.join(BASE, "blind_set_full.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    used = set()
    with open(os.path.join(BASE, "used_before.txt"), encoding="utf-8") as fh:
        for ln in fh:
            ln = ln.strip()
            if ln:
                used.add(ln[2:] if ln.startswith("./") else ln)

    # ---- schema
    if set(data) != {"written", "description", "cases", "questions"}:
        bad(f"top-level keys {sorted(data)}")
    if data.get("written") != "2026-12-07":
        bad("written date")
    cases = data["cases"]
    if len(cases) != 5:
        bad(f"expected 5 cases, got {len(cases)}")
    for cname, c in cases.items():
        if set(c) != {"language", "files"} or c["language"] not in ("en", "pt"):
            bad(f"{cname}: bad case schema")
        if len(c["files"]) < 32:
            bad(f"{cname}: only {len(c['files'])} files")
        if len(set(c["files"])) != len(c["files"]):
            bad(f"{cname}: duplicate files")
        for p in c["files"]:
            if not os.path.isfile(path_of(p)):
                bad(f"{cname}: missing {p}")
    qs = data["questions"]
    ids = [q["id"] for q in qs]
    if len(ids) != len(set(ids)) or len(qs) != 100:
        bad(f"ids not unique or count != 100 ({len(qs)})")
    base_keys = {"id", "case", "lang", "kind", "fresh", "by_purpose", "question", "answer"}
    for q in qs:
        keys = set(q)
        if q["kind"] == "no_answer":
            if keys != base_keys or q["fresh"] is not False:
                bad(f"{q['id']}: no_answer schema")
        else:
            if keys != base_keys | {"gold"}:
                bad(f"{q['id']}: answerable schema {sorted(keys)}")
            g = q["gold"]
            if not (set(g) in ({"file", "lines", "answer_quote"}, {"file", "page", "answer_quote"})):
                bad(f"{q['id']}: gold schema {sorted(g)}")
            if q["fresh"] != g["file"].startswith("./docs/"):
                bad(f"{q['id']}: fresh flag inconsistent")
        if q["kind"] not in ("names_document", "low_overlap", "plain", "no_answer"):
            bad(f"{q['id']}: kind")
        if q["lang"] not in ("en", "pt") or q["case"] not in cases:
            bad(f"{q['id']}: lang/case")
        if not isinstance(q["by_purpose"], bool) or not q["question"].strip() or not q["answer"].strip():
            bad(f"{q['id']}: by_purpose/question/answer")

    # ---- counts
    per_case = defaultdict(Counter)
    for q in qs:
        per_case[q["case"]]["answerable" if q["kind"] != "no_answer" else "no_answer"] += 1
    for cname in cases:
        if per_case[cname]["answerable"] != 17 or per_case[cname]["no_answer"] != 3:
            bad(f"{cname}: counts {dict(per_case[cname])}")
    ans = [q for q in qs if q["kind"] != "no_answer"]
    per_doc = Counter(q["gold"]["file"] for q in ans)
    for d, n in per_doc.items():
        if n > 3:
            bad(f"{d}: {n} questions")
    gold_docs = set(per_doc)
    fresh_docs = {d for d in gold_docs if d.startswith("./docs/")}
    fresh_q = sum(q["fresh"] for q in ans)
    if len(fresh_docs) * 4 < len(gold_docs) or fresh_q < 25:
        bad(f"fresh share too low: {len(fresh_docs)}/{len(gold_docs)} docs, {fresh_q} questions")

    # ---- gold re-extraction
    norm_cache = {}

    def norm_file(p):
        if p not in norm_cache:
            norm_cache[p] = nz(whole_text(p))
        return norm_cache[p]

    overlap = defaultdict(list)
    for q in ans:
        g, qid = q["gold"], q["id"]
        f, quote = g["file"], g["answer_quote"]
        nq = nz(quote)
        if len(nq) < 20:
            bad(f"{qid}: quote too short")
        if (f[2:] if f.startswith("./") else f) in used:
            bad(f"{qid}: gold in used_before.txt")
        if f not in cases[q["case"]]["files"]:
            bad(f"{qid}: gold file not in its case")
        if "lines" in g:
            a, b = g["lines"]
            lines = read_txt(f).split("\n")
            if not (1 <= a <= b <= len(lines)):
                bad(f"{qid}: window out of range")
                continue
            win = nz("\n".join(lines[a - 1:b]))
            if nq not in win:
                bad(f"{qid}: quote not in lines {a}-{b}")
            if b > a and (nq in nz("\n".join(lines[a:b])) or nq in nz("\n".join(lines[a - 1:b - 1]))):
                bad(f"{qid}: window {a}-{b} not minimal")
            if norm_file(f).count(nq) != 1:
                bad(f"{qid}: quote not unique in gold file")
        else:
            page = g["page"]
            if nq not in nz(pdf_page(f, page)):
                bad(f"{qid}: quote not on page {page}")
            if norm_file(f).count(nq) != 1:
                bad(f"{qid}: quote not unique in gold PDF")
        for other in cases[q["case"]]["files"]:
            if other != f and nq in norm_file(other):
                bad(f"{qid}: quote also in {other}")
        qw, aw = set(words(q["question"])), set(words(quote))
        overlap[q["kind"]].append(len(qw & aw) / max(1, len(qw)))

    # ---- no_answer absence checks
    for q in qs:
        if q["kind"] != "no_answer":
            continue
        if q["id"] not in ABSENCE:
            bad(f"{q['id']}: no absence check defined")
            continue
        anchors, terms = ABSENCE[q["id"]]
        hit = [p for p in cases[q["case"]]["files"] if any(nz(a) in norm_file(p) for a in anchors)]
        if not hit:
            bad(f"{q['id']}: anchor found in no case file")
        for p in hit:
            for t in terms:
                if nz(t) in norm_file(p):
                    bad(f"{q['id']}: term {t} present in {p}")

    # ---- fresh documents: format and CNJ numbers
    docs = sorted(os.listdir(os.path.join(BASE, "docs")))
    cnj_total = 0
    for d in docs:
        raw = open(os.path.join(BASE, "docs", d), "rb").read()
        try:
            txt = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad(f"{d}: not UTF-8")
            continue
        lines = [ln for ln in txt.split("\n") if ln.strip()]
        if not d.endswith(".txt") or not (30 <= len(lines) <= 70) or "\n\n" in txt:
            bad(f"{d}: format ({len(lines)} lines)")
        for num in re.findall(r"\b\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4}\b", txt):
            cnj_total += 1
            if not cnj_ok(num):
                bad(f"{d}: bad CNJ check digits {num}")
        if ("./docs/" + d) in used or ("docs/" + d) in used:
            bad(f"{d}: name listed in used_before.txt")

    kinds = Counter(q["kind"] for q in qs)
    print(f"questions={len(qs)} answerable={len(ans)} no_answer={kinds['no_answer']} "
          f"names_document={kinds['names_document']} low_overlap={kinds['low_overlap']} plain={kinds['plain']} "
          f"by_purpose={sum(q['by_purpose'] for q in ans)}")
    print(f"gold_docs={len(gold_docs)} fresh_gold_docs={len(fresh_docs)} fresh_questions={fresh_q} "
          f"fresh_docs_written={len(docs)} cnj_numbers_checked={cnj_total}")
    for k in ("names_document", "low_overlap", "plain"):
        v = overlap[k]
        print(f"  word overlap question->quote [{k}]: mean={sum(v)/len(v):.2f} max={max(v):.2f}")
    for cname, c in cases.items():
        print(f"  {cname}: files={len(c['files'])} {dict(per_case[cname])}")
    if problems:
        print(f"VERIFY FAILED: {len(problems)} problem(s)")
        for p in problems:
            print("  -", p)
        sys.exit(1)
    print("VERIFY OK: all gold positions, uniqueness, schema, counts and CNJ check digits confirmed")


if __name__ == "__main__":
    main()

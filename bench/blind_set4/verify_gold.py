#!/usr/bin/env python3
"""Independent re-check of every gold in blind_set.json.

Does not import build_set.py.  Extraction is done differently from the builder:
  * PDF pages are extracted one page at a time (`pdftotext -f N -l N`), in BOTH
    reading-order and -layout mode; the quote must be on the gold page in both
    modes and on no other page (in either mode).
  * .txt line windows are taken from `cat -n` output; the quote must lie inside the
    window, the window must be tight (dropping its first or last line loses the
    quote) and the quote must occur exactly once in the file.
  * the quote must not occur in any other file of the same case (whole-document
    text, reading-order and -layout for PDFs).
Also checks schema, case sizes (>=30 files), 20 questions per case with 7/7/6 kinds,
languages, that gold files are in the case list and were not used before.
Exit status 0 only if everything passes.  Stdlib + poppler-utils only.
"""
import json, os, re, subprocess, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = '/work/shared/data'
KINDS = {'names_document': 7, 'low_overlap': 7, 'plain': 6}
STOP = set("""a an the of to in on for and or by with under from at as is are be been was were what which who whom
how when where why does do did must may can could should would will shall if it its this that these those any all
our we us you your their there than then into about after before per not no such other each much many long
o a os as de da do das dos em no na nos nas um uma uns umas para por com sem que qual quais quanto quantos quanta
se ao aos à às e é ou ser foi tem ter há pelo pela pelos pelas seu sua seus suas ele ela eles elas isso este esta
""".split())


def norm(s):
    s = unicodedata.normalize('NFKC', s).lower()
    return ''.join(c for c in s if c.isalnum())


def path_of(rel):
    return os.path.join(HERE, rel[2:]) if rel.startswith('./docs/') else os.path.join(DATA, rel)


_pdf_cache = {}


def pdf_page_count(p):
    out = subprocess.run(['pdfinfo', p], capture_output=True).stdout.decode('utf-8', 'replace')
    m = re.search(r'^Pages:\s+(\d+)', out, re.M)
    return int(m.group(1)) if m else 0


def pdf_page(p, n, layout):
    key = (p, n, layout)
    if key not in _pdf_cache:
        cmd = ['pdftotext', '-q', '-enc', 'UTF-8', '-f', str(n), '-l', str(n)]
        if layout:
            cmd.append('-layout')
        cmd += [p, '-']
        _pdf_cache[key] = norm(subprocess.run(cmd, capture_output=True).stdout.decode('utf-8', 'replace'))
    return _pdf_cache[key]


_whole_cache = {}


def whole_texts(rel):
    """Normalised whole-document texts of a file (one or two variants)."""
    if rel in _whole_cache:
        return _whole_cache[rel]
    p = path_of(rel)
    if rel.lower().endswith('.pdf'):
        res = []
        for layout in (False, True):
            cmd = ['pdftotext', '-q', '-enc', 'UTF-8'] + (['-layout'] if layout else []) + [p, '-']
            res.append(norm(subprocess.run(cmd, capture_output=True).stdout.decode('utf-8', 'replace')))
    else:
        with open(p, 'rb') as fh:
            res = [norm(fh.read().decode('utf-8', 'replace'))]
    _whole_cache[rel] = res
    return res


def cat_n_lines(p):
    out = subprocess.run(['cat', '-n', p], capture_output=True).stdout.decode('utf-8', 'replace')
    lines = {}
    for row in out.split('\n'):
        m = re.match(r'^\s*(\d+)\t(.*)$', row)
        if m:
            lines[int(m.group(1))] = m.group(2)
    return lines


def words(s):
    return set(w for w in re.findall(r'\w+', unicodedata.normalize('NFKC', s).lower()) if len(w) > 2 and w not in STOP)


def main():
    fails, warns = [], []
    d = json.load(open(os.path.join(HERE, 'blind_set.json'), encoding='utf-8'))
    for k in ('written', 'description', 'cases', 'questions'):
        if k not in d:
            fails.append('missing top-level key %s' % k)
    used = set(l.strip() for l in open(os.path.join(HERE, 'used_before.txt'), encoding='utf-8') if l.strip())
    cases = d['cases']
    if len(cases) != 4:
        fails.append('expected 4 cases, got %d' % len(cases))
    for c, v in cases.items():
        if v.get('language') not in ('en', 'pt'):
            fails.append('%s: bad language' % c)
        fl = v.get('files', [])
        if len(fl) < 30:
            fails.append('%s: only %d files' % (c, len(fl)))
        if len(set(fl)) != len(fl):
            fails.append('%s: duplicate file entries' % c)
        for f in fl:
            if not os.path.isfile(path_of(f)):
                fails.append('%s: file missing: %s' % (c, f))
    qs = d['questions']
    if len(qs) != 80:
        fails.append('expected 80 questions, got %d' % len(qs))
    ids = [q['id'] for q in qs]
    if len(set(ids)) != len(ids):
        fails.append('duplicate question ids')
    per = {}
    for q in qs:
        per.setdefault(q['case'], {}).setdefault(q['kind'], 0)
        per[q['case']][q['kind']] += 1
    for c in cases:
        if per.get(c) != KINDS:
            fails.append('%s: kinds %s' % (c, per.get(c)))
    ok = 0
    for q in qs:
        qid, case, g = q['id'], q['case'], q['gold']
        bad = []
        for k in ('id', 'case', 'lang', 'kind', 'question', 'gold', 'answer'):
            if not q.get(k):
                bad.append('missing %s' % k)
        if case not in cases:
            fails.append('%s: unknown case' % qid)
            continue
        if q['lang'] != cases[case]['language']:
            bad.append('lang differs from case language')
        rel, quote = g.get('file'), g.get('answer_quote', '')
        nq = norm(quote)
        if len(nq) < 20:
            bad.append('quote too short')
        if rel not in cases[case]['files']:
            bad.append('gold file not in case files')
        if rel in used:
            bad.append('gold file listed in used_before.txt')
        p = path_of(rel)
        if not os.path.isfile(p):
            bad.append('gold file missing')
        elif 'page' in g or 'pages' in g:
            pages = [g['page']] if 'page' in g else list(g['pages'])
            if not rel.lower().endswith('.pdf'):
                bad.append('page gold on non-PDF')
            n = pdf_page_count(p)
            for layout in (False, True):
                gold_txt = ''.join(pdf_page(p, x, layout) for x in pages)
                if nq not in gold_txt:
                    bad.append('quote not on gold page(s) %s (layout=%s)' % (pages, layout))
                elsewhere = [x for x in range(1, n + 1) if x not in pages and nq in pdf_page(p, x, layout)]
                if elsewhere:
                    bad.append('quote also on page(s) %s (layout=%s)' % (elsewhere, layout))
        elif 'lines' in g:
            a, b = g['lines']
            L = cat_n_lines(p)
            win = lambda i, j: norm(''.join(L.get(k, '') for k in range(i, j + 1)))
            if not (1 <= a <= b <= max(L)):
                bad.append('line window out of range')
            elif nq not in win(a, b):
                bad.append('quote not in lines %d-%d' % (a, b))
            else:
                if a < b and (nq in win(a + 1, b) or nq in win(a, b - 1)):
                    bad.append('line window %d-%d not tight' % (a, b))
                full = win(1, max(L))
                if full.count(nq) != 1:
                    bad.append('quote occurs %d times in file' % full.count(nq))
        else:
            bad.append('gold has no page/pages/lines')
        for other in cases[case]['files']:
            if other != rel and any(nq in t for t in whole_texts(other)):
                bad.append('quote also occurs in %s' % other)
        if nq and nq in norm(q['question']):
            bad.append('question contains the answer quote')
        if q['kind'] == 'low_overlap':
            qw, aw = words(q['question']), words(quote)
            ov = len(qw & aw) / max(1, len(qw))
            if ov > 0.34:
                warns.append('%s: low_overlap question shares %.0f%% of its content words with the quote: %s'
                             % (qid, 100 * ov, sorted(qw & aw)))
        if bad:
            fails.append('%s: %s' % (qid, '; '.join(bad)))
        else:
            ok += 1
    for w in warns:
        print('WARN', w)
    for f in fails:
        print('FAIL', f)
    print('%d/%d golds verified; %d failure(s)' % (ok, len(qs), len(fails)))
    sys.exit(0 if not fails else 1)


if __name__ == '__main__':
    main()

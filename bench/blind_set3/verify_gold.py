#!/usr/bin/env python3
"""Re-checks every gold in blind_set.json: the answer_quote must occur (NFKC, case-insensitive,
alphanumeric-normalised) on the gold PDF page(s) (pdftotext -layout or plain) or within the gold
1-based inclusive line range (cat -n numbering) of the .txt file. Exit 0 when all pass."""
import json, os, subprocess, sys, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data'))

def norm(s):
    s = unicodedata.normalize('NFKC', s).lower()
    return ''.join(ch for ch in s if ch.isalnum())

def path(p):
    return os.path.normpath(os.path.join(HERE, p)) if p.startswith('./') else os.path.join(DATA, p)

def pdf_text(p, first, last, layout):
    cmd = ['pdftotext', '-f', str(first), '-l', str(last)] + (['-layout'] if layout else []) + [p, '-']
    return subprocess.run(cmd, capture_output=True, text=True, errors='replace').stdout

def main():
    d = json.load(open(os.path.join(HERE, 'blind_set.json'), encoding='utf-8'))
    fails = 0
    ids = set()
    for q in d['questions']:
        g = q['gold']; f = g['file']; qq = norm(g['answer_quote'])
        ok = True; why = ''
        if q['id'] in ids:
            ok, why = False, 'duplicate id'
        ids.add(q['id'])
        if f not in d['cases'][q['case']]['files']:
            ok, why = False, 'gold file not listed in case'
        p = path(f)
        if ok and not os.path.exists(p):
            ok, why = False, 'missing file'
        if ok and f.lower().endswith('.pdf'):
            pages = g['pages'] if 'pages' in g else [g['page'], g['page']]
            texts = [pdf_text(p, pages[0], pages[-1], True), pdf_text(p, pages[0], pages[-1], False)]
            if not any(qq in norm(t) for t in texts):
                ok, why = False, 'quote not on page(s) %s' % pages
        elif ok:
            a, b = g['lines']
            lines = open(p, encoding='utf-8', errors='replace').read().split('\n')
            if not (1 <= a <= b <= len(lines)):
                ok, why = False, 'bad line range'
            elif qq not in norm('\n'.join(lines[a - 1:b])):
                ok, why = False, 'quote not in lines %d-%d' % (a, b)
        print('%s %s %s' % ('PASS' if ok else 'FAIL', q['id'], why))
        fails += (not ok)
    print('%d/%d passed' % (len(d['questions']) - fails, len(d['questions'])))
    sys.exit(1 if fails else 0)

if __name__ == '__main__':
    main()

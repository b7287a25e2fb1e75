#!/usr/bin/env python3
"""Re-check every gold in /work/blind2/blind_set.json against the documents in /work/shared/data.

Stdlib + pdftotext/pdfinfo (Debian poppler-utils: apt-get install -y poppler-utils).
Exit status 0 if everything passes, 1 on any failure.

Checks:
  * schema / ids unique / id prefix matches case / lang matches case language;
  * every case has >= 40 files, every listed file exists, no file listed twice;
  * every gold file exists and is in its case's file list;
  * the case holds >= 30 files besides the questions' target files;
  * kinds are exactly 6 names_document / 6 low_overlap / 6 plain per case;
  * PDF golds: 'page' or 'pages' (1-based physical pages, <= page count), never page 1;
    the answer_quote is found in pdftotext -f N -l N of the gold page(s) (pages are joined) after
    whitespace normalisation, or, as a fallback, alphanumeric-only normalisation;
  * TXT golds: 'lines' [first, last], 1-based as cat -n counts them (blank lines included);
    the answer_quote is found inside those lines (joined) with the same normalisations;
  * low_overlap: prints the content words shared by question and answer_quote (small EN/PT stopword
    list, accents folded, light suffix stripping) and fails if more than 1 is shared.
Also prints the per-case / per-kind counts and the per-file question counts.

usage: python3 verify_gold.py [path/to/blind_set.json]
"""
import collections
import json
import os
import re
import subprocess
import sys
import unicodedata

BASE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'shared', 'data'))
DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'blind_set.json')
KINDS = ('names_document', 'low_overlap', 'plain')
PREFIX = {'contracts_en': 'c', 'ndas_en': 'n', 'courts_en': 'u', 'pt': 'p'}
PER_KIND = 6
MIN_FILES = 40
MIN_NON_TARGET = 30

EN_STOP = set('''
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each either else ever every few
for from further get gets got had has have having he her here hers him his how i if in into is it
its itself just me more most much must my no nor not now of off on once only or other our ours out
over own per same shall she should so some such than that the their theirs them then there these
they this those through to too under until up upon very was we were what when where whether which
while who whom whose why will with within without would you your yours may might also any anyone
one ones its it's s t does doesn't don't can't won't isn't let us
'''.split())
PT_STOP = set('''
a à ao aos as às até com como contra da das de dela dele deles do dos e é ela elas ele eles em
entre era essa esse esta este eu foi for há isso isto já la lhe lo mais mas me mesmo meu minha
muito na nas não nem no nos nós o os ou para pela pelas pelo pelos por qual quais quando que quem
se sem ser seu sua são só também te tem ter um uma umas uns você vocês apenas num numa pode podem
deve devem foi foram seja sobre após cada quanto quanta quantos quantas onde porque por que qual
'''.split())

QUOTE_MAP = str.maketrans({'\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u2013': '-',
                           '\u2014': '-', '\u00a0': ' ', '\u00ad': '', '\ufb01': 'fi', '\ufb02': 'fl'})


def norm_ws(s):
    return re.sub(r'\s+', ' ', s.translate(QUOTE_MAP)).strip()


def fold(s):
    return ''.join(c for c in unicodedata.normalize('NFKD', s) if not unicodedata.combining(c))


STOP = {fold(w).lower() for w in EN_STOP | PT_STOP}  # accents folded


def norm_an(s):
    return re.sub(r'[^0-9a-z]', '', fold(s).lower())


def stem(w):
    """Very light stemming so that trivial inflections (code/codes, agree/agreed,
    própria/próprio) count as shared words."""
    for suf in ('ing', 'ed', 'es', 's'):
        if len(w) > 4 and w.endswith(suf):
            w = w[:-len(suf)]
            break
    if len(w) > 4 and w[-1] in 'aeo':
        w = w[:-1]
    return w


def content_words(s):
    toks = re.findall(r'[0-9a-z]+', fold(s).lower())
    out = set()
    for t in toks:
        if t in STOP:
            continue
        if len(t) == 1 and not t.isdigit():
            continue
        out.add(stem(t))
    return out


_page_cache = {}
_count_cache = {}


def pdf_pages(path):
    if path not in _count_cache:
        out = subprocess.run(['pdfinfo', path], capture_output=True, text=True).stdout
        m = re.search(r'^Pages:\s+(\d+)', out, re.M)
        _count_cache[path] = int(m.group(1)) if m else 0
    return _count_cache[path]


def pdf_page_text(path, page):
    key = (path, page)
    if key not in _page_cache:
        _page_cache[key] = subprocess.run(['pdftotext', '-f', str(page), '-l', str(page), path, '-'],
                                          capture_output=True, text=True).stdout
    return _page_cache[key]


def quote_found(quote, text):
    if norm_ws(quote) in norm_ws(text):
        return 'ws'
    a = norm_an(quote)
    if a and a in norm_an(text):
        return 'alnum'
    return None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    for tool in ('pdftotext', 'pdfinfo'):
        if subprocess.run(['which', tool], capture_output=True).returncode != 0:
            print(f'FATAL: {tool} not found (apt-get install -y poppler-utils)')
            return 1
    data = json.load(open(path, encoding='utf-8'))
    fails = []

    def fail(msg):
        fails.append(msg)
        print('  FAIL: ' + msg)

    for k in ('written', 'description', 'cases', 'questions'):
        if k not in data:
            fail('top-level key missing: ' + k)
    cases = data.get('cases', {})
    if set(cases) != set(PREFIX):
        fail(f'cases must be exactly {sorted(PREFIX)}, got {sorted(cases)}')

    print('== cases')
    for name, c in cases.items():
        files = c.get('files', [])
        if c.get('language') not in ('en', 'pt'):
            fail('{}: bad language {!r}'.format(name, c.get('language')))
        if len(files) != len(set(files)):
            fail(f'{name}: duplicate files in list')
        if len(files) < MIN_FILES:
            fail('%s: only %d files (< %d)' % (name, len(files), MIN_FILES))
        missing = [f for f in files if not os.path.isfile(os.path.join(BASE, f))]
        for f in missing:
            fail(f'{name}: listed file does not exist: {f}')
        print('%-13s %-2s %3d files' % (name, c.get('language'), len(files)))

    qs = data.get('questions', [])
    ids = [q.get('id') for q in qs]
    dup = [i for i, n in collections.Counter(ids).items() if n > 1]
    if dup:
        fail(f'duplicate ids: {dup}')

    kinds = collections.Counter()
    per_file = collections.Counter()
    targets = collections.defaultdict(set)
    print('\n== questions')
    for q in qs:
        qid, case, kind = q.get('id'), q.get('case'), q.get('kind')
        gold = q.get('gold', {})
        rel = gold.get('file', '')
        quote = gold.get('answer_quote', '')
        status = []
        for k in ('id', 'case', 'lang', 'kind', 'question', 'gold', 'answer'):
            if not q.get(k):
                fail(f'{qid}: missing {k}')
        if case not in cases:
            fail(f'{qid}: unknown case {case!r}')
            continue
        if not re.fullmatch(PREFIX[case] + r'\d\d', qid or ''):
            fail(f'{qid}: id does not match case prefix {PREFIX[case]}')
        if q.get('lang') != cases[case].get('language'):
            fail('{}: lang {!r} != case language {!r}'.format(qid, q.get('lang'), cases[case].get('language')))
        if kind not in KINDS:
            fail(f'{qid}: bad kind {kind!r}')
        kinds[(case, kind)] += 1
        per_file[(case, rel)] += 1
        targets[case].add(rel)
        full = os.path.join(BASE, rel)
        if rel not in cases[case].get('files', []):
            fail(f'{qid}: gold file not in case {case} file list: {rel}')
        if not os.path.isfile(full):
            fail(f'{qid}: gold file missing: {rel}')
            continue
        if not quote.strip():
            fail(f'{qid}: empty answer_quote')
            continue

        if rel.lower().endswith('.pdf'):
            if 'lines' in gold:
                fail(f'{qid}: PDF gold must use page/pages, not lines')
            pages = gold.get('pages') if 'pages' in gold else [gold.get('page')]
            if 'page' in gold and 'pages' in gold:
                fail(f'{qid}: give page or pages, not both')
            if not pages or any(not isinstance(p, int) for p in pages):
                fail(f'{qid}: bad page spec {pages!r}')
                continue
            if 'pages' in gold and not (len(pages) == 2 and pages[0] < pages[1]):
                fail(f'{qid}: pages must be [a, b] with a < b')
            n = pdf_pages(full)
            if any(p < 1 or p > n for p in pages):
                fail('%s: page out of range %r (document has %d pages)' % (qid, pages, n))
                continue
            if 1 in pages:
                fail(f'{qid}: PDF gold on page 1')
            text = '\n'.join(pdf_page_text(full, p) for p in pages)
            how = quote_found(quote, text)
            loc = 'page {}'.format('-'.join(map(str, pages)))
        else:
            if 'page' in gold or 'pages' in gold:
                fail(f'{qid}: txt gold must use lines')
            lines = gold.get('lines')
            if not (isinstance(lines, list) and len(lines) == 2 and all(isinstance(x, int) for x in lines)
                    and 1 <= lines[0] <= lines[1]):
                fail(f'{qid}: bad lines spec {lines!r}')
                continue
            all_lines = open(full, encoding='utf-8', errors='replace').read().split('\n')
            if lines[1] > len(all_lines):
                fail('%s: lines %r beyond end of file (%d lines)' % (qid, lines, len(all_lines)))
                continue
            text = '\n'.join(all_lines[lines[0] - 1:lines[1]])
            how = quote_found(quote, text)
            loc = 'lines %d-%d' % tuple(lines)
        if not how:
            fail(f'{qid}: answer_quote not found at {loc} of {rel}')
        else:
            status.append(f'quote@{loc}({how})')

        if kind == 'low_overlap':
            shared = sorted(content_words(q.get('question', '')) & content_words(quote))
            status.append(f'shared={shared}')
            if len(shared) > 1:
                fail('%s: low_overlap question shares %d content words with the quote: %s'
                     % (qid, len(shared), shared))
        print('%-4s %-13s %-15s %s' % (qid, case, kind, ' '.join(status)))

    print('\n== counts per case and kind')
    for case in PREFIX:
        row = [kinds[(case, k)] for k in KINDS]
        print('%-13s %s total=%d' % (case, '  '.join('%s=%d' % (k, n) for k, n in zip(KINDS, row, strict=False)), sum(row)))
        for k, n in zip(KINDS, row, strict=False):
            if n != PER_KIND:
                fail('%s: %d %s questions (want %d)' % (case, n, k, PER_KIND))
        nt = len(set(cases.get(case, {}).get('files', [])) - targets[case])
        print('%-13s %d target files, %d other files' % ('', len(targets[case]), nt))
        if nt < MIN_NON_TARGET:
            fail('%s: only %d files besides the targets (< %d)' % (case, nt, MIN_NON_TARGET))
    print('\n== questions per target file (max)')
    for case in PREFIX:
        mx = max([n for (c, _f), n in per_file.items() if c == case] or [0])
        print('%-13s max %d per file' % (case, mx))

    print('\n%d questions, %d failures' % (len(qs), len(fails)))
    if fails:
        print('FAILED')
        return 1
    print('OK')
    return 0


if __name__ == '__main__':
    sys.exit(main())

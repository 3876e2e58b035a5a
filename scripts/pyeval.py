#!/usr/bin/env python3
"""Staleness evaluation of gloss on the git history of a Python repository.

The oracle is CPython's own ast and tokenize modules (independent of
gloss's tree-sitter parser). For each of the last N non-merge first-parent
commits C with parent P, every top-level function, class and method (nested
functions are locals in scip-python and are not definitions) in the .py
files changed by C is anchored at P through `gloss remember --batch`; C is
checked out and `gloss check --json` is compared with the oracle:

  identity  = module path + qualified name (Class.method)
  header    = tokens of decorators and the def/class line, name excluded
  body      = tokens of the body, docstring excluded
  tokens    = tokenize without COMMENT, NL, NEWLINE, INDENT, DEDENT
  oracle    = deleted (not found, and no unique same-body definition in the
              changed files), signature_changed (header differs), changed
              (body differs), else unchanged (moved if its lines changed).

Usage: scripts/pyeval.py --gloss ./gloss --repo PATH [--commits 100]
It works on a temporary clone with a temporary GLOSS_HOME.
"""
import argparse, ast, io, json, os, subprocess, sys, tempfile, tokenize

SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def toks(src, start, end, skip_ranges=()):
    """Token strings of src between (line, col) start and end."""
    out = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(src).readline):
            if t.type in SKIP or t.start < start or t.end > end:
                continue
            if any(a <= t.start and t.end <= b for a, b in skip_ranges):
                continue
            out.append(t.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def defs(path, src):
    """Oracle view: identity -> dict(lines, header, body, kind)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return None
    mod = path[:-3].replace('/', '.')
    if mod.endswith('.__init__'):
        mod = mod[:-9]
    out = {}

    def visit(body, prefix):
        for n in body:
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            first = min([n.lineno] + [d.lineno for d in n.decorator_list])
            b0 = n.body[0]
            skip = []
            if isinstance(b0, ast.Expr) and isinstance(getattr(b0, 'value', None), ast.Constant) and isinstance(b0.value.value, str):
                skip.append(((b0.lineno, b0.col_offset), (b0.end_lineno, b0.end_col_offset)))
            hdr_end = (b0.lineno, b0.col_offset)
            header = toks(src, (first, 0), hdr_end)
            # drop the name token (first occurrence right after def/class)
            for i, t in enumerate(header):
                if t == n.name:
                    header = header[:i] + header[i + 1:]
                    break
            body_toks = toks(src, hdr_end, (n.end_lineno, n.end_col_offset), skip)
            qual = prefix + n.name
            out[mod + ':' + qual] = dict(lines=(first, n.end_lineno), header=header, body=body_toks, path=path, name=n.name)
            if isinstance(n, ast.ClassDef):
                visit(n.body, qual + '.')

    visit(tree.body, '')
    return out


def collect(clone, files):
    """Oracle view of every definition in files (paths relative to clone)."""
    out = {}
    for f in files:
        try:
            src = open(os.path.join(clone, f)).read()
        except (OSError, UnicodeDecodeError):
            continue
        d = defs(f, src)
        if d:
            out.update(d)
    return out


def git(repo, *args, check=True):
    return subprocess.run(['git', '-C', repo, '-c', 'core.hooksPath=/dev/null'] + list(args), check=check, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gloss', required=True)
    ap.add_argument('--repo', required=True)
    ap.add_argument('--commits', type=int, default=100)
    ap.add_argument('--max-defs', type=int, default=400)
    a = ap.parse_args()
    gloss = os.path.abspath(a.gloss)
    tmp = tempfile.mkdtemp(prefix='pyeval-')
    clone = os.path.join(tmp, 'repo')
    subprocess.run(['git', 'clone', '-q', '--no-hardlinks', a.repo, clone], check=True)
    env = dict(os.environ, GLOSS_HOME=os.path.join(tmp, 'home'), HOME=tmp, GIT_CONFIG_NOSYSTEM='1')

    def g(*args, inp=None):
        r = subprocess.run([gloss] + list(args), cwd=clone, env=env, capture_output=True, text=True, input=inp)
        return r.stdout
    commits = git(clone, 'rev-list', '--first-parent', '--no-merges', '-n', str(a.commits), 'HEAD').split()
    tp = fp = fn = tn = moved = moved_ok = fmt = fmt_flagged = total = 0
    disagreements = []
    for c in commits:
        parents = git(clone, 'rev-list', '--parents', '-n', '1', c).split()[1:]
        if len(parents) != 1:
            continue
        p = parents[0]
        changed = [l.split('\t') for l in git(clone, 'diff', '--name-status', '-M', p, c).splitlines()]
        files = [x[1] for x in changed if x[1].endswith('.py') and x[0][0] in 'MDR']
        newfiles = [x[-1] for x in changed if x[-1].endswith('.py') and x[0][0] != 'D']
        if not files:
            continue
        git(clone, 'checkout', '-q', '-f', '--detach', p)
        old = collect(clone, files)
        if not old or len(old) > a.max_defs:
            continue
        g('index')
        keys = sorted(old)
        batch = ''.join(json.dumps({'text': 'eval ' + k, 'at': '%s:%d-%d' % (old[k]['path'], *old[k]['lines'])}) + '\n' for k in keys)
        out = [json.loads(l) for l in g('remember', '--batch', '-', '--json', inp=batch).splitlines() if l.strip()]
        ids = {k: o.get('id') for k, o in zip(keys, out)}
        git(clone, 'checkout', '-q', '-f', '--detach', c)
        new = collect(clone, newfiles)
        chk = json.loads(g('check', '--json') or '{"memories":[]}')
        by = {m['id']: m for m in chk['memories']}
        for k in keys:
            if not ids.get(k):
                continue
            total += 1
            o = old[k]
            n = new.get(k)
            if n is None:
                same = [x for x in new.values() if x['body'] == o['body'] and x['header'] == o['header']]
                if len(same) == 1 and o['body']:
                    n = same[0]
            if n is None:
                ost = 'deleted'
            elif n['header'] != o['header']:
                ost = 'signature_changed'
            elif n['body'] != o['body']:
                ost = 'changed'
            else:
                ost = 'moved' if (n['lines'] != o['lines'] or n['path'] != o['path']) else 'fresh'
            m = by.get(ids[k])
            anc = m['anchors'][0] if m else {}
            gst = anc.get('status', 'missing')
            ostale, gstale = ost in ('deleted', 'changed', 'signature_changed'), gst in ('deleted', 'changed', 'signature_changed', 'missing')
            if ostale and gstale: tp += 1
            elif gstale: fp += 1
            elif ostale: fn += 1
            else: tn += 1
            if ost == 'moved':
                moved += 1
                if not gstale and (anc.get('path'), anc.get('start_line'), anc.get('end_line')) == (n['path'], *n['lines']):
                    moved_ok += 1
            if ostale != gstale or (ost == 'moved' and moved_ok == 0):
                disagreements.append(dict(commit=c[:12], key=k, oracle=ost, gloss=gst, anchor=anc, new=n and (n['path'], n['lines'])))
        created = [ids[k] for k in keys if ids.get(k)]
        if created:
            g('forget', *created)
        print('%s %d defs, tp=%d fp=%d fn=%d tn=%d moved %d/%d' % (c[:10], len(keys), tp, fp, fn, tn, moved_ok, moved), file=sys.stderr)
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    print(json.dumps(dict(repo=a.repo, commits=len(commits), memories=total, tp=tp, fp=fp, fn=fn, tn=tn, precision=prec, recall=rec,
                          moved=moved, moved_correct=moved_ok, moved_accuracy=(moved_ok / moved if moved else 1.0),
                          disagreements=disagreements[:50]), indent=1))


if __name__ == '__main__':
    main()

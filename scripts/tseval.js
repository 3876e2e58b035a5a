#!/usr/bin/env node
// Staleness evaluation of gloss on the git history of a TypeScript
// repository. The oracle is the TypeScript compiler's own parser and
// scanner (independent of gloss's tree-sitter parser); see pyeval.py for the
// method. Definitions: top-level functions, classes and their methods,
// constructors and properties, interfaces, type aliases and enums.
// Tokens: ts.createScanner with trivia and comments skipped.
//
// Usage: NODE_PATH=editors/vscode/node_modules node scripts/tseval.js GLOSS REPO [COMMITS]
'use strict';
const ts = require('typescript');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// tokens returns the parser's own leaf tokens (with the parser's template
// and regex rescans, which a bare scanner would get wrong) whose start lies
// in [start, end); JSDoc nodes and comments are not tokens.
let currentSF = null;
function tokens(text, start, end) {
  const out = [];
  const walk = (n) => {
    if (n.kind >= ts.SyntaxKind.FirstJSDocNode && n.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (n.end <= start || n.pos >= end) return;
    const kids = n.getChildren(currentSF);
    if (kids.length === 0) {
      if (n.kind === ts.SyntaxKind.EndOfFileToken) return;
      const s = n.getStart(currentSF);
      if (s >= start && s < end && n.end > s) out.push(text.slice(s, n.end));
      return;
    }
    for (const k of kids) walk(k);
  };
  walk(currentSF);
  return out;
}

function defs(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  currentSF = sf;
  const out = {};
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const add = (node, qual, bodyNode) => {
    const start = node.getStart(sf);
    const nameNode = node.name;
    const all = tokens(text, start, node.end);
    let header = [], body = [];
    if (bodyNode) {
      header = tokens(text, start, bodyNode.getStart(sf));
      body = tokens(text, bodyNode.getStart(sf), node.end);
    } else {
      body = all;
    }
    if (nameNode) {
      const nm = nameNode.getText(sf);
      const arr = bodyNode ? header : body;
      const i = arr.indexOf(nm);
      if (i >= 0) arr.splice(i, 1);
    }
    out[file + ':' + qual] = { path: file, lines: [line(start), line(node.end)], header, body };
  };
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) add(st, st.name.text, st.body);
    else if (ts.isClassDeclaration(st) && st.name) {
      const cls = st.name.text;
      const brace = st.members.pos; // the members list starts after '{'
      add(st, cls, { getStart: () => brace - 1 });
      for (const m of st.members) {
        if (!m.name && !ts.isConstructorDeclaration(m)) continue;
        let nm = ts.isConstructorDeclaration(m) ? 'constructor' : m.name.getText(sf);
        if (ts.isGetAccessor(m)) nm = '<get>' + nm;
        if (ts.isSetAccessor(m)) nm = '<set>' + nm;
        if (ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) add(m, cls + '.' + nm, m.body);
        else if (ts.isPropertyDeclaration(m)) add(m, cls + '.' + nm, null);
      }
    } else if (ts.isInterfaceDeclaration(st)) add(st, st.name.text, { getStart: () => st.members.pos - 1 });
    else if (ts.isTypeAliasDeclaration(st)) add(st, st.name.text, st.type);
    else if (ts.isEnumDeclaration(st)) add(st, st.name.text, { getStart: () => st.members.pos - 1 });
  }
  return out;
}

function git(repo, ...args) {
  return cp.execFileSync('git', ['-C', repo, '-c', 'core.hooksPath=/dev/null', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
}

function main() {
  const [gloss, repo, n] = process.argv.slice(2);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tseval-'));
  const clone = path.join(tmp, 'repo');
  cp.execFileSync('git', ['clone', '-q', '--no-hardlinks', repo, clone]);
  const env = { ...process.env, GLOSS_HOME: path.join(tmp, 'home'), HOME: tmp, GIT_CONFIG_NOSYSTEM: '1' };
  const g = (args, input) => cp.spawnSync(path.resolve(gloss), args, { cwd: clone, env, input, encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const commits = git(clone, 'rev-list', '--first-parent', '--no-merges', '-n', String(n || 100), 'HEAD').split('\n').filter(Boolean);
  const isTS = (f) => /\.(ts|tsx|mts|cts)$/.test(f) && !f.endsWith('.d.ts') && !f.includes('node_modules/');
  let tp = 0, fp = 0, fn = 0, tn = 0, moved = 0, movedOK = 0, total = 0;
  const dis = [];
  for (const c of commits) {
    const parents = git(clone, 'rev-list', '--parents', '-n', '1', c).trim().split(' ').slice(1);
    if (parents.length !== 1) continue;
    const p = parents[0];
    const changed = git(clone, 'diff', '--name-status', '-M', p, c).split('\n').filter(Boolean).map((l) => l.split('\t'));
    const files = changed.filter((x) => 'MDR'.includes(x[0][0]) && isTS(x[1])).map((x) => x[1]);
    const newFiles = changed.filter((x) => x[0][0] !== 'D' && isTS(x[x.length - 1])).map((x) => x[x.length - 1]);
    if (!files.length) continue;
    git(clone, 'checkout', '-q', '-f', '--detach', p);
    let old = {};
    for (const f of files) {
      try { Object.assign(old, defs(f, fs.readFileSync(path.join(clone, f), 'utf8'))); } catch (e) {}
    }
    const keys = Object.keys(old).sort();
    if (!keys.length || keys.length > 400) continue;
    g(['index']);
    const batch = keys.map((k) => JSON.stringify({ text: 'eval ' + k, at: `${old[k].path}:${old[k].lines[0]}-${old[k].lines[1]}` })).join('\n') + '\n';
    const out = g(['remember', '--batch', '-', '--json'], batch).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const ids = {};
    keys.forEach((k, i) => { ids[k] = out[i] && out[i].id; });
    git(clone, 'checkout', '-q', '-f', '--detach', c);
    const nw = {};
    for (const f of newFiles) {
      try { Object.assign(nw, defs(f, fs.readFileSync(path.join(clone, f), 'utf8'))); } catch (e) {}
    }
    const chk = JSON.parse(g(['check', '--json']) || '{"memories":[]}');
    const by = {};
    for (const m of chk.memories) by[m.id] = m;
    const eq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    for (const k of keys) {
      if (!ids[k]) continue;
      total++;
      const o = old[k];
      let nd = nw[k];
      if (!nd) {
        const same = Object.values(nw).filter((x) => eq(x.body, o.body) && eq(x.header, o.header));
        if (same.length === 1 && o.body.length) nd = same[0];
      }
      let ost;
      if (!nd) ost = 'deleted';
      else if (!eq(nd.header, o.header)) ost = 'signature_changed';
      else if (!eq(nd.body, o.body)) ost = 'changed';
      else ost = nd.path !== o.path || nd.lines[0] !== o.lines[0] || nd.lines[1] !== o.lines[1] ? 'moved' : 'fresh';
      const m = by[ids[k]];
      const a = m ? m.anchors[0] : {};
      const gst = a.status || 'missing';
      const os_ = ['deleted', 'changed', 'signature_changed'].includes(ost);
      const gs = ['deleted', 'changed', 'signature_changed', 'missing'].includes(gst);
      if (os_ && gs) tp++; else if (gs) fp++; else if (os_) fn++; else tn++;
      let ok = true;
      if (ost === 'moved') {
        moved++;
        ok = !gs && a.path === nd.path && a.start_line === nd.lines[0] && a.end_line === nd.lines[1];
        if (ok) movedOK++;
      }
      if (os_ !== gs || !ok) dis.push({ commit: c.slice(0, 12), key: k, oracle: ost, gloss: gst, kind: a.kind, anchor: [a.path, a.start_line, a.end_line], expected: nd && [nd.path, ...nd.lines] });
    }
    for (const k of keys) if (ids[k]) g(['forget', ids[k]]);
    process.stderr.write(`${c.slice(0, 10)} ${keys.length} defs tp=${tp} fp=${fp} fn=${fn} tn=${tn} moved ${movedOK}/${moved}\n`);
  }
  const r = { repo, commits: commits.length, memories: total, tp, fp, fn, tn, precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, moved, moved_correct: movedOK, moved_accuracy: moved ? movedOK / moved : 1, disagreements: dis.slice(0, 60) };
  console.log(JSON.stringify(r, null, 1));
}

main();

// End-to-end test: the extension (out/extension.js) with Microsoft's real
// vscode-languageclient, started against the REAL `gloss lsp` binary on a temporary git
// repository. Only the `vscode` module is faked (as in test/smoke.js), but this fake has
// working Position/Range/Uri/Hover/CodeLens/Diagnostic/CodeAction classes, text documents
// with open/change/save events, and captures the providers the language client registers,
// so hover, code lenses, document sync, diagnostics and code actions all go through
// vscode-languageclient's own feature and converter code.
//
// Run: npm run test:e2e   (GLOSS_BIN=/path/to/gloss; without it, gloss is built with
// `go build` from the repository root). E2E_VERBOSE=1 prints the LSP trace.
// Prints `N passed, N failed` last; exits non-zero on any failure.
'use strict';
const Module = require('module');
const path = require('path');
const fs = require('fs');
const os = require('os');
const cp = require('child_process');

const ext = path.resolve(__dirname, '..');
const repoRoot = path.resolve(ext, '..', '..');
const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gloss-vscode-e2e-')));
const project = path.join(tmp, 'project');

// ---------------------------------------------------------------------------
// gloss binary and a hermetic environment (inherited by the server process).
let glossBin = process.env.GLOSS_BIN;
if (!glossBin) {
  glossBin = path.join(tmp, 'gloss');
  console.log('# building gloss into ' + glossBin);
  cp.execFileSync('go', ['build', '-o', glossBin, './cmd/gloss'], { cwd: repoRoot, stdio: 'inherit' });
}
glossBin = path.resolve(glossBin);
if (!fs.existsSync(glossBin)) {
  console.error(`GLOSS_BIN=${glossBin} does not exist`);
  process.exit(2);
}
Object.assign(process.env, {
  HOME: path.join(tmp, 'home'),
  GLOSS_HOME: path.join(tmp, 'gloss-home'),
  XDG_CONFIG_HOME: path.join(tmp, 'home', '.config'),
  XDG_DATA_HOME: path.join(tmp, 'home', '.local', 'share'),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'E2E Author',
  GIT_AUTHOR_EMAIL: 'e2e@example.com',
  GIT_COMMITTER_NAME: 'E2E Author',
  GIT_COMMITTER_EMAIL: 'e2e@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  USER: 'e2e',
});
fs.mkdirSync(process.env.HOME, { recursive: true });
fs.mkdirSync(process.env.GLOSS_HOME, { recursive: true });

// Fixture repository; "é𝄞" before the edited token makes UTF-16 columns matter.
const MAIN_GO = `package main

// greeting has non-ASCII text before the anchored code: é𝄞.
var greeting = "héllo 𝄞"

// Retry calls f until it succeeds, at most limit times.
func Retry(f func() error) error {
	var err error
	_, limit := "é𝄞", 3
	for i := 0; i < limit; i++ {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

func main() {
	println(greeting)
	_ = Retry(func() error { return nil })
}
`;
fs.mkdirSync(project);
fs.writeFileSync(path.join(project, 'go.mod'), 'module example.com/e2e\n\ngo 1.22\n');
fs.writeFileSync(path.join(project, 'main.go'), MAIN_GO);
const git = (...args) => cp.execFileSync('git', ['-C', project, '-c', 'core.hooksPath=/dev/null', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { stdio: 'pipe' });
git('init', '-q');
git('add', '-A');
git('commit', '-q', '-m', 'fixture');

// ---------------------------------------------------------------------------
// The fake `vscode` module.

function universal(name) {
  const fn = function () {};
  return new Proxy(fn, {
    get(t, p) {
      if (p === 'then') return undefined;
      if (p === Symbol.iterator) return function* () {};
      if (p === Symbol.toPrimitive) return () => `[mock ${name}]`;
      if (p === 'toString') return () => `[mock ${name}]`;
      if (!(p in t)) t[p] = universal(`${name}.${String(p)}`);
      return t[p];
    },
    apply() { return universal(`${name}()`); },
    construct() { return universal(`new ${name}`); },
  });
}
class Disposable {
  constructor(f) { this.f = f; }
  dispose() { if (this.f) this.f(); this.f = undefined; }
  static from(...d) { return new Disposable(() => d.forEach((x) => x && x.dispose && x.dispose())); }
}
class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (f, thisArg, disposables) => {
      const l = thisArg ? f.bind(thisArg) : f;
      this.listeners.push(l);
      const d = new Disposable(() => { this.listeners = this.listeners.filter((x) => x !== l); });
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(e) { for (const l of [...this.listeners]) l(e); }
  dispose() { this.listeners = []; }
}
class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme; this.authority = authority || ''; this.path = p || ''; this.query = query || ''; this.fragment = fragment || '';
  }
  get fsPath() { return this.path; }
  toString() {
    const enc = this.path.split('/').map((s) => encodeURIComponent(s)).join('/');
    return `${this.scheme}://${this.authority}${enc}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }
  toJSON() { return { scheme: this.scheme, path: this.path, query: this.query }; }
  with(c) { return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment); }
  static file(p) { return new Uri('file', '', p); }
  static parse(s) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    if (!m) throw new Error('bad uri ' + s);
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
  }
  static from(o) { return new Uri(o.scheme, o.authority, o.path, o.query, o.fragment); }
  static joinPath(u, ...parts) { return u.with({ path: path.posix.join(u.path, ...parts) }); }
}
class Position {
  constructor(line, character) { this.line = line; this.character = character; }
  isEqual(o) { return this.line === o.line && this.character === o.character; }
  isBefore(o) { return this.line < o.line || (this.line === o.line && this.character < o.character); }
  isAfter(o) { return !this.isEqual(o) && !this.isBefore(o); }
  isBeforeOrEqual(o) { return this.isEqual(o) || this.isBefore(o); }
  isAfterOrEqual(o) { return !this.isBefore(o); }
  compareTo(o) { return this.isBefore(o) ? -1 : this.isEqual(o) ? 0 : 1; }
  translate(dl = 0, dc = 0) { return new Position(this.line + dl, this.character + dc); }
  with(l, c) { return new Position(l ?? this.line, c ?? this.character); }
}
class Range {
  constructor(a, b, c, d) {
    if (typeof a === 'number') { this.start = new Position(a, b); this.end = new Position(c, d); } else { this.start = a; this.end = b; }
  }
  get isEmpty() { return this.start.isEqual(this.end); }
  get isSingleLine() { return this.start.line === this.end.line; }
  contains(p) { return p instanceof Range ? this.contains(p.start) && this.contains(p.end) : !p.isBefore(this.start) && !this.end.isBefore(p); }
  isEqual(o) { return this.start.isEqual(o.start) && this.end.isEqual(o.end); }
  with(s, e) { return new Range(s ?? this.start, e ?? this.end); }
}
class Selection extends Range {
  constructor(a, b, c, d) { super(a, b, c, d); this.anchor = this.start; this.active = this.end; }
  get isReversed() { return false; }
}
class Location { constructor(uri, r) { this.uri = uri; this.range = r instanceof Position ? new Range(r, r) : r; } }
class MarkdownString {
  constructor(value = '', supportThemeIcons = false) { this.value = value; this.supportThemeIcons = supportThemeIcons; }
  appendText(t) { this.value += t.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&'); return this; }
  appendMarkdown(v) { this.value += v; return this; }
  appendCodeblock(code, lang = '') { this.value += '\n```' + lang + '\n' + code + '\n```\n'; return this; }
}
class Hover { constructor(contents, range) { this.contents = Array.isArray(contents) ? contents : [contents]; this.range = range; } }
class CodeLens { constructor(range, command) { this.range = range; this.command = command; } get isResolved() { return !!this.command; } }
const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };
class Diagnostic { constructor(range, message, severity = DiagnosticSeverity.Error) { this.range = range; this.message = message; this.severity = severity; } }
class DiagnosticRelatedInformation { constructor(location, message) { this.location = location; this.message = message; } }
class CodeActionKind {
  constructor(value) { this.value = value; }
  append(p) { return new CodeActionKind(this.value ? this.value + '.' + p : p); }
  contains(o) { return this.value === '' || o.value === this.value || o.value.startsWith(this.value + '.'); }
  intersects(o) { return this.contains(o) || o.contains(this); }
}
CodeActionKind.Empty = new CodeActionKind('');
for (const [k, v] of Object.entries({ QuickFix: 'quickfix', Refactor: 'refactor', RefactorExtract: 'refactor.extract', RefactorInline: 'refactor.inline', RefactorRewrite: 'refactor.rewrite', Source: 'source', SourceOrganizeImports: 'source.organizeImports', SourceFixAll: 'source.fixAll' })) CodeActionKind[k] = new CodeActionKind(v);
class CodeAction { constructor(title, kind) { this.title = title; this.kind = kind; } }
class TextEdit { constructor(range, newText) { this.range = range; this.newText = newText; } }
class WorkspaceEdit { constructor() { this.edits = []; } set(uri, edits) { this.edits.push([uri, edits]); } replace(uri, r, t) { this.edits.push([uri, [new TextEdit(r, t)]]); } entries() { return this.edits; } }
class CancellationError extends Error { constructor() { super('Canceled'); this.name = 'Canceled'; } }
const neverCancelled = { isCancellationRequested: false, onCancellationRequested: () => new Disposable() };
class CancellationTokenSource { constructor() { this.token = neverCancelled; } cancel() {} dispose() {} }
class RelativePattern { constructor(base, pattern) { this.base = base; this.baseUri = typeof base === 'string' ? Uri.file(base) : base.uri || base; this.pattern = pattern; } }

/** A text document: UTF-16 positions are JavaScript string indexes. */
class TextDocument {
  constructor(uri, languageId, text) {
    this.uri = uri; this.languageId = languageId; this.version = 1; this.text = text;
    this.isClosed = false; this.isDirty = false; this.isUntitled = false; this.eol = 1; this.fileName = uri.fsPath;
  }
  get lines() { return this.text.split('\n'); }
  get lineCount() { return this.lines.length; }
  lineAt(n) { const l = this.lines[typeof n === 'number' ? n : n.line]; const ln = typeof n === 'number' ? n : n.line; return { lineNumber: ln, text: l, range: new Range(ln, 0, ln, l.length), isEmptyOrWhitespace: l.trim() === '' }; }
  offsetAt(p) { const ls = this.lines; let o = 0; for (let i = 0; i < p.line; i++) o += ls[i].length + 1; return o + p.character; }
  positionAt(o) { const ls = this.lines; let line = 0; while (line < ls.length - 1 && o > ls[line].length) { o -= ls[line].length + 1; line++; } return new Position(line, o); }
  getText(r) { return r ? this.text.slice(this.offsetAt(r.start), this.offsetAt(r.end)) : this.text; }
  save() { fs.writeFileSync(this.fileName, this.text); this.isDirty = false; return Promise.resolve(true); }
  /** Replaces `range` with `newText`; returns the TextDocumentChangeEvent VS Code would fire. */
  edit(range, newText) {
    const rangeOffset = this.offsetAt(range.start);
    const rangeLength = this.offsetAt(range.end) - rangeOffset;
    this.text = this.text.slice(0, rangeOffset) + newText + this.text.slice(rangeOffset + rangeLength);
    this.version++; this.isDirty = true;
    return { document: this, contentChanges: [{ range, rangeOffset, rangeLength, text: newText }], reason: undefined };
  }
}

class DiagnosticCollection {
  constructor(name) { this.name = name; this.map = new Map(); this.changed = new EventEmitter(); }
  set(uri, diags) {
    if (Array.isArray(uri)) { for (const [u, d] of uri) this.set(u, d); return; }
    this.map.set(uri.toString(), diags || []); this.changed.fire(uri);
  }
  get(uri) { return this.map.get(uri.toString()) || []; }
  has(uri) { return this.map.has(uri.toString()); }
  delete(uri) { this.map.delete(uri.toString()); this.changed.fire(uri); }
  clear() { this.map.clear(); }
  forEach(cb) { for (const [u, d] of this.map) cb(Uri.parse(u), d, this); }
  dispose() { this.map.clear(); }
}

const calls = { opened: [], commands: new Map(), errors: [], infos: [], warnings: [], statusTexts: [], output: [], providers: {}, collections: [], quickPick: undefined, inputBox: undefined };
const ev = {
  open: new EventEmitter(), change: new EventEmitter(), close: new EventEmitter(), save: new EventEmitter(), willSave: new EventEmitter(),
  activeEditor: new EventEmitter(), tabs: new EventEmitter(),
};
const folder = { uri: Uri.file(project), name: 'project', index: 0 };
const statusItem = { show() {}, hide() {}, dispose() {}, set text(v) { calls.statusTexts.push(v); }, get text() { return calls.statusTexts.at(-1); } };
const settings = { path: glossBin, 'trace.server': 'verbose' };
const config = { get: (k, d) => (k in settings ? settings[k] : d), has: (k) => k in settings, inspect: () => undefined, update: async () => {} };
const outputChannel = () => ({
  name: 'gloss',
  append: (l) => { calls.output.push(String(l)); if (process.env.E2E_VERBOSE) process.stdout.write('[out] ' + l); },
  appendLine: (l) => { calls.output.push(String(l)); if (process.env.E2E_VERBOSE) console.log('[out]', l); },
  show() {}, hide() {}, dispose() {}, clear() {}, replace() {},
});
const selectorMatches = (selector, doc) => {
  const filters = Array.isArray(selector) ? selector : [selector];
  return filters.some((f) => (typeof f === 'string' ? f === '*' || f === doc.languageId
    : (!f.language || f.language === '*' || f.language === doc.languageId) && (!f.scheme || f.scheme === '*' || f.scheme === doc.uri.scheme) && (!f.notebookType)));
};
const register = (kind) => (selector, provider, meta) => { calls.providers[kind] = { selector, provider, meta }; return new Disposable(() => delete calls.providers[kind]); };

const vscodeMock = new Proxy({
  EventEmitter, Disposable, Uri, Position, Range, Selection, Location, MarkdownString, Hover, CodeLens, Diagnostic, DiagnosticSeverity,
  DiagnosticRelatedInformation, DiagnosticTag: { Unnecessary: 1, Deprecated: 2 }, CodeActionKind, CodeAction, CodeActionTriggerKind: { Invoke: 1, Automatic: 2 },
  TextEdit, WorkspaceEdit, CancellationError, CancellationTokenSource, RelativePattern,
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  TextDocumentSaveReason: { Manual: 1, AfterDelay: 2, FocusOut: 3 },
  version: '1.90.0', env: { appName: 'VS Code', language: 'en', machineId: 'x', sessionId: 'y', uiKind: 1, openExternal: async () => true },
  ThemeIcon: class { constructor(id) { this.id = id; } static File = 'file'; static Folder = 'folder'; },
  ThemeColor: class { constructor(id) { this.id = id; } },
  TreeItem: class { constructor(l, c) { this.label = l; this.collapsibleState = c; } },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2 },
  commands: {
    registerCommand(id, fn) { if (calls.commands.has(id)) throw new Error('command exists: ' + id); calls.commands.set(id, fn); return new Disposable(() => calls.commands.delete(id)); },
    executeCommand: async (id, ...args) => (calls.commands.has(id) ? calls.commands.get(id)(...args) : undefined),
  },
  languages: new Proxy({
    match: (selector, doc) => (selectorMatches(selector, doc) ? 10 : 0),
    createDiagnosticCollection: (name) => { const c = new DiagnosticCollection(name); calls.collections.push(c); return c; },
    registerHoverProvider: register('hover'),
    registerCodeLensProvider: register('codeLens'),
    registerCodeActionsProvider: register('codeAction'),
  }, { get(t, p) { return p in t ? t[p] : () => new Disposable(); } }),
  window: new Proxy({
    createOutputChannel: outputChannel,
    createStatusBarItem: () => statusItem,
    createTreeView: (_id, opts) => { calls.tree = opts.treeDataProvider; return { dispose() {} }; },
    showErrorMessage: async (m) => { calls.errors.push(m); },
    showWarningMessage: async (m) => { calls.warnings.push(m); },
    showInformationMessage: async (m) => { calls.infos.push(m); },
    showQuickPick: async (items) => calls.quickPick && calls.quickPick(await items),
    showInputBox: async () => calls.inputBox && calls.inputBox(),
    showTextDocument: async (d) => ({ document: d }),
    withProgress: async (_o, task) => task({ report() {} }, neverCancelled),
    onDidChangeActiveTextEditor: ev.activeEditor.event,
    tabGroups: { all: [], onDidChangeTabs: ev.tabs.event },
    activeTextEditor: undefined,
    visibleTextEditors: [],
  }, { get(t, p) { return p in t ? t[p] : universal('window.' + String(p)); } }),
  workspace: new Proxy({
    workspaceFolders: [folder],
    getWorkspaceFolder: (u) => (u && u.scheme === 'file' && (u.fsPath === project || u.fsPath.startsWith(project + '/')) ? folder : undefined),
    getConfiguration: () => config,
    textDocuments: [],
    onDidOpenTextDocument: ev.open.event,
    onDidChangeTextDocument: ev.change.event,
    onDidCloseTextDocument: ev.close.event,
    onDidSaveTextDocument: ev.save.event,
    onWillSaveTextDocument: ev.willSave.event,
    onDidChangeWorkspaceFolders: () => new Disposable(),
    onDidChangeConfiguration: () => new Disposable(),
    registerTextDocumentContentProvider: (_scheme, p) => { calls.providers.content = p; return new Disposable(); },
    createFileSystemWatcher: () => ({ onDidCreate: new EventEmitter().event, onDidChange: new EventEmitter().event, onDidDelete: new EventEmitter().event, dispose() {} }),
    applyEdit: async () => true,
    openTextDocument: async (u) => { calls.opened.push(u); return { uri: u, getText: () => '' }; },
  }, { get(t, p) { return p in t ? t[p] : universal('workspace.' + String(p)); } }),
}, { get(t, p) { return p in t ? t[p] : universal(String(p)); } });

const origLoad = Module._load;
Module._load = function (req) { if (req === 'vscode') return vscodeMock; return origLoad.apply(this, arguments); };

// ---------------------------------------------------------------------------
// The test.

let passed = 0;
let failed = 0;
const check = (name, ok, detail) => {
  console.log((ok ? 'ok - ' : 'not ok - ') + name + (!ok && detail !== undefined ? ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)) : ''));
  if (ok) passed++; else failed++;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) return undefined;
    await sleep(20);
  }
}
const lineOf = (s) => MAIN_GO.split('\n').findIndex((l) => l.includes(s));
const MEMORY_TEXT = 'Retries are capped at limit because upstream rate-limits bursts.';

// cleanup stops the workspace's daemon (`gloss lsp` started it; it would
// otherwise outlive the test for its idle timeout, writing to the store
// being removed: a compaction made rmSync fail with ENOTEMPTY once), then
// removes the temporary tree.
const cleanup = () => {
  if (process.env.E2E_KEEP) return;
  cp.spawnSync(glossBin, ['-C', project, 'daemon', 'stop'], { timeout: 15000, stdio: 'ignore' });
  fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
};

const abort = (e) => {
  console.error('E2E FAIL', e);
  cleanup();
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
};
process.on('uncaughtException', abort);
process.on('unhandledRejection', abort);

(async () => {
  const m = require(path.join(ext, 'out', 'extension.js'));
  const context = { subscriptions: [], extensionPath: ext, extensionUri: Uri.file(ext), globalState: universal('gs'), workspaceState: universal('ws') };
  m.activate(context);

  const status = await waitFor(() => calls.commands.get('gloss.status')({}).catch((e) => { calls.errors.push(String(e)); return undefined; }), 15000);
  check('real gloss lsp starts (gloss.status via the client)', status && status.memories === 0, { status, errors: calls.errors });
  for (const k of ['hover', 'codeLens', 'codeAction']) check(`vscode-languageclient registered the ${k} provider`, !!calls.providers[k]);
  if (!calls.providers.hover || !calls.providers.codeLens || !calls.providers.codeAction) throw new Error('providers missing; stopping');
  const token = neverCancelled;

  // Open main.go the way VS Code does: add it to textDocuments and fire onDidOpenTextDocument.
  const doc = new TextDocument(Uri.file(path.join(project, 'main.go')), 'go', MAIN_GO);
  vscodeMock.workspace.textDocuments.push(doc);
  ev.open.fire(doc);

  // 1. "Gloss: Remember Selection" on the Retry function (doc comment to closing brace).
  const docLine = lineOf('// Retry calls f');
  const funcLine = lineOf('func Retry');
  const endLine = MAIN_GO.split('\n').findIndex((l, i) => i > funcLine && l === '}');
  vscodeMock.window.activeTextEditor = { document: doc, selection: new Selection(docLine, 0, endLine, 1) };
  calls.quickPick = (items) => items.find((i) => i.label === 'gotcha');
  calls.inputBox = () => MEMORY_TEXT;
  await calls.commands.get('gloss.rememberSelection')();
  check('Gloss: Remember Selection stores the memory', calls.infos.some((i) => i.startsWith('Gloss: remembered')), { infos: calls.infos, errors: calls.errors });
  const list = await calls.commands.get('gloss.list')({});
  const mem = list && list.memories && list.memories[0];
  check('the memory is anchored to the Retry symbol', mem && mem.body === MEMORY_TEXT && mem.type === 'gotcha' && mem.anchors[0].kind === 'symbol' && mem.anchors[0].start_line === funcLine + 1, list);

  // 2. Hover through vscode-languageclient's HoverFeature.
  const bodyLine = lineOf('_, limit := "é𝄞", 3');
  const hover = await calls.providers.hover.provider.provideHover(doc, new Position(bodyLine, 3), token);
  const hoverText = hover ? hover.contents.map((c) => c.value).join('\n') : '';
  check('hover is a vscode.Hover with a MarkdownString', hover instanceof Hover && hover.contents[0] instanceof MarkdownString, hover);
  check('hover shows the memory text', hoverText.includes(MEMORY_TEXT), hoverText);
  const none = await calls.providers.hover.provider.provideHover(doc, new Position(0, 0), token);
  check('no hover outside the function', none === undefined || none === null, none);

  // 3. Code lenses through the CodeLensFeature.
  let lenses = await calls.providers.codeLens.provider.provideCodeLenses(doc, token);
  check('one code lens "1 memory" on func Retry', Array.isArray(lenses) && lenses.length === 1 && lenses[0] instanceof CodeLens
    && lenses[0].command.title === '1 memory' && lenses[0].command.command === 'gloss.showMemories' && lenses[0].range.start.line === funcLine, lenses);

  // 4. One incremental edit of a token in the body: the 3 after "é𝄞" becomes 5.
  const col = doc.lineAt(bodyLine).text.indexOf('3'); // UTF-16 column (JS string index)
  ev.change.fire(doc.edit(new Range(bodyLine, col, bodyLine, col + 1), '5'));
  const coll = calls.collections.find((c) => c.name === 'gloss') || calls.collections[0];
  const t0 = Date.now();
  const stale = () => (coll ? coll.get(doc.uri).find((d) => d.source === 'gloss' && d.code === 'stale-memory') : undefined);
  const diag = await waitFor(stale, 10000);
  check(`gloss stale-memory diagnostic arrives in the "gloss" collection (${Date.now() - t0} ms)`, !!diag, coll && coll.get(doc.uri));
  if (diag) {
    check('diagnostic is a Warning on func Retry', diag instanceof Diagnostic && diag.severity === DiagnosticSeverity.Warning && diag.range.start.line === funcLine, diag);
    check('diagnostic message names the memory', /describes code that changed since/.test(diag.message), diag.message);
  }
  const trace = calls.output.join('\n');
  const changeTrace = trace.split(/\n(?=\[Trace)/).filter((b) => b.includes("'textDocument/didChange'"));
  const incremental = changeTrace.some((b) => b.includes('"rangeLength": 1') && b.includes('"text": "5"') && b.includes(`"character": ${col}`));
  check(`didChange sent incrementally (range at UTF-16 column ${col}, rangeLength 1, text "5")`, incremental, changeTrace.join('\n') || '(no didChange in the trace)');
  const staleHover = await calls.providers.hover.provider.provideHover(doc, new Position(bodyLine, 1), token);
  const staleText = staleHover ? staleHover.contents.map((c) => c.value).join('\n') : '';
  check('stale hover shows the diff of the edited token', staleText.includes('-\t_, limit := "é𝄞", 3') && staleText.includes('+\t_, limit := "é𝄞", 5'), staleText);
  lenses = await calls.providers.codeLens.provider.provideCodeLenses(doc, token);
  check('code lens now "1 memory · 1 stale"', lenses && lenses[0] && lenses[0].command.title === '1 memory · 1 stale', lenses);

  // 5. Code actions through the CodeActionFeature, with the diagnostic as VS Code passes it.
  if (diag) {
    const actions = await calls.providers.codeAction.provider.provideCodeActions(doc, diag.range, { diagnostics: [diag], triggerKind: 1, only: undefined }, token) || [];
    const quick = actions.filter((a) => a.kind && a.kind.value === 'quickfix');
    const titles = quick.map((a) => a.title);
    const want = ['Still valid — re-verify', 'Edit memory', 'Show what changed', 'Forget memory', 'Re-anchor to selection', 'This memory is wrong'];
    check('code actions offer the quick fixes', JSON.stringify(titles) === JSON.stringify(want), titles);

    // 6. Save, then run "Still valid — re-verify" as VS Code would (executeCommand with the
    //    action's command -> the extension's gloss.verify proxy -> server): diagnostic cleared.
    const verify = quick.find((a) => a.title === want[0]);
    await doc.save();
    ev.save.fire(doc);
    if (verify) {
      const res = await vscodeMock.commands.executeCommand(verify.command.command, ...(verify.command.arguments || []));
      check('re-verify returns the fresh memory', res && res.stale === false, res);
      const cleared = await waitFor(() => coll.get(doc.uri).filter((d) => d.source === 'gloss').length === 0, 10000);
      check('re-verify clears the diagnostic', !!cleared, coll.get(doc.uri));
      lenses = await calls.providers.codeLens.provider.provideCodeLenses(doc, token);
      check('code lens back to "1 memory"', lenses && lenses[0] && lenses[0].command.title === '1 memory', lenses);
    }

    // 7. Issue #11: "Show what changed" opens the diff; "Edit memory" on a personal memory
    //    (no file to open) asks for its text.
    const c5 = doc.lineAt(bodyLine).text.indexOf('5');
    ev.change.fire(doc.edit(new Range(bodyLine, c5, bodyLine, c5 + 1), '7'));
    const diag2 = await waitFor(stale, 10000);
    check('stale again after a second edit', !!diag2, coll.get(doc.uri));
    if (diag2) {
      const acts = (await calls.providers.codeAction.provider.provideCodeActions(doc, diag2.range, { diagnostics: [diag2], triggerKind: 1, only: undefined }, token) || [])
        .filter((a) => a.kind && a.kind.value === 'quickfix');
      const run = (title) => { const a = acts.find((x) => x.title === title); return a && vscodeMock.commands.executeCommand(a.command.command, ...(a.command.arguments || [])); };
      await run('Show what changed');
      const diffUri = calls.opened.find((u) => u && u.path && u.path.endsWith('.diff'));
      check('"Show what changed" opens a .diff document', !!diffUri, calls.opened.map(String));
      const text = diffUri && calls.providers.content ? await calls.providers.content.provideTextDocumentContent(diffUri) : '';
      check('the document is the diff of the edited token', text.includes('+\t_, limit := "é𝄞", 7'), text);
      let asked = false;
      calls.inputBox = () => { asked = true; return undefined; };
      await run('Edit memory');
      check('"Edit memory" on a personal memory asks for its text', asked, calls.infos);
      check('no message from the server duplicates them', !calls.infos.some((m) => /what changed under|personal memory/.test(m)), calls.infos);
    }
  }
  // 8. The memory tree pages gloss.list (limit, cursor): a first page of LIST_PAGE memories
  // and a "Load more" node, which fetches the rest.
  const model = require(path.join(ext, 'out', 'model.js'));
  const n = model.LIST_PAGE + 5;
  const batch = [];
  for (let i = 0; i < n; i++) batch.push(JSON.stringify({ text: `paged note number ${i}`, at: `main.go:${1 + (i % 5)}-${2 + (i % 5)}` }));
  fs.writeFileSync(path.join(tmp, 'batch.jsonl'), batch.join('\n') + '\n');
  cp.execFileSync(glossBin, ['-C', project, 'remember', '--batch', path.join(tmp, 'batch.jsonl')], { stdio: 'pipe' });
  const total = await calls.commands.get('gloss.status')({});
  await calls.commands.get('gloss.refreshMemories')();
  const shown = async () => {
    const roots = await calls.tree.getChildren();
    let k = 0;
    for (const r of roots.filter((r) => r.kind === 'file')) k += (await calls.tree.getChildren(r)).length;
    return { roots, k };
  };
  const first = await shown();
  const more = first.roots.find((r) => r.kind === 'more');
  check(`the memory tree shows a first page of ${model.LIST_PAGE} and "Load more"`, first.k === model.LIST_PAGE && more && more.shown === model.LIST_PAGE
    && calls.tree.getTreeItem(more).command.command === 'gloss.tree.loadMore', { k: first.k, more, total });
  if (more) await calls.commands.get('gloss.tree.loadMore')(more.key);
  const all = await shown();
  check(`"Load more" fetches the rest (${total && total.memories} memories)`, total && all.k === total.memories && !all.roots.some((r) => r.kind === 'more'), { k: all.k, total });

  check('no error messages shown', calls.errors.length === 0, calls.errors);

  await m.deactivate();
  cleanup();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch(abort);

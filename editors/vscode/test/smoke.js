// Smoke test: loads out/extension.js with a fake `vscode` module (no VS Code download)
// and the real vscode-languageclient, talking to the fake gloss server of the Neovim
// tests (../../neovim/test/fake_gloss.py, needs python3). Run: npm run test:smoke
'use strict';
const Module = require('module');
const path = require('path');
const fs = require('fs');
const os = require('os');
const ext = path.resolve(__dirname, '..');
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'gloss-smoke-'));
fs.mkdirSync(path.join(project, '.git'));
fs.writeFileSync(path.join(project, 'main.go'), 'package main\n');
process.env.GLOSS_TEST_PROJECT = project;
process.env.FAKE_GLOSS_LOG = path.join(project, 'requests.jsonl');
const fakeServer = process.env.FAKE_GLOSS || path.resolve(ext, '..', 'neovim', 'test', 'fake_gloss.py');
const calls = { commands: new Map(), errors: [], infos: [], statusTexts: [] };

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
class EventEmitter { constructor(){this.l=[]; this.event=(f)=>{this.l.push(f);return {dispose(){}}};} fire(e){this.l.forEach(f=>f(e));} dispose(){} }
class Disposable { constructor(f){this.f=f;} dispose(){this.f&&this.f();} static from(...d){return new Disposable(()=>d.forEach(x=>x&&x.dispose&&x.dispose()));} }
class Uri { constructor(scheme, p){this.scheme=scheme; this.fsPath=p; this.path=p; this.query='';} toString(){return `${this.scheme}://${this.path}`;} static file(p){return new Uri('file', p);} static parse(s){return new Uri(s.split(':')[0], s.replace(/^file:\/\//,''));} static from(o){const u=new Uri(o.scheme,o.path); u.query=o.query; return u;} with(){return this;} }
const folder = { uri: Uri.file(process.env.GLOSS_TEST_PROJECT), name: 'project', index: 0 };
const statusItem = { show(){}, dispose(){}, set text(v){calls.statusTexts.push(v);}, get text(){return calls.statusTexts.at(-1);} };
const config = { get: (k, d) => (k === 'path' ? 'python3' : d), has: () => false, inspect: () => undefined, update: async () => {} };
const vscodeMock = new Proxy({
  EventEmitter, Disposable, Uri, version: '1.90.0', env: { appName: 'VS Code', language: 'en', machineId: 'x', sessionId: 'y', uiKind: 1 },
  ThemeIcon: class { constructor(id){this.id=id;} static File = 'file'; static Folder = 'folder'; },
  ThemeColor: class { constructor(id){this.id=id;} },
  TreeItem: class { constructor(l, c){this.label=l; this.collapsibleState=c;} },
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Beside: -2 },
  MarkdownString: class { constructor(v){this.value=v;} },
  Range: class { constructor(...a){this.a=a;} },
  commands: {
    registerCommand(id, fn) { if (calls.commands.has(id)) throw new Error('command exists: ' + id); calls.commands.set(id, fn); return new Disposable(() => calls.commands.delete(id)); },
    executeCommand: async () => undefined,
  },
  window: new Proxy({
    createOutputChannel: () => ({ appendLine: (l) => process.env.SMOKE_VERBOSE && console.log('[out]', l), append(){}, show(){}, dispose(){}, clear(){}, replace(){}, hide(){}, name: 'gloss' }),
    createStatusBarItem: () => statusItem,
    createTreeView: (_id, opts) => { calls.tree = opts.treeDataProvider; return { dispose(){} }; },
    showErrorMessage: async (m) => { calls.errors.push(m); },
    showInformationMessage: async (m) => { calls.infos.push(m); },
    activeTextEditor: undefined,
  }, { get(t, p) { return p in t ? t[p] : universal('window.' + String(p)); } }),
  workspace: new Proxy({
    workspaceFolders: [folder],
    getWorkspaceFolder: () => folder,
    getConfiguration: () => config,
    textDocuments: [],
    onDidChangeWorkspaceFolders: () => new Disposable(),
    onDidChangeConfiguration: () => new Disposable(),
    onDidSaveTextDocument: () => new Disposable(),
    registerTextDocumentContentProvider: () => new Disposable(),
  }, { get(t, p) { return p in t ? t[p] : universal('workspace.' + String(p)); } }),
}, { get(t, p) { return p in t ? t[p] : universal(String(p)); } });

const origLoad = Module._load;
Module._load = function (req, parent, isMain) { if (req === 'vscode') return vscodeMock; return origLoad.apply(this, arguments); };
// gloss.path is "python3" (see `config` above); prepend the fake server script.
const fake = fakeServer;
const cp = require('child_process');
const origSpawn = cp.spawn;
cp.spawn = function (cmd, args, opts) { if (cmd === 'python3') { return origSpawn.call(this, 'python3', [fake, ...args], opts); } return origSpawn.apply(this, arguments); };

(async () => {
  const m = require(path.join(ext, 'out', 'extension.js'));
  const subs = [];
  m.activate({ subscriptions: subs, extensionPath: ext, globalState: universal('gs'), workspaceState: universal('ws') });
  const has = (id) => calls.commands.has(id);
  let passed = 0;
  let failed = 0;
  const check = (name, ok) => {
    console.log((ok ? 'ok - ' : 'not ok - ') + name);
    if (ok) { passed++; } else { failed++; process.exitCode = 1; }
  };
  for (const id of ['gloss.rememberSelection','gloss.refreshMemories','gloss.tree.open','gloss.tree.edit','gloss.tree.verify','gloss.tree.forget','gloss.remember','gloss.showMemories','gloss.list','gloss.status']) check('registered ' + id, has(id));
  await new Promise((r) => setTimeout(r, 2500));
  check('no start error: ' + JSON.stringify(calls.errors), calls.errors.length === 0);
  const list = await calls.commands.get('gloss.list')({});
  check('gloss.list via client: ' + JSON.stringify(list).slice(0, 80), list && Array.isArray(list.memories) && list.memories.length === 2);
  const rem = await calls.commands.get('gloss.remember')({ uri: 'file://' + process.env.GLOSS_TEST_PROJECT + '/main.go', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } }, text: 'hi', type: 'note' });
  check('gloss.remember via proxy returns memory', rem && rem.id === 'm-new-1');
  await calls.commands.get('gloss.refreshMemories')();
  check('status bar text: ' + calls.statusTexts.at(-1), calls.statusTexts.at(-1) === '$(note) 3 · 1 stale');
  const files = await calls.tree.getChildren();
  check('tree groups by file', files.length === 1 && files[0].kind === 'file' && files[0].group.path === 'main.go');
  const fileItem = calls.tree.getTreeItem(files[0]);
  check('file node marked stale: ' + fileItem.description, fileItem.iconPath.id === 'warning' && fileItem.description === '3 memories, 1 stale');
  const mems = await calls.tree.getChildren(files[0]);
  const items = mems.map((n) => calls.tree.getTreeItem(n));
  check('memory nodes: ' + items.map((i) => i.label + '/' + i.contextValue).join(', '),
    items.length === 3 && items.filter((i) => i.contextValue === 'gloss.memory.stale').length === 1);
  const staleNode = mems[items.findIndex((i) => i.contextValue === 'gloss.memory.stale')];
  await calls.commands.get('gloss.tree.verify')(staleNode);
  await calls.commands.get('gloss.refreshMemories')();
  check('verify from tree clears stale: ' + calls.statusTexts.at(-1), calls.statusTexts.at(-1) === '$(note) 3 · 0 stale');
  await m.deactivate();
  fs.rmSync(project, { recursive: true, force: true });
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(process.exitCode || 0);
})().catch((e) => { console.error('SMOKE FAIL', e); process.exit(1); });

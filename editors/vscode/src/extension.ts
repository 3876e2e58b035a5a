// VS Code client for the gloss language server.
//
// One `gloss lsp` process per workspace folder, attached to every `file:` document next to
// whatever other language servers are running. Memory commands go to the server through
// `workspace/executeCommand`; the pure logic (argument building, grouping, formatting)
// lives in model.ts so it can be tested without VS Code.

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  StaticFeature,
  DynamicFeature,
} from "vscode-languageclient/node";
import * as model from "./model";

const CLIENT_ID = "gloss";
const MEMORY_SCHEME = "gloss-memory";

/**
 * LanguageClient without the built-in ExecuteCommandFeature. That feature registers a
 * VS Code command for every command the server advertises, which (a) throws "command
 * already exists" as soon as a second workspace folder starts its own gloss server and
 * (b) clashes with the client-side handlers below (gloss.showMemories needs UI). We
 * register those commands ourselves and forward them with sendRequest.
 */
class GlossLanguageClient extends LanguageClient {
  public override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    const method = (feature as Partial<DynamicFeature<unknown>>).registrationType?.method;
    if (method === "workspace/executeCommand") {
      return;
    }
    super.registerFeature(feature);
  }
}

interface FolderClient {
  folder: vscode.WorkspaceFolder;
  client: LanguageClient;
  ready: Promise<boolean>;
}

let output: vscode.OutputChannel;
const clients = new Map<string, FolderClient>();
const memoryCache = new Map<string, { memory: model.Memory; folder: string }>();
let tree: MemoryTreeProvider;
let statusBar: StatusBar;
let startErrorShown = false;

// ---------------------------------------------------------------------------
// Clients

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("gloss");
}

function startClient(folder: vscode.WorkspaceFolder): void {
  const key = folder.uri.toString();
  if (clients.has(key) || folder.uri.scheme !== "file") {
    return;
  }
  const command = config().get<string>("path", "gloss") || "gloss";
  const embedder = config().get<string>("embedder", "");
  const serverOptions: ServerOptions = {
    command,
    args: ["lsp"],
    options: { cwd: folder.uri.fsPath, env: model.serverEnv(process.env, embedder) },
  };
  const folderCount = vscode.workspace.workspaceFolders?.length ?? 1;
  const clientOptions: LanguageClientOptions = {
    documentSelector: model.documentSelectorFor(folder.uri.fsPath, folderCount),
    workspaceFolder: folder,
    diagnosticCollectionName: "gloss",
    outputChannel: output,
    initializationOptions: embedder ? { embedder } : {},
  };
  const name = folderCount > 1 ? `gloss (${folder.name})` : "gloss";
  const client = new GlossLanguageClient(CLIENT_ID, name, serverOptions, clientOptions);
  const ready = client.start().then(
    () => {
      tree?.refresh();
      void statusBar?.refresh();
      return true;
    },
    (err: unknown) => {
      output.appendLine(`[gloss] failed to start "${command} lsp" in ${folder.uri.fsPath}: ${String(err)}`);
      if (!startErrorShown) {
        startErrorShown = true;
        void vscode.window
          .showErrorMessage(
            `Gloss: could not start "${command} lsp". Is gloss installed? Set "gloss.path" to the binary.`,
            "Open Settings",
            "Show Log",
          )
          .then((choice) => {
            if (choice === "Open Settings") {
              void vscode.commands.executeCommand("workbench.action.openSettings", "gloss.path");
            } else if (choice === "Show Log") {
              output.show();
            }
          });
      }
      return false;
    },
  );
  clients.set(key, { folder, client, ready });
}

async function stopClient(key: string): Promise<void> {
  const entry = clients.get(key);
  clients.delete(key);
  if (entry) {
    try {
      await entry.client.stop();
    } catch (err) {
      output.appendLine(`[gloss] stop failed: ${String(err)}`);
    }
  }
}

async function restartAll(): Promise<void> {
  await Promise.all([...clients.keys()].map(stopClient));
  startErrorShown = false;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    startClient(folder);
  }
  tree.refresh();
  await statusBar.refresh();
}

/** The client for a document URI (string or Uri), else the active editor's, else the first. */
function clientFor(uri?: string | vscode.Uri): FolderClient | undefined {
  const candidates: vscode.Uri[] = [];
  if (typeof uri === "string" && uri) {
    try {
      candidates.push(vscode.Uri.parse(uri));
    } catch {
      // fall through
    }
  } else if (uri instanceof vscode.Uri) {
    candidates.push(uri);
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active) {
    candidates.push(active);
  }
  for (const u of candidates) {
    const folder = vscode.workspace.getWorkspaceFolder(u);
    const entry = folder && clients.get(folder.uri.toString());
    if (entry) {
      return entry;
    }
  }
  return clients.values().next().value;
}

async function exec(entry: FolderClient | undefined, command: string, args: unknown[]): Promise<unknown> {
  if (!entry) {
    throw new Error("gloss is not running (open a folder, and check the gloss.path setting)");
  }
  if (!(await entry.ready)) {
    throw new Error(`gloss failed to start for ${entry.folder.name}; see the "gloss" output`);
  }
  return entry.client.sendRequest<unknown>("workspace/executeCommand", { command, arguments: args });
}

/** Runs a command that changes memories, then refreshes the tree and the status bar. */
async function mutate(entry: FolderClient | undefined, command: string, args: unknown[]): Promise<unknown> {
  try {
    return await exec(entry, command, args);
  } finally {
    tree.refresh();
    void statusBar.refresh();
  }
}

function firstArg(args: unknown[]): Record<string, unknown> {
  const a = args[0];
  return a !== null && typeof a === "object" ? (a as Record<string, unknown>) : {};
}

function showError(err: unknown): void {
  const msg = err instanceof Error ? err.message : String(err);
  void vscode.window.showErrorMessage(`Gloss: ${msg}`);
}

function remember(memories: model.Memory[], folder: string): void {
  for (const m of memories) {
    memoryCache.set(m.id, { memory: m, folder });
  }
}

// ---------------------------------------------------------------------------
// Opening memories

function memoryDocUri(memory: model.Memory, folder: string): vscode.Uri {
  const name = model.memoryLabel(memory).replace(/[\\/?#%]/g, "_").slice(0, 60) || memory.id;
  return vscode.Uri.from({
    scheme: MEMORY_SCHEME,
    path: `/${name}.md`,
    query: new URLSearchParams({ id: memory.id, folder }).toString(),
  });
}

class MemoryDocumentProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const id = q.get("id") ?? "";
    const folder = q.get("folder") ?? "";
    const entry = clients.get(folder) ?? clientFor();
    if (q.get("diff")) {
      // "Show what changed": the unified diff of the memory's code as written against now.
      try {
        const res = (await exec(entry, model.Commands.show, [{ id, diff: true }])) as { diff?: string; title?: string };
        const diff = (res?.diff ?? "").trim();
        return diff ? diff + "\n" : `# ${res?.title ?? id}: the code is as written.\n`;
      } catch (err) {
        return `# gloss.show ${id}: ${String(err)}\n`;
      }
    }
    try {
      const shown = model.parseMemoryList(await exec(entry, model.Commands.show, model.idArgs(id)));
      if (shown[0]) {
        remember(shown, folder);
        return model.renderMemoryMarkdown(shown[0]);
      }
    } catch (err) {
      output.appendLine(`[gloss] gloss.show ${id}: ${String(err)}`);
    }
    const cached = memoryCache.get(id);
    return cached ? model.renderMemoryMarkdown(cached.memory) : `Memory ${id} not found.`;
  }
}

/**
 * gloss.show from the quick fixes and the tree: "Show what changed" (diff) opens the diff
 * as a read-only document (language diff); "Edit memory" (edit) lets the server open the
 * memory's Markdown file (window/showDocument), and for a personal memory, which has no
 * file, asks for the new text; otherwise the memory opens as a read-only page. The
 * server's own presentation ("present") is not asked for: the extension shows the result.
 */
async function showCommand(a: Record<string, unknown>): Promise<unknown> {
  const id = a.id;
  if (typeof id !== "string") {
    return undefined;
  }
  const entry = clientFor();
  const folder = entry?.folder.uri.toString() ?? "";
  if (a.diff === true) {
    const uri = vscode.Uri.from({ scheme: MEMORY_SCHEME, path: `/what changed ${id}.diff`, query: new URLSearchParams({ id, folder, diff: "1" }).toString() });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    return undefined;
  }
  const args: Record<string, unknown> = { id };
  if (a.edit === true) {
    args.edit = true;
  }
  const result = (await exec(entry, model.Commands.show, [args])) as { file?: string } | undefined;
  const memory = model.parseMemoryList(result)[0];
  if (!memory) {
    return result;
  }
  if (a.edit === true) {
    if (!result?.file) {
      await editMemoryText(entry, memory);
    }
    return result;
  }
  await openMemoryDocument(memory, folder);
  return result;
}

/** Asks for a memory's new text (an input box) and sends gloss.update. */
async function editMemoryText(entry: FolderClient | undefined, memory: model.Memory): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: `Gloss: Edit "${model.memoryLabel(memory)}" (a personal memory: no file to open)`,
    prompt: "Memory text (line breaks are shown as \\n)",
    value: model.escapeNewlines(memory.body),
    ignoreFocusOut: true,
  });
  if (value === undefined || value === model.escapeNewlines(memory.body)) {
    return;
  }
  try {
    await mutate(entry, model.Commands.update, model.updateArgs(memory.id, { text: model.unescapeNewlines(value) }));
  } catch (err) {
    showError(err);
  }
}

async function openMemoryDocument(memory: model.Memory, folder: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(memoryDocUri(memory, folder));
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function openAnchor(folderKey: string, anchor: model.Anchor): Promise<void> {
  const entry = clients.get(folderKey);
  const base = entry?.folder.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  const uri = vscode.Uri.file(model.resolveAnchorPath(base, anchor.path));
  const r = model.anchorRange(anchor);
  const doc = await vscode.workspace.openTextDocument(uri);
  const end = doc.lineAt(Math.min(r.end.line, doc.lineCount - 1)).range.end;
  const range = new vscode.Range(Math.min(r.start.line, doc.lineCount - 1), 0, end.line, end.character);
  await vscode.window.showTextDocument(doc, { selection: range, preview: true });
}

// ---------------------------------------------------------------------------
// Tree view

type Node =
  | { kind: "folder"; key: string; folder: vscode.WorkspaceFolder }
  | { kind: "file"; key: string; group: model.FileGroup }
  | { kind: "memory"; key: string; entry: model.AnchoredMemory }
  | { kind: "more"; key: string; shown: number }
  | { kind: "message"; text: string };

/** A folder's memories in the tree: the pages fetched so far, grouped, and the cursor of the next page. */
interface Listing {
  memories: model.Memory[];
  groups: model.FileGroup[];
  nextCursor?: string;
}

class MemoryTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private cache = new Map<string, Listing>();

  refresh(): void {
    this.cache.clear();
    this.changed.fire(undefined);
  }

  /** Replace a folder's memories with a result we already have (e.g. from gloss.check). */
  setMemories(key: string, memories: model.Memory[]): void {
    remember(memories, key);
    this.cache.set(key, { memories, groups: model.groupByFile(memories, key) });
    this.changed.fire(undefined);
  }

  /** The folder's listing, its first page fetched (gloss.list, model.LIST_PAGE memories) when not cached. */
  private async listing(key: string): Promise<Listing> {
    const cached = this.cache.get(key);
    if (cached) {
      return cached;
    }
    const page = model.parseListPage(await exec(clients.get(key), model.Commands.list, model.listArgs()));
    remember(page.memories, key);
    const listing = { memories: page.memories, groups: model.groupByFile(page.memories, key), nextCursor: page.nextCursor };
    this.cache.set(key, listing);
    return listing;
  }

  /** Fetches the folder's next page of memories into the tree ("Load more"). */
  async loadMore(key: string): Promise<void> {
    const cached = this.cache.get(key);
    if (!cached?.nextCursor) {
      return;
    }
    const page = model.parseListPage(await exec(clients.get(key), model.Commands.list, model.listArgs(cached.nextCursor)));
    remember(page.memories, key);
    const memories = cached.memories.concat(page.memories);
    this.cache.set(key, { memories, groups: model.groupByFile(memories, key), nextCursor: page.nextCursor });
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    try {
      if (!node) {
        const entries = [...clients.entries()];
        if (entries.length === 0) {
          return [];
        }
        if (entries.length > 1) {
          return entries.map(([key, e]) => ({ kind: "folder", key, folder: e.folder }));
        }
        return this.fileNodes(entries[0][0]);
      }
      if (node.kind === "folder") {
        return this.fileNodes(node.key);
      }
      if (node.kind === "file") {
        return node.group.entries.map((entry) => ({ kind: "memory", key: node.key, entry }));
      }
      return [];
    } catch (err) {
      output.appendLine(`[gloss] gloss.list: ${String(err)}`);
      return [{ kind: "message", text: `gloss unavailable: ${err instanceof Error ? err.message : String(err)}` }];
    }
  }

  private async fileNodes(key: string): Promise<Node[]> {
    const listing = await this.listing(key);
    const nodes: Node[] = listing.groups.map((group) => ({ kind: "file", key, group }));
    if (listing.nextCursor) {
      nodes.push({ kind: "more", key, shown: listing.memories.length });
    }
    return nodes;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case "message": {
        const item = new vscode.TreeItem(node.text);
        item.iconPath = new vscode.ThemeIcon("error");
        return item;
      }
      case "more": {
        const item = new vscode.TreeItem("Load more memories…");
        item.description = `${node.shown} shown`;
        item.iconPath = new vscode.ThemeIcon("ellipsis");
        item.command = { command: "gloss.tree.loadMore", title: "Load more memories", arguments: [node.key] };
        return item;
      }
      case "folder": {
        const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = "gloss.folder";
        return item;
      }
      case "file": {
        const g = node.group;
        const label = g.path === model.UNANCHORED ? "(not anchored)" : g.path;
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
        item.description = model.formatGroupDescription(g);
        if (g.path !== model.UNANCHORED) {
          const base = clients.get(node.key)?.folder.uri.fsPath ?? "";
          item.resourceUri = vscode.Uri.file(model.resolveAnchorPath(base, g.path));
        }
        item.iconPath =
          g.staleCount > 0
            ? new vscode.ThemeIcon("warning", new vscode.ThemeColor("list.warningForeground"))
            : vscode.ThemeIcon.File;
        item.contextValue = "gloss.file";
        return item;
      }
      case "memory": {
        const { memory, anchor, stale } = node.entry;
        const item = new vscode.TreeItem(model.memoryLabel(memory), vscode.TreeItemCollapsibleState.None);
        item.id = `${node.key}|${memory.id}|${anchor?.path ?? ""}|${anchor?.start_line ?? 0}|${anchor?.symbol ?? ""}`;
        item.description = anchor ? `${memory.type} · ${model.formatAnchorDescription(anchor)}` : memory.type;
        item.tooltip = new vscode.MarkdownString(model.renderMemoryMarkdown(memory));
        item.iconPath = stale
          ? new vscode.ThemeIcon("warning", new vscode.ThemeColor("list.warningForeground"))
          : new vscode.ThemeIcon("note");
        item.contextValue = stale ? "gloss.memory.stale" : "gloss.memory";
        item.command = { command: "gloss.tree.open", title: "Open", arguments: [node] };
        return item;
      }
    }
  }
}

function memoryNodeArg(node: unknown): { key: string; entry: model.AnchoredMemory } | undefined {
  const n = node as Node | undefined;
  if (n && n.kind === "memory") {
    return n;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Status bar

class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    this.item.name = "Gloss";
    this.item.command = "glossMemories.focus";
    this.item.text = "$(note) gloss";
    this.item.tooltip = "gloss: starting…";
    this.item.show();
    this.schedule();
  }

  schedule(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    const seconds = config().get<number>("statusRefreshInterval", 30);
    if (seconds > 0) {
      this.timer = setInterval(() => void this.refresh(), Math.max(5, seconds) * 1000);
    }
  }

  async refresh(): Promise<void> {
    const entries = [...clients.values()];
    if (entries.length === 0) {
      this.item.text = "$(note) gloss";
      this.item.tooltip = "gloss: no workspace folder";
      return;
    }
    const results = await Promise.allSettled(
      entries.map(async (e) => model.parseStatus(await exec(e, model.Commands.status, model.emptyArgs()))),
    );
    const ok = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    if (ok.length === 0) {
      this.item.text = "$(note) gloss $(error)";
      this.item.tooltip = "gloss: server not running (see the gloss output)";
      this.item.backgroundColor = undefined;
      return;
    }
    const total = model.sumStatus(ok);
    this.item.text = model.formatStatusText(total);
    this.item.tooltip = model.formatStatusTooltip(total);
    this.item.backgroundColor =
      total.stale > 0 ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  dispose(): void {
    if (this.timer) {
      clearInterval(this.timer);
    }
    this.item.dispose();
  }
}

// ---------------------------------------------------------------------------
// Commands

async function rememberSelection(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showInformationMessage("Gloss: open a file and select the code to remember.");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    model.MEMORY_TYPES.map((t) => ({ label: t.type, description: t.description })),
    { title: "Gloss: Remember Selection (1/2)", placeHolder: "What kind of memory is this?" },
  );
  if (!picked) {
    return;
  }
  const text = await vscode.window.showInputBox({
    title: "Gloss: Remember Selection (2/2)",
    prompt: "What should be remembered about this code? Leave empty to write a longer draft in Markdown.",
    placeHolder: "e.g. Must be called with the lock held; see incident 2024-03",
    ignoreFocusOut: true,
  });
  if (text === undefined) {
    return;
  }
  const sel = editor.selection;
  const uri = editor.document.uri.toString();
  const args = model.rememberArgs({
    uri,
    range: {
      start: { line: sel.start.line, character: sel.start.character },
      end: { line: sel.end.line, character: sel.end.character },
    },
    text,
    type: picked.label,
  });
  try {
    const result = await mutate(clientFor(uri), model.Commands.remember, args);
    const saved = model.parseMemoryList(result)[0];
    if (text.trim()) {
      void vscode.window.showInformationMessage(
        saved ? `Gloss: remembered "${model.memoryLabel(saved)}"` : "Gloss: remembered.",
      );
    }
  } catch (err) {
    showError(err);
  }
}

async function showMemoriesAt(args: unknown[]): Promise<void> {
  const a = firstArg(args);
  let uri = typeof a.uri === "string" ? a.uri : undefined;
  let range = a.range as model.Range | undefined;
  const editor = vscode.window.activeTextEditor;
  if ((!uri || !range) && editor) {
    uri = editor.document.uri.toString();
    const s = editor.selection;
    range = {
      start: { line: s.start.line, character: s.start.character },
      end: { line: s.end.line, character: s.end.character },
    };
  }
  if (!uri || !range) {
    return;
  }
  const entry = clientFor(uri);
  const folder = entry?.folder.uri.toString() ?? "";
  try {
    const memories = model.parseMemoryList(await exec(entry, model.Commands.memoriesAt, model.locationArgs(uri, range)));
    remember(memories, folder);
    await pickAndOpen(memories, folder, "Memories here");
  } catch (err) {
    showError(err);
  }
}

async function pickAndOpen(memories: model.Memory[], folder: string, title: string): Promise<void> {
  if (memories.length === 0) {
    void vscode.window.showInformationMessage("Gloss: no memories found.");
    return;
  }
  const chosen =
    memories.length === 1
      ? { memory: memories[0] }
      : await vscode.window.showQuickPick(
          memories.map((memory) => ({
            label: `${model.isStale(memory) ? "$(warning)" : "$(note)"} ${model.memoryLabel(memory)}`,
            description: memory.type,
            detail: model.deriveTitle(memory.body, 120),
            memory,
          })),
          { title: `Gloss: ${title}`, matchOnDescription: true, matchOnDetail: true },
        );
  if (chosen) {
    await openMemoryDocument(chosen.memory, folder);
  }
}

async function searchMemories(): Promise<void> {
  const query = await vscode.window.showInputBox({ title: "Gloss: Search Memories", prompt: "Search text" });
  if (!query) {
    return;
  }
  const entry = clientFor();
  try {
    const memories = model.parseMemoryList(await exec(entry, model.Commands.search, model.searchArgs(query)));
    const folder = entry?.folder.uri.toString() ?? "";
    remember(memories, folder);
    await pickAndOpen(memories, folder, `Search: ${query}`);
  } catch (err) {
    showError(err);
  }
}

async function checkMemories(): Promise<void> {
  let stale = 0;
  let total = 0;
  for (const [key, entry] of clients) {
    try {
      const memories = model.parseMemoryList(await exec(entry, model.Commands.check, model.emptyArgs()));
      total += memories.length;
      stale += memories.filter(model.isStale).length;
      tree.setMemories(key, memories);
    } catch (err) {
      showError(err);
    }
  }
  void statusBar.refresh();
  void vscode.window.showInformationMessage(`Gloss: checked ${total} memories, ${stale} stale.`);
}

async function treeEdit(node: unknown): Promise<void> {
  const n = memoryNodeArg(node);
  if (!n) {
    return;
  }
  await editMemoryText(clients.get(n.key), n.entry.memory);
}

async function treeVerify(node: unknown): Promise<void> {
  const n = memoryNodeArg(node);
  if (!n) {
    return;
  }
  try {
    await mutate(clients.get(n.key), model.Commands.verify, model.idArgs(n.entry.memory.id));
    void vscode.window.showInformationMessage(`Gloss: verified "${model.memoryLabel(n.entry.memory)}".`);
  } catch (err) {
    showError(err);
  }
}

async function treeForget(node: unknown): Promise<void> {
  const n = memoryNodeArg(node);
  if (!n) {
    return;
  }
  const choice = await vscode.window.showWarningMessage(
    `Forget the memory "${model.memoryLabel(n.entry.memory)}"?`,
    { modal: true },
    "Forget",
  );
  if (choice !== "Forget") {
    return;
  }
  try {
    await mutate(clients.get(n.key), model.Commands.forget, model.idArgs(n.entry.memory.id));
  } catch (err) {
    showError(err);
  }
}

async function treeOpen(node: unknown): Promise<void> {
  const n = memoryNodeArg(node);
  if (!n) {
    return;
  }
  try {
    if (n.entry.anchor) {
      await openAnchor(n.key, n.entry.anchor);
    } else {
      await openMemoryDocument(n.entry.memory, n.key);
    }
  } catch (err) {
    showError(err);
  }
}

/**
 * Client-side handlers for the server's commands, so that code lenses, code actions and
 * other extensions can run them. Mutating ones refresh the tree and status bar.
 */
function registerServerCommandProxies(context: vscode.ExtensionContext): void {
  const mutating = [model.Commands.remember, model.Commands.update, model.Commands.verify, model.Commands.forget];
  const readOnly = [
    model.Commands.memoriesAt,
    model.Commands.list,
    model.Commands.check,
    model.Commands.status,
    model.Commands.search,
  ];
  for (const name of mutating) {
    context.subscriptions.push(
      vscode.commands.registerCommand(name, async (...args: unknown[]) => {
        try {
          return await mutate(clientFor(firstArg(args).uri as string | undefined), name, args);
        } catch (err) {
          showError(err);
          return undefined;
        }
      }),
    );
  }
  for (const name of readOnly) {
    context.subscriptions.push(
      vscode.commands.registerCommand(name, (...args: unknown[]) =>
        exec(clientFor(firstArg(args).uri as string | undefined), name, args.length ? args : model.emptyArgs()),
      ),
    );
  }
  context.subscriptions.push(
    vscode.commands.registerCommand(model.Commands.showMemories, (...args: unknown[]) => showMemoriesAt(args)),
    vscode.commands.registerCommand(model.Commands.show, (...args: unknown[]) => showCommand(firstArg(args))),
  );
}

// ---------------------------------------------------------------------------
// Activation

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel("gloss");
  tree = new MemoryTreeProvider();
  statusBar = new StatusBar();

  context.subscriptions.push(
    output,
    statusBar,
    vscode.window.createTreeView("glossMemories", { treeDataProvider: tree, showCollapseAll: true }),
    vscode.workspace.registerTextDocumentContentProvider(MEMORY_SCHEME, new MemoryDocumentProvider()),
    vscode.commands.registerCommand("gloss.rememberSelection", rememberSelection),
    vscode.commands.registerCommand("gloss.refreshMemories", () => {
      tree.refresh();
      return statusBar.refresh();
    }),
    vscode.commands.registerCommand("gloss.checkMemories", checkMemories),
    vscode.commands.registerCommand("gloss.searchMemories", searchMemories),
    vscode.commands.registerCommand("gloss.restartServer", restartAll),
    vscode.commands.registerCommand("gloss.tree.open", treeOpen),
    vscode.commands.registerCommand("gloss.tree.edit", treeEdit),
    vscode.commands.registerCommand("gloss.tree.verify", treeVerify),
    vscode.commands.registerCommand("gloss.tree.forget", treeForget),
    vscode.commands.registerCommand("gloss.tree.loadMore", async (key: string) => {
      try {
        await tree.loadMore(key);
      } catch (err) {
        showError(err);
      }
    }),
    // Document selectors depend on the number of folders, so restart them all.
    vscode.workspace.onDidChangeWorkspaceFolders(() => restartAll()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("gloss.path") || e.affectsConfiguration("gloss.embedder")) {
        await restartAll();
      } else if (e.affectsConfiguration("gloss.statusRefreshInterval")) {
        statusBar.schedule();
      }
    }),
    vscode.workspace.onDidSaveTextDocument(debounce(() => {
      tree.refresh();
      void statusBar.refresh();
    }, 1500)),
  );
  registerServerCommandProxies(context);

  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    startClient(folder);
  }
  void statusBar.refresh();
}

export async function deactivate(): Promise<void> {
  await Promise.all([...clients.keys()].map(stopClient));
}

function debounce(fn: () => void, ms: number): () => void {
  let t: NodeJS.Timeout | undefined;
  return () => {
    if (t) {
      clearTimeout(t);
    }
    t = setTimeout(fn, ms);
  };
}

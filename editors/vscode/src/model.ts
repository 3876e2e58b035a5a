// Pure data helpers for the gloss VS Code extension.
//
// Nothing in this module imports `vscode`, so it can be unit-tested with plain
// node (`npm test`). extension.ts does the VS Code plumbing around it.

import * as path from "path";

/** Memory types understood by the gloss server, with a one-line hint for the quick pick. */
export const MEMORY_TYPES: ReadonlyArray<{ type: MemoryType; description: string }> = [
  { type: "note", description: "Anything worth remembering" },
  { type: "gotcha", description: "A trap that bites people who don't know" },
  { type: "decision", description: "Why it is done this way" },
  { type: "convention", description: "A rule the codebase follows" },
  { type: "pattern", description: "A recurring way of solving something here" },
  { type: "requirement", description: "A constraint imposed from outside" },
  { type: "error_pattern", description: "An error, its cause and its fix" },
  { type: "module_insight", description: "How this module really works" },
  { type: "workflow", description: "Steps to follow when touching this" },
  { type: "dead_end", description: "Something tried that did not work" },
];

export type MemoryType =
  | "gotcha"
  | "decision"
  | "convention"
  | "pattern"
  | "requirement"
  | "error_pattern"
  | "module_insight"
  | "workflow"
  | "dead_end"
  | "note";

export type AnchorStatus = "fresh" | "moved" | "changed" | "signature_changed" | "deleted";

export interface Anchor {
  path: string;
  symbol: string;
  /** 1-based, inclusive. */
  start_line: number;
  /** 1-based, inclusive. */
  end_line: number;
  /** One of AnchorStatus; kept as string so unknown future statuses still parse. */
  status: string;
}

export interface Memory {
  id: string;
  title: string;
  type: string;
  body: string;
  stale: boolean;
  tags?: string[];
  anchors: Anchor[];
}

export interface GlossStatus {
  memories: number;
  stale: number;
  files: number;
  symbols: number;
}

/** LSP position: 0-based line, UTF-16 code unit character. */
export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** Server command names (workspace/executeCommand). */
export const Commands = {
  remember: "gloss.remember",
  memoriesAt: "gloss.memoriesAt",
  list: "gloss.list",
  check: "gloss.check",
  show: "gloss.show",
  update: "gloss.update",
  verify: "gloss.verify",
  forget: "gloss.forget",
  showMemories: "gloss.showMemories",
  status: "gloss.status",
  search: "gloss.search",
} as const;

/** Anchor statuses that do not make a memory stale. */
const FRESH_STATUSES = new Set(["fresh", "moved"]);

// ---------------------------------------------------------------------------
// Argument building. Every gloss command takes exactly one JSON object.

export interface RememberInput {
  uri: string;
  range: Range;
  text?: string;
  type?: string;
  title?: string;
  tags?: string[];
}

/** Arguments for `gloss.remember`. Empty text is dropped so the server creates a draft. */
export function rememberArgs(input: RememberInput): [Record<string, unknown>] {
  const arg: Record<string, unknown> = { uri: input.uri, range: cloneRange(input.range) };
  const text = input.text?.trim();
  if (text) {
    arg.text = text;
  }
  if (input.type) {
    arg.type = input.type;
  }
  const title = input.title?.trim() || (text ? deriveTitle(text) : "");
  if (title) {
    arg.title = title;
  }
  if (input.tags && input.tags.length > 0) {
    arg.tags = [...input.tags];
  }
  return [arg];
}

export function locationArgs(uri: string, range: Range): [{ uri: string; range: Range }] {
  return [{ uri, range: cloneRange(range) }];
}

export function idArgs(id: string): [{ id: string }] {
  return [{ id }];
}

export interface UpdateFields {
  text?: string;
  title?: string;
  type?: string;
  tags?: string[];
}

/** Arguments for `gloss.update`; fields left undefined are not sent (the server keeps them). */
export function updateArgs(id: string, fields: UpdateFields): [Record<string, unknown>] {
  const arg: Record<string, unknown> = { id };
  for (const key of ["text", "title", "type", "tags"] as const) {
    const value = fields[key];
    if (value !== undefined) {
      arg[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return [arg];
}

export function emptyArgs(): [Record<string, never>] {
  return [{}];
}

/**
 * Memories per page of the memory tree (gloss.list's `limit`): at 100,000
 * memories the whole list is a 70 MB answer; the first page shows at once
 * and "Load more" fetches the next (listArgs with the page's cursor).
 */
export const LIST_PAGE = 2000;

/** The argument of gloss.list for one page of the memory tree, after `cursor` (its next_cursor). */
export function listArgs(cursor?: string): [{ limit: number; cursor?: string }] {
  return [cursor ? { limit: LIST_PAGE, cursor } : { limit: LIST_PAGE }];
}

export function searchArgs(query: string): [{ query: string }] {
  return [{ query }];
}

function cloneRange(r: Range): Range {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}

/** First non-empty line of the text, without Markdown heading marks, at most `max` characters. */
export function deriveTitle(text: string, max = 72): string {
  const line =
    text
      .split(/\r?\n/)
      .map((l) => l.replace(/^#+\s*/, "").trim())
      .find((l) => l.length > 0) ?? "";
  if (line.length <= max) {
    return line;
  }
  return line.slice(0, max - 1).trimEnd() + "…";
}

/**
 * Multi-line text shown in a single-line input box: line breaks become "\n" and
 * backslashes are doubled so that unescapeNewlines(escapeNewlines(s)) === s.
 */
export function escapeNewlines(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\r?\n/g, "\\n");
}

export function unescapeNewlines(text: string): string {
  return text.replace(/\\(\\|n)/g, (_m: string, c: string) => (c === "n" ? "\n" : "\\"));
}

/** "a, b  c" -> ["a", "b", "c"] */
export function parseTags(input: string): string[] {
  return input
    .split(/[,\s]+/)
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

// ---------------------------------------------------------------------------
// Parsing server results defensively.

function str(v: unknown, fallback = ""): string {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : fallback;
}

function num(v: unknown, fallback = 0): number {
  return typeof v === "number" && Number.isFinite(v) ? v : fallback;
}

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" ? (v as Record<string, unknown>) : {};
}

export function parseAnchor(raw: unknown): Anchor {
  const a = obj(raw);
  const start = num(a.start_line, 1);
  return {
    path: str(a.path),
    symbol: str(a.symbol),
    start_line: start,
    end_line: num(a.end_line, start),
    status: str(a.status, "fresh"),
  };
}

export function parseMemory(raw: unknown): Memory {
  const m = obj(raw);
  const anchors = Array.isArray(m.anchors) ? m.anchors.map(parseAnchor) : [];
  const memory: Memory = {
    id: str(m.id),
    title: str(m.title),
    type: str(m.type, "note"),
    body: str(m.body ?? m.text),
    stale: false,
    anchors,
  };
  if (Array.isArray(m.tags)) {
    memory.tags = m.tags.filter((t): t is string => typeof t === "string");
  }
  memory.stale = m.stale === true || anchors.some((a) => !FRESH_STATUSES.has(a.status));
  return memory;
}

/** Accepts `{memories:[...]}`, a bare array, or a single memory object (gloss.show). */
/** One page of gloss.list: its memories and, when more follow, the cursor of the next page. */
export interface ListPage {
  memories: Memory[];
  nextCursor?: string;
}

export function parseListPage(result: unknown): ListPage {
  const memories = parseMemoryList(result);
  const next = Array.isArray(result) ? undefined : obj(result).next_cursor;
  return typeof next === "string" && next !== "" ? { memories, nextCursor: next } : { memories };
}

export function parseMemoryList(result: unknown): Memory[] {
  if (Array.isArray(result)) {
    return result.map(parseMemory);
  }
  const r = obj(result);
  if (Array.isArray(r.memories)) {
    return r.memories.map(parseMemory);
  }
  if (typeof r.id === "string") {
    return [parseMemory(r)];
  }
  return [];
}

export function parseStatus(result: unknown): GlossStatus {
  const r = obj(result);
  return {
    memories: num(r.memories),
    stale: num(r.stale),
    files: num(r.files),
    symbols: num(r.symbols),
  };
}

export function isStale(memory: Memory): boolean {
  return memory.stale || memory.anchors.some((a) => !FRESH_STATUSES.has(a.status));
}

// ---------------------------------------------------------------------------
// Tree grouping.

export interface AnchoredMemory {
  memory: Memory;
  /** Undefined for memories without anchors. */
  anchor?: Anchor;
  /** Whether this particular anchor (or the memory, when unanchored) is stale. */
  stale: boolean;
}

export interface FileGroup {
  /** Anchor path as reported by the server; "" for the unanchored group. */
  path: string;
  /** Workspace folder key (e.g. its URI) the memories came from. */
  folder?: string;
  entries: AnchoredMemory[];
  staleCount: number;
}

export const UNANCHORED = "";

/**
 * Groups memories by anchor file. A memory anchored in several files appears in each of
 * them (once per anchor); memories without anchors go in a last group with path "".
 * Files are sorted by path, entries by start line then title.
 */
export function groupByFile(memories: Memory[], folder?: string): FileGroup[] {
  const groups = new Map<string, FileGroup>();
  const get = (p: string): FileGroup => {
    let g = groups.get(p);
    if (!g) {
      g = { path: p, entries: [], staleCount: 0 };
      if (folder !== undefined) {
        g.folder = folder;
      }
      groups.set(p, g);
    }
    return g;
  };
  for (const memory of memories) {
    if (memory.anchors.length === 0) {
      const g = get(UNANCHORED);
      g.entries.push({ memory, stale: memory.stale });
      continue;
    }
    for (const anchor of memory.anchors) {
      const g = get(anchor.path);
      g.entries.push({ memory, anchor, stale: memory.stale || !FRESH_STATUSES.has(anchor.status) });
    }
  }
  const result = [...groups.values()];
  for (const g of result) {
    g.entries.sort(
      (a, b) =>
        (a.anchor?.start_line ?? 0) - (b.anchor?.start_line ?? 0) ||
        a.memory.title.localeCompare(b.memory.title) ||
        a.memory.id.localeCompare(b.memory.id),
    );
    // A memory counted once per file even if it has several anchors there.
    g.staleCount = new Set(g.entries.filter((e) => e.stale).map((e) => e.memory.id)).size;
  }
  result.sort((a, b) => {
    if (a.path === UNANCHORED) {
      return b.path === UNANCHORED ? 0 : 1;
    }
    if (b.path === UNANCHORED) {
      return -1;
    }
    return a.path.localeCompare(b.path);
  });
  return result;
}

// ---------------------------------------------------------------------------
// Formatting.

/** Status bar text, e.g. "$(note) 12 · 3 stale". */
export function formatStatusText(status: GlossStatus): string {
  return `$(note) ${status.memories} · ${status.stale} stale`;
}

export function formatStatusTooltip(status: GlossStatus): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    `gloss: ${plural(status.memories, "memory", "memories")}, ${status.stale} stale, ` +
    `across ${plural(status.files, "file", "files")} and ${plural(status.symbols, "symbol", "symbols")}`
  );
}

export function sumStatus(list: GlossStatus[]): GlossStatus {
  return list.reduce(
    (acc, s) => ({
      memories: acc.memories + s.memories,
      stale: acc.stale + s.stale,
      files: acc.files + s.files,
      symbols: acc.symbols + s.symbols,
    }),
    { memories: 0, stale: 0, files: 0, symbols: 0 },
  );
}

/** "L12–20 · changed" or "L7" for a fresh single-line anchor. */
export function formatAnchorDescription(anchor: Anchor): string {
  const lines =
    anchor.end_line > anchor.start_line ? `L${anchor.start_line}–${anchor.end_line}` : `L${anchor.start_line}`;
  return anchor.status === "fresh" ? lines : `${lines} · ${anchor.status.replace(/_/g, " ")}`;
}

export function formatGroupDescription(group: FileGroup): string {
  const n = new Set(group.entries.map((e) => e.memory.id)).size;
  const base = `${n} ${n === 1 ? "memory" : "memories"}`;
  return group.staleCount > 0 ? `${base}, ${group.staleCount} stale` : base;
}

export function memoryLabel(memory: Memory): string {
  return memory.title || deriveTitle(memory.body) || memory.id;
}

/** Markdown rendering of a memory, used for the read-only memory document and tooltips. */
export function renderMemoryMarkdown(memory: Memory): string {
  const out: string[] = [];
  out.push(`# ${memoryLabel(memory)}`, "");
  const meta = [`**type:** ${memory.type}`, `**id:** \`${memory.id}\``];
  if (isStale(memory)) {
    meta.push("**⚠ stale**");
  }
  if (memory.tags && memory.tags.length > 0) {
    meta.push(`**tags:** ${memory.tags.join(", ")}`);
  }
  out.push(meta.join(" · "), "");
  if (memory.body.trim()) {
    out.push(memory.body.trim(), "");
  }
  if (memory.anchors.length > 0) {
    out.push("## Anchors", "");
    for (const a of memory.anchors) {
      const sym = a.symbol ? ` \`${a.symbol}\`` : "";
      out.push(`- ${a.path}:${a.start_line}-${a.end_line} (${a.status})${sym}`);
    }
    out.push("");
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------
// Locations and document selectors.

/** Resolves an anchor path (absolute, file:// URI, or relative to the workspace folder). */
export function resolveAnchorPath(folderFsPath: string, anchorPath: string): string {
  if (anchorPath.startsWith("file://")) {
    return decodeURIComponent(anchorPath.replace(/^file:\/\//, ""));
  }
  if (path.isAbsolute(anchorPath)) {
    return anchorPath;
  }
  return path.join(folderFsPath, anchorPath);
}

/** 1-based inclusive anchor lines -> LSP range covering whole lines. */
export function anchorRange(anchor: Anchor): Range {
  const start = Math.max(0, anchor.start_line - 1);
  const end = Math.max(start, anchor.end_line - 1);
  return { start: { line: start, character: 0 }, end: { line: end, character: Number.MAX_SAFE_INTEGER } };
}

export interface DocumentFilter {
  scheme: string;
  pattern?: string;
}

/**
 * Every file of every language. With a single workspace folder this is just
 * `[{scheme: "file"}]`; with several, each folder's client only takes its own files so
 * that two gloss servers never answer for the same document.
 */
export function documentSelectorFor(folderFsPath: string, folderCount: number): DocumentFilter[] {
  if (folderCount <= 1) {
    return [{ scheme: "file" }];
  }
  const glob = folderFsPath.replace(/\\/g, "/").replace(/\/+$/, "");
  return [{ scheme: "file", pattern: `${glob}/**/*` }];
}

/** Environment for the server process. */
export function serverEnv(base: NodeJS.ProcessEnv, embedder: string): NodeJS.ProcessEnv {
  const env = { ...base };
  if (embedder.trim()) {
    env.GLOSS_EMBEDDER = embedder.trim();
  }
  return env;
}

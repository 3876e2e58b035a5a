// Unit tests for the VS Code-free logic. Run with `npm test` (node's built-in test runner).

import { describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import * as model from "../model";

const anchor = (p: string, start: number, status = "fresh", end = start): model.Anchor => ({
  path: p,
  symbol: `scip-go gomod example v1 \`example\`/F${start}().`,
  start_line: start,
  end_line: end,
  status,
});

const mem = (id: string, title: string, anchors: model.Anchor[], stale = false): model.Memory => ({
  id,
  title,
  type: "note",
  body: `body of ${title}`,
  stale,
  anchors,
});

const range: model.Range = { start: { line: 4, character: 2 }, end: { line: 9, character: 0 } };

describe("argument building", () => {
  it("rememberArgs sends one object with uri, range, text, type and a derived title", () => {
    const args = model.rememberArgs({ uri: "file:///w/a.go", range, text: "  Hold the lock\nbecause…  ", type: "gotcha" });
    assert.equal(args.length, 1);
    assert.deepEqual(args[0], {
      uri: "file:///w/a.go",
      range,
      text: "Hold the lock\nbecause…",
      type: "gotcha",
      title: "Hold the lock",
    });
  });

  it("rememberArgs without text omits text and title so the server opens a draft", () => {
    const [arg] = model.rememberArgs({ uri: "file:///w/a.go", range, text: "   ", type: "decision" });
    assert.deepEqual(arg, { uri: "file:///w/a.go", range, type: "decision" });
    assert.ok(!("text" in arg));
  });

  it("rememberArgs keeps an explicit title and tags and copies the range", () => {
    const [arg] = model.rememberArgs({ uri: "u", range, text: "t", title: "T", tags: ["a", "b"] });
    assert.equal(arg.title, "T");
    assert.deepEqual(arg.tags, ["a", "b"]);
    assert.notEqual(arg.range, range, "range must be a copy");
  });

  it("updateArgs only sends the fields given", () => {
    assert.deepEqual(model.updateArgs("m1", { text: "new" }), [{ id: "m1", text: "new" }]);
    assert.deepEqual(model.updateArgs("m1", { title: "x", type: "gotcha", tags: [] }), [
      { id: "m1", title: "x", type: "gotcha", tags: [] },
    ]);
  });

  it("id, location, search and empty args", () => {
    assert.deepEqual(model.idArgs("m2"), [{ id: "m2" }]);
    assert.deepEqual(model.locationArgs("u", range), [{ uri: "u", range }]);
    assert.deepEqual(model.searchArgs("lock"), [{ query: "lock" }]);
    assert.deepEqual(model.emptyArgs(), [{}]);
  });

  it("deriveTitle takes the first non-empty line without heading marks and truncates", () => {
    assert.equal(model.deriveTitle("\n\n## Why\nmore"), "Why");
    const long = "x".repeat(100);
    const t = model.deriveTitle(long, 10);
    assert.equal(t.length, 10);
    assert.ok(t.endsWith("…"));
  });

  it("parseTags splits on commas and spaces", () => {
    assert.deepEqual(model.parseTags("a, b  c,,d"), ["a", "b", "c", "d"]);
    assert.deepEqual(model.parseTags("  "), []);
  });

  it("escapeNewlines round-trips", () => {
    for (const s of ["a\nb", "back\\slash\\n literal", "", "x\r\ny", "\\\\n"]) {
      assert.equal(model.unescapeNewlines(model.escapeNewlines(s)), s.replace(/\r\n/g, "\n"));
      assert.ok(!model.escapeNewlines(s).includes("\n"));
    }
  });

  it("command names match the server's", () => {
    assert.equal(model.Commands.remember, "gloss.remember");
    assert.equal(model.Commands.showMemories, "gloss.showMemories");
    assert.equal(model.MEMORY_TYPES.length, 10);
    assert.ok(model.MEMORY_TYPES.some((t) => t.type === "error_pattern"));
  });
});

describe("parsing", () => {
  it("parses a gloss.list result and derives staleness from anchors", () => {
    const list = model.parseMemoryList({
      memories: [
        { id: "a", title: "A", type: "gotcha", body: "b", stale: false, anchors: [anchor("x.go", 3)] },
        { id: "b", title: "B", type: "note", body: "b", stale: false, anchors: [anchor("x.go", 5, "signature_changed")] },
        { id: "c", title: "C", type: "note", body: "b", stale: true, anchors: [] },
      ],
    });
    assert.deepEqual(
      list.map((m) => [m.id, m.stale]),
      [
        ["a", false],
        ["b", true],
        ["c", true],
      ],
    );
  });

  it("parses a page of gloss.list and builds the next page's argument", () => {
    const page = model.parseListPage({ memories: [{ id: "a", title: "A", anchors: [anchor("x.go", 3)] }], next_cursor: "eyJpIjoiYSJ9" });
    assert.deepEqual(
      page.memories.map((m) => m.id),
      ["a"],
    );
    assert.equal(page.nextCursor, "eyJpIjoiYSJ9");
    assert.equal(model.parseListPage({ memories: [] }).nextCursor, undefined);
    assert.equal(model.parseListPage({ memories: [], next_cursor: "" }).nextCursor, undefined);
    assert.equal(model.parseListPage([{ id: "x" }]).nextCursor, undefined);
    assert.deepEqual(model.listArgs(), [{ limit: model.LIST_PAGE }]);
    assert.deepEqual(model.listArgs("c1"), [{ limit: model.LIST_PAGE, cursor: "c1" }]);
  });

  it("tolerates bare arrays, single objects, junk and missing fields", () => {
    assert.equal(model.parseMemoryList([{ id: "x" }]).length, 1);
    assert.equal(model.parseMemoryList({ id: "y", title: "t" })[0].title, "t");
    assert.deepEqual(model.parseMemoryList(null), []);
    assert.deepEqual(model.parseMemoryList("nope"), []);
    const m = model.parseMemory({ id: 7, anchors: [{ path: "p", start_line: 4 }] });
    assert.equal(m.id, "7");
    assert.equal(m.type, "note");
    assert.deepEqual(m.anchors[0], { path: "p", symbol: "", start_line: 4, end_line: 4, status: "fresh" });
  });

  it("parses status with defaults", () => {
    assert.deepEqual(model.parseStatus({ memories: 3, stale: 1, files: 2, symbols: 4 }), {
      memories: 3,
      stale: 1,
      files: 2,
      symbols: 4,
    });
    assert.deepEqual(model.parseStatus(undefined), { memories: 0, stale: 0, files: 0, symbols: 0 });
  });

  it("moved anchors are not stale, changed/deleted are", () => {
    assert.equal(model.isStale(mem("a", "A", [anchor("f", 1, "moved")])), false);
    assert.equal(model.isStale(mem("a", "A", [anchor("f", 1, "changed")])), true);
    assert.equal(model.isStale(mem("a", "A", [anchor("f", 1, "deleted")])), true);
  });
});

describe("groupByFile", () => {
  it("groups by anchor path, sorts files and entries, puts unanchored last", () => {
    const memories = [
      mem("1", "Zeta", [anchor("b.go", 20)]),
      mem("2", "Alpha", [anchor("b.go", 3, "changed")]),
      mem("3", "Loose", []),
      mem("4", "Multi", [anchor("a.go", 1), anchor("b.go", 10)]),
    ];
    const groups = model.groupByFile(memories, "file:///w");
    assert.deepEqual(
      groups.map((g) => g.path),
      ["a.go", "b.go", model.UNANCHORED],
    );
    assert.deepEqual(
      groups[1].entries.map((e) => e.memory.title),
      ["Alpha", "Multi", "Zeta"],
    );
    assert.equal(groups[1].staleCount, 1);
    assert.equal(groups[0].staleCount, 0);
    assert.equal(groups[0].folder, "file:///w");
    assert.equal(groups[2].entries[0].anchor, undefined);
  });

  it("marks only the stale anchor's entry stale unless the memory is stale", () => {
    const m = mem("1", "M", [anchor("a.go", 1), anchor("b.go", 2, "deleted")]);
    m.stale = false;
    const groups = model.groupByFile([m]);
    assert.equal(groups.find((g) => g.path === "a.go")?.entries[0].stale, false);
    assert.equal(groups.find((g) => g.path === "b.go")?.entries[0].stale, true);
    const s = mem("2", "S", [anchor("a.go", 1)], true);
    assert.equal(model.groupByFile([s])[0].entries[0].stale, true);
  });

  it("counts a memory once per file even with two stale anchors there", () => {
    const m = mem("1", "M", [anchor("a.go", 1, "changed"), anchor("a.go", 9, "deleted")]);
    const [g] = model.groupByFile([m]);
    assert.equal(g.entries.length, 2);
    assert.equal(g.staleCount, 1);
    assert.equal(model.formatGroupDescription(g), "1 memory, 1 stale");
  });

  it("returns no groups for no memories", () => {
    assert.deepEqual(model.groupByFile([]), []);
  });
});

describe("formatting", () => {
  it("status bar text", () => {
    assert.equal(model.formatStatusText({ memories: 12, stale: 3, files: 4, symbols: 9 }), "$(note) 12 · 3 stale");
    assert.equal(model.formatStatusText({ memories: 0, stale: 0, files: 0, symbols: 0 }), "$(note) 0 · 0 stale");
  });

  it("status tooltip pluralises", () => {
    assert.equal(
      model.formatStatusTooltip({ memories: 1, stale: 0, files: 1, symbols: 1 }),
      "gloss: 1 memory, 0 stale, across 1 file and 1 symbol",
    );
    assert.equal(
      model.formatStatusTooltip({ memories: 2, stale: 1, files: 3, symbols: 4 }),
      "gloss: 2 memories, 1 stale, across 3 files and 4 symbols",
    );
  });

  it("sums status over workspace folders", () => {
    assert.deepEqual(
      model.sumStatus([
        { memories: 1, stale: 1, files: 1, symbols: 1 },
        { memories: 2, stale: 0, files: 3, symbols: 5 },
      ]),
      { memories: 3, stale: 1, files: 4, symbols: 6 },
    );
  });

  it("anchor and group descriptions", () => {
    assert.equal(model.formatAnchorDescription(anchor("a", 7)), "L7");
    assert.equal(model.formatAnchorDescription(anchor("a", 12, "signature_changed", 20)), "L12–20 · signature changed");
    assert.equal(model.formatAnchorDescription(anchor("a", 3, "moved")), "L3 · moved");
  });

  it("memory label falls back to body then id", () => {
    assert.equal(model.memoryLabel({ ...mem("id1", "", []), body: "" }), "id1");
    assert.equal(model.memoryLabel({ ...mem("id1", "", []), body: "first\nsecond" }), "first");
  });

  it("renders markdown with stale marker, tags and anchors", () => {
    const m = { ...mem("m1", "Lock order", [anchor("x.go", 4, "changed", 8)]), tags: ["locks"] };
    const md = model.renderMemoryMarkdown(m);
    assert.match(md, /^# Lock order/);
    assert.match(md, /⚠ stale/);
    assert.match(md, /\*\*tags:\*\* locks/);
    assert.match(md, /- x\.go:4-8 \(changed\)/);
  });
});

describe("locations", () => {
  it("resolves relative, absolute and file:// anchor paths", () => {
    assert.equal(model.resolveAnchorPath("/w", "pkg/a.go"), path.join("/w", "pkg/a.go"));
    assert.equal(model.resolveAnchorPath("/w", "/abs/a.go"), "/abs/a.go");
    assert.equal(model.resolveAnchorPath("/w", "file:///abs/my%20file.go"), "/abs/my file.go");
  });

  it("converts 1-based inclusive lines to a 0-based whole-line range", () => {
    const r = model.anchorRange(anchor("a", 3, "fresh", 5));
    assert.deepEqual(r.start, { line: 2, character: 0 });
    assert.equal(r.end.line, 4);
    assert.deepEqual(model.anchorRange({ ...anchor("a", 0), end_line: 0 }).start, { line: 0, character: 0 });
  });

  it("document selector covers all files, scoped per folder only in multi-root", () => {
    assert.deepEqual(model.documentSelectorFor("/w", 1), [{ scheme: "file" }]);
    assert.deepEqual(model.documentSelectorFor("/w/", 2), [{ scheme: "file", pattern: "/w/**/*" }]);
    assert.deepEqual(model.documentSelectorFor("C:\\w", 2), [{ scheme: "file", pattern: "C:/w/**/*" }]);
  });

  it("server env passes the embedder only when set", () => {
    assert.equal(model.serverEnv({ A: "1" }, "").GLOSS_EMBEDDER, undefined);
    assert.equal(model.serverEnv({ A: "1" }, " ollama ").GLOSS_EMBEDDER, "ollama");
    assert.equal(model.serverEnv({ A: "1" }, "x").A, "1");
  });
});

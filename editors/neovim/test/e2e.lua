-- End-to-end test of the gloss Neovim plugin against the REAL `gloss lsp` server.
-- Run with test/e2e.sh, which builds gloss, makes a hermetic git fixture and sets
-- GLOSS_BIN, GLOSS_E2E_PROJECT and GLOSS_E2E_TMP.

local passed, failed = 0, 0
local function check(name, cond, detail)
  if cond then
    passed = passed + 1
    io.stdout:write("ok - " .. name .. "\n")
  else
    failed = failed + 1
    io.stdout:write("not ok - " .. name .. (detail and (": " .. tostring(detail)) or "") .. "\n")
  end
end

local function finish()
  io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
  vim.cmd(failed == 0 and "qa!" or "cquit 1")
end

local bin = vim.env.GLOSS_BIN
local project = vim.env.GLOSS_E2E_PROJECT
local has = function(f)
  return vim.fn.has(f) == 1
end

-- The wire traffic goes to Neovim's LSP log; used to prove the edit was sent incrementally.
vim.lsp.set_log_level("debug")

local notes = {}
vim.notify = function(msg)
  table.insert(notes, tostring(msg))
end

local MEMORY_TEXT = "Retries are capped at limit because upstream rate-limits bursts."

local gloss = require("gloss")
gloss.setup({ cmd = { bin, "lsp" } })

vim.cmd("edit " .. vim.fn.fnameescape(project .. "/main.go"))
local buf = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buf)

local ready = vim.wait(15000, function()
  local c = gloss.get_client(buf)
  return c ~= nil and c.initialized == true and vim.lsp.buf_is_attached(buf, c.id)
end, 50)
check("real gloss lsp starts and attaches", ready)
if not ready then
  return finish()
end
local client = gloss.get_client(buf)
check("client root is the fixture repository", client.config.root_dir == project, client.config.root_dir)

-- Sends a request to the gloss client only and waits for it.
local function request(method, params, timeout)
  local done, err, result = false, nil, nil
  local handler = function(e, r)
    done, err, result = true, e, r
  end
  if has("nvim-0.11") then
    client:request(method, params, handler, buf)
  else
    client.request(method, params, handler, buf)
  end
  if not vim.wait(timeout or 10000, function()
    return done
  end, 20) then
    return nil, "timeout"
  end
  if err then
    return nil, vim.inspect(err)
  end
  return result
end

local function line_of(pattern) -- 0-based line of the first buffer line matching pattern
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(pattern, 1, true) then
      return i - 1, l
    end
  end
  error("no line with " .. pattern)
end

local func_line = line_of("func Retry")
local doc_line = line_of("// Retry calls f")
local body_line, body_text = line_of('_, limit := "é𝄞", 3')
local end_line = func_line
for i = func_line, vim.api.nvim_buf_line_count(buf) - 1 do
  if vim.api.nvim_buf_get_lines(buf, i, i + 1, false)[1] == "}" then
    end_line = i
    break
  end
end

---------------------------------------------------------------------------
-- 1. Remember the function with :GlossRemember (its doc comment to its closing brace).
vim.cmd(string.format("%d,%dGlossRemember gotcha %s", doc_line + 1, end_line + 1, MEMORY_TEXT))
check(":GlossRemember stores the memory", vim.wait(10000, function()
  for _, n in ipairs(notes) do
    if n:find("gloss: remembered", 1, true) then
      return true
    end
  end
  return false
end, 50), vim.inspect(notes))

local list = request("workspace/executeCommand", { command = "gloss.list", arguments = { vim.empty_dict() } })
local mem = list and list.memories and list.memories[1]
check("gloss.list has the memory anchored to the Retry symbol",
  mem ~= nil and mem.body == MEMORY_TEXT and mem.type == "gotcha" and mem.anchors[1].kind == "symbol"
    and mem.anchors[1].start_line == func_line + 1 and mem.anchors[1].end_line == end_line + 1,
  vim.inspect(list))

---------------------------------------------------------------------------
-- 2a. textDocument/hover inside the function body returns Markdown with the text.
local hover, herr = request("textDocument/hover", {
  textDocument = { uri = uri },
  position = { line = body_line, character = 3 },
})
local hv = hover and hover.contents and hover.contents.value or ""
check("hover is Markdown", hover and hover.contents and hover.contents.kind == "markdown", herr or vim.inspect(hover))
check("hover contains the memory text", hv:find(MEMORY_TEXT, 1, true) ~= nil, hv)
check("hover says fresh", hv:find("fresh", 1, true) ~= nil, hv)
local none = request("textDocument/hover", { textDocument = { uri = uri }, position = { line = 0, character = 0 } })
check("hover outside the function is null", none == nil or none == vim.NIL, vim.inspect(none))

-- 2b. The same through Neovim's own hover UI (K): a float with the memory.
vim.api.nvim_win_set_cursor(0, { body_line + 1, 3 })
vim.lsp.buf.hover()
local float_text
check("vim.lsp.buf.hover() shows the memory in a float", vim.wait(5000, function()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      local t = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false), "\n")
      if t:find("capped at limit", 1, true) then
        float_text = t
        return true
      end
    end
  end
  return false
end, 50))
-- Close floats so they do not interfere later.
for _, w in ipairs(vim.api.nvim_list_wins()) do
  if vim.api.nvim_win_get_config(w).relative ~= "" then
    pcall(vim.api.nvim_win_close, w, true)
  end
end

---------------------------------------------------------------------------
-- 3a. textDocument/codeLens: one lens "1 memory" on the function.
local lenses, lerr = request("textDocument/codeLens", { textDocument = { uri = uri } })
local lens = lenses and lenses[1]
check("codeLens returns one lens titled \"1 memory\"",
  lenses and #lenses == 1 and lens.command and lens.command.title == "1 memory" and lens.command.command == "gloss.showMemories",
  lerr or vim.inspect(lenses))
check("code lens is on the func line", lens and lens.range.start.line == func_line, lens and vim.inspect(lens.range))

-- 3b. The plugin's lens refresh puts it in Neovim's code lens store (shown as virtual text).
pcall(vim.lsp.codelens.refresh)
check("vim.lsp.codelens has the \"1 memory\" lens", vim.wait(5000, function()
  for _, l in ipairs(vim.lsp.codelens.get(buf) or {}) do
    if l.command and l.command.title == "1 memory" then
      return true
    end
  end
  return false
end, 50), vim.inspect(vim.lsp.codelens.get(buf)))

---------------------------------------------------------------------------
-- 4. Edit one token inside the body through the buffer API (incremental didChange):
--    the 3 after "é𝄞" becomes 5. A `gloss` stale-memory diagnostic must arrive.
local col = body_text:find("3", 1, true) - 1 -- byte column
vim.api.nvim_buf_set_text(buf, body_line, col, body_line, col + 1, { "5" })

local function gloss_diag()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "gloss" and d.code == "stale-memory" then
      return d
    end
  end
end
local t0 = vim.loop.hrtime()
local got = vim.wait(10000, function()
  return gloss_diag() ~= nil
end, 20)
local ms = math.floor((vim.loop.hrtime() - t0) / 1e6)
local diag = gloss_diag()
check("stale-memory diagnostic from gloss arrives after the edit (" .. ms .. " ms)", got, vim.inspect(vim.diagnostic.get(buf)))
if diag then
  check("diagnostic is a Warning on the func line", diag.severity == vim.diagnostic.severity.WARN and diag.lnum == func_line,
    vim.inspect(diag))
  check("diagnostic message names the memory", diag.message:find("describes code that changed since", 1, true) ~= nil, diag.message)
end

-- The didChange on the wire was incremental: a range and just the new token, at the
-- UTF-16 column (the line has "é𝄞" before the 3: 2 UTF-16 units for 𝄞, 1 for é).
local utf16_col = select(2, vim.str_utfindex(body_text, col))
local log = ""
local lf = io.open(vim.lsp.get_log_path(), "r")
if lf then
  log = lf:read("*a")
  lf:close()
end
local incremental = false
for line in log:gmatch("[^\n]+") do
  if line:find("textDocument/didChange", 1, true) and line:find('text = "5"', 1, true)
    and line:find("character = " .. utf16_col, 1, true) and line:find("range = ", 1, true) then
    incremental = true
  end
end
check("didChange sent incrementally (range + \"5\" at UTF-16 column " .. utf16_col .. ")", incremental,
  "see " .. vim.lsp.get_log_path())

-- The server applied the edit at the right place: the stale hover shows the diff.
hover = request("textDocument/hover", { textDocument = { uri = uri }, position = { line = body_line, character = 1 } })
hv = hover and hover.contents and hover.contents.value or ""
check("stale hover shows the diff of the edited token",
  hv:find('-\t_, limit := "é𝄞", 3', 1, true) ~= nil and hv:find('+\t_, limit := "é𝄞", 5', 1, true) ~= nil, hv)
lenses = request("textDocument/codeLens", { textDocument = { uri = uri } })
check("code lens counts it stale", lenses and lenses[1] and lenses[1].command.title == "1 memory · 1 stale",
  vim.inspect(lenses))

---------------------------------------------------------------------------
-- 5. textDocument/codeAction at the diagnostic offers the quick fixes.
local want = { "Still valid — re-verify", "Edit memory", "Show what changed", "Forget memory", "Re-anchor to selection", "This memory is wrong" }
if diag then
  -- Back to an LSP diagnostic (Neovim 0.7 keeps only code/data/tags in user_data.lsp).
  -- The func line is ASCII, so byte columns equal UTF-16 columns here.
  local lsp_diag = {
    range = {
      start = { line = diag.lnum, character = diag.col },
      ["end"] = { line = diag.end_lnum or diag.lnum, character = diag.end_col or diag.col },
    },
    severity = diag.severity,
    message = diag.message,
    source = diag.source,
    code = diag.code,
    data = diag.user_data and diag.user_data.lsp and diag.user_data.lsp.data,
  }
  local actions, aerr = request("textDocument/codeAction", {
    textDocument = { uri = uri },
    range = lsp_diag.range,
    context = { diagnostics = { lsp_diag } },
  })
  local titles = {}
  for _, a in ipairs(actions or {}) do
    if a.kind == "quickfix" then
      table.insert(titles, a.title)
    end
  end
  check("codeAction offers the quick fixes", vim.deep_equal(titles, want), aerr or vim.inspect(titles))

  -- 6. The user's path: save, then `vim.lsp.buf.code_action()` and pick "Still valid —
  --    re-verify" (vim.ui.select stubbed); the diagnostic goes away.
  vim.cmd("silent write")
  vim.api.nvim_win_set_cursor(0, { func_line + 1, 0 })
  local offered = {}
  local orig_select = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    local pick
    for _, it in ipairs(items) do
      local a = it.action or it[2]
      table.insert(offered, a.title)
      if a.title == want[1] then
        pick = it
      end
    end
    cb(pick)
  end
  vim.lsp.buf.code_action()
  vim.wait(5000, function()
    return #offered > 0
  end, 20)
  vim.ui.select = orig_select
  check("vim.lsp.buf.code_action() offers \"Still valid — re-verify\"", vim.tbl_contains(offered, want[1]), vim.inspect(offered))
  check("re-verify clears the diagnostic", vim.wait(10000, function()
    return gloss_diag() == nil
  end, 50), vim.inspect(vim.diagnostic.get(buf)))
  lenses = request("textDocument/codeLens", { textDocument = { uri = uri } })
  check("lens back to \"1 memory\" after verify", lenses and lenses[1] and lenses[1].command.title == "1 memory",
    vim.inspect(lenses))
end

---------------------------------------------------------------------------
-- 7. Issue #11: what the plugin advertises and handles.
check("the client advertises window/showDocument (the plugin opens drafts)",
  client.config.capabilities.window and client.config.capabilities.window.showDocument
    and client.config.capabilities.window.showDocument.support == true,
  vim.inspect(client.config.capabilities.window))

-- 7a. A new edit makes the memory stale; "Show what changed" opens the diff in a buffer.
local cur_line = vim.api.nvim_buf_get_lines(buf, body_line, body_line + 1, false)[1]
local c5 = cur_line:find("5", 1, true) - 1
vim.api.nvim_buf_set_text(buf, body_line, c5, body_line, c5 + 1, { "7" })
check("stale again after a second edit", vim.wait(10000, function()
  return gloss_diag() ~= nil
end, 20))
local function pick_action(title)
  local orig = vim.ui.select
  local offered = {}
  vim.ui.select = function(items, _, cb)
    local pick
    for _, it in ipairs(items) do
      local a = it.action or it[2]
      table.insert(offered, a.title)
      if a.title == title then
        pick = it
      end
    end
    cb(pick)
  end
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { func_line + 1, 0 })
  vim.lsp.buf.code_action()
  vim.wait(5000, function()
    return #offered > 0
  end, 20)
  vim.ui.select = orig
  return vim.tbl_contains(offered, title)
end
check("\"Show what changed\" is offered", pick_action("Show what changed"))
local diff_text
check("\"Show what changed\" opens the diff in a diff buffer", vim.wait(5000, function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find("gloss://diff/", 1, true) and vim.bo[b].filetype == "diff" then
      diff_text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")
      return diff_text:find('+\t_, limit := "é𝄞", 7', 1, true) ~= nil
    end
  end
  return false
end, 50), diff_text)
vim.cmd("silent! only")
vim.api.nvim_set_current_buf(buf)

-- 7b. "Edit memory" on a personal memory (no file) asks for the new text.
local asked
local orig_input = vim.ui.input
vim.ui.input = function(opts, cb)
  asked = opts.prompt
  cb(nil)
end
check("\"Edit memory\" is offered", pick_action("Edit memory"))
check("\"Edit memory\" on a personal memory asks for its text", vim.wait(5000, function()
  return asked ~= nil
end, 20), vim.inspect(notes))
vim.ui.input = orig_input
vim.cmd("silent write")

-- 7c. A draft (:GlossRemember!) opens for writing; closed untouched it is discarded.
vim.cmd(string.format("%dGlossRemember! note", body_line + 1))
local draft_buf
check("the draft opens in a buffer", vim.wait(10000, function()
  local name = vim.api.nvim_buf_get_name(vim.api.nvim_get_current_buf())
  if name:find("/.gloss/memories/", 1, true) and name:sub(-3) == ".md" then
    draft_buf = vim.api.nvim_get_current_buf()
    return true
  end
  return false
end, 50), vim.api.nvim_buf_get_name(0))
if draft_buf then
  local draft_path = vim.api.nvim_buf_get_name(draft_buf)
  local text = table.concat(vim.api.nvim_buf_get_lines(draft_buf, 0, -1, false), "\n")
  check("the draft has the placeholder text", text:find("TODO: describe", 1, true) ~= nil, text)
  vim.cmd("silent! bwipeout! " .. draft_buf)
  vim.api.nvim_set_current_buf(buf)
  check("the untouched draft is discarded when closed", vim.wait(10000, function()
    return vim.fn.filereadable(draft_path) == 0
  end, 50), draft_path)
end

-- 7d. Neovim 0.7 has no file watcher: `git checkout` with the editor open is seen by the
--     server's own watcher, and the memory of a file that is not open is flagged.
local util_uri = vim.uri_from_fname(project .. "/util.go")
local rem, rerr = request("workspace/executeCommand", { command = "gloss.remember", arguments = { {
  uri = util_uri, range = { start = { line = 3, character = 0 }, ["end"] = { line = 5, character = 1 } },
  text = "Doubling is what the caller expects.",
} } })
check("a memory on Helper (util.go, not open)", rem and rem.id, rerr or vim.inspect(rem))
vim.fn.system({ "git", "-C", project, "checkout", "-q", "change" })
local util_buf = vim.uri_to_bufnr(util_uri)
local function util_diag()
  for _, d in ipairs(vim.diagnostic.get(util_buf)) do
    if d.source == "gloss" and d.code == "stale-memory" then
      return d
    end
  end
end
check("git checkout with the editor open flags the memory of an unopened file", vim.wait(15000, function()
  return util_diag() ~= nil
end, 50), vim.inspect(vim.diagnostic.get(util_buf)))
vim.fn.system({ "git", "-C", project, "checkout", "-q", "main" })
check("checking out back clears it", vim.wait(15000, function()
  return util_diag() == nil
end, 50), vim.inspect(vim.diagnostic.get(util_buf)))

-- 7e. "Still valid — re-verify" on an unsaved edit verifies the buffer: the warning goes,
--     and after saving (the disk now has that code) a check keeps the memory fresh.
vim.api.nvim_set_current_buf(buf)
local line7 = vim.api.nvim_buf_get_lines(buf, body_line, body_line + 1, false)[1]
local c7 = line7:find("7", 1, true) - 1
vim.api.nvim_buf_set_text(buf, body_line, c7, body_line, c7 + 1, { "8" })
check("an unsaved edit makes the memory stale", vim.wait(10000, function()
  return gloss_diag() ~= nil
end, 20))
check("\"Still valid — re-verify\" is offered", pick_action(want[1]))
check("re-verify of the unsaved buffer clears the warning", vim.wait(10000, function()
  return gloss_diag() == nil
end, 50), vim.inspect(vim.diagnostic.get(buf)))
vim.cmd("silent write")
local chk = request("workspace/executeCommand", { command = "gloss.check", arguments = { vim.empty_dict() } })
check("after saving, a check finds the memory fresh", chk and chk.stale == 0, vim.inspect(chk and chk.stale))

-- 8. The daemon is killed: the plugin starts the client again (and with it a daemon).
local old_id = client.id
local status = vim.fn.system({ bin, "daemon", "status", "--json" })
local ok, st = pcall(vim.fn.json_decode, status)
local pid = ok and type(st) == "table" and st.pid
check("the daemon's pid is known", pid ~= nil, status)
if pid then
  vim.fn.system({ "kill", "-9", tostring(pid) })
  local newc
  check("the client restarts after the daemon is killed", vim.wait(20000, function()
    newc = gloss.get_client(buf)
    return newc ~= nil and newc.id ~= old_id and newc.initialized == true and vim.lsp.buf_is_attached(buf, newc.id)
  end, 100), vim.inspect(notes))
  if newc and newc.id ~= old_id then
    client = newc
    local l2 = request("workspace/executeCommand", { command = "gloss.list", arguments = { vim.empty_dict() } })
    check("the restarted client serves the memories", l2 and l2.memories and #l2.memories == 2, vim.inspect(l2))
  end
end

if vim.env.GLOSS_E2E_VERBOSE then
  io.stdout:write("# hover float:\n" .. (float_text or "") .. "\n")
end

finish()

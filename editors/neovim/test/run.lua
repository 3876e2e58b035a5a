-- Headless tests for the gloss Neovim plugin against test/fake_gloss.py.
-- Run with test/run.sh (which sets up the runtimepath and a temporary project).

local passed, failed = 0, 0
local function check(name, cond, detail)
  if cond then
    passed = passed + 1
    io.stdout:write("ok - " .. name .. "\n")
  else
    failed = failed + 1
    io.stdout:write("not ok - " .. name .. (detail and (": " .. detail) or "") .. "\n")
  end
end

local here = vim.env.GLOSS_TEST_DIR
local project = vim.env.GLOSS_TEST_PROJECT
local log_path = vim.env.FAKE_GLOSS_LOG

local function read_log()
  local entries = {}
  local f = io.open(log_path, "r")
  if not f then
    return entries
  end
  for line in f:lines() do
    table.insert(entries, vim.fn.json_decode(line))
  end
  f:close()
  return entries
end

local function find_command(name)
  local found
  for _, e in ipairs(read_log()) do
    if e.method == "workspace/executeCommand" and e.params.command == name then
      found = e
    end
  end
  return found
end

local function count_command(name)
  local n = 0
  for _, e in ipairs(read_log()) do
    if e.method == "workspace/executeCommand" and e.params.command == name then
      n = n + 1
    end
  end
  return n
end

-- Collect notifications instead of printing them between test lines.
local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

local gloss = require("gloss")
gloss.setup({ cmd = { "python3", here .. "/fake_gloss.py" } })

-- Start in a file of the temporary git project.
vim.cmd("edit " .. vim.fn.fnameescape(project .. "/main.go"))
local buf = vim.api.nvim_get_current_buf()
check("client attaches", vim.wait(5000, function()
  local c = gloss.get_client(buf)
  return c ~= nil and c.initialized ~= false and #read_log() > 0
end, 50))
local client = gloss.get_client(buf)
check("root is the git root", client and client.config.root_dir == project, client and client.config.root_dir)

-- A second, unrelated filetype in the same project shares the client.
vim.cmd("edit " .. vim.fn.fnameescape(project .. "/notes.txt"))
local buf2 = vim.api.nvim_get_current_buf()
vim.wait(2000, function()
  return gloss.get_client(buf2) ~= nil and vim.lsp.buf_is_attached(buf2, client.id)
end, 50)
check("any filetype attaches to the same client", vim.lsp.buf_is_attached(buf2, client.id))
vim.cmd("buffer " .. buf)

-- Help and scratch buffers are left alone.
vim.cmd("enew")
vim.bo.buftype = "nofile"
check("scratch buffer not attached", gloss.attach(vim.api.nvim_get_current_buf()) == nil)
vim.cmd("buffer " .. buf)

-- Positions: 0-based lines, UTF-16 characters, end exclusive.
-- main.go line 2 is "\tx := \"héllo😀\"" (see run.sh).
local r = gloss.make_range(buf, 2, 8, 2, 14, "v", "utf-16")
-- bytes (1-based): \t=1 x=2 ' '=3 :=4 '='=5 ' '=6 "=7 h=8 é=9-10 l=11 l=12 o=13 😀=14-17 "=18
-- col 8 = 'h' -> utf-16 index 7; '> at col 14 = first byte of 😀 -> end after it (14)
check("range start utf-16", r.start.line == 1 and r.start.character == 7, vim.inspect(r))
check("range end after surrogate pair", r["end"].line == 1 and r["end"].character == 14, vim.inspect(r))
local r8 = gloss.make_range(buf, 2, 8, 2, 14, "v", "utf-8")
check("range end in utf-8 bytes", r8.start.character == 7 and r8["end"].character == 17, vim.inspect(r8))
local r32 = gloss.make_range(buf, 2, 8, 2, 14, "v", "utf-32")
check("range end in utf-32", r32["end"].character == 13, vim.inspect(r32))
local rl = gloss.make_range(buf, 3, nil, 1, nil, "V", "utf-16")
check("linewise range swapped and whole lines", rl.start.line == 0 and rl.start.character == 0 and rl["end"].line == 2, vim.inspect(rl))

-- :GlossRemember with type and text on a line range.
vim.cmd("1,2GlossRemember gotcha Hold the lock here")
check("gloss.remember sent", vim.wait(3000, function()
  return find_command("gloss.remember") ~= nil
end, 50))
local rem = find_command("gloss.remember")
local arg = rem and rem.params.arguments[1] or {}
check("remember uri", arg.uri == vim.uri_from_bufnr(buf), arg.uri)
check("remember type", arg.type == "gotcha", arg.type)
check("remember text", arg.text == "Hold the lock here", arg.text)
check("remember range lines", arg.range and arg.range.start.line == 0 and arg.range["end"].line == 1, vim.inspect(arg.range))

-- Interactive flow: vim.ui.select then vim.ui.input (stubbed).
local orig_select, orig_input = vim.ui.select, vim.ui.input
vim.ui.select = function(items, _, cb)
  cb(items[3]) -- "decision"
end
vim.ui.input = function(_, cb)
  cb("Because the API is sync")
end
vim.fn.setpos("'<", { 0, 2, 8, 0 })
vim.fn.setpos("'>", { 0, 2, 14, 0 })
vim.cmd("2,2GlossRemember")
check("interactive remember sent", vim.wait(3000, function()
  return count_command("gloss.remember") == 2
end, 50))
rem = find_command("gloss.remember")
arg = rem and rem.params.arguments[1] or {}
check("interactive type from vim.ui.select", arg.type == "decision", arg.type)
check("interactive text from vim.ui.input", arg.text == "Because the API is sync", arg.text)
check("interactive range is the visual selection", arg.range and arg.range.start.character == 7 and arg.range["end"].character == 14, vim.inspect(arg.range))
vim.ui.select, vim.ui.input = orig_select, orig_input

-- Draft: bang sends no text.
vim.cmd("1GlossRemember! note")
vim.wait(3000, function()
  return count_command("gloss.remember") == 3
end, 50)
rem = find_command("gloss.remember")
check("draft remember has no text", rem and rem.params.arguments[1].text == nil and rem.params.arguments[1].type == "note")

-- :GlossMemories fills the quickfix list with 1-based lines.
vim.cmd("GlossMemories")
vim.wait(3000, function()
  return #vim.fn.getqflist() >= 5
end, 50)
local qf = vim.fn.getqflist()
check("quickfix has all memories", #qf == 5, tostring(#qf))
local first = qf[1] or {}
check("quickfix file resolves relative path", vim.api.nvim_buf_get_name(first.bufnr or 0) == project .. "/main.go",
  first.bufnr and vim.api.nvim_buf_get_name(first.bufnr))
check("quickfix 1-based line", first.lnum == 1, tostring(first.lnum))
vim.cmd("cclose")

vim.cmd("GlossStale")
vim.wait(3000, function()
  return #vim.fn.getqflist() == 1
end, 50)
qf = vim.fn.getqflist()
check("stale quickfix only stale", #qf == 1 and qf[1].lnum == 3 and qf[1].type == "W", vim.inspect(qf[1]))
check("stale quickfix text", qf[1] and qf[1].text:find("%[gotcha%] Stale one %(signature changed%)") ~= nil, qf[1] and qf[1].text)
local stale_list = find_command("gloss.list")
check("GlossStale lets the server filter", stale_list and stale_list.params.arguments[1].stale == true,
  stale_list and vim.inspect(stale_list.params.arguments))
vim.cmd("cclose")

-- Code lens command handler registered client-side.
check("gloss.showMemories client command", type(vim.lsp.commands["gloss.showMemories"]) == "function")
vim.lsp.commands["gloss.showMemories"]({
  command = "gloss.showMemories",
  arguments = { { uri = vim.uri_from_bufnr(buf), range = { start = { line = 2, character = 0 }, ["end"] = { line = 2, character = 0 } } } },
}, { bufnr = buf, client_id = client.id })
check("showMemories asks gloss.memoriesAt", vim.wait(3000, function()
  return find_command("gloss.memoriesAt") ~= nil
end, 50))
local float_found = vim.wait(2000, function()
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
      if table.concat(lines, "\n"):find("Stale one") then
        return true
      end
    end
  end
  return false
end, 50)
check("memories shown in a float", float_found)

-- Code lenses are requested.
check("code lens requested", vim.wait(3000, function()
  for _, e in ipairs(read_log()) do
    if e.method == "textDocument/codeLens" then
      return true
    end
  end
  return false
end, 50))

-- Verify by id, status.
gloss.verify("m-stale")
check("gloss.verify sent with id", vim.wait(3000, function()
  local e = find_command("gloss.verify")
  return e ~= nil and e.params.arguments[1].id == "m-stale"
end, 50))
gloss.status()
check("gloss.status sent with {}", vim.wait(3000, function()
  local e = find_command("gloss.status")
  return e ~= nil and type(e.params.arguments[1]) == "table" and next(e.params.arguments[1]) == nil
end, 50))

-- Pure helpers.
local items = gloss.qf_items({ { id = "x", title = "", body = "first line\nsecond", type = "note", stale = true, anchors = {} } }, "/r", true)
check("unanchored stale memory listed without file", #items == 1 and items[1].filename == nil and items[1].text:find("first line") ~= nil)
check("memories_of accepts list/object", #gloss._memories_of({ memories = { {}, {} } }) == 2 and #gloss._memories_of({ id = "a" }) == 1 and #gloss._memories_of(vim.NIL) == 0)

check("user was told about remembered memories", vim.tbl_contains(notes, 'gloss: remembered "Hold the lock here"'), vim.inspect(notes))

io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
vim.cmd(failed == 0 and "qa!" or "cquit 1")

-- gloss.nvim: client for the gloss language server (code memories).
--
--   require("gloss").setup({ cmd = { "gloss", "lsp" } })
--
-- Starts one `gloss lsp` per project root (git root, else the cwd) and attaches it to every
-- normal file buffer, whatever its filetype, next to the buffer's other language servers.
-- Works on Neovim 0.7+ (uses vim.lsp.start where it exists, else vim.lsp.start_client +
-- vim.lsp.buf_attach_client).

local M = {}

local MEMORY_TYPES = {
  "note",
  "gotcha",
  "decision",
  "convention",
  "pattern",
  "requirement",
  "error_pattern",
  "module_insight",
  "workflow",
  "dead_end",
}
M.memory_types = MEMORY_TYPES

local FRESH = { fresh = true, moved = true }

local defaults = {
  -- Command that starts the server (stdio).
  cmd = { "gloss", "lsp" },
  -- Client name; also what :LspInfo shows.
  name = "gloss",
  -- Start automatically for every file buffer (BufEnter/FileType).
  autostart = true,
  -- Files that mark a project root; the nearest one upwards wins, else the cwd.
  root_markers = { ".git" },
  -- Filetypes never attached (buffers with a 'buftype', e.g. help or quickfix, never are).
  exclude_filetypes = { "gitcommit", "gitrebase" },
  -- Embedder for semantic search: sent as init option `embedder` and env GLOSS_EMBEDDER.
  embedder = nil,
  -- Refresh code lenses on BufEnter/InsertLeave/BufWritePost and after gloss commands.
  codelens = true,
  -- Visual-mode mapping for :GlossRemember (false to disable).
  remember_keymap = "<leader>gm",
  -- Restart the client when the server exits unexpectedly (the daemon was killed, a crash):
  -- the buffers it served are attached again after restart_delay ms, at most
  -- max_restarts times per minute.
  restart = true,
  restart_delay = 300,
  max_restarts = 5,
  -- Passed through to the LSP client.
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
  init_options = nil,
  settings = nil,
  flags = nil,
}

M.config = vim.deepcopy(defaults)

-- root_dir -> client id (only used on Neovim < 0.8, where vim.lsp.start does not exist)
local clients_by_root = {}
-- Whether we already said that the server binary is missing (say it once, not per buffer).
local warned_missing = false
-- Times (vim.loop.now()) of recent automatic restarts, to stop a crash loop.
local restarts = {}

local has = function(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.notify("gloss: " .. msg, level or vim.log.levels.INFO)
end

---------------------------------------------------------------------------
-- Small compatibility helpers

local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_is_stopped(client)
  if has("nvim-0.11") then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function all_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  if bufnr == nil then
    return vim.lsp.get_active_clients()
  end
  -- 0.7: get_active_clients takes no filter; buf_get_clients returns {id = client}.
  local list = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    table.insert(list, c)
  end
  return list
end

--- The gloss client attached to `bufnr` (default: current buffer), else any running one.
function M.get_client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  for _, c in ipairs(all_clients(bufnr)) do
    if c.name == M.config.name then
      return c
    end
  end
  for _, c in ipairs(all_clients(nil)) do
    if c.name == M.config.name and not client_is_stopped(c) then
      return c
    end
  end
  return nil
end

local function find_root(path)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  if vim.fs and vim.fs.find then
    local found = vim.fs.find(M.config.root_markers, { path = dir, upward = true })[1]
    if found then
      return vim.fn.fnamemodify(found, ":h")
    end
  else
    for _, marker in ipairs(M.config.root_markers) do
      -- finddir/findfile with ';' search upwards; .git is a dir, or a file in worktrees.
      local d = vim.fn.finddir(marker, dir .. ";")
      if d ~= "" then
        return vim.fn.fnamemodify(d, ":p:h:h")
      end
      local f = vim.fn.findfile(marker, dir .. ";")
      if f ~= "" then
        return vim.fn.fnamemodify(f, ":p:h")
      end
    end
  end
  return vim.fn.getcwd()
end
M._find_root = find_root

---------------------------------------------------------------------------
-- Positions (LSP: 0-based line, character in the client's offset encoding, UTF-16 by default)

local function utf8_char_len(s, byte) -- byte is 1-based
  local b = s:byte(byte)
  if not b then
    return 0
  elseif b < 0x80 then
    return 1
  elseif b < 0xE0 then
    return 2
  elseif b < 0xF0 then
    return 3
  end
  return 4
end

--- Converts a 0-based byte column in `line` to a character index in `encoding`.
local function char_index(line, byte_col, encoding)
  if byte_col > #line then
    byte_col = #line
  end
  if byte_col < 0 then
    byte_col = 0
  end
  encoding = encoding or "utf-16"
  if encoding == "utf-8" then
    return byte_col
  end
  local ok, utf32, utf16
  if has("nvim-0.11") then
    ok, utf32 = pcall(vim.str_utfindex, line, encoding, byte_col, false)
    utf16 = utf32
  else
    ok, utf32, utf16 = pcall(vim.str_utfindex, line, byte_col)
  end
  if not ok then
    return byte_col
  end
  if encoding == "utf-32" or has("nvim-0.11") then
    return utf32
  end
  return utf16
end
M._char_index = char_index

local function buf_line(bufnr, lnum) -- lnum 0-based
  return vim.api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1] or ""
end

--- LSP range for 1-based lines l1..l2 and (optionally) 1-based byte columns c1..c2,
--- c2 inclusive as in Vim's '> mark. `mode` is "v", "V" or "\22" (block).
function M.make_range(bufnr, l1, c1, l2, c2, mode, encoding)
  if l2 < l1 or (l1 == l2 and c2 and c1 and c2 < c1) then
    l1, l2, c1, c2 = l2, l1, c2, c1
  end
  local start_line, end_line = l1 - 1, l2 - 1
  local first, last = buf_line(bufnr, start_line), buf_line(bufnr, end_line)
  local start_char, end_char
  if mode == "V" or c1 == nil or c2 == nil then
    start_char = 0
    end_char = char_index(last, #last, encoding)
  else
    start_char = char_index(first, c1 - 1, encoding)
    local end_byte = math.min(c2, #last) -- c2 is the first byte of the last char
    end_byte = end_byte - 1 + math.max(utf8_char_len(last, math.max(end_byte, 1)), 1)
    end_char = char_index(last, end_byte, encoding)
  end
  return {
    start = { line = start_line, character = start_char },
    ["end"] = { line = end_line, character = end_char },
  }
end

---------------------------------------------------------------------------
-- Commands sent to the server

local function refresh_codelens(bufnr)
  local codelens = vim.lsp.codelens
  if not M.config.codelens or not codelens then
    return
  end
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  -- Memory files have no lenses; a draft is often closed before the answer arrives,
  -- which Neovim 0.7's handler does not survive ("Invalid buffer id").
  if vim.api.nvim_buf_get_name(bufnr):find("/%.gloss/memories/[^/]*%.md$") then
    return
  end
  if codelens.enable then
    -- Newer Neovim keeps enabled lenses up to date by itself.
    pcall(codelens.enable, true, { bufnr = bufnr })
  elseif codelens.refresh then
    if has("nvim-0.10") then
      pcall(codelens.refresh, { bufnr = bufnr })
    elseif bufnr == vim.api.nvim_get_current_buf() then
      pcall(codelens.refresh) -- 0.7-0.9: current buffer only
    end
  end
end
M.refresh_codelens = refresh_codelens

--- Sends workspace/executeCommand `command` with `arg` (one JSON object) to the gloss
--- client of `bufnr`; calls `cb(result)` on success. Errors are reported with vim.notify.
function M.exec(command, arg, cb, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = M.get_client(bufnr)
  if not client then
    notify("server is not running (is `" .. table.concat(M.config.cmd, " ") .. "` on $PATH?)", vim.log.levels.ERROR)
    return
  end
  local params = { command = command, arguments = { arg or vim.empty_dict() } }
  client_request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if cb then
      cb(result, client)
    end
  end, bufnr)
end

local function after_change()
  refresh_codelens()
end

local function memories_of(result)
  if type(result) ~= "table" then
    return {}
  end
  if (vim.islist or vim.tbl_islist)(result) then
    return result
  end
  if type(result.memories) == "table" then
    return result.memories
  end
  if result.id then
    return { result }
  end
  return {}
end
M._memories_of = memories_of

local function memory_stale(m)
  if m.stale == true then
    return true
  end
  for _, a in ipairs(m.anchors or {}) do
    if not FRESH[a.status or "fresh"] then
      return true
    end
  end
  return false
end

local function title_of(m)
  if m.title and m.title ~= "" then
    return m.title
  end
  local first = (m.body or ""):match("[^\n]+")
  return first or m.id or "?"
end

--- Quickfix items for memories (1-based lines as the server reports them).
--- `root` resolves relative anchor paths; `stale_only` keeps stale memories/anchors.
function M.qf_items(memories, root, stale_only)
  local items = {}
  for _, m in ipairs(memories) do
    local stale = memory_stale(m)
    if not stale_only or stale then
      local label = string.format("[%s] %s", m.type or "note", title_of(m))
      local anchors = m.anchors or {}
      local shown = 0
      for _, a in ipairs(anchors) do
        local anchor_stale = m.stale == true or not FRESH[a.status or "fresh"]
        if not stale_only or anchor_stale then
          local path = a.path or ""
          if path:match("^file://") then
            path = vim.uri_to_fname(path)
          elseif path ~= "" and not path:match("^/") and not path:match("^%a:[/\\]") then
            path = root .. "/" .. path
          end
          local status = (a.status and a.status ~= "fresh") and (" (" .. a.status:gsub("_", " ") .. ")") or ""
          table.insert(items, {
            filename = path,
            lnum = a.start_line or 1,
            end_lnum = a.end_line or a.start_line or 1,
            col = 1,
            type = anchor_stale and "W" or "I",
            text = label .. status .. " {" .. (m.id or "") .. "}",
          })
          shown = shown + 1
        end
      end
      if shown == 0 then
        table.insert(items, {
          text = label .. (stale and " (stale)" or "") .. " {" .. (m.id or "") .. "}",
          type = stale and "W" or "I",
          valid = 0,
        })
      end
    end
  end
  return items
end

local function root_of(client)
  return (client and client.config and client.config.root_dir) or vim.fn.getcwd()
end

local function fill_quickfix(command, title, stale_only, args)
  M.exec(command, args or vim.empty_dict(), function(result, client)
    local items = M.qf_items(memories_of(result), root_of(client), stale_only)
    vim.fn.setqflist({}, " ", { title = title, items = items })
    if #items == 0 then
      notify(stale_only and "no stale memories" or "no memories")
    else
      vim.cmd("botright copen")
    end
    after_change()
  end)
end

function M.list()
  fill_quickfix("gloss.list", "gloss memories", false)
end

function M.stale()
  -- The server filters: a list of 100,000 memories is a 70 MB answer.
  fill_quickfix("gloss.list", "gloss stale memories", true, { stale = true })
end

function M.check()
  fill_quickfix("gloss.check", "gloss check: stale memories", true)
end

local function markdown_lines(memories)
  local lines = {}
  for i, m in ipairs(memories) do
    if i > 1 then
      vim.list_extend(lines, { "", "---", "" })
    end
    table.insert(lines, "# " .. title_of(m))
    local meta = "*" .. (m.type or "note") .. "*  `" .. (m.id or "") .. "`"
    if memory_stale(m) then
      meta = meta .. "  **stale**"
    end
    table.insert(lines, meta)
    table.insert(lines, "")
    vim.list_extend(lines, vim.split(m.body or "", "\n", { plain = true }))
    for _, a in ipairs(m.anchors or {}) do
      if a.status and a.status ~= "fresh" then
        table.insert(lines, string.format("- %s:%d-%d %s", a.path or "", a.start_line or 0, a.end_line or 0, a.status))
      end
    end
  end
  return lines
end
M._markdown_lines = markdown_lines

--- Shows the memories at an LSP location ({uri, range}) in a floating window.
function M.show_at(arg, bufnr)
  M.exec("gloss.memoriesAt", arg, function(result)
    local memories = memories_of(result)
    if #memories == 0 then
      notify("no memories here")
      return
    end
    vim.lsp.util.open_floating_preview(markdown_lines(memories), "markdown", { border = "rounded", max_width = 100 })
  end, bufnr)
end

local function cursor_location(bufnr, client)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local pos = vim.api.nvim_win_get_cursor(0)
  local enc = client and client.offset_encoding or "utf-16"
  local line = buf_line(bufnr, pos[1] - 1)
  local ch = char_index(line, pos[2], enc)
  return {
    uri = vim.uri_from_bufnr(bufnr),
    range = { start = { line = pos[1] - 1, character = ch }, ["end"] = { line = pos[1] - 1, character = ch } },
  }
end

--- :GlossShow — memories under the cursor.
function M.show()
  local bufnr = vim.api.nvim_get_current_buf()
  M.show_at(cursor_location(bufnr, M.get_client(bufnr)), bufnr)
end

--- Sends gloss.remember. `opts`: {range, type, text, title, tags, bufnr}. Empty/absent text
--- makes the server create a draft and open it (window/showDocument).
function M.remember(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local arg = { uri = vim.uri_from_bufnr(bufnr), range = opts.range, type = opts.type or "note" }
  if opts.text and vim.trim(opts.text) ~= "" then
    arg.text = vim.trim(opts.text)
  end
  if opts.title and opts.title ~= "" then
    arg.title = opts.title
  end
  if opts.tags and #opts.tags > 0 then
    arg.tags = opts.tags
  end
  M.exec("gloss.remember", arg, function(result)
    if arg.text then
      local t = type(result) == "table" and (result.title or result.id) or nil
      notify("remembered" .. (t and (' "' .. t .. '"') or ""))
    end
    after_change()
    if opts.on_done then
      opts.on_done(result)
    end
  end, bufnr)
end

local function is_type(s)
  return vim.tbl_contains(MEMORY_TYPES, s)
end

--- Handler of :GlossRemember (range command). fargs: [type] [text...]; bang = draft.
local function remember_command(cmd)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.get_client(bufnr)
  local enc = client and client.offset_encoding or "utf-16"
  local range
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  if cmd.range > 0 and vs[2] == cmd.line1 and ve[2] == cmd.line2 then
    range = M.make_range(bufnr, vs[2], vs[3], ve[2], ve[3], vim.fn.visualmode(), enc)
  elseif cmd.range > 0 then
    range = M.make_range(bufnr, cmd.line1, nil, cmd.line2, nil, "V", enc)
  else
    local l = vim.api.nvim_win_get_cursor(0)[1]
    range = M.make_range(bufnr, l, nil, l, nil, "V", enc)
  end

  local args = vim.deepcopy(cmd.fargs or {})
  local mtype
  if args[1] and is_type(args[1]) then
    mtype = table.remove(args, 1)
  end
  local text = #args > 0 and table.concat(args, " ") or nil

  local function ask_text(t)
    if cmd.bang then
      M.remember({ bufnr = bufnr, range = range, type = t })
      return
    end
    if text then
      M.remember({ bufnr = bufnr, range = range, type = t, text = text })
      return
    end
    vim.ui.input({ prompt = "Remember (" .. t .. "): " }, function(input)
      if input == nil then
        return
      end
      -- An empty answer asks the server for a Markdown draft instead.
      M.remember({ bufnr = bufnr, range = range, type = t, text = input })
    end)
  end

  if mtype then
    ask_text(mtype)
  else
    vim.ui.select(MEMORY_TYPES, { prompt = "Memory type" }, function(choice)
      if choice then
        ask_text(choice)
      end
    end)
  end
end

--- Picks a memory: by id argument, else the ones under the cursor (asks if several).
local function with_memory(id, cb)
  if id and id ~= "" then
    M.exec("gloss.show", { id = id }, function(result)
      local m = memories_of(result)[1] or { id = id }
      cb(m)
    end)
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  -- On a quickfix line produced by :GlossMemories, take the {id} it shows.
  if vim.bo[bufnr].buftype == "quickfix" then
    local qid = vim.api.nvim_get_current_line():match("{([^}]+)}%s*$")
    if qid then
      return with_memory(qid, cb)
    end
  end
  M.exec("gloss.memoriesAt", cursor_location(bufnr, M.get_client(bufnr)), function(result)
    local memories = memories_of(result)
    if #memories == 0 then
      notify("no memory under the cursor (pass an id)")
    elseif #memories == 1 then
      cb(memories[1])
    else
      vim.ui.select(memories, {
        prompt = "Memory",
        format_item = function(m)
          return string.format("[%s] %s%s", m.type or "note", title_of(m), memory_stale(m) and " (stale)" or "")
        end,
      }, function(m)
        if m then
          cb(m)
        end
      end)
    end
  end, bufnr)
end

function M.verify(id)
  with_memory(id, function(m)
    M.exec("gloss.verify", { id = m.id }, function()
      notify('verified "' .. title_of(m) .. '"')
      after_change()
    end)
  end)
end

function M.forget(id)
  with_memory(id, function(m)
    vim.ui.select({ "Forget", "Cancel" }, { prompt = 'Forget "' .. title_of(m) .. '"?' }, function(choice)
      if choice == "Forget" then
        M.exec("gloss.forget", { id = m.id }, function()
          notify('forgot "' .. title_of(m) .. '"')
          after_change()
        end)
      end
    end)
  end)
end

function M.edit(id)
  with_memory(id, function(m)
    vim.ui.input({ prompt = "Edit memory: ", default = m.body or "" }, function(input)
      if input == nil or input == m.body then
        return
      end
      M.exec("gloss.update", { id = m.id, text = input }, function()
        notify('updated "' .. title_of(m) .. '"')
        after_change()
      end)
    end)
  end)
end

function M.status()
  M.exec("gloss.status", vim.empty_dict(), function(r)
    r = r or {}
    notify(string.format("%d memories, %d stale, %d files, %d symbols", r.memories or 0, r.stale or 0, r.files or 0, r.symbols or 0))
  end)
end

function M.search(query)
  M.exec("gloss.search", { query = query }, function(result, client)
    local items = M.qf_items(memories_of(result), root_of(client), false)
    vim.fn.setqflist({}, " ", { title = "gloss search: " .. query, items = items })
    if #items == 0 then
      notify("nothing found for " .. query)
    else
      vim.cmd("botright copen")
    end
  end)
end

---------------------------------------------------------------------------
-- Client-side command handlers and LSP handlers

-- Shows text in a scratch split (filetype ft), replacing a previous one named name.
local function show_scratch(name, lines, ft)
  local old = vim.fn.bufnr(name)
  if old ~= -1 then
    pcall(vim.api.nvim_buf_delete, old, { force = true })
  end
  vim.cmd("botright new")
  local b = vim.api.nvim_get_current_buf()
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "wipe"
  vim.bo[b].swapfile = false
  pcall(vim.api.nvim_buf_set_name, b, name)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  vim.bo[b].filetype = ft
  return b
end

--- The quick fixes "Show what changed" and "Edit memory" (gloss.show with diff/edit): the
--- diff opens in a scratch buffer (filetype diff); "Edit memory" opens the memory's file
--- (the server's window/showDocument), or for a personal memory (no file) asks for the new
--- text (:GlossEdit).
function M.show_command(arg, bufnr)
  arg = vim.deepcopy(arg or {})
  arg.present = nil -- the plugin presents the result itself
  M.exec("gloss.show", arg, function(result)
    if type(result) ~= "table" then
      return
    end
    if arg.diff then
      local diff = vim.trim(result.diff or "")
      if diff == "" then
        diff = "(the code is as written)"
      end
      local lines = { "# gloss: what changed under \"" .. (result.title or result.id or "") .. "\"", "" }
      vim.list_extend(lines, vim.split(diff, "\n", { plain = true }))
      show_scratch("gloss://diff/" .. (result.id or ""), lines, "diff")
    end
    if arg.edit and (result.file == nil or result.file == "") then
      M.edit(result.id)
    end
  end, bufnr)
end

local function register_client_commands()
  vim.lsp.commands["gloss.show"] = function(command, ctx)
    M.show_command(command.arguments and command.arguments[1], ctx and ctx.bufnr)
  end
  -- Code lens command: show the memories of the lens's location.
  vim.lsp.commands["gloss.showMemories"] = function(command, ctx)
    local arg = command.arguments and command.arguments[1]
    if type(arg) ~= "table" or not arg.uri then
      return M.show()
    end
    M.show_at(arg, ctx and ctx.bufnr)
  end
end

-- window/showDocument for Neovim versions without it (0.7): gloss uses it to open a draft.
local function show_document_handler(_, result)
  if not result or not result.uri then
    return { success = false }
  end
  local ok = pcall(function()
    local fname = vim.uri_to_fname(result.uri)
    vim.cmd("edit " .. vim.fn.fnameescape(fname))
    if result.selection and result.selection.start then
      local line = result.selection.start.line + 1
      pcall(vim.api.nvim_win_set_cursor, 0, { line, 0 })
    end
  end)
  return { success = ok }
end

---------------------------------------------------------------------------
-- Starting and attaching

local function should_attach(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return false
  end
  return not vim.tbl_contains(M.config.exclude_filetypes or {}, vim.bo[bufnr].filetype)
end

local function client_config(root)
  local cfg = M.config
  local handlers = vim.tbl_extend("force", {}, cfg.handlers or {})
  if not vim.lsp.handlers["window/showDocument"] and not handlers["window/showDocument"] then
    handlers["window/showDocument"] = show_document_handler
  end
  -- Advertise what the plugin handles: window/showDocument opens drafts and memory files
  -- (Neovim 0.7 has no handler of its own and does not advertise it).
  local capabilities = vim.deepcopy(cfg.capabilities or vim.lsp.protocol.make_client_capabilities())
  if handlers["window/showDocument"] or vim.lsp.handlers["window/showDocument"] then
    capabilities.window = capabilities.window or {}
    capabilities.window.showDocument = { support = true }
  end
  local init_options = vim.deepcopy(cfg.init_options or {})
  local cmd_env = nil
  if cfg.embedder and cfg.embedder ~= "" then
    init_options.embedder = cfg.embedder
    cmd_env = { GLOSS_EMBEDDER = cfg.embedder }
  end
  return {
    name = cfg.name,
    cmd = cfg.cmd,
    cmd_env = cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities,
    handlers = handlers,
    init_options = init_options,
    settings = cfg.settings or {},
    flags = cfg.flags,
    on_exit = function(code, signal)
      if cfg.on_exit then
        cfg.on_exit(code, signal)
      end
      if (code ~= 0 or signal ~= 0) and cfg.restart then
        vim.schedule(function()
          M.restart_after_exit(root, code, signal)
        end)
      end
    end,
    on_attach = function(client, bufnr)
      refresh_codelens(bufnr)
      if cfg.on_attach then
        cfg.on_attach(client, bufnr)
      end
    end,
  }
end

--- Called when the client of `root` exited unexpectedly: attaches the file buffers of
--- that root again (starting a new client, and with it a new daemon) after
--- restart_delay ms, unless max_restarts were made in the last minute.
function M.restart_after_exit(root, code, signal)
  local now = vim.loop.now()
  local recent = {}
  for _, t in ipairs(restarts) do
    if now - t < 60000 then
      table.insert(recent, t)
    end
  end
  restarts = recent
  if #restarts >= (M.config.max_restarts or 5) then
    notify(string.format("the server exited (code %s, signal %s) %d times in a minute; not restarting it (:e to try again)",
      tostring(code), tostring(signal), #restarts), vim.log.levels.ERROR)
    return
  end
  table.insert(restarts, now)
  notify(string.format("the server exited (code %s, signal %s); restarting it", tostring(code), tostring(signal)), vim.log.levels.WARN)
  vim.defer_fn(function()
    clients_by_root[root] = nil
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and should_attach(b) and find_root(vim.api.nvim_buf_get_name(b)) == root then
        M.attach(b)
      end
    end
  end, M.config.restart_delay or 300)
end

--- Attaches the gloss client to `bufnr` (starting it for the buffer's root if needed).
--- Returns the client id, or nil when the buffer is not a file buffer.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not should_attach(bufnr) then
    return nil
  end
  local cmd = M.config.cmd
  if type(cmd) == "table" and vim.fn.executable(cmd[1]) ~= 1 then
    if not warned_missing then
      warned_missing = true
      notify("`" .. tostring(cmd[1]) .. "` not found; install gloss or set cmd in setup()", vim.log.levels.WARN)
    end
    return nil
  end
  local root = find_root(vim.api.nvim_buf_get_name(bufnr))
  if vim.lsp.start then
    return vim.lsp.start(client_config(root), { bufnr = bufnr })
  end
  -- Neovim 0.7: one client per root, started by hand.
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client_is_stopped(client) then
    id = vim.lsp.start_client(client_config(root))
    if not id then
      return nil
    end
    clients_by_root[root] = id
  end
  if not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function create_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("GlossRemember", remember_command, {
    range = true,
    bang = true,
    nargs = "*",
    complete = function(arglead, line)
      if #vim.split(line, "%s+") > 2 then
        return {}
      end
      return vim.tbl_filter(function(t)
        return t:find(arglead, 1, true) == 1
      end, MEMORY_TYPES)
    end,
    desc = "gloss: remember the selected lines ([type] [text]; ! = Markdown draft)",
  })
  cmd("GlossMemories", M.list, { desc = "gloss: all memories in the quickfix list" })
  cmd("GlossStale", M.stale, { desc = "gloss: stale memories in the quickfix list" })
  cmd("GlossCheck", M.check, { desc = "gloss: re-resolve anchors, stale memories in the quickfix list" })
  cmd("GlossShow", M.show, { desc = "gloss: memories under the cursor" })
  cmd("GlossVerify", function(c)
    M.verify(c.args)
  end, { nargs = "?", desc = "gloss: mark a memory fresh again" })
  cmd("GlossForget", function(c)
    M.forget(c.args)
  end, { nargs = "?", desc = "gloss: delete a memory" })
  cmd("GlossEdit", function(c)
    M.edit(c.args)
  end, { nargs = "?", desc = "gloss: edit a memory's text" })
  cmd("GlossStatus", M.status, { desc = "gloss: memory counts" })
  cmd("GlossSearch", function(c)
    M.search(c.args)
  end, { nargs = "+", desc = "gloss: search memories" })
end

function M.setup(opts)
  warned_missing = false
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- Lists are replaced, not merged.
  for _, key in ipairs({ "cmd", "root_markers", "exclude_filetypes" }) do
    if opts and opts[key] then
      M.config[key] = opts[key]
    end
  end

  register_client_commands()
  create_commands()

  if M.config.remember_keymap then
    vim.keymap.set("x", M.config.remember_keymap, ":GlossRemember<CR>", { silent = true, desc = "gloss: remember selection" })
  end

  local group = vim.api.nvim_create_augroup("gloss", { clear = true })
  if M.config.autostart then
    vim.api.nvim_create_autocmd({ "BufEnter", "FileType" }, {
      group = group,
      callback = function(ev)
        M.attach(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
  if M.config.codelens then
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group,
      callback = function(ev)
        if M.get_client(ev.buf) and should_attach(ev.buf) then
          refresh_codelens(ev.buf)
        end
      end,
    })
  end
end

return M

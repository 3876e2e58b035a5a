-- :checkhealth gloss
local M = {}

local h = vim.health or {}
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local error = h.error or h.report_error
if not start then -- Neovim 0.7
  local legacy = require("health")
  start, ok, warn, error = legacy.report_start, legacy.report_ok, legacy.report_warn, legacy.report_error
end

function M.check()
  start("gloss")
  if vim.fn.has("nvim-0.7") == 1 then
    ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    error("Neovim 0.7 or newer is required")
  end
  local gloss = require("gloss")
  local cmd = gloss.config.cmd or { "gloss", "lsp" }
  if vim.fn.executable(cmd[1]) == 1 then
    ok("`" .. cmd[1] .. "` found: " .. vim.fn.exepath(cmd[1]))
  else
    error("`" .. cmd[1] .. "` is not executable; install gloss or pass setup({ cmd = { '/path/to/gloss', 'lsp' } })")
  end
  local client = gloss.get_client()
  if client then
    ok("client running (id " .. client.id .. ", root " .. tostring(client.config.root_dir) .. ")")
  else
    warn("no gloss client attached to the current buffer (did you call require('gloss').setup()?)")
  end
end

return M

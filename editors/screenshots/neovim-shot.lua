-- Drives an interactive Neovim (in tmux, see neovim.sh) into the state shown in
-- neovim.png: a memory on Retry, one token edited, the stale diagnostic, the code lens
-- and the hover. Writes $GLOSS_SHOT_READY when the hover is up.
local gloss = require("gloss")
vim.o.termguicolors = true
vim.cmd("colorscheme desert")
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.laststatus = 2
vim.o.showmode = false
vim.o.ruler = false
vim.o.tabstop = 4
vim.cmd("highlight Normal guifg=#e6e6e6 guibg=#282c34")
vim.cmd("highlight NormalFloat guifg=#e6e6e6 guibg=#21252b")
vim.cmd("highlight FloatBorder guifg=#61afef guibg=#21252b")
vim.cmd("highlight LspCodeLens guifg=#98c379 gui=italic")
vim.cmd("highlight SignColumn guibg=#282c34")
vim.cmd("highlight EndOfBuffer guifg=#3b4048 guibg=#282c34")
vim.cmd("highlight NonText guifg=#3b4048 guibg=#282c34")
vim.cmd("highlight LineNr guifg=#5c6370 guibg=#282c34")
vim.cmd("highlight StatusLine guifg=#282c34 guibg=#98c379 gui=bold")
vim.lsp.handlers["textDocument/hover"] = vim.lsp.with(vim.lsp.handlers.hover, { border = "rounded" })
vim.notify = function() end
vim.diagnostic.config({ virtual_text = { prefix = "●", spacing = 2 }, severity_sort = true })
gloss.setup({ cmd = { vim.env.GLOSS_BIN, "lsp" } })
vim.cmd("edit main.go")
local buf = vim.api.nvim_get_current_buf()

local function line_of(s)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(s, 1, true) then
      return i - 1, l
    end
  end
end

local function poll(cond, k)
  if cond() then
    return k()
  end
  vim.defer_fn(function()
    poll(cond, k)
  end, 50)
end

local function stale()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "gloss" then
      return true
    end
  end
  return false
end

poll(function()
  local c = gloss.get_client(buf)
  return c and c.initialized
end, function()
  local doc = line_of("// Retry calls f")
  local last
  for i = doc, vim.api.nvim_buf_line_count(buf) - 1 do
    if vim.api.nvim_buf_get_lines(buf, i, i + 1, false)[1] == "}" then
      last = i
      break
    end
  end
  gloss.remember({
    bufnr = buf,
    type = "gotcha",
    title = "Retry cap",
    text = "Retries are capped at 3: the payments API rate-limits bursts above that.\nAsk #payments before raising it.",
    range = gloss.make_range(buf, doc + 1, nil, last + 1, nil, "V", "utf-16"),
    on_done = function()
      local l, text = line_of("limit := 3")
      local col = text:find("3", 1, true) - 1
      vim.api.nvim_buf_set_text(buf, l, col, l, col + 1, { "5" })
      poll(stale, function()
        vim.lsp.codelens.refresh()
        vim.api.nvim_win_set_cursor(0, { l + 1, col })
        vim.defer_fn(function()
          vim.lsp.buf.hover()
          vim.defer_fn(function()
            local f = io.open(vim.env.GLOSS_SHOT_READY, "w")
            f:write("ready\n")
            f:close()
          end, 700)
        end, 500)
      end)
    end,
  })
end)

-- Commands and highlight defaults; the language server starts through
-- require('slang_analyzer').setup() or vim.lsp.enable('slang_analyzer').
if vim.g.loaded_slang_analyzer then
  return
end
vim.g.loaded_slang_analyzer = 1
require('slang_analyzer').create_commands()
require('slang_analyzer').default_highlights()

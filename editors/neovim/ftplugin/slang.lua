-- Slang (the shading language). The `slang` filetype is also S-Lang's, which
-- Neovim gives to `*.sl` files: leave those alone.
if vim.b.did_ftplugin or vim.api.nvim_buf_get_name(0):match('%.sl$') then
  return
end
vim.b.did_ftplugin = 1

vim.bo.commentstring = '// %s'
vim.bo.comments = 'sO:* -,mO:*  ,exO:*/,s1:/*,mb:*,ex:*/,:///,://'
vim.opt_local.formatoptions:remove('t')
vim.opt_local.formatoptions:append('croql')
vim.bo.suffixesadd = '.slang,.slangh'
vim.bo.include = [[^\s*\%(#\s*include\|import\|__include\)\>]]
vim.bo.define = [[^\s*#\s*define]]
vim.b.undo_ftplugin = 'setl cms< com< fo< sua< inc< def<'

-- Tree-sitter highlighting (and folds / indents when configured), when the
-- parser is installed: see :help slang-analyzer / README.md.
require('slang_analyzer.treesitter').attach(vim.api.nvim_get_current_buf())

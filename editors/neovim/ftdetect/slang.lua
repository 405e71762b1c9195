-- Slang shader sources and headers. (Neovim's own table maps `.slang` to
-- `shaderslang`; this plugin's filetype is `slang`, the language id the
-- server and the tree-sitter parser use.)
vim.filetype.add({ extension = { slang = 'slang', slangh = 'slang' } })

" Regex highlighting for Slang when the tree-sitter parser is not installed:
" Vim's `shaderslang` syntax (C plus shader keywords), or C. Files named
" *.sl have Neovim's S-Lang `slang` filetype: leave them to its syntax.
if exists("b:current_syntax") || expand("<afile>") =~# '\.sl$'
  finish
endif
runtime! syntax/shaderslang.vim
if !exists("b:current_syntax")
  runtime! syntax/c.vim
endif
unlet! b:current_syntax
syn keyword slangAutodiff fwd_diff bwd_diff no_diff detach diffPair
syn keyword slangAutodiffType DifferentialPair IDifferentiable
hi def link slangAutodiff Keyword
hi def link slangAutodiffType Type
let b:current_syntax = "slang"

-- The tree-sitter parser: building grammar/src/parser.c into
-- <parser_dir>/parser/slang.so, registering it with nvim-treesitter, and
-- starting highlighting (folds, indents) in Slang buffers.
local M = {}

local uv = vim.uv or vim.loop

local function options()
  return require('slang_analyzer').options.treesitter
end

--- This plugin's directory (editors/neovim in the repository).
function M.plugin_root()
  local here = debug.getinfo(1, 'S').source:gsub('^@', '')
  return vim.fn.fnamemodify(here, ':p:h:h:h')
end

--- The grammar directory (holding src/parser.c).
function M.grammar_dir()
  local dir = options().grammar_dir or (M.plugin_root() .. '/../../grammar')
  return vim.fs.normalize(vim.fn.fnamemodify(dir, ':p')):gsub('/$', '')
end

--- The directory holding parser/slang.so.
function M.parser_dir()
  local dir = options().parser_dir or M.plugin_root()
  return vim.fs.normalize(vim.fn.fnamemodify(dir, ':p')):gsub('/$', '')
end

function M.parser_path()
  return M.parser_dir() .. '/parser/slang.so'
end

local function mtime(path)
  local st = uv.fs_stat(path)
  return st and (st.mtime.sec + st.mtime.nsec * 1e-9) or nil
end

--- Compiles the grammar's src/parser.c (and src/scanner.c) with $CC (or cc)
--- into parser/slang.so. Skipped when the library is newer than the sources
--- unless `opts.force`. Returns the library's path; raises on failure.
function M.build(opts)
  opts = opts or {}
  local src = M.grammar_dir() .. '/src'
  local files = { src .. '/parser.c' }
  if not mtime(files[1]) then
    error(('no tree-sitter grammar at %s (set treesitter.grammar_dir)'):format(files[1]), 0)
  end
  if mtime(src .. '/scanner.c') then
    files[#files + 1] = src .. '/scanner.c'
  end
  local out = M.parser_path()
  local built = mtime(out)
  if built and not opts.force then
    local newest = 0
    for _, f in ipairs(files) do
      newest = math.max(newest, mtime(f))
    end
    if built >= newest then
      return out
    end
  end
  vim.fn.mkdir(vim.fs.dirname(out), 'p')
  local tmp = out .. '.tmp' .. uv.os_getpid()
  local cmd = { vim.env.CC or 'cc', '-shared', '-fPIC', '-O2', '-std=c11', '-I', src }
  vim.list_extend(cmd, files)
  vim.list_extend(cmd, { '-o', tmp })
  local r = vim.system(cmd, { text = true }):wait()
  if r.code ~= 0 then
    os.remove(tmp)
    error(('building the parser failed: %s\n%s'):format(table.concat(cmd, ' '), r.stderr or ''), 0)
  end
  -- A rename, so that a Neovim with the old library loaded keeps it intact.
  assert(os.rename(tmp, out))
  vim.notify('slang-analyzer: built ' .. out)
  return out
end

--- Loads the parser: the one :SlangBuildParser built when it exists (so that
--- another `slang` parser on 'runtimepath', such as nvim-treesitter's
--- tree-sitter-slang, does not shadow it), else from 'runtimepath'. True
--- when the `slang` language is available.
function M.load()
  local ok, added
  local path = M.parser_path()
  if mtime(path) then
    ok, added = pcall(vim.treesitter.language.add, 'slang', { path = path })
  else
    ok, added = pcall(vim.treesitter.language.add, 'slang')
  end
  -- 0.11 returns true or (nil, error); 0.10 returns nothing or raises.
  return ok and (added == true or (added == nil and vim.fn.has('nvim-0.11') == 0))
end

local warned = false

--- Starts tree-sitter in a Slang buffer, as configured.
function M.attach(bufnr)
  local o = options()
  if not (o.highlight or o.fold or o.indent) or not M.load() then
    return
  end
  vim.treesitter.language.register('slang', { 'slang', 'shaderslang' })
  if o.highlight then
    local ok, err = pcall(vim.treesitter.start, bufnr, 'slang')
    if not ok and not warned then
      warned = true
      vim.notify('slang-analyzer: tree-sitter highlighting: ' .. tostring(err), vim.log.levels.WARN)
    end
  end
  if o.fold then
    vim.api.nvim_buf_call(bufnr, function()
      vim.wo[0][0].foldmethod = 'expr'
      vim.wo[0][0].foldexpr = 'v:lua.vim.treesitter.foldexpr()'
    end)
  end
  if o.indent then
    vim.bo[bufnr].indentexpr = "v:lua.require'slang_analyzer.treesitter'.indentexpr()"
  end
end

--- 'indentexpr' from nvim-treesitter when it is installed, else C indenting.
function M.indentexpr()
  local ok, ts = pcall(require, 'nvim-treesitter')
  if ok and type(ts.indentexpr) == 'function' then
    return ts.indentexpr()
  end
  local ok2, indent = pcall(require, 'nvim-treesitter.indent')
  if ok2 then
    return indent.get_indent(vim.v.lnum)
  end
  return vim.fn.cindent(vim.v.lnum)
end

--- Makes `:TSInstall slang` of nvim-treesitter build this grammar (instead of
--- the tree-sitter-slang it knows), for its `master` and `main` branches.
function M.register_nvim_treesitter()
  local grammar = M.grammar_dir()
  local files = { 'src/parser.c' }
  if mtime(grammar .. '/src/scanner.c') then
    files[#files + 1] = 'src/scanner.c'
  end
  local function register()
    local ok, parsers = pcall(require, 'nvim-treesitter.parsers')
    if not ok or type(parsers) ~= 'table' then
      return
    end
    if type(parsers.get_parser_configs) == 'function' then
      -- master: install_info with a local url.
      parsers.get_parser_configs().slang = {
        install_info = { url = grammar, files = files, requires_generate_from_grammar = false },
        filetype = 'slang',
      }
    else
      -- main: a local path; the queries come from this plugin.
      parsers.slang = { install_info = { path = grammar, generate = false }, tier = 2 }
    end
  end
  register()
  vim.api.nvim_create_autocmd('User', {
    group = vim.api.nvim_create_augroup('slang_analyzer_treesitter', { clear = true }),
    pattern = 'TSUpdate',
    callback = register,
  })
end

return M

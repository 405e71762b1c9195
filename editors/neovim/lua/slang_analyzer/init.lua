-- slang-analyzer for Neovim: language server setup (0.11's vim.lsp.config /
-- vim.lsp.enable, or vim.lsp.start on 0.10), commands for the server's
-- "show generated code" requests, tree-sitter parser registration.
local M = {}

--- The client name, and the name of the config in lsp/slang_analyzer.lua.
M.name = 'slang_analyzer'

local defaults = {
  lsp = {
    enabled = true,
    --- 'auto' (vim.lsp.config/enable on 0.11+, else vim.lsp.start),
    --- 'config' or 'start'.
    api = 'auto',
  },
  --- Merged over lsp/slang_analyzer.lua: cmd, settings, on_attach, ...
  server = {},
  --- Turn inlay hints on in attached buffers (Neovim 0.10+).
  inlay_hints = false,
  --- How :SlangShowDerivative / :SlangShowCompiled open their buffer.
  open_cmd = 'vsplit',
  --- Target of :SlangShowCompiled without arguments.
  default_target = 'wgsl',
  treesitter = {
    --- Start tree-sitter highlighting in Slang buffers when the parser is there.
    highlight = true,
    --- Tree-sitter folds ('foldexpr') in Slang buffers.
    fold = false,
    --- Tree-sitter indentation ('indentexpr'), from queries/slang/indents.scm.
    indent = false,
    --- The grammar (with src/parser.c); default: ../../grammar from this plugin.
    grammar_dir = nil,
    --- Where :SlangBuildParser writes parser/slang.so; default: this plugin's
    --- directory (on 'runtimepath', so Neovim finds the parser by itself).
    parser_dir = nil,
    --- Build the parser on setup() when it is missing or older than the grammar.
    build_on_setup = false,
    --- Register the grammar with nvim-treesitter (:TSInstall slang).
    nvim_treesitter = true,
  },
}

M.options = vim.deepcopy(defaults)

local has_011 = vim.fn.has('nvim-0.11') == 1

--- `client:method(...)` on 0.11, `client.method(...)` before.
local function call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function notify(msg, level)
  vim.notify('slang-analyzer: ' .. msg, level or vim.log.levels.INFO)
end

--- The API in use: 'config' or 'start'.
function M.api()
  local api = M.options.lsp.api
  if api == 'auto' then
    return has_011 and 'config' or 'start'
  end
  return api
end

--- The config of lsp/slang_analyzer.lua from 'runtimepath'.
local function base_config()
  local file = vim.api.nvim_get_runtime_file('lsp/slang_analyzer.lua', false)[1]
  return file and dofile(file) or {}
end

--- The full client config: with the 'config' API what vim.lsp.config
--- resolves, else lsp/slang_analyzer.lua with the `server` option over it.
function M.client_config()
  if M.api() == 'config' and has_011 then
    return vim.deepcopy(vim.lsp.config[M.name])
  end
  return vim.tbl_deep_extend('force', base_config(), M.options.server or {})
end

--- Starts (or attaches the running) server for `bufnr` with vim.lsp.start.
--- Used by the 'start' API and :SlangRestartServer.
function M.start(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local cfg = M.client_config()
  cfg.name = M.name
  if type(cfg.root_dir) ~= 'string' then
    local name = vim.api.nvim_buf_get_name(bufnr)
    cfg.root_dir = cfg.root_markers and vim.fs.root(name ~= '' and name or bufnr, cfg.root_markers) or nil
  end
  cfg.root_markers = nil
  cfg.filetypes = nil
  return vim.lsp.start(cfg, { bufnr = bufnr })
end

--- The running slang-analyzer clients (of `bufnr` when given).
function M.clients(bufnr)
  return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
end

--- Sends `method` to the server of the current buffer; `handler(result)`.
local function request(method, params_of, handler)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = M.clients(bufnr)[1]
  if not client then
    notify('no slang-analyzer server is attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local params = params_of(client, bufnr)
  local attempts = 0
  local function send()
    attempts = attempts + 1
    call(client, 'request', method, params, function(err, result)
      if err and err.code == -32801 and attempts < 10 then
        -- ContentModified: an edit (or the indexing after the start)
        -- overtook the request; ask again on the new state.
        vim.defer_fn(send, 50 * attempts)
      elseif err then
        notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
      elseif result then
        handler(result)
      end
    end, bufnr)
  end
  send()
end

-- Filetypes for the server's language ids.
local filetype_of = { msl = 'cpp', slang = 'slang', wgsl = 'wgsl', hlsl = 'hlsl', glsl = 'glsl', spirv = 'spirv' }

--- Shows a generated document `{uri, languageId, text}` in a read-only
--- scratch buffer named after its uri (reused by the next request).
function M.show_document(doc)
  local buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[b].slang_analyzer_uri == doc.uri then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.b[buf].slang_analyzer_uri = doc.uri
    pcall(vim.api.nvim_buf_set_name, buf, doc.uri)
  end
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].readonly = false
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(doc.text or '', '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.bo[buf].modified = false
  local ft = filetype_of[doc.languageId] or doc.languageId
  if vim.bo[buf].filetype ~= ft then
    vim.bo[buf].filetype = ft
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd(M.options.open_cmd)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  else
    vim.api.nvim_set_current_win(win)
  end
  return buf
end

--- The generated derivative of the function at the cursor ('fwd', 'bwd' or
--- nil for both) in a scratch buffer.
function M.show_derivative(mode)
  if mode and mode ~= '' and mode ~= 'fwd' and mode ~= 'bwd' and mode ~= 'both' and mode ~= 'passes' then
    notify('mode is fwd, bwd, both or passes, not ' .. mode, vim.log.levels.ERROR)
    return
  end
  request('slang-analyzer/derivative', function(client)
    local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
    if mode and mode ~= '' then
      params.mode = mode
    end
    return params
  end, M.show_document)
end

--- Checks the derivatives of the function at the cursor on the GPU (the
--- server's `slang.checkGradients`, as `slang-analyzer gradcheck`); the
--- server shows the outcome (`window/showMessage`). `on_result`, when
--- given, gets the command's result.
function M.check_gradients(on_result)
  request('workspace/executeCommand', function(client)
    local p = vim.lsp.util.make_position_params(0, client.offset_encoding)
    return { command = 'slang.checkGradients', arguments = { p.textDocument.uri, p.position } }
  end, function(result)
    if on_result then
      on_result(result)
    end
  end)
end

M.targets = { 'wgsl', 'spirv', 'glsl', 'hlsl', 'msl' }

--- The target code of the current file's entry point (the first one unless
--- `entry` names one) in a scratch buffer.
function M.show_compiled(target, entry)
  target = (target and target ~= '') and target or M.options.default_target
  request('slang-analyzer/compile', function(_, bufnr)
    local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr), target = target }
    if entry and entry ~= '' then
      params.entryPoint = entry
    end
    return params
  end, M.show_document)
end

--- Stops the slang-analyzer clients and starts the server again for the
--- buffers they served (or the current one).
function M.restart()
  local buffers = {}
  local clients = M.clients()
  for _, client in ipairs(clients) do
    for b in pairs(client.attached_buffers) do
      buffers[#buffers + 1] = b
    end
    call(client, 'stop')
  end
  local stopped = vim.wait(5000, function()
    for _, client in ipairs(clients) do
      if not call(client, 'is_stopped') then
        return false
      end
    end
    return true
  end, 20)
  if not stopped then
    for _, client in ipairs(clients) do
      call(client, 'stop', true)
    end
  end
  if #buffers == 0 then
    buffers = { vim.api.nvim_get_current_buf() }
  end
  for _, b in ipairs(buffers) do
    if vim.api.nvim_buf_is_valid(b) and (vim.bo[b].filetype == 'slang' or vim.bo[b].filetype == 'shaderslang') then
      M.start(b)
    end
  end
end

--- Compiles the tree-sitter parser (see lua/slang_analyzer/treesitter.lua).
function M.build_parser(force)
  return require('slang_analyzer.treesitter').build({ force = force })
end

function M.create_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd('SlangShowDerivative', function(a)
    M.show_derivative(a.fargs[1])
  end, {
    nargs = '?',
    desc = 'slang-analyzer: show the generated derivative of the function at the cursor',
    complete = function()
      return { 'fwd', 'bwd', 'both', 'passes' }
    end,
  })
  cmd('SlangShowCompiled', function(a)
    M.show_compiled(a.fargs[1], a.fargs[2])
  end, {
    nargs = '*',
    desc = 'slang-analyzer: show the compiled entry point ([target] [entry point])',
    complete = function(_, line)
      if #vim.split(line, '%s+', { trimempty = false }) <= 2 then
        return M.targets
      end
      return {}
    end,
  })
  cmd('SlangCheckGradients', function()
    M.check_gradients()
  end, { desc = 'slang-analyzer: check the derivatives of the function at the cursor on the GPU' })
  cmd('SlangRestartServer', function()
    M.restart()
  end, { desc = 'slang-analyzer: restart the language server' })
  cmd('SlangBuildParser', function(a)
    local ok, err = pcall(M.build_parser, a.bang)
    if not ok then
      notify(tostring(err), vim.log.levels.ERROR)
    end
  end, { bang = true, desc = 'slang-analyzer: compile the tree-sitter parser (! rebuilds)' })
end

--- Default highlights for the server's semantic token modifiers.
function M.default_highlights()
  vim.api.nvim_set_hl(0, '@lsp.mod.differentiable.slang', { default = true, italic = true })
  vim.api.nvim_set_hl(0, '@lsp.mod.noDiff.slang', { default = true, link = 'Comment' })
end

--- Configures and starts everything; `opts` as `defaults` above.
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  vim.filetype.add({ extension = { slang = 'slang', slangh = 'slang' } })
  M.create_commands()
  M.default_highlights()
  local ts = require('slang_analyzer.treesitter')
  if M.options.treesitter.nvim_treesitter then
    ts.register_nvim_treesitter()
  end
  if M.options.treesitter.build_on_setup then
    local ok, err = pcall(ts.build, {})
    if not ok then
      notify(tostring(err), vim.log.levels.WARN)
    end
  end

  local group = vim.api.nvim_create_augroup('slang_analyzer', { clear = true })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == M.name and M.options.inlay_hints and vim.lsp.inlay_hint then
        vim.lsp.inlay_hint.enable(true, { bufnr = args.buf })
      end
    end,
  })
  if not M.options.lsp.enabled then
    return
  end
  if M.api() == 'config' then
    vim.lsp.config(M.name, M.options.server or {})
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = { 'slang', 'shaderslang' },
      callback = function(args)
        if not vim.api.nvim_buf_get_name(args.buf):match('%.sl$') then
          M.start(args.buf)
        end
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'slang' then
        M.start(b)
      end
    end
  end
end

return M

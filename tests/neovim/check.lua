-- Driven by tests/neovim.rs: a headless Neovim with editors/neovim on
-- 'runtimepath' opens a Slang file, attaches to the real server and records
-- what it sees (hover, completion, diagnostics, the commands' buffers,
-- tree-sitter captures, semantic tokens) as JSON in $SLANG_TEST_OUT. The
-- Rust side asserts. Every wait has a timeout; errors are recorded too.
local env = vim.env
local R = { api = env.SLANG_TEST_API, nvim = tostring(vim.version()), log = {} }

local function log(msg)
  R.log[#R.log + 1] = msg
end

-- Messages (vim.notify, errors of commands) end up in the log.
vim.notify = function(msg, level)
  log(('notify[%s]: %s'):format(tostring(level), tostring(msg)))
end

local function wait(ms, pred, what)
  local ok = vim.wait(ms, pred, 20)
  if not ok then
    log('timed out: ' .. what)
  end
  return ok
end

--- 0-based (row, col) of the first `needle` (plain text) in `buf`, plus
--- `offset` columns.
local function find(buf, needle, offset)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find(needle, 1, true)
    if s then
      return i - 1, s - 1 + (offset or 0)
    end
  end
  error('not in the buffer: ' .. needle)
end

local function client_of(buf)
  return require('slang_analyzer').clients(buf)[1]
end

--- A request through Neovim's client; retried while the server answers
--- ContentModified (-32801: a newer edit, or the workspace indexing that
--- follows the start, cancelled it), as the protocol intends.
local function request(buf, method, params)
  local err = 'no response'
  for attempt = 1, 20 do
    local responses = vim.lsp.buf_request_sync(buf, method, params, 10000) or {}
    local _, r = next(responses)
    if r and not r.error then
      return r.result
    end
    err = r and r.error or err
    if not (r and r.error and r.error.code == -32801) then
      break
    end
    log(('%s: content modified (attempt %d)'):format(method, attempt))
    vim.wait(100)
  end
  return nil, err
end

local function position(buf, row, col)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  return vim.lsp.util.make_position_params(0, client_of(buf).offset_encoding)
end

local function find_doc_buffer(prefix)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local uri = vim.b[b].slang_analyzer_uri
    if uri and uri:sub(1, #prefix) == prefix then
      return b
    end
  end
end

local function doc_info(b, src_buf)
  local ok = b ~= nil
  return ok
      and {
        name = vim.api.nvim_buf_get_name(b),
        uri = vim.b[b].slang_analyzer_uri,
        filetype = vim.bo[b].filetype,
        modifiable = vim.bo[b].modifiable,
        buftype = vim.bo[b].buftype,
        text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'),
        clients = #vim.lsp.get_clients({ bufnr = b }),
        shown = vim.fn.bufwinid(b) ~= -1,
        source_still_attached = client_of(src_buf) ~= nil,
      }
    or vim.NIL
end

local function diagnostics(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    out[#out + 1] = { lnum = d.lnum, col = d.col, message = d.message, source = d.source, severity = d.severity }
  end
  return out
end

local function main()
  local sa = require('slang_analyzer')
  sa.setup({
    lsp = { api = env.SLANG_TEST_API },
    server = { cmd = { env.SLANG_ANALYZER_BIN } },
    treesitter = { grammar_dir = env.SLANG_TEST_GRAMMAR_DIR, parser_dir = env.SLANG_TEST_PARSER_DIR },
  })
  R.api_used = sa.api()
  R.commands = {}
  for _, c in ipairs({ 'SlangShowDerivative', 'SlangShowCompiled', 'SlangCheckGradients', 'SlangRestartServer', 'SlangBuildParser' }) do
    R.commands[c] = vim.fn.exists(':' .. c) == 2
  end

  -- The parser, built by the plugin's own command (when the grammar exists).
  R.build_mode = env.SLANG_TEST_BUILD_PARSER
  if env.SLANG_TEST_BUILD_PARSER == '1' or env.SLANG_TEST_BUILD_PARSER == 'force' then
    vim.cmd(env.SLANG_TEST_BUILD_PARSER == 'force' and 'SlangBuildParser!' or 'SlangBuildParser')
    R.parser = vim.uv.fs_stat(require('slang_analyzer.treesitter').parser_path()) ~= nil
  end

  vim.cmd.edit(vim.fn.fnameescape(env.SLANG_TEST_FILE))
  local buf = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  R.filetype = vim.bo[buf].filetype
  R.filetype_slangh = vim.filetype.match({ filename = 'common.slangh' })
  R.commentstring = vim.bo[buf].commentstring
  R.attached = wait(20000, function()
    local c = client_of(buf)
    return c ~= nil and c.initialized == true
  end, 'attach')
  if not R.attached then
    return
  end
  local client = client_of(buf)
  R.client = { id = client.id, name = client.name, root_dir = client.root_dir, cmd = client.config.cmd }
  R.server_name = client.server_info and client.server_info.name

  -- Hover on the declaration of a [Differentiable] function.
  local row, col = find(buf, 'float3 shade(', 7)
  local hover, err = request(buf, 'textDocument/hover', position(buf, row, col))
  R.hover = hover and hover.contents and hover.contents.value or vim.NIL
  R.hover_error = err and vim.inspect(err) or vim.NIL

  -- Completion after `m.` typed into `loss` (an incremental change).
  row = find(buf, 'return dot(diff, diff);')
  vim.api.nvim_buf_set_lines(buf, row, row, false, { '    m.' })
  -- (Not through the cursor: normal mode cannot stand after the `.`.)
  local items = request(buf, 'textDocument/completion', {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    position = { line = row, character = 6 },
    context = { triggerKind = 2, triggerCharacter = '.' },
  })
  R.completion = {}
  for _, item in ipairs(items and (items.items or items) or {}) do
    R.completion[#R.completion + 1] = item.label
  end
  vim.api.nvim_buf_set_lines(buf, row, row + 1, false, {})

  -- Semantic tokens: `m` inside the differentiable `shade` carries derivatives.
  row, col = find(buf, 'm.roughness * m.roughness', 0)
  local tokens = {}
  wait(5000, function()
    tokens = vim.lsp.semantic_tokens and vim.lsp.semantic_tokens.get_at_pos(buf, row, col) or {}
    return #tokens > 0
  end, 'semantic tokens')
  R.semantic = {}
  for _, t in ipairs(tokens) do
    R.semantic[#R.semantic + 1] = { type = t.type, modifiers = vim.tbl_keys(t.modifiers or {}) }
  end

  -- Code lenses: what the backward derivatives that `bwd_diff(loss)` uses
  -- save (the compile worker's, once edits settle), asked for again every
  -- half second until they come.
  local lenses, polls = {}, 0
  wait(15000, function()
    if polls % 25 == 0 then
      vim.lsp.codelens.refresh({ bufnr = buf })
    end
    polls = polls + 1
    lenses = vim.lsp.codelens.get(buf)
    return #lenses > 0
  end, 'code lenses')
  R.lenses = {}
  for _, l in ipairs(lenses) do
    R.lenses[#R.lenses + 1] = { line = l.range.start.line, title = l.command and l.command.title or vim.NIL }
  end

  -- :SlangShowDerivative bwd on `shade`.
  row, col = find(buf, 'float3 shade(', 7)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  vim.cmd('SlangShowDerivative bwd')
  wait(15000, function()
    return find_doc_buffer('slang-analyzer:/derivative/') ~= nil
  end, 'derivative buffer')
  R.derivative = doc_info(find_doc_buffer('slang-analyzer:/derivative/'), buf)

  -- :SlangShowDerivative passes: the IR after each reverse-mode pass, in a
  -- buffer of its own.
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  vim.cmd('SlangShowDerivative passes')
  wait(15000, function()
    return find_doc_buffer('slang-analyzer:/passes/') ~= nil
  end, 'passes buffer')
  R.passes = doc_info(find_doc_buffer('slang-analyzer:/passes/'), buf)

  -- :SlangShowCompiled wgsl (the file's entry point).
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('SlangShowCompiled wgsl')
  wait(15000, function()
    return find_doc_buffer('slang-analyzer:/compile/') ~= nil
  end, 'compiled buffer')
  R.compiled = doc_info(find_doc_buffer('slang-analyzer:/compile/'), buf)
  vim.api.nvim_set_current_win(src_win)

  -- :SlangShowDerivative on a function that is not differentiable: the
  -- server's error, as an error message.
  row, col = find(buf, 'void fitRoughness(', 5)
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  local before = #R.log
  vim.cmd('SlangShowDerivative')
  wait(10000, function()
    return #R.log > before
  end, 'derivative error')
  R.derivative_error = R.log[before + 1] or vim.NIL
  R.log[before + 1] = nil

  -- Tree-sitter captures.
  R.ts_active = vim.treesitter.highlighter.active[buf] ~= nil
  if R.ts_active then
    -- The tree of the current text (the highlighter may reparse later,
    -- asynchronously, after the edits above).
    vim.treesitter.get_parser(buf):parse()
    R.captures = {}
    local probes = {
      { 'struct', 'struct Material', 0 },
      { 'type_name', 'struct Material', 7 },
      { 'function_decl', 'float3 shade(', 7 },
      { 'attribute', '[Differentiable]', 1 },
      { 'bwd_diff', 'bwd_diff(loss)', 0 },
      { 'return', 'return dot(diff, diff);', 0 },
      { 'comment', '// A small differentiable', 3 },
      { 'number', '0.6, 0.4', 0 },
      { 'builtin_type', 'float3 shade(', 0 },
    }
    for _, p in ipairs(probes) do
      local r, c = find(buf, p[2], p[3])
      local names = {}
      for _, cap in ipairs(vim.treesitter.get_captures_at_pos(buf, r, c)) do
        names[#names + 1] = cap.capture
      end
      R.captures[p[1]] = names
    end
  end

  -- A deliberate error, typed in: its diagnostic on the right line.
  row = find(buf, 'float a = m.roughness')
  vim.api.nvim_buf_set_lines(buf, row, row, false, { '    float q = undefinedScale * 2.0;' })
  R.error_line = row
  -- (Waiting for this diagnostic, not for any: one left from an earlier
  -- edit, such as the completion's `m.`, may still be shown.)
  wait(15000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find('undefinedScale', 1, true) then
        return true
      end
    end
    return false
  end, 'diagnostics')
  R.diagnostics = diagnostics(buf)

  -- :SlangRestartServer: a new client, attached to the same buffer, which
  -- gets the edited text (the diagnostic comes back) and answers hover.
  vim.cmd('SlangRestartServer')
  wait(20000, function()
    local c = client_of(buf)
    return c ~= nil and c.id ~= client.id and c.initialized == true
  end, 'restart')
  local c2 = client_of(buf)
  R.restart = { old_id = client.id, new_id = c2 and c2.id or vim.NIL, old_stopped = client:is_stopped() }
  if c2 and c2.id ~= client.id then
    local namespaces = {
      [vim.lsp.diagnostic.get_namespace(c2.id, false)] = true,
      [vim.lsp.diagnostic.get_namespace(c2.id, true)] = true,
    }
    wait(15000, function()
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        if namespaces[d.namespace] and d.message:find('undefinedScale', 1, true) then
          return true
        end
      end
      return false
    end, 'diagnostics after restart')
    R.restart.diagnostics = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local ns = vim.diagnostic.get_namespace(d.namespace)
      R.restart.diagnostics[#R.restart.diagnostics + 1] =
        { lnum = d.lnum, message = d.message, ns = ns and ns.name, new_client = namespaces[d.namespace] == true }
    end
    local r2, c3 = find(buf, 'float loss(', 6)
    local h = request(buf, 'textDocument/hover', position(buf, r2, c3))
    R.restart.hover = h and h.contents and h.contents.value or vim.NIL
  end
end

local ok, err = xpcall(main, debug.traceback)
R.error = ok and vim.NIL or tostring(err)
local f = assert(io.open(env.SLANG_TEST_OUT, 'w'))
f:write(vim.json.encode(R))
f:close()
for _, c in ipairs(vim.lsp.get_clients()) do
  c:stop(true)
end
vim.cmd(ok and 'qa!' or 'cquit! 2')

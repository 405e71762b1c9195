-- The slang-analyzer language server, for `vim.lsp.config` / `vim.lsp.enable`
-- (Neovim 0.11+). With this directory on 'runtimepath':
--
--   vim.lsp.enable('slang_analyzer')
--
-- and override any field with vim.lsp.config('slang_analyzer', { ... }).
-- `require('slang_analyzer').setup()` does the same and also serves 0.10.

-- `slang-analyzer` from $PATH; else a build in the repository this plugin
-- lives in (editors/neovim → ../../target/{release,debug}).
local function default_cmd()
  if vim.fn.executable('slang-analyzer') == 1 then
    return { 'slang-analyzer' }
  end
  local here = debug.getinfo(1, 'S').source:gsub('^@', '')
  local repo = vim.fn.fnamemodify(here, ':p:h:h:h:h')
  for _, profile in ipairs({ 'release', 'debug' }) do
    local exe = repo .. '/target/' .. profile .. '/slang-analyzer'
    if vim.fn.executable(exe) == 1 then
      return { exe }
    end
  end
  return { 'slang-analyzer' }
end

return {
  cmd = default_cmd(),
  filetypes = { 'slang', 'shaderslang' },
  root_markers = { 'slang-analyzer.json', 'slangdconfig.json', '.git' },
  -- The `slang` section; sent as initialization options too, so that the
  -- first indexing of the workspace already sees them.
  settings = {
    slang = {
      predefinedMacros = {}, -- { 'NAME', 'NAME=VALUE' }
      additionalSearchPaths = {},
      searchInAllWorkspaceDirectories = true,
      inlayHints = {
        deducedTypes = true,
        parameterNames = true,
        derivativeSignatures = true,
      },
    },
  },
  before_init = function(params, config)
    params.initializationOptions = config.settings
    -- Diagnostics pushed rather than pulled: the server pushes them 10 ms
    -- after an edit, and the code generator's after 300 ms of quiet, to
    -- clients that do not pull; Neovim's pulled diagnostics also outlive
    -- a restarted client.
    if params.capabilities and params.capabilities.textDocument then
      params.capabilities.textDocument.diagnostic = nil
    end
  end,
}

-- codeteam for Neovim 0.7 and later: starts `codeteam serve` for Python buffers (one client per
-- project root) and adds :CodeteamPlan, :CodeteamGenerate, :CodeteamReview, :CodeteamFix,
-- :CodeteamTranscript, :CodeteamCancel, and :CodeteamAccept / :CodeteamDiscard for a preview.
--
-- Preview before apply (option `preview`, on by default): the module announces
-- workspace.workspaceEdit.changeAnnotationSupport, so codeteam sends its edits with a change
-- annotation that needs confirmation. Such an edit is not applied: its diff opens in a scratch
-- window (`a` accepts, `d` or `q` discards; :CodeteamAccept, :CodeteamDiscard), and the module
-- answers the server that it is shown as a preview. Accept asks the server to apply the result
-- (codeteam.apply, on the current text); discard closes the window, and the server keeps the
-- result (:CodeteamTranscript). The `User CodeteamPreview` autocommand fires when one opens.
--
-- Install: copy this file to ~/.config/nvim/lua/codeteam.lua, then in init.lua
--
--   require("codeteam").setup({
--     cmd = { "/path/to/codeteam/.venv/bin/codeteam", "serve" },
--     settings = { base_url = "http://127.0.0.1:11434/v1", model = "qwen2.5-coder:7b" },
--   })
--
-- `settings` are codeteam's settings (README: "Configure a model"). Neovim 0.7 does not answer
-- workspace/configuration, so they go to the server as initializationOptions ({codeteam = ...});
-- after changing them, restart the server: `:lua require("codeteam").restart()`. Keep the API
-- key out of your config: export CODETEAM_API_KEY (or OPENAI_API_KEY) before starting Neovim, or
-- pass it with `cmd_env`.
--
-- Edits arrive as workspace/applyEdit. Neovim 0.7-0.10 skip a versioned edit made for an older
-- buffer version but answer applied=true, and apply an unversioned edit (or one for version 0)
-- to whatever lines are there by then. So, before 0.11, this module advertises versioned edits
-- and answers applied=false with the reason for a stale one (options `versioned_edits` and
-- `guard_stale_edits`); and it sends changes to codeteam without debounce, so that the server
-- has seen the typing when it hears the refusal and makes the edit again on the current text.

local M = {}

local api = vim.api
local has_011 = vim.fn.has("nvim-0.11") == 1
local has_08 = vim.fn.has("nvim-0.8") == 1

local COMMANDS = {
  CodeteamPlan = "codeteam.plan",
  CodeteamGenerate = "codeteam.generate",
  CodeteamReview = "codeteam.review",
  CodeteamFix = "codeteam.fix",
}
local TRANSCRIPT = "codeteam.transcript"
local APPLY = "codeteam.apply"
local ANNOTATION_PREFIX = "codeteam:"

local defaults = {
  name = "codeteam",
  cmd = { "codeteam", "serve" },
  cmd_env = nil,
  settings = {},
  filetypes = { "python" },
  root_markers = { "pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", "requirements.txt", ".git" },
  root_dir = nil, -- a directory, or function(bufnr) -> directory
  progress = true, -- echo the stages of a run ("analyst: planning", ...)
  preview = true, -- show codeteam's edits as a diff to accept or discard first
  messages = "line", -- the server's info messages on one line; "full": Neovim's own display
  start_timeout_ms = 120000, -- a command given while the server starts waits this long for it
  versioned_edits = not has_011,
  guard_stale_edits = not has_011,
  flags = { debounce_text_changes = 0 },
  capabilities = nil,
  on_attach = nil,
  handlers = nil,
}

M.config = vim.deepcopy(defaults)

-- State (read it, do not change it): clients by root dir, runs in progress, the last result.
M.state = {
  clients = {}, -- root dir -> client id
  progress = {}, -- progress token -> { client_id, title, message }
  pending = {}, -- "client_id:request_id" -> { client_id, request_id, command, bufnr }
  last = nil, -- { command, status, message, applied, cost, error, argument }
  last_argument = nil, -- the argument object of the last command sent
  messages = {}, -- the last window/showMessage texts of codeteam (at most 50)
  preview = nil, -- the preview shown: { client_id, result, label, description, bufnr, winid, target }
}

-- Client methods are called with ":" from Neovim 0.11 on, with "." before.
local function call(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function notify(message, level)
  vim.notify("codeteam: " .. message, level or vim.log.levels.INFO)
end

local function fire(pattern)
  pcall(api.nvim_exec_autocmds, "User", { pattern = pattern, modeline = false })
end

local function get_client(id)
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not call(client, "is_stopped") then
    return client
  end
  return nil
end

-- 0-based character of byte column `col` of `line` in `encoding` ("utf-16" unless negotiated).
-- Neovim's cursor column is a byte offset; the server counts UTF-16 code units by default.
function M.character(line, col, encoding)
  col = math.max(0, math.min(col, #line))
  if encoding == "utf-8" then
    return col
  end
  local utf32, utf16
  if has_011 then
    utf32 = vim.str_utfindex(line, "utf-32", col, false)
    utf16 = vim.str_utfindex(line, "utf-16", col, false)
  else
    utf32, utf16 = vim.str_utfindex(line, col)
  end
  if encoding == "utf-32" then
    return utf32
  end
  return utf16
end

local function dir_of(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  return vim.fn.fnamemodify(name, ":p:h")
end

local function find_root(bufnr)
  local root_dir = M.config.root_dir
  if type(root_dir) == "function" then
    return root_dir(bufnr)
  elseif type(root_dir) == "string" then
    return (vim.fn.fnamemodify(root_dir, ":p"):gsub("/$", ""))
  end
  local start = dir_of(bufnr)
  local dir = start
  while dir and dir ~= "" do
    for _, marker in ipairs(M.config.root_markers) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

-- Echo `text` (and `hint` when there is room) on one line: a longer message would make Neovim
-- wait for Enter.
local function echo_progress(text, hint)
  if not M.config.progress then
    return
  end
  local width = math.max(20, (vim.v.echospace or 80) - 1)
  if vim.fn.strdisplaywidth(text .. hint) <= width then
    text = text .. hint
  elseif vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 3) .. "..."
  end
  api.nvim_echo({ { text } }, false, {})
end

-- Handlers (for the codeteam client only) --------------------------------------------------

local function default_handler(method)
  return vim.lsp.handlers[method]
end

local function on_progress_create(err, result, ctx, config)
  local handler = default_handler("window/workDoneProgress/create")
  local answer, answer_err
  if handler then
    answer, answer_err = handler(err, result, ctx, config)
  end
  if result and result.token ~= nil then
    M.state.progress[result.token] = { client_id = ctx.client_id, title = "codeteam", message = "" }
  end
  if answer == nil and answer_err == nil then
    answer = vim.NIL
  end
  return answer, answer_err
end

local function on_progress(err, result, ctx, config)
  local handler = default_handler("$/progress")
  if handler then
    pcall(handler, err, result, ctx, config)
  end
  if not result or type(result.value) ~= "table" then
    return
  end
  local value, token = result.value, result.token
  local entry = M.state.progress[token] or { client_id = ctx.client_id, title = "codeteam" }
  if value.kind == "begin" then
    entry.title = value.title or entry.title
    entry.message = value.message or ""
    M.state.progress[token] = entry
  elseif value.kind == "report" then
    entry.message = value.message or entry.message
    M.state.progress[token] = entry
  elseif value.kind == "end" then
    entry.message = value.message or "done"
    M.state.progress[token] = nil
  end
  local text = entry.title
  if entry.message and entry.message ~= "" then
    text = text .. ": " .. entry.message
  end
  local hint = value.kind ~= "end" and "  (:CodeteamCancel)" or ""
  echo_progress(text, hint)
  fire("CodeteamProgress")
end

-- "codeteam: <first line> — <second line>" in one screen line (the server's run reports are a
-- summary line, the outcome, and notes).
local function one_line(message)
  local lines = vim.split(message, "\n", { plain = true, trimempty = true })
  local width = math.max(20, (vim.v.echospace or 80) - 1)
  local head, tail = "codeteam: " .. (lines[1] or ""), lines[2]
  if tail then
    local room = width - vim.fn.strdisplaywidth(" — " .. tail)
    if vim.fn.strdisplaywidth(head) > room and room >= 30 then
      head = vim.fn.strcharpart(head, 0, room - 3) .. "..."
    end
    head = head .. " — " .. tail
  end
  if vim.fn.strdisplaywidth(head) > width then
    head = vim.fn.strcharpart(head, 0, width - 3) .. "..."
  end
  return head
end

local function on_show_message(err, result, ctx, config)
  if result and result.message then
    table.insert(M.state.messages, { type = result.type, message = result.message })
    if #M.state.messages > 50 then
      table.remove(M.state.messages, 1)
    end
    -- Info arrives when a run ends, maybe while you type: one line, no "Press ENTER" prompt.
    -- Errors and warnings (not applied, failed) are shown in full by Neovim's handler.
    if M.config.messages == "line" and (result.type or 3) >= 3 then
      api.nvim_echo({ { one_line(result.message) } }, true, {})
      return vim.NIL
    end
  end
  local handler = default_handler("window/showMessage")
  if handler then
    return handler(err, result, ctx, config)
  end
end

-- Why the versioned edit is for an older version of its buffer than the buffer's (nil: it is
-- not). Neovim 0.7-0.10 record the version of each change in vim.lsp.util.buf_versions when it
-- happens, before the (debounced) didChange is sent.
local function stale_reason(edit)
  local versions = vim.lsp.util.buf_versions
  if type(edit) ~= "table" or type(versions) ~= "table" then
    return nil
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    local document = change.textDocument
    if document and type(document.version) == "number" and document.uri then
      local bufnr = vim.uri_to_bufnr(document.uri)
      local current = rawget(versions, bufnr)
      if type(current) == "number" and current ~= document.version then
        return string.format(
          "the buffer changed since the edit was made (version %d, the edit is for version %d)",
          current,
          document.version
        )
      end
    end
  end
  return nil
end

-- The change annotation of `edit` that needs the user's confirmation, with its id (nil: none).
local function confirmation(edit)
  if type(edit) ~= "table" or type(edit.changeAnnotations) ~= "table" then
    return nil
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    for _, text_edit in ipairs(change.edits or {}) do
      local id = text_edit.annotationId
      local annotation = id and edit.changeAnnotations[id]
      if type(annotation) == "table" and annotation.needsConfirmation then
        return id, annotation
      end
    end
  end
  return nil
end

local function close_preview()
  local preview = M.state.preview
  M.state.preview = nil
  if preview and preview.winid and api.nvim_win_is_valid(preview.winid) then
    pcall(api.nvim_win_close, preview.winid, true)
  end
  if preview and preview.bufnr and api.nvim_buf_is_valid(preview.bufnr) then
    pcall(api.nvim_buf_delete, preview.bufnr, { force = true })
  end
  return preview
end

-- The lines of `bufnr` after `edits` (LSP TextEdits in `encoding`), computed on a copy.
local function edited_lines(bufnr, edits, encoding)
  local copy = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(copy, 0, -1, false, api.nvim_buf_get_lines(bufnr, 0, -1, false))
  vim.lsp.util.apply_text_edits(edits, copy, encoding)
  local lines = api.nvim_buf_get_lines(copy, 0, -1, false)
  api.nvim_buf_delete(copy, { force = true })
  return lines
end

-- Open the diff of the annotated `edit` from client `client_id` in a scratch window.
local function show_preview(edit, id, annotation, client_id)
  close_preview()
  local client = get_client(client_id)
  local encoding = client and client.offset_encoding or "utf-16"
  local lines = {
    "codeteam preview: " .. (annotation.label or "an edit"),
  }
  for _, line in ipairs(vim.split(annotation.description or "", "\n", { plain = true, trimempty = true })) do
    table.insert(lines, line)
  end
  table.insert(lines, "a: accept (:CodeteamAccept)   d or q: discard (:CodeteamDiscard)")
  table.insert(lines, "")
  local target
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument and change.edits then
      local bufnr = vim.uri_to_bufnr(change.textDocument.uri)
      vim.fn.bufload(bufnr)
      target = target or bufnr
      local old = api.nvim_buf_get_lines(bufnr, 0, -1, false)
      local new = edited_lines(bufnr, change.edits, encoding)
      local name = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":~:.")
      table.insert(lines, "--- a/" .. name)
      table.insert(lines, "+++ b/" .. name)
      local diff = vim.diff(table.concat(old, "\n") .. "\n", table.concat(new, "\n") .. "\n")
      for _, line in ipairs(vim.split(diff, "\n", { plain = true, trimempty = true })) do
        table.insert(lines, line)
      end
    end
  end
  vim.cmd("botright new")
  local winid = api.nvim_get_current_win()
  local bufnr = api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "wipe"
  vim.bo[bufnr].swapfile = false
  api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  vim.bo[bufnr].filetype = "diff"
  pcall(api.nvim_buf_set_name, bufnr, "codeteam://preview/" .. bufnr)
  api.nvim_win_set_height(winid, math.min(#lines + 1, math.max(10, math.floor(vim.o.lines / 2))))
  for key, action in pairs({ a = "accept", d = "discard", q = "discard" }) do
    api.nvim_buf_set_keymap(bufnr, "n", key, "", {
      noremap = true,
      nowait = true,
      desc = "codeteam: " .. action .. " the preview",
      callback = function()
        M[action]()
      end,
    })
  end
  M.state.preview = {
    client_id = client_id,
    result = id:sub(1, #ANNOTATION_PREFIX) == ANNOTATION_PREFIX and id:sub(#ANNOTATION_PREFIX + 1) or id,
    label = annotation.label,
    description = annotation.description,
    bufnr = bufnr,
    winid = winid,
    target = target,
  }
  fire("CodeteamPreview")
end

local function on_apply_edit(err, result, ctx, config)
  if M.config.guard_stale_edits and result then
    local reason = stale_reason(result.edit)
    if reason then
      return { applied = false, failureReason = reason }
    end
  end
  if M.config.preview and result then
    local id, annotation = confirmation(result.edit)
    if id then
      -- Neovim answers a server's request when its handler returns: the user decides later,
      -- so the answer is "not applied (yet)", and accept asks the server to apply it.
      vim.schedule(function()
        show_preview(result.edit, id, annotation, ctx.client_id)
      end)
      return {
        applied = false,
        failureReason = "shown as a preview in Neovim: :CodeteamAccept (a) applies it, "
          .. ":CodeteamDiscard (d) discards it",
      }
    end
  end
  return default_handler("workspace/applyEdit")(err, result, ctx, config)
end

-- Running commands -----------------------------------------------------------------------------

local function is_candidate(bufnr)
  if not api.nvim_buf_is_valid(bufnr) or not api.nvim_buf_is_loaded(bufnr) then
    return false
  end
  if vim.bo[bufnr].buftype ~= "" or api.nvim_buf_get_name(bufnr) == "" then
    return false
  end
  return vim.tbl_contains(M.config.filetypes, vim.bo[bufnr].filetype)
end

-- The codeteam client attached to `bufnr` (nil if none).
function M.client_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  for _, id in pairs(M.state.clients) do
    local client = get_client(id)
    if client and vim.lsp.buf_is_attached(bufnr, id) then
      return client
    end
  end
  return nil
end

-- "1 call, 85+40 tokens, 0.4 s, $0.0004": a run's cost (the answer's `cost`) in short.
function M.cost_text(cost)
  if type(cost) ~= "table" or type(cost.calls) ~= "number" then
    return nil
  end
  local text = string.format(
    "%d call%s, %d+%d tokens, %.1f s",
    cost.calls,
    cost.calls == 1 and "" or "s",
    cost.prompt_tokens or 0,
    cost.completion_tokens or 0,
    cost.seconds or 0
  )
  if type(cost.usd) == "number" then
    text = text .. string.format(cost.usd < 1 and ", $%.4f" or ", $%.2f", cost.usd)
  end
  if type(cost.unpriced) == "table" and #cost.unpriced > 0 then
    text = text .. " (no price: " .. table.concat(cost.unpriced, ", ") .. ")"
  end
  return text
end

-- After a run's answer: its status and cost on one line ("codeteam: passed, applied — cost: 2
-- calls, 120+48 tokens, 1.2 s, $0.0008"); the whole cost line is in the message (:messages).
local function echo_cost(last)
  local cost = M.cost_text(last.cost)
  if not cost or M.config.messages ~= "line" then
    return
  end
  local applied = last.applied and "applied" or "not applied"
  local text = string.format("codeteam: %s, %s — cost: %s", tostring(last.status), applied, cost)
  local width = math.max(20, (vim.v.echospace or 80) - 1)
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 3) .. "..."
  end
  api.nvim_echo({ { text } }, true, {})
end

local function finish(key, entry, err, result)
  M.state.pending[key] = nil
  local last = { command = entry.command, argument = entry.argument }
  if err then
    last.status = err.code == -32800 and "cancelled" or "error"
    last.message = err.message or vim.inspect(err)
    last.applied = false
    last.error = err
    if err.code ~= -32800 then
      notify(entry.command .. " failed: " .. last.message, vim.log.levels.ERROR)
    else
      notify(entry.command .. " was cancelled")
    end
  elseif type(result) == "table" then
    last.status = result.status
    last.message = result.message
    last.applied = result.applied
    last.cost = result.cost
  else
    last.status = "unknown"
    last.applied = false
  end
  M.state.last = last
  if last.cost then
    echo_cost(last)
  end
  fire("CodeteamDone")
end

-- Send workspace/executeCommand `command` with `arguments` to `client`; the answer goes to
-- M.state.last and the User CodeteamDone autocommand. Returns the request id (nil on failure).
function M.execute(client, command, arguments, bufnr)
  local entry = {
    client_id = client.id,
    command = command,
    bufnr = bufnr,
    argument = arguments and arguments[1] or nil,
  }
  local key
  local ok, request_id = call(
    client,
    "request",
    "workspace/executeCommand",
    { command = command, arguments = arguments },
    function(err, result)
      finish(key, entry, err, result)
    end,
    bufnr
  )
  if not ok then
    notify("the server is not running", vim.log.levels.ERROR)
    return nil
  end
  entry.request_id = request_id
  key = client.id .. ":" .. tostring(request_id)
  M.state.pending[key] = entry
  return request_id
end

-- The argument object of codeteam.plan / generate / review / fix for the cursor's position.
-- `cursor`: the {row, byte column} to use instead of the window's cursor now.
function M.cursor_argument(client, winid, cursor)
  winid = winid or api.nvim_get_current_win()
  local bufnr = api.nvim_win_get_buf(winid)
  cursor = cursor or api.nvim_win_get_cursor(winid)
  local row, col = cursor[1] - 1, cursor[2]
  local line = api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ""
  return {
    uri = vim.uri_from_bufnr(bufnr),
    position = {
      line = row,
      character = M.character(line, col, client.offset_encoding or "utf-16"),
    },
  }
end

-- Run `command` ("codeteam.generate", ...) on the function under the cursor.
function M.run(command)
  local bufnr = api.nvim_get_current_buf()
  local client = M.client_for(bufnr)
  if not client then
    notify("no codeteam server is attached to this buffer (a Python file?)", vim.log.levels.WARN)
    return nil
  end
  local winid = api.nvim_get_current_win()
  local cursor = api.nvim_win_get_cursor(winid)
  local function go(ready)
    local argument = M.cursor_argument(ready, winid, cursor)
    M.state.last_argument = argument
    return M.execute(ready, command, { argument }, bufnr)
  end
  if client.initialized then
    return go(client)
  end
  -- Right after opening the file the server is still starting: a command sent now would
  -- reach it before the file's didOpen ("not open in the editor"). It runs once the client
  -- is initialized (its didOpen is sent first), at the cursor of the command.
  notify("the server is starting; " .. command .. " runs once it is ready")
  local id, waited_ms = client.id, 0
  local function later()
    local ready = get_client(id)
    if not ready then
      notify("the server stopped before it was ready; " .. command .. " was not run", vim.log.levels.ERROR)
    elseif ready.initialized then
      go(ready)
    elseif waited_ms >= M.config.start_timeout_ms then
      notify("the server did not start within " .. (M.config.start_timeout_ms / 1000) .. " s; "
        .. command .. " was not run", vim.log.levels.ERROR)
    else
      waited_ms = waited_ms + 50
      vim.defer_fn(later, 50)
    end
  end
  vim.defer_fn(later, 50)
  return nil
end

-- Cancel the runs in progress: window/workDoneProgress/cancel for their progress tokens, or
-- $/cancelRequest for a command that has not started its progress yet. Returns how many.
function M.cancel()
  local count = 0
  local with_progress = {}
  for token, entry in pairs(M.state.progress) do
    local client = get_client(entry.client_id)
    if client then
      call(client, "notify", "window/workDoneProgress/cancel", { token = token })
      with_progress[entry.client_id] = true
      count = count + 1
    end
  end
  if count == 0 then
    for _, entry in pairs(M.state.pending) do
      local client = get_client(entry.client_id)
      if client and entry.command ~= TRANSCRIPT then
        call(client, "cancel_request", entry.request_id)
        count = count + 1
      end
    end
  end
  if count == 0 then
    notify("nothing to cancel")
  else
    notify("cancelling " .. count .. " run(s)")
  end
  return count
end

local function open_scratch(markdown)
  vim.cmd("botright new")
  local bufnr = api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = "nofile"
  vim.bo[bufnr].bufhidden = "wipe"
  vim.bo[bufnr].swapfile = false
  api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(markdown, "\n", { plain = true }))
  vim.bo[bufnr].modified = false
  vim.bo[bufnr].filetype = "markdown"
  pcall(api.nvim_buf_set_name, bufnr, "codeteam://transcript/" .. bufnr)
  return bufnr
end

-- Open the last run's transcript (codeteam.transcript) in a scratch buffer. `on_open(bufnr)` is
-- called with the new buffer (nil when there is no run yet).
function M.transcript(on_open)
  local client = M.client_for(0)
  if not client then
    for _, id in pairs(M.state.clients) do
      client = client or get_client(id)
    end
  end
  if not client then
    notify("no codeteam server is running", vim.log.levels.WARN)
    return
  end
  local params = { command = TRANSCRIPT }
  call(client, "request", "workspace/executeCommand", params, function(err, result)
    if err then
      notify("transcript failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif type(result) ~= "table" or type(result.markdown) ~= "string" then
      notify("no run yet: nothing to show")
      if on_open then
        on_open(nil)
      end
    else
      local bufnr = open_scratch(result.markdown)
      if on_open then
        on_open(bufnr)
      end
    end
  end)
end

-- Accept the preview shown: the server applies its result on the current text (codeteam.apply).
-- Returns the request id (nil when there is no preview or no server).
function M.accept()
  local preview = close_preview()
  if not preview then
    notify("no preview to accept")
    return nil
  end
  local client = get_client(preview.client_id)
  if not client then
    notify("the server that made the preview is not running", vim.log.levels.ERROR)
    return nil
  end
  return M.execute(client, APPLY, { { result = preview.result } }, preview.target)
end

-- Discard the preview shown: nothing changes; the server keeps the result (:CodeteamTranscript).
function M.discard()
  local preview = close_preview()
  if not preview then
    notify("no preview to discard")
    return false
  end
  notify("preview discarded; nothing was changed (the result is kept: :CodeteamTranscript)")
  fire("CodeteamPreviewDiscarded")
  return true
end

-- One line for a statusline: the stage of the run in progress, or "".
function M.status()
  for _, entry in pairs(M.state.progress) do
    if entry.message and entry.message ~= "" then
      return entry.title .. ": " .. entry.message
    end
    return entry.title
  end
  return ""
end

-- Starting and attaching -----------------------------------------------------------------------

local function client_config(root)
  local config = M.config
  local settings = config.settings
  if type(settings) ~= "table" or vim.tbl_isempty(settings) then
    settings = vim.empty_dict()
  end
  local capabilities = config.capabilities or vim.lsp.protocol.make_client_capabilities()
  if config.versioned_edits or config.preview then
    capabilities = vim.deepcopy(capabilities)
    capabilities.workspace = capabilities.workspace or {}
    capabilities.workspace.workspaceEdit = capabilities.workspace.workspaceEdit or {}
    capabilities.workspace.workspaceEdit.documentChanges = true
    if config.preview then
      -- The edits that need confirmation are shown as a diff first (show_preview).
      capabilities.workspace.workspaceEdit.changeAnnotationSupport = { groupsOnLabel = false }
    end
  end
  local handlers = vim.tbl_extend("force", {
    ["window/workDoneProgress/create"] = on_progress_create,
    ["$/progress"] = on_progress,
    ["window/showMessage"] = on_show_message,
    ["workspace/applyEdit"] = on_apply_edit,
  }, config.handlers or {})
  local commands = {}
  for _, command in pairs(COMMANDS) do
    -- A code action's command runs through M.execute, so its answer is recorded too.
    commands[command] = function(lsp_command, ctx)
      local client = get_client(ctx.client_id)
      if client then
        M.execute(client, lsp_command.command, lsp_command.arguments, ctx.bufnr)
      end
    end
  end
  return {
    name = config.name,
    cmd = config.cmd,
    cmd_env = config.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { codeteam = settings },
    settings = { codeteam = settings },
    capabilities = capabilities,
    handlers = handlers,
    commands = commands,
    flags = vim.deepcopy(config.flags or {}),
    on_attach = config.on_attach,
    on_exit = function(_, _, client_id)
      for dir, id in pairs(M.state.clients) do
        if id == client_id then
          M.state.clients[dir] = nil
        end
      end
      for token, entry in pairs(M.state.progress) do
        if entry.client_id == client_id then
          M.state.progress[token] = nil
        end
      end
      for key, entry in pairs(M.state.pending) do
        if entry.client_id == client_id then
          M.state.pending[key] = nil
        end
      end
    end,
  }
end

-- Start (or reuse) the client for `bufnr`'s project and attach it. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  if not is_candidate(bufnr) then
    return nil
  end
  local root = find_root(bufnr)
  local id = M.state.clients[root]
  if id and get_client(id) then
    if not vim.lsp.buf_is_attached(bufnr, id) then
      vim.lsp.buf_attach_client(bufnr, id)
    end
    return id
  end
  if has_08 and vim.lsp.start then
    api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(client_config(root))
    end)
  else
    id = vim.lsp.start_client(client_config(root))
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if id then
    M.state.clients[root] = id
  else
    notify("could not start " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
  end
  return id
end

-- Stop the clients; the next Python buffer (or :edit) starts them again.
function M.stop()
  for root, id in pairs(M.state.clients) do
    local client = vim.lsp.get_client_by_id(id)
    if client then
      call(client, "stop")
    end
    M.state.clients[root] = nil
  end
end

function M.restart()
  local buffers = {}
  for _, id in pairs(M.state.clients) do
    local client = vim.lsp.get_client_by_id(id)
    if client then
      for bufnr in pairs(client.attached_buffers or {}) do
        table.insert(buffers, bufnr)
      end
    end
  end
  M.stop()
  vim.defer_fn(function()
    for _, bufnr in ipairs(buffers) do
      M.attach(bufnr)
    end
  end, 500)
end

local function define_commands()
  for name, command in pairs(COMMANDS) do
    api.nvim_create_user_command(name, function()
      M.run(command)
    end, { desc = "codeteam: " .. command })
  end
  api.nvim_create_user_command("CodeteamTranscript", function()
    M.transcript()
  end, { desc = "codeteam: the last run's transcript" })
  api.nvim_create_user_command("CodeteamCancel", function()
    M.cancel()
  end, { desc = "codeteam: cancel the runs in progress" })
  api.nvim_create_user_command("CodeteamAccept", function()
    M.accept()
  end, { desc = "codeteam: apply the edit shown as a preview" })
  api.nvim_create_user_command("CodeteamDiscard", function()
    M.discard()
  end, { desc = "codeteam: discard the edit shown as a preview" })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- a list: replace, do not merge
  end
  if opts and opts.settings then
    M.config.settings = opts.settings
  end
  define_commands()
  local group = api.nvim_create_augroup("codeteam", { clear = true })
  api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if is_candidate(bufnr) then
      M.attach(bufnr)
    end
  end
end

return M

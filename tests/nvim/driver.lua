-- Drives one codeteam run in a headless Neovim (0.7+) through editors/nvim/codeteam.lua and
-- writes what happened to a JSON file. The spec is a JSON file named by $CODETEAM_NVIM_SPEC:
--
--   module_dir   folder of codeteam.lua          out        the JSON file to write
--   file         the Python file to edit         setup      the table for require("codeteam").setup
--   cursor       {text, offset}: the cursor goes to the first line containing `text`, at the byte
--                column of `text` plus `offset` bytes
--   action       {kind = "command", name = "CodeteamGenerate"} or
--                {kind = "code_action", title = "Generate with team"}
--   type_before_run    {row, lines}: insert `lines` before 0-based `row` before the run starts
--   type_at_stage      {stage, row, lines}: when a progress report shows `stage`, insert `lines`
--                      before 0-based `row` (a user typing while the team works); once the
--                      server has them (a request answered after the didChange), the file
--                      `out` .. ".typed" is written (the test then lets the model answer)
--   cancel_at_stage    stage: run :CodeteamCancel when a progress report shows it
--   type_before_apply  {row, lines}: insert `lines` right before the client applies the first
--                      edit (keystrokes the server has not seen yet when it made the edit)
--   (each applyEdit is recorded: its versions, the buffer's version when it arrived, the answer)
--   unguarded_apply    true: Neovim's own workspace/applyEdit handler, without the module's guard
--   wait_diagnostics   true: wait until codeteam's diagnostics arrive
--   then_step          {action, cursor, wait_diagnostics?, wait_diagnostics_cleared?}: a second
--                      action after the first (recorded under "then_step")
--   preview_action     "accept" or "discard": when the run's edit opens as a preview, record the
--                      preview window's text ("preview") and press its key (a or d); after
--                      accept, wait for the answer of codeteam.apply ("accepted")
--   preview_key        the key to press instead of the default for preview_action
--   transcript         true: open :CodeteamTranscript after the run and record its text
--   before_initialized true: run the action's command right after opening the file, before the
--                      client is initialized ("initialized_at_command": whether it was)
--   timeout_ms         bound of every wait
--
-- Every wait is bounded; any error is written to the JSON ("error") and Neovim exits 1.

local spec_path = os.getenv("CODETEAM_NVIM_SPEC")
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(spec_path), "\n"))
local out = { ok = false, echoes = {}, applies = {}, events = {} }
local timeout = spec.timeout_ms or 60000

local function event(text)
  table.insert(out.events, string.format("%.3f %s", vim.loop.hrtime() / 1e9, text))
end

local function wait_for(what, condition)
  if not vim.wait(timeout, condition, 20) then
    error("timed out after " .. timeout .. " ms waiting for " .. what, 0)
  end
end

local function buffer_text(bufnr)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  local text = table.concat(lines, "\n")
  if vim.bo[bufnr].eol then
    text = text .. "\n"
  end
  return text
end

local function find_line(bufnr, needle)
  for index, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)) do
    local column = line:find(needle, 1, true)
    if column then
      return index, column - 1
    end
  end
  error("no line contains " .. needle, 0)
end

local function main()
  vim.cmd("filetype on")
  vim.o.swapfile = false
  vim.o.more = false
  package.path = spec.module_dir .. "/?.lua;" .. package.path
  local codeteam = require("codeteam")

  local echo = vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, history, opts)
    local text = {}
    for _, chunk in ipairs(chunks) do
      table.insert(text, chunk[1])
    end
    table.insert(out.echoes, table.concat(text))
    return echo(chunks, history, opts)
  end

  codeteam.setup(spec.setup)
  vim.cmd("edit " .. vim.fn.fnameescape(spec.file))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype

  if spec.before_initialized then
    local row, column = find_line(bufnr, spec.cursor.text)
    vim.api.nvim_win_set_cursor(0, { row, column + (spec.cursor.offset or 0) })
    local early = codeteam.client_for(bufnr)
    out.initialized_at_command = early ~= nil and early.initialized == true
    vim.cmd(spec.action.name)
    vim.api.nvim_win_set_cursor(0, { 1, 0 }) -- the user moves on: the command keeps its cursor
  end

  local client
  wait_for("the codeteam client to initialize", function()
    client = codeteam.client_for(bufnr)
    return client ~= nil and client.initialized == true
  end)
  out.server_pid = client.rpc.pid
  out.offset_encoding = client.offset_encoding
  event("initialized")

  -- Every workspace/applyEdit: its version and the answer sent.
  local handler = client.handlers["workspace/applyEdit"]
  if spec.unguarded_apply then
    handler = vim.lsp.handlers["workspace/applyEdit"]
  end
  client.handlers["workspace/applyEdit"] = function(err, params, ctx, config)
    local versions = {}
    for _, change in ipairs(params.edit.documentChanges or {}) do
      table.insert(versions, change.textDocument.version)
    end
    local version_before = rawget(vim.lsp.util.buf_versions, bufnr)
    if spec.type_before_apply and #out.applies == 0 then
      local typed = spec.type_before_apply
      vim.api.nvim_buf_set_lines(bufnr, typed.row, typed.row, true, typed.lines)
      event("typed before apply")
      version_before = rawget(vim.lsp.util.buf_versions, bufnr)
    end
    local answer = handler(err, params, ctx, config)
    table.insert(out.applies, {
      versions = versions,
      changes = params.edit.changes ~= nil,
      buffer_version = version_before,
      applied = answer and answer.applied,
      reason = answer and answer.failureReason,
    })
    event("applyEdit answered " .. tostring(answer and answer.applied))
    return answer
  end

  local stage_done = {}
  local function on_stage(stage, action)
    if stage_done[stage] then
      return
    end
    for _, entry in pairs(codeteam.state.progress) do
      if entry.message == stage then
        stage_done[stage] = true
        vim.schedule(action)
        return
      end
    end
  end
  vim.api.nvim_create_autocmd("User", {
    pattern = "CodeteamProgress",
    callback = function()
      if spec.type_at_stage then
        local typed = spec.type_at_stage
        on_stage(typed.stage, function()
          vim.api.nvim_buf_set_lines(bufnr, typed.row, typed.row, true, typed.lines)
          out.typed_at_stage = true
          event("typed at " .. typed.stage)
          local params = vim.lsp.util.make_range_params()
          params.context = { diagnostics = {} }
          client.request_sync("textDocument/codeAction", params, timeout, bufnr)
          vim.fn.writefile({}, spec.out .. ".typed")
          event("the server has the typed lines")
        end)
      end
      if spec.cancel_at_stage then
        on_stage(spec.cancel_at_stage, function()
          out.cancelled_runs = codeteam.cancel()
          event("cancelled at " .. spec.cancel_at_stage)
        end)
      end
    end,
  })

  if spec.type_before_run then
    local typed = spec.type_before_run
    vim.api.nvim_buf_set_lines(bufnr, typed.row, typed.row, true, typed.lines)
    event("typed before the run")
  end

  -- One action on the function at the cursor; what happened goes into `record`.
  local function run_step(step, record)
    local row, column = find_line(bufnr, step.cursor.text)
    vim.api.nvim_win_set_cursor(0, { row, column + (step.cursor.offset or 0) })
    record.cursor = vim.api.nvim_win_get_cursor(0)
    if not step.given then
      codeteam.state.last = nil

      event("run")
      local action = step.action
      if action.kind == "command" then
        vim.cmd(action.name)
      else
        -- vim.lsp.buf.code_action() lets the user pick with vim.ui.select: pick by title.
        vim.ui.select = function(items, opts, on_choice)
          local titles = {}
          for index, item in ipairs(items) do
            local title = opts.format_item and opts.format_item(item) or item[2].title
            table.insert(titles, title)
            if item[2].title == action.title and not record.code_action then
              record.code_action = item[2]
              on_choice(item, index)
            end
          end
          record.code_action_titles = titles
          if not record.code_action then
            on_choice(nil, nil)
          end
        end
        vim.lsp.buf.code_action()
        wait_for("the code action to be picked", function()
          return record.code_action_titles ~= nil
        end)
        if not record.code_action then
          error("no code action titled " .. action.title, 0)
        end
      end
    end -- (step.given: the command was given before the client was initialized)

    wait_for("the command's answer", function()
      return codeteam.state.last ~= nil
    end)
    event("answered " .. tostring(codeteam.state.last.status))
    record.last = codeteam.state.last
    record.argument = codeteam.state.last.argument

    if step.preview_action then
      wait_for("the preview", function()
        return codeteam.state.preview ~= nil
      end)
      local preview = codeteam.state.preview
      record.preview = table.concat(vim.api.nvim_buf_get_lines(preview.bufnr, 0, -1, true), "\n")
      record.preview_filetype = vim.bo[preview.bufnr].filetype
      record.preview_modifiable = vim.bo[preview.bufnr].modifiable
      record.text_during_preview = buffer_text(bufnr)
      codeteam.state.last = nil
      vim.api.nvim_set_current_win(preview.winid)
      local key = step.preview_key or (step.preview_action == "accept" and "a" or "d")
      event("press " .. key .. " in the preview")
      vim.cmd("normal " .. key)
      record.preview_open_after = codeteam.state.preview ~= nil
        or vim.api.nvim_win_is_valid(preview.winid)
      if step.preview_action == "accept" then
        wait_for("the answer of codeteam.apply", function()
          return codeteam.state.last ~= nil
        end)
        record.accepted = codeteam.state.last
        event("accepted: " .. tostring(codeteam.state.last.applied))
      end
      vim.api.nvim_set_current_win(vim.fn.bufwinid(bufnr))
    end

    if step.wait_diagnostics then
      wait_for("diagnostics", function()
        return #vim.diagnostic.get(bufnr) > 0
      end)
    end
    if step.wait_diagnostics_cleared then
      wait_for("the diagnostics to be cleared", function()
        return #vim.diagnostic.get(bufnr) == 0
      end)
    end
    -- Let any late change arrive (there must be none after the answer).
    vim.wait(300, function()
      return false
    end, 20)

    record.text = buffer_text(bufnr)
    record.diagnostics = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(record.diagnostics, {
        lnum = d.lnum,
        col = d.col,
        end_lnum = d.end_lnum,
        end_col = d.end_col,
        severity = d.severity,
        message = d.message,
        source = d.source,
        code = d.code,
      })
    end
  end

  local first = { action = spec.action, cursor = spec.cursor, given = spec.before_initialized }
  first.wait_diagnostics = spec.wait_diagnostics
  first.preview_action = spec.preview_action
  first.preview_key = spec.preview_key
  run_step(first, out)
  if spec.then_step then
    out.then_step = {}
    run_step(spec.then_step, out.then_step)
  end
  out.messages = codeteam.state.messages
  out.progress_left = vim.tbl_count(codeteam.state.progress)

  if spec.transcript then
    local opened = false
    codeteam.transcript(function(transcript_bufnr)
      opened = true
      if transcript_bufnr then
        out.transcript = buffer_text(transcript_bufnr)
        out.transcript_filetype = vim.bo[transcript_bufnr].filetype
        out.transcript_buftype = vim.bo[transcript_bufnr].buftype
      end
    end)
    wait_for("the transcript", function()
      return opened
    end)
  end
  out.ok = true
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = tostring(err)
end
vim.fn.writefile({ vim.fn.json_encode(out) }, spec.out)
if ok then
  vim.cmd("qall!")
else
  vim.cmd("cquit 1")
end

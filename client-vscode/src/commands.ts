/**
 * Command ids, command arguments and the reading of the server's replies.
 *
 * Pure: no `vscode` import (unit-tested under plain Node).
 */

/**
 * The server's commands (workspace/executeCommand). vscode-languageclient registers a VS Code
 * command under each id the server lists in executeCommandProvider, so the client's own
 * commands below must use other ids.
 */
export const SERVER_COMMANDS = {
  plan: 'codeteam.plan',
  generate: 'codeteam.generate',
  review: 'codeteam.review',
  transcript: 'codeteam.transcript',
  /** Applies a kept result (a discarded preview, or code kept for your consent). */
  apply: 'codeteam.apply',
} as const;

export type RunKind = 'plan' | 'generate' | 'review';

/** Server commands that run a pipeline and answer `{status, message}`. */
export const RUN_COMMANDS: ReadonlySet<string> = new Set([
  SERVER_COMMANDS.plan,
  SERVER_COMMANDS.generate,
  SERVER_COMMANDS.review,
]);

/** The client's commands, as contributed in package.json. */
export const CLIENT_COMMANDS = {
  plan: 'codeteam.editor.plan',
  generate: 'codeteam.editor.generate',
  review: 'codeteam.editor.review',
  openTranscript: 'codeteam.openTranscript',
  setApiKey: 'codeteam.setApiKey',
  clearApiKey: 'codeteam.clearApiKey',
  restartServer: 'codeteam.restartServer',
  cancelRun: 'codeteam.cancelRun',
  applyKept: 'codeteam.applyKept',
} as const;

export type ClientCommandName = keyof typeof CLIENT_COMMANDS;

/** What the user sees as the action's name (the code action titles of DESIGN.md). */
export const RUN_TITLES: Record<RunKind, string> = {
  plan: 'Plan this docstring',
  generate: 'Generate with team',
  review: 'Review with tester',
};

/** Document schemes the client syncs to the server (and so the server can work on). */
export const SYNCED_SCHEMES: readonly string[] = ['file', 'untitled'];

export const LANGUAGE_ID = 'python';

export interface Position {
  line: number;
  character: number;
}

/** The argument object of codeteam.plan / generate / review. */
export interface RunArgument {
  uri: string;
  position: Position;
}

/** The parts of an editor the run commands need (a vscode.TextEditor fits structurally). */
export interface EditorState {
  /** The document's URI as the language client sends it (code2ProtocolConverter.asUri). */
  uri: string;
  languageId: string;
  scheme: string;
  /** The selection; its `active` end is the cursor. */
  selection: { active: Position };
}

/** Why a run cannot start on this editor, or undefined when it can. */
export function editorProblem(editor: Pick<EditorState, 'languageId' | 'scheme'> | undefined): string | undefined {
  if (editor === undefined) {
    return 'Open a Python file and put the cursor inside a function first.';
  }
  if (editor.languageId !== LANGUAGE_ID) {
    return `codeteam works on Python files; this editor holds ${editor.languageId}.`;
  }
  if (!SYNCED_SCHEMES.includes(editor.scheme)) {
    return `codeteam works on files on disk and untitled editors, not on "${editor.scheme}:" documents.`;
  }
  return undefined;
}

function checkedIndex(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new TypeError(`${what} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

/**
 * The argument for a run: the document URI and the cursor (the selection's active end) as a
 * plain `{line, character}` (0-based line, UTF-16 code units, like VS Code's own positions).
 */
export function runArgument(editor: Pick<EditorState, 'uri' | 'selection'>): RunArgument {
  const active = editor.selection.active;
  return {
    uri: editor.uri,
    position: {
      line: checkedIndex(active.line, 'line'),
      character: checkedIndex(active.character, 'character'),
    },
  };
}

/** workspace/executeCommand params for a run on this editor. */
export function runParams(kind: RunKind, editor: Pick<EditorState, 'uri' | 'selection'>): { command: string; arguments: [RunArgument] } {
  return { command: SERVER_COMMANDS[kind], arguments: [runArgument(editor)] };
}

/** workspace/executeCommand params that apply the latest kept result (no argument). */
export function applyKeptParams(): { command: string; arguments: [] } {
  return { command: SERVER_COMMANDS.apply, arguments: [] };
}

/** workspace/executeCommand params for the transcript (an empty argument list). */
export function transcriptParams(): { command: string; arguments: [] } {
  return { command: SERVER_COMMANDS.transcript, arguments: [] };
}

export type Severity = 'info' | 'warning' | 'error';

export interface RunOutcome {
  severity: Severity;
  message: string;
  status: string;
}

const ERROR_STATUSES = new Set(['error', 'failed', 'failure', 'invalid']);
const WARNING_STATUSES = new Set(['cancelled', 'canceled', 'stale', 'not_applied', 'skipped', 'rejected', 'conflict', 'not judged']);

/**
 * How to show a run's reply `{status, message}`: statuses that name a failure are errors,
 * ones that say nothing was applied are warnings, everything else (`ok`, `applied`, ...) is
 * information. A reply of another shape is shown as it is, as information.
 */
export function runOutcome(reply: unknown, title: string): RunOutcome {
  if (typeof reply === 'object' && reply !== null && !Array.isArray(reply)) {
    const record = reply as Record<string, unknown>;
    const status = typeof record.status === 'string' ? record.status : '';
    const text = typeof record.message === 'string' && record.message.trim() !== '' ? record.message.trim() : status || 'finished';
    const normalized = status.trim().toLowerCase();
    const severity: Severity = ERROR_STATUSES.has(normalized)
      ? 'error'
      : WARNING_STATUSES.has(normalized)
        ? 'warning'
        : 'info';
    return { severity, message: `codeteam ${title}: ${text}`, status };
  }
  if (reply === null || reply === undefined) {
    return { severity: 'info', message: `codeteam ${title}: finished (the server sent no report).`, status: '' };
  }
  return { severity: 'info', message: `codeteam ${title}: ${JSON.stringify(reply)}`, status: '' };
}

/**
 * The cost line of a run's reply (`cost.text`: "3 LLM calls, 2,500 prompt + 500 completion
 * tokens, 12.3 s, $0.0089"), or undefined when the reply has none (a run that did not start).
 */
export function runCost(reply: unknown): string | undefined {
  if (typeof reply !== 'object' || reply === null) {
    return undefined;
  }
  const cost = (reply as Record<string, unknown>).cost;
  if (typeof cost !== 'object' || cost === null) {
    return undefined;
  }
  const text = (cost as Record<string, unknown>).text;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

/** The markdown of a `codeteam.transcript` reply, or undefined when there is no run yet. */
export function transcriptMarkdown(reply: unknown): string | undefined {
  if (typeof reply !== 'object' || reply === null) {
    return undefined;
  }
  const markdown = (reply as Record<string, unknown>).markdown;
  return typeof markdown === 'string' && markdown.trim() !== '' ? markdown : undefined;
}

/** The run kind behind a server command id, if it is one. */
export function runKindOf(command: string): RunKind | undefined {
  for (const kind of ['plan', 'generate', 'review'] as const) {
    if (SERVER_COMMANDS[kind] === command) {
      return kind;
    }
  }
  return undefined;
}

/**
 * How the language server process is started: program, arguments and environment.
 *
 * Pure: no `vscode` import (unit-tested under plain Node).
 */

/** The environment variable that carries the API key to the server process. */
export const API_KEY_ENV = 'CODETEAM_API_KEY';

/** Arguments after the interpreter when `codeteam.server.command` is empty. */
export const MODULE_ARGS: readonly string[] = ['-m', 'codeteam', 'serve'];

export const DEFAULT_PYTHON = 'python3';

export interface ServerLaunch {
  /** The program to spawn. */
  command: string;
  /** Its arguments (no `--stdio` is added: `codeteam serve` speaks LSP on stdio by default). */
  args: string[];
  /** Things the user should hear about (a malformed setting that was ignored). */
  problems: string[];
}

export interface LaunchSettings {
  /** `codeteam.server.command`: the whole command line, program first; empty: use python. */
  command?: unknown;
  /** `codeteam.server.python`: the interpreter for `-m codeteam serve`; empty: `detected`. */
  python?: unknown;
  /** The interpreter found by interpreter.ts (program and leading arguments), used when
   * `python` is empty; without it, python3. */
  detected?: readonly string[];
  /** Replaces `${workspaceFolder}` in the command line (the first workspace folder's path). */
  workspaceFolder?: string;
}

function substitute(value: string, workspaceFolder: string | undefined): string {
  if (workspaceFolder === undefined) {
    return value;
  }
  return value.split('${workspaceFolder}').join(workspaceFolder);
}

function validCommand(command: unknown): command is string[] {
  return Array.isArray(command) && command.every((part) => typeof part === 'string') && (command.length === 0 || command[0].trim() !== '');
}

/**
 * Whether the launch depends on the interpreter search of interpreter.ts: no usable
 * `codeteam.server.command` and an empty `codeteam.server.python`.
 */
export function needsInterpreterSearch(settings: Pick<LaunchSettings, 'command' | 'python'>): boolean {
  const command = settings.command;
  if (validCommand(command) && command.length > 0) {
    return false;
  }
  const python = settings.python;
  return typeof python !== 'string' || python.trim() === '';
}

/**
 * The server's command line from the settings. A non-empty `command` (array of non-empty
 * strings) wins; otherwise `python -m codeteam serve` with an empty `python` meaning the
 * `detected` interpreter, else python3. A malformed value is ignored with a problem message:
 * the server still starts with the fallback.
 */
export function resolveServerLaunch(settings: LaunchSettings): ServerLaunch {
  const problems: string[] = [];
  const folder = settings.workspaceFolder;
  const command = settings.command;
  if (command !== undefined && command !== null) {
    if (!validCommand(command)) {
      problems.push(
        'codeteam.server.command must be an array of strings with the program first, e.g. ["codeteam", "serve"]; it is ignored.',
      );
    } else if (command.length > 0) {
      const parts = command.map((part) => substitute(part, folder));
      return { command: parts[0].trim(), args: parts.slice(1), problems };
    }
  }
  const configured = settings.python;
  if (typeof configured === 'string' && configured.trim() !== '') {
    return { command: substitute(configured.trim(), folder), args: [...MODULE_ARGS], problems };
  }
  if (configured !== undefined && configured !== null && typeof configured !== 'string') {
    problems.push('codeteam.server.python must be a string; it is ignored.');
  }
  const detected = settings.detected?.length ? settings.detected : [DEFAULT_PYTHON];
  return { command: detected[0], args: [...detected.slice(1), ...MODULE_ARGS], problems };
}

export type Env = Record<string, string | undefined>;

/**
 * The server process's environment: a copy of `base` (VS Code's own environment; spawn would
 * otherwise get no PATH at all, since vscode-languageclient passes `options.env` to
 * child_process.spawn unchanged for an executable) plus CODETEAM_API_KEY when a key is stored.
 * Without a stored key, `base` passes through untouched (a CODETEAM_API_KEY or OPENAI_API_KEY
 * inherited from the shell keeps working). `base` is never modified.
 */
export function buildServerEnv(base: Env, apiKey: string | undefined): Env {
  const env: Env = { ...base };
  const key = apiKey?.trim();
  if (key) {
    env[API_KEY_ENV] = key;
  }
  return env;
}

/** The object given to vscode-languageclient as ServerOptions (its `Executable` shape). */
export interface ExecutableOptions {
  command: string;
  args: string[];
  options: { env: Env; cwd?: string };
}

/**
 * The `Executable` for vscode-languageclient. No `transport` on purpose: with
 * `TransportKind.stdio` the library would append `--stdio` to the arguments.
 */
export function buildExecutable(launch: ServerLaunch, env: Env, cwd?: string): ExecutableOptions {
  const options: { env: Env; cwd?: string } = { env };
  if (cwd !== undefined) {
    options.cwd = cwd;
  }
  return { command: launch.command, args: [...launch.args], options };
}

/** A line for the log that names the command but never the key. */
export function describeLaunch(launch: ServerLaunch, keySource: 'secret storage' | 'environment' | 'none'): string {
  const quoted = [launch.command, ...launch.args].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part));
  const key =
    keySource === 'secret storage'
      ? `API key: from VS Code's secret storage (as ${API_KEY_ENV})`
      : keySource === 'environment'
        ? 'API key: none stored; the server may read one from the inherited environment'
        : 'API key: none';
  return `Starting the codeteam server: ${quoted.join(' ')} (${key})`;
}

/** Where the server's API key comes from, for the log line (never the key itself). */
export function apiKeySource(base: Env, apiKey: string | undefined): 'secret storage' | 'environment' | 'none' {
  if (apiKey?.trim()) {
    return 'secret storage';
  }
  return base[API_KEY_ENV] || base.OPENAI_API_KEY ? 'environment' : 'none';
}

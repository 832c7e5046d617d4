/**
 * Which Python runs the server when `codeteam.server.python` is empty: the first interpreter,
 * in a fixed order, in which `-m codeteam serve --help` works.
 *
 * Pure: no `vscode` import (unit-tested under plain Node); extension.ts supplies the Python
 * extension's interpreter and the trust state.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';

/** One interpreter to try: its command line prefix (program first) and where it came from. */
export interface InterpreterCandidate {
  /** Program and leading arguments, e.g. `["/w/.venv/bin/python"]` or `["conda", "run", "-n", "x", "python"]`. */
  command: string[];
  /** For the log and the first-run message, e.g. "the Python extension's interpreter". */
  source: string;
}

/** Arguments after the interpreter that tell whether codeteam's server is installed in it. */
export const PROBE_ARGS: readonly string[] = ['-m', 'codeteam', 'serve', '--help'];

/** Seconds one probe may take (an interpreter on a cold disk, a conda wrapper). */
export const PROBE_TIMEOUT_S = 20;

export interface CandidateSources {
  /** The Python extension's interpreter for the workspace (its execution command), if any. */
  pythonExtension?: readonly string[];
  /** The first workspace folder (a file system path), if any. */
  workspaceFolder?: string;
  /** Whether the workspace is trusted: an untrusted one cannot choose the program VS Code runs. */
  trusted: boolean;
  platform: NodeJS.Platform;
  /** File existence check (fs.existsSync in the extension). */
  exists?: (path: string) => boolean;
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The interpreters to try, in order: the Python extension's interpreter, the workspace's
 * `.venv` and `venv` interpreters, then `python3` and `python` on PATH (on Windows `python`
 * and `py -3`). In an untrusted workspace, interpreters inside the workspace folder are left
 * out (a cloned repository must not choose the program VS Code starts). Duplicates go.
 */
export function interpreterCandidates(sources: CandidateSources): InterpreterCandidate[] {
  const exists = sources.exists ?? existsSync;
  const windows = sources.platform === 'win32';
  const candidates: InterpreterCandidate[] = [];
  const extension = sources.pythonExtension?.filter((part) => typeof part === 'string' && part.trim() !== '');
  if (extension !== undefined && extension.length > 0) {
    candidates.push({ command: [...extension], source: "the Python extension's interpreter" });
  }
  const folder = sources.workspaceFolder;
  if (folder !== undefined) {
    for (const venv of ['.venv', 'venv']) {
      const python = windows ? join(folder, venv, 'Scripts', 'python.exe') : join(folder, venv, 'bin', 'python');
      if (exists(python)) {
        candidates.push({ command: [python], source: `the workspace's ${venv}` });
      }
    }
  }
  const onPath: string[][] = windows ? [['python'], ['py', '-3']] : [['python3'], ['python']];
  for (const command of onPath) {
    candidates.push({ command, source: 'PATH' });
  }
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    const key = JSON.stringify(candidate.command);
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    const program = candidate.command[0];
    return sources.trusted || folder === undefined || !isAbsolute(program) || !inside(folder, program);
  });
}

/** Whether `command` + {@link PROBE_ARGS} exits 0 within `timeoutS` seconds. Never throws. */
export function probeInterpreter(command: readonly string[], timeoutS: number = PROBE_TIMEOUT_S): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      execFile(
        command[0],
        [...command.slice(1), ...PROBE_ARGS],
        { timeout: timeoutS * 1000, windowsHide: true, maxBuffer: 1024 * 1024 },
        (error) => resolve(error === null),
      );
    } catch {
      resolve(false);
    }
  });
}

export interface InterpreterChoice {
  /** The first candidate that passed the probe, or undefined. */
  chosen?: InterpreterCandidate;
  /** Every candidate probed, in order, up to the chosen one. */
  tried: InterpreterCandidate[];
}

/** Probes `candidates` one after another and stops at the first that works. */
export async function chooseInterpreter(
  candidates: readonly InterpreterCandidate[],
  probe: (command: readonly string[]) => Promise<boolean> = probeInterpreter,
): Promise<InterpreterChoice> {
  const tried: InterpreterCandidate[] = [];
  for (const candidate of candidates) {
    tried.push(candidate);
    if (await probe(candidate.command)) {
      return { chosen: candidate, tried };
    }
  }
  return { tried };
}

function shown(command: readonly string[]): string {
  return command.map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

/** The log line for a choice. */
export function describeChoice(choice: InterpreterChoice): string {
  if (choice.chosen === undefined) {
    return `No Python with codeteam installed; tried ${choice.tried.map((c) => `${shown(c.command)} (${c.source})`).join(', ')}.`;
  }
  return `codeteam.server.python is empty: using ${shown(choice.chosen.command)} (${choice.chosen.source}), where "-m codeteam serve" works.`;
}

/** The first-run message when no candidate has codeteam: what was tried and the two fixes. */
export function noInterpreterMessage(choice: InterpreterChoice): string {
  const tried = choice.tried.map((c) => shown(c.command)).join(', ');
  return (
    `codeteam: no Python interpreter with codeteam installed was found (tried ${tried}). ` +
    'Install codeteam into the interpreter with "pip install PATH-OF-A-CODETEAM-CHECKOUT" ' +
    '(or run its scripts/setup.sh and use its .venv/bin/python), or select an interpreter ' +
    'that has it in the Python extension, or set codeteam.server.python to one.'
  );
}

/**
 * A stand-in for `codeteam serve` that speaks the server contract over stdio, for the
 * integration test: the real vscode-languageclient talks to it through the real extension code.
 *
 * Commands: codeteam.plan / generate / review ({uri, position} -> {status, message}; generate
 * reports cancellable work-done progress and waits for window/workDoneProgress/cancel),
 * codeteam.transcript (null until a run, then {markdown}), codeteam.cancel (counted; answers
 * {cancelled: [], message}), and codeteam.debug (what this
 * process saw: argv, its API key variable, initializationOptions, capabilities, configuration).
 */
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
} from 'vscode-languageserver-protocol/node';

const connection = createProtocolConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));

let initializationOptions: unknown;
let clientCapabilities: unknown;
let configuration: unknown;
const configurationChanges: unknown[] = [];
let lastRun: { command: string; args: unknown[] } | undefined;
const cancelled = new Set<string | number>();
const waiting = new Map<string | number, () => void>();
let tokens = 0;
let cancelCommands = 0;

connection.onRequest('initialize', (params: { initializationOptions?: unknown; capabilities?: unknown }) => {
  initializationOptions = params.initializationOptions;
  clientCapabilities = params.capabilities;
  return {
    capabilities: {
      textDocumentSync: 1,
      executeCommandProvider: {
        commands: ['codeteam.plan', 'codeteam.generate', 'codeteam.review', 'codeteam.transcript', 'codeteam.cancel', 'codeteam.debug'],
      },
    },
    serverInfo: { name: 'fake-codeteam', version: '0' },
  };
});

connection.onNotification('initialized', () => {
  void connection
    .sendRequest('workspace/configuration', { items: [{ section: 'codeteam' }, { section: 'codeteam.server' }, { section: 'codeteam.max_rounds' }] })
    .then((answer) => {
      configuration = answer;
    });
});

connection.onNotification('workspace/didChangeConfiguration', (params: { settings: unknown }) => {
  configurationChanges.push(params.settings);
});

connection.onNotification('window/workDoneProgress/cancel', (params: { token: string | number }) => {
  cancelled.add(params.token);
  waiting.get(params.token)?.();
});

connection.onRequest('workspace/executeCommand', async (params: { command: string; arguments?: unknown[] }) => {
  const args = params.arguments ?? [];
  switch (params.command) {
    case 'codeteam.debug':
      return {
        argv: process.argv.slice(2),
        apiKey: process.env.CODETEAM_API_KEY ?? null,
        hasPath: typeof process.env.PATH === 'string' && process.env.PATH.length > 0,
        initializationOptions,
        workDoneProgress: (clientCapabilities as { window?: { workDoneProgress?: boolean } }).window?.workDoneProgress,
        configuration,
        configurationChanges,
        lastRun,
        cancelCommands,
      };
    case 'codeteam.cancel':
      cancelCommands += 1;
      return { cancelled: [], message: 'No codeteam run in progress.' };
    case 'codeteam.transcript':
      return lastRun ? { markdown: `# codeteam transcript\n\n${lastRun.command} ${JSON.stringify(lastRun.args)}\n` } : null;
    case 'codeteam.generate': {
      lastRun = { command: params.command, args };
      const token = `run-${++tokens}`;
      await connection.sendRequest('window/workDoneProgress/create', { token });
      await connection.sendProgress(WorkDoneProgress.type, token, {
        kind: 'begin',
        title: 'codeteam: Generate with team',
        cancellable: true,
        message: 'analyst: planning',
      });
      await connection.sendProgress(WorkDoneProgress.type, token, { kind: 'report', message: 'tester: running 3 tests' });
      if (!cancelled.has(token)) {
        await new Promise<void>((resolve) => waiting.set(token, resolve));
      }
      await connection.sendProgress(WorkDoneProgress.type, token, { kind: 'end', message: 'cancelled' });
      return { status: 'cancelled', message: 'Cancelled; no edit was applied.' };
    }
    case 'codeteam.plan':
    case 'codeteam.review':
      lastRun = { command: params.command, args };
      return { status: 'applied', message: `${params.command} ran on ${JSON.stringify(args)}` };
    default:
      throw new Error(`unknown command ${params.command}`);
  }
});

connection.onRequest('shutdown', () => null);
connection.onNotification('exit', () => process.exit(0));
connection.listen();

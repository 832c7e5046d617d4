/**
 * extension.ts with the real vscode-languageclient against a fake codeteam server (a Node
 * process speaking the server contract on stdio), under a stub of the `vscode` module.
 * It checks the wiring that the pure-module tests cannot: the spawned command line and
 * environment, initializationOptions, the configuration the server pulls and receives, the
 * command arguments, progress with Cancel, the transcript, and restarts for the API key.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import type * as Extension from '../extension';

import { createContext, createStub, EventEmitter, installStub, ProgressLocation, type StubState, Uri } from './support/vscodeStub';

const FAKE_SERVER = join(__dirname, 'support', 'fakeServer.js');
const SECRET = 'sk-test-0123456789abcdef';

interface Debug {
  argv: string[];
  apiKey: string | null;
  hasPath: boolean;
  initializationOptions: unknown;
  workDoneProgress: unknown;
  configuration: unknown;
  configurationChanges: unknown[];
  cancelCommands: number;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 15000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('extension against a fake codeteam server', () => {
  const { module: stub, state } = createStub();
  let extension: typeof Extension;
  let context: { subscriptions: { dispose(): unknown }[] };

  const run = (id: string, ...args: unknown[]): Promise<unknown> => {
    const handler = state.commands.get(id);
    assert.ok(handler, `command ${id} is registered`);
    return Promise.resolve(handler(...args));
  };
  /** What the fake server saw; retried while a restart has the server commands unregistered. */
  const debug = (): Promise<Debug> =>
    waitFor('the server commands', async () => {
      const handler = state.commands.get('codeteam.debug');
      if (handler === undefined) {
        return undefined;
      }
      const shown = state.messages.length;
      try {
        return (await handler()) as Debug;
      } catch {
        // The client was stopping: forget the error the library showed for this probe.
        state.messages.splice(shown);
        return undefined;
      }
    });
  const outputText = (): string => state.output.join('');
  const lastMessage = (): StubState['messages'][number] | undefined => state.messages[state.messages.length - 1];

  before(() => {
    delete process.env.CODETEAM_API_KEY;
    delete process.env.OPENAI_API_KEY;
    installStub(stub);
    state.settings = {
      'codeteam.server.command': [process.execPath, FAKE_SERVER, '--marker'],
      'codeteam.server.python': '',
      'codeteam.trace.server': 'off',
      'codeteam.baseUrl': '',
      'codeteam.model': 'gpt-x',
      'codeteam.maxRounds': 5,
      'codeteam.testTimeoutS': 4,
      'codeteam.sandbox': 'bwrap',
      // An id from before the camelCase ones: ignored, with a warning.
      'codeteam.timeout_s': 30,
      // Someone typed a key into settings.json: it must not travel anywhere.
      'codeteam.api_key': 'sk-from-settings-json',
    };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    extension = require('../extension') as typeof Extension;
    context = createContext(state) as typeof context;
    extension.activate(context as never);
  });

  after(async () => {
    await extension.deactivate();
    for (const disposable of context.subscriptions) {
      disposable.dispose();
    }
  });

  test('logs to a LogOutputChannel, and warns about an old snake_case id', () => {
    assert.deepEqual(state.outputChannels[0], { name: 'codeteam', options: { log: true } });
    const warning = state.messages.find((m) => m.kind === 'warning' && m.text.includes('old setting ids'));
    assert.ok(warning, JSON.stringify(state.messages));
    assert.match(warning.text, /codeteam\.timeout_s is now codeteam\.timeoutS/);
    assert.match(outputText(), /\[warning\] codeteam: settings\.json uses the old setting ids/);
  });

  test('starts the configured command as is (no --stdio), with PATH and without a key', async () => {
    const seen = await debug();
    assert.deepEqual(seen.argv, ['--marker']);
    assert.equal(seen.apiKey, null);
    assert.equal(seen.hasPath, true);
    assert.equal(seen.workDoneProgress, true);
    assert.match(outputText(), /Starting the codeteam server: .*fakeServer\.js --marker \(API key: none\)/);
  });

  test('initializationOptions hold the server settings and the client flag only', async () => {
    const seen = await debug();
    const options = seen.initializationOptions as {
      codeteam: Record<string, unknown>;
      client: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(options), ['codeteam', 'client']);
    assert.deepEqual(options.client, { shows_run_messages: true });
    assert.equal(options.codeteam.max_rounds, 5);
    assert.equal(options.codeteam.test_timeout_s, 4);
    assert.equal(options.codeteam.model, 'gpt-x');
    // The old id is not sent; the camelCase ids never reach the server.
    assert.ok(!('timeout_s' in options.codeteam));
    assert.ok(!Object.keys(options.codeteam).some((key) => /[A-Z]/.test(key)), Object.keys(options.codeteam).join());
    assert.ok(!('api_key' in options.codeteam));
    assert.ok(!('server' in options.codeteam));
    assert.ok(!('trace' in options.codeteam));
  });

  test('workspace/configuration answers are filtered to the server keys', async () => {
    const answer = await waitFor('the configuration pull', async () => (await debug()).configuration as unknown[] | undefined);
    const section = answer[0] as Record<string, unknown>;
    assert.equal(section.max_rounds, 5);
    assert.equal(section.test_timeout_s, 4);
    assert.ok(!('server' in section) && !('trace' in section) && !('api_key' in section) && !('maxRounds' in section));
    assert.equal(answer[1], null);
    // One server key: VS Code was asked for codeteam.maxRounds.
    assert.equal(answer[2], 5);
  });

  test('didChangeConfiguration carries the server keys only', async () => {
    state.settings['codeteam.maxRounds'] = 7;
    state.configurationChanged.fire({ affectsConfiguration: (section: string) => section === 'codeteam' });
    const changes = await waitFor('a didChangeConfiguration with the new value', async () => {
      const all = (await debug()).configurationChanges as { codeteam: Record<string, unknown> }[];
      return all.some((c) => c.codeteam?.max_rounds === 7) ? all : undefined;
    });
    for (const change of changes) {
      assert.deepEqual(Object.keys(change), ['codeteam']);
      assert.ok(!('server' in change.codeteam) && !('api_key' in change.codeteam));
    }
  });

  test('transcript before any run says so', async () => {
    await run('codeteam.openTranscript');
    assert.equal(lastMessage()?.text, 'codeteam: No run yet.');
    assert.equal(state.opened.length, 0);
  });

  test('Plan this docstring sends {uri, position} of the cursor and shows the reply', async () => {
    state.activeTextEditor = {
      document: { uri: Uri.file('/w/pkg/mod.py'), languageId: 'python' },
      selection: { anchor: { line: 1, character: 0 }, active: { line: 4, character: 8 } },
    };
    await run('codeteam.editor.plan');
    const message = lastMessage();
    assert.equal(message?.kind, 'info');
    assert.equal(
      message?.text,
      'codeteam Plan this docstring: codeteam.plan ran on [{"uri":"file:///w/pkg/mod.py","position":{"line":4,"character":8}}]',
    );
    assert.deepEqual(message?.items, ['Open transcript']);
  });

  test('the transcript opens as an untitled markdown document', async () => {
    await run('codeteam.openTranscript');
    assert.equal(state.opened.length, 1);
    assert.equal(state.opened[0].language, 'markdown');
    assert.match(state.opened[0].content ?? '', /^# codeteam transcript/);
  });

  test('runs refuse other languages without calling the server', async () => {
    state.activeTextEditor = { document: { uri: Uri.file('/w/README.md'), languageId: 'markdown' }, selection: { active: { line: 0, character: 0 } } };
    await run('codeteam.editor.review');
    assert.equal(lastMessage()?.kind, 'warning');
    assert.match(lastMessage()?.text ?? '', /Python files/);
  });

  test('Generate shows a notification with Cancel, and Cancel sends window/workDoneProgress/cancel', async () => {
    state.activeTextEditor = { document: { uri: Uri.parse('untitled:Untitled-1'), languageId: 'python' }, selection: { active: { line: 0, character: 3 } } };
    const running = run('codeteam.editor.generate');
    const shown = await waitFor('the progress notification', () =>
      state.progress.find((p) => p.title === 'codeteam: Generate with team' && p.reports.length >= 2),
    );
    assert.equal(shown.location, ProgressLocation.Notification);
    assert.equal(shown.cancellable, true);
    assert.deepEqual(
      shown.reports.map((r) => r.message),
      ['analyst: planning', 'tester: running 3 tests'],
    );
    assert.equal(shown.done, false);
    shown.cancel();
    await running;
    assert.equal(shown.done, true);
    assert.deepEqual(lastMessage()?.kind, 'warning');
    assert.equal(lastMessage()?.text, 'codeteam Generate with team: Cancelled; no edit was applied.');
    assert.match(outputText(), /Cancel requested for the run with progress token run-1/);
    // Only our notification: the built-in status-bar progress was replaced.
    assert.equal(state.progress.filter((p) => p.location === ProgressLocation.Window).length, 0);
  });

  test('the status-bar item shows the running stage, and a click on it cancels the run', async () => {
    const [item] = state.statusItems;
    assert.equal(item.command, 'codeteam.cancelRun');
    assert.equal(item.visible, false);
    const running = run('codeteam.editor.generate');
    await waitFor('the stage in the status bar', () => item.visible && item.text === '$(sync~spin) tester: running 3 tests');
    assert.match(String(item.tooltip), /^codeteam: Generate with team: tester: running 3 tests\nClick to cancel\.$/);
    const before = (await debug()).cancelCommands;
    await run(String(item.command));
    await running;
    assert.equal(lastMessage()?.text, 'codeteam Generate with team: Cancelled; no edit was applied.');
    assert.equal(item.visible, false);
    assert.match(outputText(), /Cancel requested for the run with progress token run-2/);
    // A work-done cancel, not the server's cancel-everything command.
    assert.equal((await debug()).cancelCommands, before);
  });

  test('Cancel run with no progress open asks the server (codeteam.cancel)', async () => {
    const before = (await debug()).cancelCommands;
    await run('codeteam.cancelRun');
    assert.equal((await debug()).cancelCommands, before + 1);
    assert.match(outputText(), /codeteam\.cancel: No codeteam run in progress\./);
  });

  test('the server command from a code action shows its reply too', async () => {
    const before = state.messages.length;
    await run('codeteam.review', { uri: 'file:///w/x.py', position: { line: 1, character: 0 } });
    assert.equal(state.messages.length, before + 1);
    assert.match(lastMessage()?.text ?? '', /^codeteam Review with tester: codeteam\.review ran on/);
  });

  test('Set API key restarts the server once with CODETEAM_API_KEY, and logs nothing of it', async () => {
    const restartsBefore = (outputText().match(/Restarting/g) ?? []).length;
    state.inputBox = SECRET;
    await run('codeteam.setApiKey');
    assert.equal(state.secrets.get('codeteam.apiKey'), SECRET);
    const seen = await waitFor('the restarted server with the key', async () => {
      const d = await debug();
      return d.apiKey === SECRET ? d : undefined;
    });
    assert.ok(!JSON.stringify(seen.initializationOptions).includes(SECRET));
    assert.ok(!JSON.stringify(seen.configuration ?? null).includes(SECRET));
    assert.equal((outputText().match(/Restarting/g) ?? []).length, restartsBefore + 1);
    assert.ok(!outputText().includes(SECRET));
    assert.ok(!state.messages.some((m) => m.text.includes(SECRET)));
    assert.match(outputText(), /API key: from VS Code's secret storage/);
  });

  test('Clear API key restarts the server without it', async () => {
    await run('codeteam.clearApiKey');
    assert.equal(state.secrets.has('codeteam.apiKey'), false);
    const seen = await waitFor('the restarted server without the key', async () => {
      const d = await debug();
      return d.apiKey === null ? d : undefined;
    });
    assert.equal(seen.apiKey, null);
    assert.match(lastMessage()?.text ?? '', /API key removed/);
  });

  test('changing codeteam.server.* restarts the server with the new command', async () => {
    state.settings['codeteam.server.command'] = [process.execPath, FAKE_SERVER, '--second'];
    state.configurationChanged.fire({ affectsConfiguration: (section: string) => ['codeteam', 'codeteam.server'].includes(section) });
    const seen = await waitFor('the server with the new command', async () => {
      const d = await debug();
      return d.argv[0] === '--second' ? d : undefined;
    });
    assert.deepEqual(seen.argv, ['--second']);
  });

  test('Restart server works and the server commands are registered again', async () => {
    await run('codeteam.restartServer');
    const seen = await debug();
    assert.deepEqual(seen.argv, ['--second']);
    assert.ok(!state.messages.some((m) => m.kind === 'error'), JSON.stringify(state.messages.filter((m) => m.kind === 'error')));
  });

  describe('codeteam.server.python empty: the interpreter search', { skip: process.platform === 'win32' }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'codeteam-pythons-'));
    const savedPath = process.env.PATH;
    /** A "python" that passes the probe and starts the fake server for `-m codeteam serve`. */
    const script = (name: string, body: string): string => {
      const path = join(dir, name);
      writeFileSync(path, `#!/bin/sh\n${body}\n`);
      chmodSync(path, 0o755);
      return path;
    };
    const failing = script('broken-python', 'echo "No module named codeteam" >&2; exit 1');
    script('python3', 'exit 1');
    script('python', 'exit 1');
    const working = script(
      'python-with-codeteam',
      `[ "$*" = "-m codeteam serve --help" ] && exit 0\n[ "$*" = "-m codeteam serve" ] && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_SERVER)} --via-python "$@"\nexit 2`,
    );
    /** The Python extension's API: the selected interpreter, and its change event. */
    let selected = failing;
    const selectionChanged = new EventEmitter<unknown>();
    const pythonExtension = {
      isActive: true,
      exports: {
        environments: { onDidChangeActiveEnvironmentPath: selectionChanged.event },
        settings: { getExecutionDetails: () => ({ execCommand: [selected] }) },
      },
    };
    /** A change of codeteam.server.* restarts the server, with a new interpreter search. */
    const restart = (): void =>
      state.configurationChanged.fire({ affectsConfiguration: (section: string) => ['codeteam', 'codeteam.server'].includes(section) });

    after(() => {
      process.env.PATH = savedPath;
      rmSync(dir, { recursive: true, force: true });
    });

    test('no interpreter has codeteam: a first-run message with the fix, and no server', async () => {
      process.env.PATH = dir;
      state.extensions.set('ms-python.python', pythonExtension);
      state.settings['codeteam.server.command'] = [];
      const shown = state.messages.length;
      restart();
      const message = await waitFor('the first-run message', () =>
        state.messages.slice(shown).find((m) => m.kind === 'error' && m.text.includes('no Python interpreter with codeteam')),
      );
      assert.match(message.text, /pip install PATH-OF-A-CODETEAM-CHECKOUT/);
      assert.match(message.text, /codeteam\.server\.python/);
      assert.ok(message.text.includes(failing) && message.text.includes('python3'));
      assert.deepEqual(message.items, ['Open settings', 'Show output']);
      assert.equal(state.commands.has('codeteam.debug'), false);
      process.env.PATH = savedPath;
    });

    test("selecting an interpreter with codeteam in the Python extension starts the server with it", async () => {
      selected = working;
      selectionChanged.fire({ path: working });
      const seen = await waitFor('the server started through the found interpreter', async () => {
        const d = await debug();
        return d.argv[0] === '--via-python' ? d : undefined;
      });
      assert.deepEqual(seen.argv, ['--via-python', '-m', 'codeteam', 'serve']);
      assert.match(outputText(), /codeteam\.server\.python is empty: using .*python-with-codeteam \(the Python extension's interpreter\)/);
      assert.match(outputText(), /Restarting the codeteam server \(the Python extension's interpreter changed\)/);
    });
  });
});

/**
 * The codeteam VS Code extension: starts the codeteam language server (pygls, stdio) through
 * vscode-languageclient and adds editor commands, the API key and the transcript around it.
 *
 * The logic that can be tested without VS Code lives in settings.ts, serverLaunch.ts,
 * commands.ts and progress.ts; this file only connects them to the `vscode` API.
 */
import * as vscode from 'vscode';
import {
  type ClientCapabilities,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  LSPErrorCodes,
  ResponseError,
  State,
  type StaticFeature,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';

import {
  applyKeptParams,
  CLIENT_COMMANDS,
  type ClientCommandName,
  editorProblem,
  LANGUAGE_ID,
  RUN_TITLES,
  type RunKind,
  type RunOutcome,
  runCost,
  runKindOf,
  runOutcome,
  runParams,
  SYNCED_SCHEMES,
  transcriptMarkdown,
  transcriptParams,
} from './commands';
import { chooseInterpreter, describeChoice, interpreterCandidates, noInterpreterMessage } from './interpreter';
import { type ProgressUi, type ProgressView, RunStatus, WorkDoneProgressTracker } from './progress';
import {
  apiKeySource,
  buildExecutable,
  buildServerEnv,
  describeLaunch,
  needsInterpreterSearch,
  resolveServerLaunch,
} from './serverLaunch';
import {
  configurationItemsForVscode,
  filterConfigurationAnswer,
  initializationOptions,
  legacySettings,
  pickServerSettings,
  SECTION,
} from './settings';

/** SecretStorage key of the API key. */
const SECRET_KEY = 'codeteam.apiKey';
const OPEN_TRANSCRIPT = 'Open transcript';
const SHOW_OUTPUT = 'Show output';
const OPEN_SETTINGS = 'Open settings';
/** The Python extension, whose selected interpreter is the first one tried. */
const PYTHON_EXTENSION = 'ms-python.python';
/** The server's own command that cancels every run (for runs without a progress token). */
const SERVER_CANCEL = 'codeteam.cancel';

let output: vscode.LogOutputChannel;
/** The status-bar item of the running runs (click: cancel). */
let runStatus: RunStatus | undefined;
let client: LanguageClient | undefined;
/** The key the running client's server process got (to restart only on a real change). */
let clientKey: string | undefined;
/** Starts and stops run one after another. */
let queue: Promise<unknown> = Promise.resolve();

function enqueue<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task);
  queue = run.catch(() => undefined);
  return run;
}

function normalizeKey(key: string | undefined): string | undefined {
  const trimmed = key?.trim();
  return trimmed ? trimmed : undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isCancellation(error: unknown): boolean {
  return (
    error instanceof vscode.CancellationError ||
    (error instanceof ResponseError &&
      (error.code === LSPErrorCodes.RequestCancelled || error.code === LSPErrorCodes.ServerCancelled))
  );
}

function serverSettings(): ReturnType<typeof pickServerSettings> {
  const config = vscode.workspace.getConfiguration(SECTION);
  return pickServerSettings((key) => config.get(key));
}

/** Shows work-done progress as a normal notification (see progress.ts for why). */
const notificationUi: ProgressUi = {
  open(options, onCancel): ProgressView {
    let progress: vscode.Progress<{ message?: string; increment?: number }> | undefined;
    const pending: { message?: string; increment?: number }[] = [];
    let finish: (() => void) | undefined;
    let closed = false;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: options.title, cancellable: options.cancellable },
      (reporter, token) => {
        if (closed) {
          return Promise.resolve();
        }
        progress = reporter;
        token.onCancellationRequested(onCancel);
        for (const step of pending.splice(0)) {
          reporter.report(step);
        }
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    );
    return {
      report(message, increment) {
        const step = { message, increment };
        if (progress) {
          progress.report(step);
        } else {
          pending.push(step);
        }
      },
      close() {
        closed = true;
        finish?.();
      },
    };
  },
};

/**
 * Handles window/workDoneProgress/create. Registered after the built-in ProgressFeature, so its
 * initialize() runs later and its request handler replaces the built-in one (on every start).
 */
class NotificationProgressFeature implements StaticFeature {
  /** Open progress tokens and their $/progress subscriptions. */
  private readonly trackers = new Map<WorkDoneProgressTracker, vscode.Disposable>();

  constructor(private readonly languageClient: LanguageClient) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = capabilities.window ?? {};
    capabilities.window.workDoneProgress = true;
  }

  getState(): FeatureState {
    return { kind: 'static' };
  }

  initialize(): void {
    const languageClient = this.languageClient;
    languageClient.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      const tracker = new WorkDoneProgressTracker(
        params.token,
        notificationUi,
        (token) => {
          output.info(`Cancel requested for the run with progress token ${String(token)}.`);
          languageClient.sendNotification(WorkDoneProgressCancelNotification.type, { token }).catch((error: unknown) => {
            output.error(`Could not send the cancel: ${errorText(error)}`);
          });
        },
        (finished) => {
          this.trackers.get(finished)?.dispose();
          this.trackers.delete(finished);
          runStatus?.finished(finished);
        },
        (changed) => runStatus?.changed(changed),
      );
      this.trackers.set(
        tracker,
        languageClient.onProgress(WorkDoneProgress.type, params.token, (value) => tracker.handle(value)),
      );
    });
  }

  clear(): void {
    for (const tracker of [...this.trackers.keys()]) {
      tracker.dispose();
    }
    this.trackers.clear();
  }
}

async function showOutcome(outcome: RunOutcome): Promise<void> {
  const show =
    outcome.severity === 'error'
      ? vscode.window.showErrorMessage
      : outcome.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const choice = await show(outcome.message, OPEN_TRANSCRIPT);
  if (choice === OPEN_TRANSCRIPT) {
    await openTranscript();
  }
}

/** `promise`'s value, or undefined after `ms` milliseconds. */
async function withTimeout<T>(promise: Thenable<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(promise),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The shapes of the Python extension's API that are read (both optional). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath?(resource?: vscode.Uri): unknown;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
    resolveEnvironment?(environment: unknown): Thenable<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: unknown } | undefined };
}

/** Set once a change of the Python extension's interpreter is watched. */
let watchingPythonExtension = false;

/**
 * While the server runs on a searched interpreter (codeteam.server.python empty), a new
 * interpreter selected in the Python extension restarts it, with a new search: selecting an
 * interpreter that has codeteam is one fix the first-run message offers.
 */
function watchPythonExtension(api: PythonExtensionApi | undefined, context: vscode.ExtensionContext): void {
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  if (watchingPythonExtension || event === undefined) {
    return;
  }
  watchingPythonExtension = true;
  context.subscriptions.push(
    event(() => {
      const config = vscode.workspace.getConfiguration(SECTION);
      if (needsInterpreterSearch({ command: config.get('server.command'), python: config.get('server.python') })) {
        void restart(context, "the Python extension's interpreter changed");
      }
    }),
  );
}

/**
 * The interpreter selected in the Python extension for `resource` (program and leading
 * arguments), if the extension is installed and answers within 10 s.
 */
async function pythonExtensionInterpreter(
  resource: vscode.Uri | undefined,
  context: vscode.ExtensionContext,
): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return undefined;
  }
  try {
    const api = extension.isActive ? extension.exports : await withTimeout(extension.activate(), 10_000);
    watchPythonExtension(api, context);
    const environments = api?.environments;
    const active = environments?.getActiveEnvironmentPath?.(resource);
    if (active !== undefined && environments?.resolveEnvironment !== undefined) {
      const resolved = await withTimeout(environments.resolveEnvironment(active), 10_000);
      const executable = resolved?.executable?.uri;
      if (executable?.scheme === 'file') {
        return [executable.fsPath];
      }
    }
    const command = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === 'string')) {
      return command;
    }
  } catch (error) {
    output.warn(`Could not ask the Python extension for its interpreter: ${errorText(error)}`);
  }
  return undefined;
}

/**
 * The interpreter to run the server with when codeteam.server.python is empty: the first of
 * interpreterCandidates in which codeteam works; undefined (after the first-run message) when
 * there is none.
 */
async function findInterpreter(
  folder: vscode.WorkspaceFolder | undefined,
  context: vscode.ExtensionContext,
): Promise<string[] | undefined> {
  const choice = await chooseInterpreter(
    interpreterCandidates({
      pythonExtension: await pythonExtensionInterpreter(folder?.uri, context),
      workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
      trusted: vscode.workspace.isTrusted,
      platform: process.platform,
    }),
  );
  if (choice.chosen === undefined) {
    output.error(describeChoice(choice));
    void vscode.window.showErrorMessage(noInterpreterMessage(choice), OPEN_SETTINGS, SHOW_OUTPUT).then(async (picked) => {
      if (picked === OPEN_SETTINGS) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'codeteam.server.python');
      } else if (picked === SHOW_OUTPUT) {
        output.show(true);
      }
    });
    return undefined;
  }
  output.info(describeChoice(choice));
  return choice.chosen.command;
}

/** Warns once per activation about snake_case ids left in settings.json (now camelCase). */
const warnedLegacy = new Set<string>();
function warnLegacySettings(): void {
  const config = vscode.workspace.getConfiguration(SECTION);
  const fresh = legacySettings((key) => config.get(key)).filter((entry) => !warnedLegacy.has(entry.old));
  if (fresh.length === 0) {
    return;
  }
  for (const entry of fresh) {
    warnedLegacy.add(entry.old);
  }
  const list = fresh.map((entry) => `${entry.old} is now ${entry.now}`).join(', ');
  const text = `codeteam: settings.json uses the old setting ids, which are ignored: ${list}.`;
  output.warn(text);
  void vscode.window.showWarningMessage(text);
}

function createClient(apiKey: string | undefined, detected: string[] | undefined): LanguageClient {
  const config = vscode.workspace.getConfiguration(SECTION);
  const folder = vscode.workspace.workspaceFolders?.[0];
  const launch = resolveServerLaunch({
    command: config.get('server.command'),
    python: config.get('server.python'),
    detected,
    workspaceFolder: folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined,
  });
  for (const problem of launch.problems) {
    output.warn(problem);
    void vscode.window.showWarningMessage(`codeteam: ${problem}`);
  }
  output.info(describeLaunch(launch, apiKeySource(process.env, apiKey)));
  const serverOptions = buildExecutable(launch, buildServerEnv(process.env, apiKey));

  const clientOptions: LanguageClientOptions = {
    documentSelector: SYNCED_SCHEMES.map((scheme) => ({ scheme, language: LANGUAGE_ID })),
    outputChannel: output,
    traceOutputChannel: output,
    // A function: read afresh at every (re)start. Settings only; never the API key.
    initializationOptions: () => initializationOptions((key) => vscode.workspace.getConfiguration(SECTION).get(key)),
    synchronize: { configurationSection: SECTION },
    middleware: {
      workspace: {
        // The section also holds the client's own keys (server.*, trace.*): the server would
        // report them as unknown settings. Send it the server's keys only.
        // VS Code's ids are camelCase, the server's keys snake_case (settings.ts translates).
        configuration: async (params, token, next) => {
          const answer = await next({ ...params, items: configurationItemsForVscode(params.items) }, token);
          if (answer instanceof ResponseError || !Array.isArray(answer)) {
            return answer;
          }
          return filterConfigurationAnswer(params.items, answer);
        },
        // Same filtering for didChangeConfiguration. Not while stopping (a change of
        // codeteam.server.* restarts the client): the library would show that as an error.
        didChangeConfiguration: async () => {
          if (!languageClient.isRunning()) {
            return;
          }
          try {
            await languageClient.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { [SECTION]: serverSettings() },
            });
          } catch (error) {
            output.error(`Could not send the changed settings: ${errorText(error)}`);
          }
        },
      },
      // The server's own commands, run from a code action (lightbulb / Refactor...): VS Code
      // drops a command's result, so show the run's message here. Errors were already shown
      // by the language client.
      executeCommand: async (command, args, next) => {
        const result: unknown = await next(command, args);
        const kind = runKindOf(command);
        if (kind !== undefined) {
          runStatus?.finishedWithCost(RUN_TITLES[kind], runCost(result));
          void showOutcome(runOutcome(result, RUN_TITLES[kind]));
        }
        return result;
      },
    },
  };
  const languageClient = new LanguageClient('codeteam', 'codeteam', serverOptions, clientOptions);
  languageClient.registerFeature(new NotificationProgressFeature(languageClient));
  return languageClient;
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const apiKey = normalizeKey(await context.secrets.get(SECRET_KEY));
  const config = vscode.workspace.getConfiguration(SECTION);
  let detected: string[] | undefined;
  if (needsInterpreterSearch({ command: config.get('server.command'), python: config.get('server.python') })) {
    detected = await findInterpreter(vscode.workspace.workspaceFolders?.[0], context);
    if (detected === undefined) {
      // The first-run message says what to do; a change of codeteam.server.* or of the Python
      // extension's interpreter starts again.
      return;
    }
  }
  const next = createClient(apiKey, detected);
  client = next;
  clientKey = apiKey;
  try {
    await next.start();
  } catch (error) {
    output.error(`The codeteam server did not start: ${errorText(error)}`);
    const choice = await vscode.window.showErrorMessage(
      'codeteam: the language server did not start. Is codeteam installed for the interpreter in ' +
        '"codeteam.server.python" (or is "codeteam.server.command" right)? The "codeteam" output has the details.',
      SHOW_OUTPUT,
      OPEN_SETTINGS,
    );
    if (choice === SHOW_OUTPUT) {
      output.show(true);
    } else if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'codeteam.server');
    }
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  clientKey = undefined;
  if (old === undefined) {
    return;
  }
  try {
    if (old.state === State.Starting) {
      // The library is restarting it after a crash: let that finish, then stop it, so that
      // its server commands are unregistered before the next client registers them.
      await old.start().catch(() => undefined);
    }
    if (old.isRunning()) {
      await old.dispose(2000);
    }
  } catch (error) {
    output.error(`Stopping the codeteam server: ${errorText(error)}`);
  }
}

function restart(context: vscode.ExtensionContext, reason: string): Promise<void> {
  return enqueue(async () => {
    output.info(`Restarting the codeteam server (${reason}).`);
    await stopClient();
    await startClient(context);
  });
}

/** Restarts the server when the stored key differs from the one its process got. */
function applyKeyChange(context: vscode.ExtensionContext): Promise<boolean> {
  return enqueue(async () => {
    const stored = normalizeKey(await context.secrets.get(SECRET_KEY));
    if (stored === clientKey && client !== undefined) {
      return false;
    }
    output.info('Restarting the codeteam server (the API key changed).');
    await stopClient();
    await startClient(context);
    return true;
  });
}

/** The running client, after any pending start; or undefined with a message to the user. */
async function runningClient(): Promise<LanguageClient | undefined> {
  await queue;
  if (client?.isRunning()) {
    return client;
  }
  const choice = await vscode.window.showErrorMessage(
    'codeteam: the language server is not running. Run "codeteam: Restart server" after fixing the cause shown in the "codeteam" output.',
    SHOW_OUTPUT,
  );
  if (choice === SHOW_OUTPUT) {
    output.show(true);
  }
  return undefined;
}

async function runOnEditor(kind: RunKind): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const problem = editorProblem(
    editor && { languageId: editor.document.languageId, scheme: editor.document.uri.scheme },
  );
  if (editor === undefined || problem !== undefined) {
    void vscode.window.showWarningMessage(`codeteam: ${problem ?? 'no editor'}`);
    return;
  }
  const languageClient = await runningClient();
  if (languageClient === undefined) {
    return;
  }
  const params = runParams(kind, {
    uri: languageClient.code2ProtocolConverter.asUri(editor.document.uri),
    selection: { active: { line: editor.selection.active.line, character: editor.selection.active.character } },
  });
  let reply: unknown;
  try {
    reply = await languageClient.sendRequest(ExecuteCommandRequest.type, params);
  } catch (error) {
    if (isCancellation(error)) {
      void vscode.window.showInformationMessage(`codeteam ${RUN_TITLES[kind]}: cancelled.`);
    } else {
      output.error(`${params.command} failed: ${errorText(error)}`);
      void vscode.window.showErrorMessage(`codeteam ${RUN_TITLES[kind]} failed: ${errorText(error)}`);
    }
    return;
  }
  runStatus?.finishedWithCost(RUN_TITLES[kind], runCost(reply));
  await showOutcome(runOutcome(reply, RUN_TITLES[kind]));
}

/**
 * Cancels the running runs (the status-bar item's click, "codeteam: Cancel run"): a
 * window/workDoneProgress/cancel for each run with progress; with none, the server's own
 * codeteam.cancel (runs the client has no progress token for), which answers with a message.
 */
async function cancelRuns(): Promise<void> {
  const sent = runStatus?.cancelAll() ?? 0;
  if (sent > 0 || runStatus?.open.some((run) => run.cancelRequested)) {
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showInformationMessage('codeteam: No run in progress.');
    return;
  }
  try {
    const reply: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CANCEL, arguments: [] });
    const message = typeof reply === 'object' && reply !== null ? (reply as Record<string, unknown>).message : undefined;
    output.info(`${SERVER_CANCEL}: ${typeof message === 'string' ? message : JSON.stringify(reply)}`);
  } catch (error) {
    output.error(`${SERVER_CANCEL} failed: ${errorText(error)}`);
    void vscode.window.showErrorMessage(`codeteam: could not cancel: ${errorText(error)}`);
  }
}

/** "codeteam: Apply the kept result": the server applies the latest result it kept. */
async function applyKept(): Promise<void> {
  const languageClient = await runningClient();
  if (languageClient === undefined) {
    return;
  }
  try {
    const reply: unknown = await languageClient.sendRequest(ExecuteCommandRequest.type, applyKeptParams());
    await showOutcome(runOutcome(reply, 'Apply the kept result'));
  } catch (error) {
    void vscode.window.showErrorMessage(`codeteam: could not apply the kept result: ${errorText(error)}`);
  }
}

async function openTranscript(): Promise<void> {
  const languageClient = await runningClient();
  if (languageClient === undefined) {
    return;
  }
  let reply: unknown;
  try {
    reply = await languageClient.sendRequest(ExecuteCommandRequest.type, transcriptParams());
  } catch (error) {
    void vscode.window.showErrorMessage(`codeteam: could not get the transcript: ${errorText(error)}`);
    return;
  }
  const markdown = transcriptMarkdown(reply);
  if (markdown === undefined) {
    void vscode.window.showInformationMessage('codeteam: No run yet.');
    return;
  }
  const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: markdown });
  await vscode.window.showTextDocument(document, { preview: false });
}

async function setApiKey(context: vscode.ExtensionContext): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: 'codeteam: API key',
    prompt:
      "The key for the endpoint in codeteam.baseUrl. Kept in VS Code's secret storage and given to the server " +
      'process as the environment variable CODETEAM_API_KEY.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (text) =>
      text.trim() === '' ? 'Enter a key (to remove the stored key, run "codeteam: Clear API key").' : undefined,
  });
  const key = normalizeKey(value);
  if (key === undefined) {
    return;
  }
  await context.secrets.store(SECRET_KEY, key);
  await applyKeyChange(context);
  void vscode.window.showInformationMessage('codeteam: API key stored; the server now runs with it.');
}

async function clearApiKey(context: vscode.ExtensionContext): Promise<void> {
  await context.secrets.delete(SECRET_KEY);
  await applyKeyChange(context);
  const inherited = apiKeySource(process.env, undefined) === 'environment';
  void vscode.window.showInformationMessage(
    inherited
      ? 'codeteam: API key removed from the secret storage. Note: VS Code was started with CODETEAM_API_KEY or OPENAI_API_KEY in its environment, and the server still sees that.'
      : 'codeteam: API key removed; the server was restarted without one.',
  );
}

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('codeteam', { log: true });
  context.subscriptions.push(output);

  const item = vscode.window.createStatusBarItem('codeteam.run', vscode.StatusBarAlignment.Left, 0);
  item.name = 'codeteam run';
  item.command = CLIENT_COMMANDS.cancelRun;
  context.subscriptions.push(item);
  runStatus = new RunStatus({
    show(text, tooltip, clickOpens) {
      item.text = text;
      item.tooltip = tooltip;
      item.command = clickOpens === 'cancel' ? CLIENT_COMMANDS.cancelRun : CLIENT_COMMANDS.openTranscript;
      item.show();
    },
    hide() {
      item.hide();
    },
  });

  const handlers: Record<ClientCommandName, () => Promise<unknown>> = {
    plan: () => runOnEditor('plan'),
    generate: () => runOnEditor('generate'),
    review: () => runOnEditor('review'),
    openTranscript: () => openTranscript(),
    setApiKey: () => setApiKey(context),
    clearApiKey: () => clearApiKey(context),
    restartServer: () => restart(context, 'requested'),
    cancelRun: () => cancelRuns(),
    applyKept: () => applyKept(),
  };
  for (const name of Object.keys(handlers) as ClientCommandName[]) {
    context.subscriptions.push(vscode.commands.registerCommand(CLIENT_COMMANDS[name], handlers[name]));
  }

  context.subscriptions.push(
    context.secrets.onDidChange((event) => {
      if (event.key === SECRET_KEY) {
        // Also covers a key set or cleared in another VS Code window.
        void applyKeyChange(context);
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server`)) {
        void restart(context, 'codeteam.server settings changed');
      }
      if (event.affectsConfiguration(SECTION)) {
        warnLegacySettings();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void restart(context, 'the workspace is now trusted, so its codeteam settings apply');
    }),
  );

  warnLegacySettings();
  void enqueue(() => startClient(context));
}

export function deactivate(): Promise<void> {
  return enqueue(stopClient);
}

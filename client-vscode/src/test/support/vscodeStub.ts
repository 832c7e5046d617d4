/**
 * A small stand-in for the `vscode` module, enough for vscode-languageclient and extension.ts to
 * run under plain Node in the integration test. It records what the extension shows (messages,
 * progress notifications, opened documents, output) and lets the test drive it (settings, the
 * active editor, the input box, the Cancel button). Members it does not model are no-ops that
 * return a disposable.
 */
import Module from 'node:module';

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      listener(value);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

class Disposable {
  constructor(private readonly callOnDispose: () => unknown = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((item) => item.dispose()));
  }
  dispose(): void {
    this.callOnDispose();
  }
}

class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire();
    }
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

class CancellationError extends Error {}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    private readonly text: string,
  ) {}
  static parse(value: string): Uri {
    const colon = value.indexOf(':');
    const scheme = value.slice(0, colon);
    const rest = value.slice(colon + 1).replace(/^\/\//, '');
    return new Uri(scheme, decodeURIComponent(rest), value);
  }
  static file(path: string): Uri {
    return new Uri('file', path, `file://${path.split('/').map(encodeURIComponent).join('/')}`);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

export const ProgressLocation = { SourceControl: 1, Window: 10, Notification: 15 } as const;
export const StatusBarAlignment = { Left: 1, Right: 2 } as const;

/** A status-bar item as the extension left it. */
export interface ShownStatusItem {
  id?: string;
  name?: string;
  text: string;
  tooltip?: unknown;
  command?: unknown;
  visible: boolean;
}

export interface ShownMessage {
  kind: 'info' | 'warning' | 'error';
  text: string;
  items: string[];
}

export interface ShownProgress {
  location: number;
  title?: string;
  cancellable?: boolean;
  reports: { message?: string; increment?: number }[];
  done: boolean;
  /** Presses the notification's Cancel button. */
  cancel(): void;
}

export interface StubState {
  /** Settings by full key, e.g. "codeteam.server.command". */
  settings: Record<string, unknown>;
  secrets: Map<string, string>;
  messages: ShownMessage[];
  progress: ShownProgress[];
  output: string[];
  opened: { language?: string; content?: string }[];
  commands: Map<string, (...args: unknown[]) => unknown>;
  /** What the next input box returns. */
  inputBox: string | undefined;
  /** Which button the next message returns, if any. */
  messageChoice: string | undefined;
  activeTextEditor: unknown;
  /** The status-bar items created, in order. */
  statusItems: ShownStatusItem[];
  /** Output channels created: name and options (e.g. `{ log: true }`). */
  outputChannels: { name: string; options: unknown }[];
  /** Installed extensions by id (`vscode.extensions.getExtension`). */
  extensions: Map<string, unknown>;
  /** `vscode.workspace.isTrusted`. */
  trusted: boolean;
  /** `vscode.workspace.workspaceFolders`. */
  workspaceFolders: { uri: Uri; name: string; index: number }[] | undefined;
  configurationChanged: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  secretsChanged: EventEmitter<{ key: string }>;
}

/**
 * A function that does nothing and returns a disposable; any property of it is another one.
 * A plain function (not an arrow), so that library classes can extend it (`class X extends
 * vscode.CodeAction`).
 */
function inert(): unknown {
  const fn = function (): unknown {
    return { dispose: () => undefined };
  };
  return new Proxy(fn, {
    get: (target, property) => (property in target ? (target as unknown as Record<PropertyKey, unknown>)[property] : inert()),
  });
}

function withFallback<T extends object>(object: T): T {
  return new Proxy(object, {
    get: (target, property) => (property in target ? (target as Record<PropertyKey, unknown>)[property] : inert()),
  });
}

function lookup(settings: Record<string, unknown>, key: string): unknown {
  if (key in settings) {
    return settings[key];
  }
  const prefix = `${key}.`;
  const nested: Record<string, unknown> = {};
  let found = false;
  for (const [full, value] of Object.entries(settings)) {
    if (!full.startsWith(prefix)) {
      continue;
    }
    found = true;
    const parts = full.slice(prefix.length).split('.');
    let node = nested;
    for (const part of parts.slice(0, -1)) {
      node = (node[part] ??= {}) as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
  }
  return found ? nested : undefined;
}

export function createStub(): { module: unknown; state: StubState } {
  const state: StubState = {
    settings: {},
    secrets: new Map(),
    messages: [],
    progress: [],
    output: [],
    opened: [],
    commands: new Map(),
    inputBox: undefined,
    messageChoice: undefined,
    activeTextEditor: undefined,
    statusItems: [],
    outputChannels: [],
    extensions: new Map(),
    trusted: true,
    workspaceFolders: undefined,
    configurationChanged: new EventEmitter(),
    secretsChanged: new EventEmitter(),
  };

  const message =
    (kind: ShownMessage['kind']) =>
    (text: string, ...rest: unknown[]): Promise<string | undefined> => {
      const items = rest.filter((item): item is string => typeof item === 'string');
      state.messages.push({ kind, text, items });
      const choice = state.messageChoice !== undefined && items.includes(state.messageChoice) ? state.messageChoice : undefined;
      return Promise.resolve(choice);
    };

  const outputChannel = (name: string, options?: unknown): unknown => {
    state.outputChannels.push({ name, options });
    const log = (level: string) => (text: string) => state.output.push(`[${level}] ${text}\n`);
    return withFallback({
      name,
      logLevel: 2,
      onDidChangeLogLevel: new EventEmitter<number>().event,
      trace: log('trace'),
      debug: log('debug'),
      info: log('info'),
      warn: log('warning'),
      error: (error: string | Error) => log('error')(String(error)),
      append: (text: string) => state.output.push(text),
      appendLine: (text: string) => state.output.push(`${text}\n`),
      replace: () => undefined,
      clear: () => undefined,
      show: () => undefined,
      hide: () => undefined,
      dispose: () => undefined,
    });
  };

  const statusBarItem = (id?: string): unknown => {
    const item: ShownStatusItem & { show(): void; hide(): void; dispose(): void } = {
      id,
      text: '',
      visible: false,
      show: () => {
        item.visible = true;
      },
      hide: () => {
        item.visible = false;
      },
      dispose: () => {
        item.visible = false;
      },
    };
    state.statusItems.push(item);
    return item;
  };

  const window = withFallback({
    get activeTextEditor() {
      return state.activeTextEditor;
    },
    visibleTextEditors: [],
    tabGroups: withFallback({ all: [] }),
    createOutputChannel: outputChannel,
    createStatusBarItem: statusBarItem,
    showInformationMessage: message('info'),
    showWarningMessage: message('warning'),
    showErrorMessage: message('error'),
    showInputBox: (options: { validateInput?: (value: string) => unknown }) => {
      const value = state.inputBox;
      if (value !== undefined && options.validateInput?.(value)) {
        return Promise.resolve(undefined);
      }
      return Promise.resolve(value);
    },
    withProgress: <R>(
      options: { location: number; title?: string; cancellable?: boolean },
      task: (
        progress: { report(step: { message?: string; increment?: number }): void },
        token: CancellationTokenSource['token'],
      ) => Promise<R>,
    ): Promise<R> => {
      const source = new CancellationTokenSource();
      const shown: ShownProgress = {
        location: options.location,
        title: options.title,
        cancellable: options.cancellable,
        reports: [],
        done: false,
        cancel: () => source.cancel(),
      };
      state.progress.push(shown);
      return task({ report: (step) => shown.reports.push(step) }, source.token).finally(() => {
        shown.done = true;
      });
    },
    showTextDocument: () => Promise.resolve(undefined),
  });

  const workspace = withFallback({
    get workspaceFolders() {
      return state.workspaceFolders;
    },
    get isTrusted() {
      return state.trusted;
    },
    textDocuments: [],
    notebookDocuments: [],
    getConfiguration: (section?: string) => {
      const full = (key: string): string => (section ? `${section}.${key}` : key);
      return withFallback({
        get: (key: string, fallback?: unknown) => lookup(state.settings, full(key)) ?? fallback,
        has: (key: string) => lookup(state.settings, full(key)) !== undefined,
        inspect: () => undefined,
        update: () => Promise.resolve(),
      });
    },
    onDidChangeConfiguration: state.configurationChanged.event,
    openTextDocument: (options: { language?: string; content?: string }) => {
      state.opened.push(options);
      return Promise.resolve({ uri: Uri.parse('untitled:Untitled-1'), languageId: options.language });
    },
  });

  const commands = withFallback({
    registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
      if (state.commands.has(id)) {
        throw new Error(`command '${id}' already exists`);
      }
      state.commands.set(id, handler);
      return { dispose: () => state.commands.delete(id) };
    },
    executeCommand: (id: string, ...args: unknown[]) => Promise.resolve(state.commands.get(id)?.(...args)),
  });

  const module = withFallback({
    version: '1.90.0',
    env: withFallback({ language: 'en', appName: 'stub', machineId: 'stub', sessionId: 'stub', uriScheme: 'vscode' }),
    window,
    workspace,
    commands,
    languages: withFallback({ match: () => 0 }),
    extensions: withFallback({ getExtension: (id: string) => state.extensions.get(id), all: [] }),
    Uri,
    EventEmitter,
    Disposable,
    CancellationTokenSource,
    CancellationError,
    ProgressLocation,
    StatusBarAlignment,
  });
  return { module, state };
}

/** Makes `require('vscode')` return `stubModule` from now on. */
export function installStub(stubModule: unknown): void {
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  loader._load = function (request: string, ...rest: unknown[]): unknown {
    if (request === 'vscode') {
      return stubModule;
    }
    return original.call(this, request, ...rest);
  };
}

/** An ExtensionContext for activate(). */
export function createContext(state: StubState): unknown {
  return withFallback({
    subscriptions: [] as { dispose(): unknown }[],
    secrets: {
      get: (key: string) => Promise.resolve(state.secrets.get(key)),
      store: (key: string, value: string) => {
        state.secrets.set(key, value);
        state.secretsChanged.fire({ key });
        return Promise.resolve();
      },
      delete: (key: string) => {
        state.secrets.delete(key);
        state.secretsChanged.fire({ key });
        return Promise.resolve();
      },
      onDidChange: state.secretsChanged.event,
    },
  });
}

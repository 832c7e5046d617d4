/**
 * Server-initiated work-done progress (window/workDoneProgress/create + $/progress), shown as a
 * visible notification with a Cancel button that sends window/workDoneProgress/cancel, and in
 * a status-bar item ({@link RunStatus}) that names the running stage; a click on it cancels.
 *
 * Why not vscode-languageclient's own ProgressPart: it shows every server progress with
 * `ProgressLocation.Window`, which VS Code renders as a *silent* notification: a spinner in the
 * status bar, and the Cancel button only after a click on it. A team run takes minutes, so
 * codeteam shows a normal notification instead. The state machine lives here, without
 * `vscode`, so that it is unit-tested; extension.ts supplies the UI.
 */

export type ProgressToken = string | number;

export interface ProgressView {
  /** Shows a new stage message and/or adds `increment` percent. */
  report(message: string | undefined, increment: number | undefined): void;
  /** Ends the notification. Idempotent. */
  close(): void;
}

export interface ProgressUi {
  /** Opens a notification; `onCancel` runs when the user presses its Cancel button. */
  open(options: { title: string; cancellable: boolean }, onCancel: () => void): ProgressView;
}

interface ProgressValue {
  kind?: unknown;
  title?: unknown;
  message?: unknown;
  percentage?: unknown;
  cancellable?: unknown;
}

export const DEFAULT_TITLE = 'codeteam';

/** One server progress token, from `create` to `end` (or to the client's stop). */
export class WorkDoneProgressTracker {
  private view: ProgressView | undefined;
  private reported = 0;
  private finished = false;
  private cancelSent = false;
  private shownTitle: string | undefined;
  private shownStage: string | undefined;
  private isCancellable = false;

  constructor(
    readonly token: ProgressToken,
    private readonly ui: ProgressUi,
    private readonly sendCancel: (token: ProgressToken) => void,
    private readonly onFinished: (tracker: WorkDoneProgressTracker) => void = () => undefined,
    /** Called after `begin` and after every report that changes the stage. */
    private readonly onChanged: (tracker: WorkDoneProgressTracker) => void = () => undefined,
  ) {}

  get isFinished(): boolean {
    return this.finished;
  }

  get cancelRequested(): boolean {
    return this.cancelSent;
  }

  /** The title from `begin` (DEFAULT_TITLE when it had none); undefined before `begin`. */
  get title(): string | undefined {
    return this.shownTitle;
  }

  /** The latest stage message (e.g. "analyst: planning"), if any. */
  get stage(): string | undefined {
    return this.shownStage;
  }

  /** Whether the server said this progress can be cancelled (in `begin`). */
  get cancellable(): boolean {
    return this.isCancellable;
  }

  /**
   * Sends window/workDoneProgress/cancel for this token (once; not after the end, and only
   * when the server said it is cancellable). Returns whether a cancel was sent now.
   */
  requestCancel(): boolean {
    if (!this.isCancellable || this.finished || this.cancelSent) {
      return false;
    }
    this.cancel();
    return true;
  }

  /** Feeds one `$/progress` value for this token. Malformed values are ignored. */
  handle(value: unknown): void {
    if (this.finished || typeof value !== 'object' || value === null) {
      return;
    }
    const progress = value as ProgressValue;
    switch (progress.kind) {
      case 'begin':
        this.begin(progress);
        break;
      case 'report':
        this.report(progress);
        break;
      case 'end':
        this.finish();
        break;
      default:
        break;
    }
  }

  /** The client stopped: close the notification without telling the server. */
  dispose(): void {
    this.finish();
  }

  private begin(progress: ProgressValue): void {
    if (this.view !== undefined) {
      return;
    }
    const title = typeof progress.title === 'string' && progress.title.trim() !== '' ? progress.title : DEFAULT_TITLE;
    this.shownTitle = title;
    this.isCancellable = progress.cancellable === true;
    this.view = this.ui.open({ title, cancellable: this.isCancellable }, () => this.cancel());
    this.report(progress);
    this.onChanged(this);
  }

  private report(progress: ProgressValue): void {
    if (this.view === undefined) {
      return;
    }
    const message = typeof progress.message === 'string' ? progress.message : undefined;
    let increment: number | undefined;
    if (typeof progress.percentage === 'number' && Number.isFinite(progress.percentage)) {
      const percentage = Math.max(0, Math.min(100, progress.percentage));
      increment = Math.max(0, percentage - this.reported);
      this.reported += increment;
    }
    if (message !== undefined || increment !== undefined) {
      this.view.report(message, increment);
    }
    if (message !== undefined && message !== this.shownStage) {
      this.shownStage = message;
      if (progress.kind === 'report') {
        this.onChanged(this);
      }
    }
  }

  private cancel(): void {
    if (this.finished || this.cancelSent) {
      return;
    }
    this.cancelSent = true;
    this.sendCancel(this.token);
    this.onChanged(this);
  }

  private finish(): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.view?.close();
    this.view = undefined;
    this.onFinished(this);
  }
}

/** The status-bar item as the extension shows it (a vscode.StatusBarItem fits behind it).
 * `clickOpens` is what a click does: cancel the runs, or open the last run's transcript. */
export interface StatusItemView {
  show(text: string, tooltip: string, clickOpens: 'cancel' | 'transcript'): void;
  hide(): void;
}

/** The cost of a finished run, as the status bar shows it once no run is open. */
export interface LastCost {
  /** The run's title, e.g. "Generate with team". */
  title: string;
  /** The server's cost line: "3 LLM calls, 2,500 prompt + 500 completion tokens, 12.3 s, $0.0089". */
  cost: string;
}

/** What the status-bar item says about the last finished run's cost. */
export function costText(last: LastCost): { text: string; tooltip: string } {
  return {
    text: `$(credit-card) ${last.cost}`,
    tooltip: `codeteam: the cost of the last run (${last.title}): ${last.cost}.\nClick to open its transcript.`,
  };
}

/** What the status-bar item says about `runs` (open trackers, oldest first), or undefined. */
export function statusText(
  runs: readonly Pick<WorkDoneProgressTracker, 'title' | 'stage' | 'cancelRequested' | 'cancellable'>[],
): { text: string; tooltip: string } | undefined {
  const shown = runs.filter((run) => run.title !== undefined);
  if (shown.length === 0) {
    return undefined;
  }
  const latest = shown[shown.length - 1];
  const stage = latest.cancelRequested ? 'cancelling…' : (latest.stage ?? latest.title ?? DEFAULT_TITLE);
  const text = `$(sync~spin) ${shown.length > 1 ? `${shown.length} runs: ` : ''}${stage}`;
  const lines = shown.map((run) => {
    const title = run.title ?? DEFAULT_TITLE;
    const state = run.cancelRequested ? 'cancelling' : (run.stage ?? 'starting');
    return `${title}: ${state}`;
  });
  const action = shown.some((run) => run.cancellable && !run.cancelRequested) ? 'Click to cancel.' : 'Cannot be cancelled from here.';
  return { text, tooltip: [...lines, action].join('\n') };
}

/**
 * The status-bar item of the running codeteam runs: the latest stage while any run is open
 * ({@link cancelAll} is what a click does then); once none is, the last finished run's cost
 * (a click opens its transcript), or hidden before any.
 */
export class RunStatus {
  private readonly runs: WorkDoneProgressTracker[] = [];
  private last: LastCost | undefined;

  constructor(private readonly view: StatusItemView) {}

  /** The open runs, oldest first. */
  get open(): readonly WorkDoneProgressTracker[] {
    return this.runs;
  }

  /** A run began or changed stage (the tracker's onChanged). */
  changed(tracker: WorkDoneProgressTracker): void {
    if (tracker.isFinished) {
      this.finished(tracker);
      return;
    }
    if (!this.runs.includes(tracker)) {
      this.runs.push(tracker);
    }
    this.render();
  }

  /** A run ended (the tracker's onFinished). */
  finished(tracker: WorkDoneProgressTracker): void {
    const index = this.runs.indexOf(tracker);
    if (index >= 0) {
      this.runs.splice(index, 1);
    }
    this.render();
  }

  /** A run answered with its cost line (the reply's `cost.text`; undefined: none). */
  finishedWithCost(title: string, cost: string | undefined): void {
    if (cost !== undefined) {
      this.last = { title, cost };
      this.render();
    }
  }

  /** The last finished run's cost, if any. */
  get lastCost(): LastCost | undefined {
    return this.last;
  }

  /** Cancels every open, cancellable run. Returns how many cancels were sent. */
  cancelAll(): number {
    let sent = 0;
    for (const run of [...this.runs]) {
      if (run.requestCancel()) {
        sent += 1;
      }
    }
    return sent;
  }

  private render(): void {
    const shown = statusText(this.runs);
    if (shown !== undefined) {
      this.view.show(shown.text, shown.tooltip, 'cancel');
    } else if (this.last !== undefined) {
      const cost = costText(this.last);
      this.view.show(cost.text, cost.tooltip, 'transcript');
    } else {
      this.view.hide();
    }
  }
}

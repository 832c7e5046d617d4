/**
 * Server-initiated work-done progress (window/workDoneProgress/create + $/progress), shown as a
 * visible notification with a Cancel button that sends window/workDoneProgress/cancel.
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

  constructor(
    readonly token: ProgressToken,
    private readonly ui: ProgressUi,
    private readonly sendCancel: (token: ProgressToken) => void,
    private readonly onFinished: (tracker: WorkDoneProgressTracker) => void = () => undefined,
  ) {}

  get isFinished(): boolean {
    return this.finished;
  }

  get cancelRequested(): boolean {
    return this.cancelSent;
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
    this.view = this.ui.open({ title, cancellable: progress.cancellable === true }, () => this.cancel());
    this.report(progress);
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
  }

  private cancel(): void {
    if (this.finished || this.cancelSent) {
      return;
    }
    this.cancelSent = true;
    this.sendCancel(this.token);
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

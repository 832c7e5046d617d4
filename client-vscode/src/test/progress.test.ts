import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { costText, DEFAULT_TITLE, type ProgressToken, type ProgressUi, RunStatus, statusText, WorkDoneProgressTracker } from '../progress';

interface Opened {
  title: string;
  cancellable: boolean;
  reports: [string | undefined, number | undefined][];
  closed: number;
  cancel: () => void;
}

function fakeUi(): { ui: ProgressUi; opened: Opened[] } {
  const opened: Opened[] = [];
  const ui: ProgressUi = {
    open(options, onCancel) {
      const entry: Opened = { ...options, reports: [], closed: 0, cancel: onCancel };
      opened.push(entry);
      return {
        report: (message, increment) => entry.reports.push([message, increment]),
        close: () => {
          entry.closed += 1;
        },
      };
    },
  };
  return { ui, opened };
}

describe('WorkDoneProgressTracker', () => {
  test('begin opens a cancellable notification, reports stage messages, end closes it', () => {
    const { ui, opened } = fakeUi();
    const finished: WorkDoneProgressTracker[] = [];
    const tracker = new WorkDoneProgressTracker('tok', ui, () => assert.fail('no cancel'), (t) => finished.push(t));
    tracker.handle({ kind: 'begin', title: 'codeteam: Generate with team', cancellable: true, message: 'analyst: planning' });
    tracker.handle({ kind: 'report', message: 'tester: running 12 tests' });
    tracker.handle({ kind: 'end', message: 'done' });
    assert.equal(opened.length, 1);
    assert.equal(opened[0].title, 'codeteam: Generate with team');
    assert.equal(opened[0].cancellable, true);
    assert.deepEqual(opened[0].reports, [
      ['analyst: planning', undefined],
      ['tester: running 12 tests', undefined],
    ]);
    assert.equal(opened[0].closed, 1);
    assert.deepEqual(finished, [tracker]);
    assert.equal(tracker.isFinished, true);
  });

  test('Cancel sends window/workDoneProgress/cancel once, for this token', () => {
    const { ui, opened } = fakeUi();
    const cancelled: ProgressToken[] = [];
    const tracker = new WorkDoneProgressTracker(7, ui, (token) => cancelled.push(token));
    tracker.handle({ kind: 'begin', title: 't', cancellable: true });
    opened[0].cancel();
    opened[0].cancel();
    assert.deepEqual(cancelled, [7]);
    assert.equal(tracker.cancelRequested, true);
    tracker.handle({ kind: 'end' });
    opened[0].cancel();
    assert.deepEqual(cancelled, [7]);
  });

  test('percentages become increments that never go backwards or past 100', () => {
    const { ui, opened } = fakeUi();
    const tracker = new WorkDoneProgressTracker('p', ui, () => undefined);
    tracker.handle({ kind: 'begin', title: 't', percentage: 10 });
    tracker.handle({ kind: 'report', percentage: 40, message: 'coder' });
    tracker.handle({ kind: 'report', percentage: 30 });
    tracker.handle({ kind: 'report', percentage: 250 });
    assert.deepEqual(opened[0].reports, [
      [undefined, 10],
      ['coder', 30],
      [undefined, 0],
      [undefined, 60],
    ]);
  });

  test('ignores reports before begin, a second begin, values after end and malformed values', () => {
    const { ui, opened } = fakeUi();
    const tracker = new WorkDoneProgressTracker('x', ui, () => undefined);
    tracker.handle({ kind: 'report', message: 'early' });
    tracker.handle(null);
    tracker.handle('begin');
    tracker.handle({ kind: 'begin' });
    tracker.handle({ kind: 'begin', title: 'again' });
    assert.equal(opened.length, 1);
    assert.equal(opened[0].title, DEFAULT_TITLE);
    assert.equal(opened[0].cancellable, false);
    tracker.handle({ kind: 'end' });
    tracker.handle({ kind: 'report', message: 'late' });
    tracker.handle({ kind: 'end' });
    assert.deepEqual(opened[0].reports, []);
    assert.equal(opened[0].closed, 1);
  });

  test('dispose (client stopped) closes the notification without cancelling the run', () => {
    const { ui, opened } = fakeUi();
    let cancels = 0;
    const tracker = new WorkDoneProgressTracker('d', ui, () => cancels++);
    tracker.handle({ kind: 'begin', title: 't', cancellable: true });
    tracker.dispose();
    tracker.dispose();
    assert.equal(opened[0].closed, 1);
    assert.equal(cancels, 0);
  });
});

describe('RunStatus (the status-bar item)', () => {
  function setup(): {
    status: RunStatus;
    shown: { text: string; tooltip: string; visible: boolean; clickOpens: string };
    cancelled: ProgressToken[];
    track: (token: ProgressToken) => WorkDoneProgressTracker;
  } {
    const { ui } = fakeUi();
    const shown = { text: '', tooltip: '', visible: false, clickOpens: '' };
    const status = new RunStatus({
      show(text, tooltip, clickOpens) {
        Object.assign(shown, { text, tooltip, visible: true, clickOpens });
      },
      hide() {
        shown.visible = false;
      },
    });
    const cancelled: ProgressToken[] = [];
    const track = (token: ProgressToken): WorkDoneProgressTracker =>
      new WorkDoneProgressTracker(
        token,
        ui,
        (t) => cancelled.push(t),
        (t) => status.finished(t),
        (t) => status.changed(t),
      );
    return { status, shown, cancelled, track };
  }

  test('shows the running stage from begin to end, then hides', () => {
    const { shown, track } = setup();
    const run = track('a');
    assert.equal(shown.visible, false);
    run.handle({ kind: 'begin', title: 'codeteam: Generate with team', cancellable: true, message: 'running_max: starting' });
    assert.equal(shown.visible, true);
    assert.equal(shown.text, '$(sync~spin) running_max: starting');
    run.handle({ kind: 'report', message: 'analyst: planning' });
    assert.equal(shown.text, '$(sync~spin) analyst: planning');
    assert.equal(shown.tooltip, 'codeteam: Generate with team: analyst: planning\nClick to cancel.');
    run.handle({ kind: 'end', message: 'applied' });
    assert.equal(shown.visible, false);
  });

  test('a click (cancelAll) cancels every open cancellable run once and says so', () => {
    const { status, shown, cancelled, track } = setup();
    const first = track(1);
    const second = track(2);
    const fixed = track(3);
    first.handle({ kind: 'begin', title: 'codeteam: Review with tester', cancellable: true, message: 'tester: running 4 tests' });
    second.handle({ kind: 'begin', title: 'codeteam: Generate with team', cancellable: true, message: 'coder: writing code' });
    fixed.handle({ kind: 'begin', title: 'other', cancellable: false, message: 'x' });
    assert.equal(status.open.length, 3);
    assert.equal(shown.text, '$(sync~spin) 3 runs: x');
    assert.equal(status.cancelAll(), 2);
    assert.deepEqual(cancelled, [1, 2]);
    assert.equal(status.cancelAll(), 0);
    assert.deepEqual(cancelled, [1, 2]);
    assert.match(shown.tooltip, /codeteam: Generate with team: cancelling/);
    first.handle({ kind: 'end' });
    second.handle({ kind: 'end' });
    assert.equal(shown.text, '$(sync~spin) x');
    assert.match(shown.tooltip, /Cannot be cancelled from here\.$/);
    fixed.dispose();
    assert.equal(shown.visible, false);
    assert.equal(status.open.length, 0);
  });

  test('statusText: nothing before begin; the latest run names the stage', () => {
    assert.equal(statusText([]), undefined);
    assert.equal(statusText([{ title: undefined, stage: undefined, cancelRequested: false, cancellable: false }]), undefined);
    const cancelling = statusText([{ title: 't', stage: 's', cancelRequested: true, cancellable: true }]);
    assert.equal(cancelling?.text, '$(sync~spin) cancelling…');
  });

  test('after a run, the status bar shows its cost until the next run begins', () => {
    const { status, shown, track } = setup();
    const cost = '3 LLM calls, 2,500 prompt + 500 completion tokens, 12.3 s, $0.0089';
    status.finishedWithCost('Generate with team', undefined);
    assert.equal(shown.visible, false);
    const run = track('a');
    run.handle({ kind: 'begin', title: 'codeteam: Generate with team', cancellable: true, message: 'coder: writing code' });
    run.handle({ kind: 'end', message: 'team: passed' });
    status.finishedWithCost('Generate with team', cost);
    assert.deepEqual(shown, { ...costText({ title: 'Generate with team', cost }), visible: true, clickOpens: 'transcript' });
    assert.equal(shown.text, `$(credit-card) ${cost}`);
    assert.match(shown.tooltip, /the cost of the last run \(Generate with team\)/);
    const next = track('b');
    next.handle({ kind: 'begin', title: 'codeteam: Review with tester', cancellable: true, message: 'tester: running 2 tests' });
    assert.equal(shown.text, '$(sync~spin) tester: running 2 tests');
    assert.equal(shown.clickOpens, 'cancel');
    next.handle({ kind: 'end' });
    assert.equal(shown.text, `$(credit-card) ${cost}`);
    assert.equal(status.lastCost?.cost, cost);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { DEFAULT_TITLE, type ProgressToken, type ProgressUi, WorkDoneProgressTracker } from '../progress';

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

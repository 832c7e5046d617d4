import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  applyKeptParams,
  CLIENT_COMMANDS,
  editorProblem,
  runArgument,
  runCost,
  runKindOf,
  runOutcome,
  runParams,
  SERVER_COMMANDS,
  transcriptMarkdown,
  transcriptParams,
} from '../commands';

describe('command ids', () => {
  test('no client command reuses a server command id (languageclient registers those)', () => {
    const server = new Set<string>(Object.values(SERVER_COMMANDS));
    for (const id of Object.values(CLIENT_COMMANDS)) {
      assert.ok(!server.has(id), id);
    }
    assert.equal(new Set(Object.values(CLIENT_COMMANDS)).size, Object.values(CLIENT_COMMANDS).length);
  });

  test('run kinds map to the server commands', () => {
    assert.equal(runKindOf('codeteam.plan'), 'plan');
    assert.equal(runKindOf('codeteam.generate'), 'generate');
    assert.equal(runKindOf('codeteam.review'), 'review');
    assert.equal(runKindOf('codeteam.transcript'), undefined);
    assert.equal(runKindOf('codeteam.editor.plan'), undefined);
  });
});

describe('runArgument', () => {
  test('the cursor (active end of a selection) becomes a plain {line, character}', () => {
    // A vscode.Selection-like object: anchor before active, extra fields and methods.
    const selection = {
      anchor: { line: 2, character: 0 },
      active: { line: 9, character: 14, isBefore: () => false },
      isEmpty: false,
    };
    const argument = runArgument({ uri: 'file:///w/m%C3%BC.py', selection });
    assert.deepEqual(argument, { uri: 'file:///w/m%C3%BC.py', position: { line: 9, character: 14 } });
    assert.deepEqual(Object.keys(argument.position), ['line', 'character']);
    assert.equal(JSON.stringify(argument), '{"uri":"file:///w/m%C3%BC.py","position":{"line":9,"character":14}}');
  });

  test('rejects positions that are not non-negative integers', () => {
    for (const active of [{ line: -1, character: 0 }, { line: 1.5, character: 0 }, { line: 0, character: Number.NaN }]) {
      assert.throws(() => runArgument({ uri: 'file:///a.py', selection: { active } }), TypeError);
    }
  });

  test('runParams names the server command and passes ONE argument object', () => {
    const params = runParams('generate', { uri: 'untitled:Untitled-1', selection: { active: { line: 3, character: 4 } } });
    assert.deepEqual(params, {
      command: 'codeteam.generate',
      arguments: [{ uri: 'untitled:Untitled-1', position: { line: 3, character: 4 } }],
    });
    assert.equal(runParams('plan', { uri: 'u', selection: { active: { line: 0, character: 0 } } }).command, 'codeteam.plan');
    assert.equal(runParams('review', { uri: 'u', selection: { active: { line: 0, character: 0 } } }).command, 'codeteam.review');
  });

  test('transcriptParams sends an empty argument list', () => {
    assert.deepEqual(transcriptParams(), { command: 'codeteam.transcript', arguments: [] });
  });
});

describe('editorProblem', () => {
  test('accepts Python in file and untitled documents only', () => {
    assert.equal(editorProblem({ languageId: 'python', scheme: 'file' }), undefined);
    assert.equal(editorProblem({ languageId: 'python', scheme: 'untitled' }), undefined);
    assert.match(editorProblem({ languageId: 'python', scheme: 'git' }) ?? '', /git:/);
    assert.match(editorProblem({ languageId: 'markdown', scheme: 'file' }) ?? '', /markdown/);
    assert.match(editorProblem(undefined) ?? '', /Open a Python file/);
  });
});

describe('runOutcome', () => {
  test('shows the message with the action title, severity from the status', () => {
    assert.deepEqual(runOutcome({ status: 'applied', message: 'Replaced add() (2 rounds).' }, 'Generate with team'), {
      severity: 'info',
      message: 'codeteam Generate with team: Replaced add() (2 rounds).',
      status: 'applied',
    });
    assert.equal(runOutcome({ status: 'error', message: 'no function here' }, 'x').severity, 'error');
    assert.equal(runOutcome({ status: 'FAILED', message: 'm' }, 'x').severity, 'error');
    assert.equal(runOutcome({ status: 'cancelled', message: 'm' }, 'x').severity, 'warning');
    assert.equal(runOutcome({ status: 'stale', message: 'm' }, 'x').severity, 'warning');
    assert.equal(runOutcome({ status: 'not judged', message: 'm' }, 'x').severity, 'warning');
  });

  test('copes with replies of another shape', () => {
    assert.match(runOutcome(null, 'Plan this docstring').message, /no report/);
    assert.equal(runOutcome({ status: 'ok' }, 'T').message, 'codeteam T: ok');
    assert.equal(runOutcome('done', 'T').message, 'codeteam T: "done"');
  });
});

describe('transcriptMarkdown', () => {
  test('null means no run yet; {markdown} gives the text', () => {
    assert.equal(transcriptMarkdown(null), undefined);
    assert.equal(transcriptMarkdown(undefined), undefined);
    assert.equal(transcriptMarkdown({}), undefined);
    assert.equal(transcriptMarkdown({ markdown: '' }), undefined);
    assert.equal(transcriptMarkdown({ markdown: 42 }), undefined);
    assert.equal(transcriptMarkdown({ markdown: '# Run\n\nplan...' }), '# Run\n\nplan...');
  });
});

describe('runCost', () => {
  test("the cost line of a run's reply, or undefined", () => {
    const text = '2 LLM calls, 120 prompt + 48 completion tokens, 1.2 s, $0.0008';
    assert.equal(runCost({ status: 'passed', message: 'm', applied: true, cost: { calls: 2, usd: 0.0008, text } }), text);
    assert.equal(runCost({ status: 'error', message: 'no model', applied: false }), undefined);
    assert.equal(runCost({ cost: { text: '  ' } }), undefined);
    assert.equal(runCost({ cost: 'free' }), undefined);
    assert.equal(runCost(null), undefined);
    assert.equal(runCost('x'), undefined);
  });
});

describe('applyKeptParams', () => {
  test('asks the server to apply the latest kept result', () => {
    assert.deepEqual(applyKeptParams(), { command: 'codeteam.apply', arguments: [] });
    assert.equal(SERVER_COMMANDS.apply, 'codeteam.apply');
    assert.ok(!(Object.values(CLIENT_COMMANDS) as string[]).includes('codeteam.apply'));
  });
});

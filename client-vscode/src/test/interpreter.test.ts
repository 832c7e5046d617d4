import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import {
  chooseInterpreter,
  describeChoice,
  interpreterCandidates,
  noInterpreterMessage,
  PROBE_ARGS,
  probeInterpreter,
} from '../interpreter';

const commands = (list: { command: string[] }[]): string[][] => list.map((candidate) => candidate.command);

describe('interpreterCandidates', () => {
  test('the Python extension first, then the workspace venvs that exist, then PATH', () => {
    const present = new Set(['/w/.venv/bin/python', '/w/venv/bin/python']);
    const list = interpreterCandidates({
      pythonExtension: ['/opt/conda/bin/python'],
      workspaceFolder: '/w',
      trusted: true,
      platform: 'linux',
      exists: (path) => present.has(path),
    });
    assert.deepEqual(commands(list), [['/opt/conda/bin/python'], ['/w/.venv/bin/python'], ['/w/venv/bin/python'], ['python3'], ['python']]);
    assert.equal(list[0].source, "the Python extension's interpreter");
    assert.equal(list[1].source, "the workspace's .venv");
  });

  test('venvs that do not exist are left out, and duplicates go', () => {
    const list = interpreterCandidates({
      pythonExtension: ['/w/.venv/bin/python'],
      workspaceFolder: '/w',
      trusted: true,
      platform: 'linux',
      exists: (path) => path === '/w/.venv/bin/python',
    });
    assert.deepEqual(commands(list), [['/w/.venv/bin/python'], ['python3'], ['python']]);
  });

  test('an untrusted workspace cannot choose the program: nothing inside its folder', () => {
    const list = interpreterCandidates({
      pythonExtension: ['/w/.venv/bin/python'],
      workspaceFolder: '/w',
      trusted: false,
      platform: 'linux',
      exists: () => true,
    });
    assert.deepEqual(commands(list), [['python3'], ['python']]);
    const outside = interpreterCandidates({ pythonExtension: ['/usr/bin/python3.12'], workspaceFolder: '/w', trusted: false, platform: 'linux', exists: () => true });
    assert.deepEqual(commands(outside)[0], ['/usr/bin/python3.12']);
  });

  test('Windows: Scripts\\python.exe and the py launcher', () => {
    const list = interpreterCandidates({ workspaceFolder: 'C:\\w', trusted: true, platform: 'win32', exists: () => true });
    const last = commands(list).slice(-2);
    assert.deepEqual(last, [['python'], ['py', '-3']]);
    assert.match(list[0].command[0], /Scripts.python\.exe$/);
  });

  test('a blank or missing Python extension answer adds nothing', () => {
    assert.deepEqual(commands(interpreterCandidates({ pythonExtension: [], trusted: true, platform: 'linux' })), [['python3'], ['python']]);
    assert.deepEqual(commands(interpreterCandidates({ pythonExtension: [' '], trusted: true, platform: 'linux' })), [['python3'], ['python']]);
  });
});

describe('chooseInterpreter', () => {
  const candidates = [
    { command: ['/a/python'], source: 'A' },
    { command: ['/b/python'], source: 'B' },
    { command: ['python3'], source: 'PATH' },
  ];

  test('stops at the first interpreter whose probe passes', async () => {
    const probed: string[] = [];
    const choice = await chooseInterpreter(candidates, (command) => {
      probed.push(command[0]);
      return Promise.resolve(command[0] === '/b/python');
    });
    assert.deepEqual(probed, ['/a/python', '/b/python']);
    assert.deepEqual(choice.chosen, candidates[1]);
    assert.match(describeChoice(choice), /using \/b\/python \(B\)/);
  });

  test('none works: nothing chosen, and the message names what was tried and both fixes', async () => {
    const choice = await chooseInterpreter(candidates, () => Promise.resolve(false));
    assert.equal(choice.chosen, undefined);
    assert.equal(choice.tried.length, 3);
    const message = noInterpreterMessage(choice);
    assert.match(message, /\/a\/python, \/b\/python, python3/);
    assert.match(message, /pip install PATH-OF-A-CODETEAM-CHECKOUT/);
    assert.match(message, /codeteam\.server\.python/);
  });
});

describe('probeInterpreter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'codeteam-probe-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** An executable that exits 0 only when called with exactly `-m codeteam serve --help`. */
  function fakePython(name: string, body: string): string {
    const path = join(dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  test('runs the interpreter with the probe arguments and reads its exit status', { skip: process.platform === 'win32' }, async () => {
    const expected = PROBE_ARGS.join(' ');
    const good = fakePython('good', `[ "$*" = "${expected}" ] && exit 0; exit 3`);
    const bad = fakePython('bad', 'echo "No module named codeteam" >&2; exit 1');
    assert.equal(await probeInterpreter([good]), true);
    assert.equal(await probeInterpreter([bad]), false);
    // Leading arguments come before the probe's.
    const wrapper = fakePython('wrapper', `[ "$1" = "-3" ] && shift && [ "$*" = "${expected}" ] && exit 0; exit 3`);
    assert.equal(await probeInterpreter([wrapper, '-3']), true);
    assert.equal(await probeInterpreter([good, '-3']), false);
  });

  test('a missing program or a hanging one is a failed probe, not an error', { skip: process.platform === 'win32' }, async () => {
    assert.equal(await probeInterpreter([join(dir, 'no-such-python')]), false);
    const slow = fakePython('slow', 'sleep 5; exit 0');
    const started = Date.now();
    assert.equal(await probeInterpreter([slow], 0.3), false);
    assert.ok(Date.now() - started < 4000);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  API_KEY_ENV,
  apiKeySource,
  buildExecutable,
  buildServerEnv,
  describeLaunch,
  needsInterpreterSearch,
  resolveServerLaunch,
} from '../serverLaunch';
import { initializationOptions } from '../settings';

describe('resolveServerLaunch', () => {
  test('an empty server.command falls back to python3 -m codeteam serve', () => {
    assert.deepEqual(resolveServerLaunch({ command: [], python: 'python3' }), {
      command: 'python3',
      args: ['-m', 'codeteam', 'serve'],
      problems: [],
    });
    assert.deepEqual(resolveServerLaunch({}), { command: 'python3', args: ['-m', 'codeteam', 'serve'], problems: [] });
  });

  test('server.python chooses the interpreter; blank means python3', () => {
    assert.equal(resolveServerLaunch({ command: [], python: '/opt/venv/bin/python' }).command, '/opt/venv/bin/python');
    assert.equal(resolveServerLaunch({ python: '   ' }).command, 'python3');
  });

  test('a non-empty server.command is used as it is, program first', () => {
    const launch = resolveServerLaunch({ command: ['/home/u/.venv/bin/codeteam', 'serve'], python: 'ignored' });
    assert.deepEqual(launch, { command: '/home/u/.venv/bin/codeteam', args: ['serve'], problems: [] });
  });

  test('${workspaceFolder} is replaced in the command and in python', () => {
    const launch = resolveServerLaunch({
      command: ['${workspaceFolder}/.venv/bin/python', '-m', 'codeteam', 'serve', '--log=${workspaceFolder}/x.log'],
      workspaceFolder: '/w/proj',
    });
    assert.deepEqual(launch.command, '/w/proj/.venv/bin/python');
    assert.deepEqual(launch.args, ['-m', 'codeteam', 'serve', '--log=/w/proj/x.log']);
    assert.equal(resolveServerLaunch({ python: '${workspaceFolder}/.venv/bin/python', workspaceFolder: '/w' }).command, '/w/.venv/bin/python');
  });

  test('a malformed server.command is reported and the fallback still starts', () => {
    for (const bad of ['codeteam serve', [1, 2], ['', 'serve'], { cmd: 'x' }]) {
      const launch = resolveServerLaunch({ command: bad, python: 'python3.12' });
      assert.equal(launch.command, 'python3.12');
      assert.deepEqual(launch.args, ['-m', 'codeteam', 'serve']);
      assert.equal(launch.problems.length, 1, JSON.stringify(bad));
      assert.match(launch.problems[0], /codeteam\.server\.command/);
    }
  });

  test('an empty server.python uses the detected interpreter, with its leading arguments', () => {
    assert.deepEqual(resolveServerLaunch({ command: [], python: '', detected: ['/w/.venv/bin/python'] }), {
      command: '/w/.venv/bin/python',
      args: ['-m', 'codeteam', 'serve'],
      problems: [],
    });
    assert.deepEqual(resolveServerLaunch({ python: '', detected: ['py', '-3'] }).args, ['-3', '-m', 'codeteam', 'serve']);
    // A configured interpreter or command wins over the detected one.
    assert.equal(resolveServerLaunch({ python: '/opt/py', detected: ['/w/.venv/bin/python'] }).command, '/opt/py');
    assert.equal(resolveServerLaunch({ command: ['codeteam', 'serve'], detected: ['/x'] }).command, 'codeteam');
  });

  test('the interpreter search runs only without a command and a python', () => {
    assert.equal(needsInterpreterSearch({ command: [], python: '' }), true);
    assert.equal(needsInterpreterSearch({}), true);
    assert.equal(needsInterpreterSearch({ command: [], python: '  ' }), true);
    assert.equal(needsInterpreterSearch({ command: ['x', 'serve'], python: '' }), false);
    assert.equal(needsInterpreterSearch({ command: [], python: '/opt/py' }), false);
    // A malformed command is ignored, so the search decides.
    assert.equal(needsInterpreterSearch({ command: 'codeteam serve', python: '' }), true);
  });

  test('a non-string server.python is reported', () => {
    const launch = resolveServerLaunch({ python: 3 });
    assert.equal(launch.command, 'python3');
    assert.match(launch.problems[0], /codeteam\.server\.python/);
  });
});

describe('buildServerEnv', () => {
  const base = { PATH: '/usr/bin:/bin', HOME: '/home/u' };

  test('holds CODETEAM_API_KEY only when a key is set', () => {
    assert.equal(buildServerEnv(base, 'sk-123')[API_KEY_ENV], 'sk-123');
    for (const none of [undefined, '', '   ']) {
      assert.ok(!(API_KEY_ENV in buildServerEnv(base, none)), `key ${JSON.stringify(none)}`);
    }
  });

  test('keeps the inherited environment (PATH) and does not modify it', () => {
    const env = buildServerEnv(base, ' sk-abc ');
    assert.equal(env.PATH, '/usr/bin:/bin');
    assert.equal(env.HOME, '/home/u');
    assert.equal(env[API_KEY_ENV], 'sk-abc');
    assert.deepEqual(base, { PATH: '/usr/bin:/bin', HOME: '/home/u' });
  });

  test('a stored key replaces an inherited one; without a stored key the inherited one stays', () => {
    const inherited = { ...base, [API_KEY_ENV]: 'from-shell' };
    assert.equal(buildServerEnv(inherited, 'stored')[API_KEY_ENV], 'stored');
    assert.equal(buildServerEnv(inherited, undefined)[API_KEY_ENV], 'from-shell');
  });

  test('the key goes to the environment only: never to initializationOptions or the log line', () => {
    const secret = 'sk-live-very-secret';
    const launch = resolveServerLaunch({});
    const executable = buildExecutable(launch, buildServerEnv(base, secret));
    assert.equal(executable.options.env[API_KEY_ENV], secret);
    assert.ok(!JSON.stringify(initializationOptions({ model: 'm' })).includes(secret));
    const line = describeLaunch(launch, apiKeySource(base, secret));
    assert.ok(!line.includes(secret));
    assert.match(line, /secret storage/);
    assert.equal(line.includes('python3 -m codeteam serve'), true);
  });
});

describe('buildExecutable', () => {
  test('has no transport, so vscode-languageclient adds no --stdio argument', () => {
    const executable = buildExecutable(resolveServerLaunch({}), { PATH: '/bin' });
    assert.deepEqual(Object.keys(executable).sort(), ['args', 'command', 'options']);
    assert.deepEqual(executable.args, ['-m', 'codeteam', 'serve']);
    assert.ok(!('cwd' in executable.options));
    assert.equal(buildExecutable(resolveServerLaunch({}), {}, '/w').options.cwd, '/w');
  });
});

describe('apiKeySource', () => {
  test('names where the key comes from', () => {
    assert.equal(apiKeySource({}, 'k'), 'secret storage');
    assert.equal(apiKeySource({ OPENAI_API_KEY: 'x' }, undefined), 'environment');
    assert.equal(apiKeySource({ [API_KEY_ENV]: 'x' }, ''), 'environment');
    assert.equal(apiKeySource({}, undefined), 'none');
  });

  test('describeLaunch quotes arguments with spaces', () => {
    const line = describeLaunch({ command: '/opt/my env/python', args: ['-m', 'codeteam', 'serve'], problems: [] }, 'none');
    assert.match(line, /"\/opt\/my env\/python" -m codeteam serve/);
    assert.match(line, /API key: none/);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  filterConfigurationAnswer,
  initializationOptions,
  pickServerSettings,
  SECTION,
  SERVER_SETTING_KEYS,
} from '../settings';

/** What VS Code's getConfiguration('codeteam') holds by default (package.json defaults). */
const vscodeSection = {
  server: { command: [], python: 'python3' },
  trace: { server: 'off' },
  base_url: '',
  model: '',
  models: {},
  temperature: 0,
  seed: 1234,
  max_rounds: 3,
  timeout_s: 120,
  max_retries: 2,
  max_tokens: 1024,
  sandbox: 'bwrap',
  test_timeout_s: 10,
  generate_pipeline: 'team',
  ai_tests: 5,
  max_calls: 15,
  prompts_dir: '',
  python: '',
};

describe('pickServerSettings', () => {
  test('copies exactly the server keys, snake_case, and drops the client-only ones', () => {
    const picked = pickServerSettings(vscodeSection);
    assert.deepEqual(Object.keys(picked), [...SERVER_SETTING_KEYS]);
    assert.equal(picked.max_rounds, 3);
    assert.equal(picked.timeout_s, 120);
    assert.equal(picked.sandbox, 'bwrap');
    assert.ok(!('server' in picked));
    assert.ok(!('trace' in picked));
  });

  test('drops unknown keys, camelCase look-alikes and an api_key typed into settings.json', () => {
    const picked = pickServerSettings({
      model: 'gpt-4o-mini',
      maxRounds: 7,
      api_key: 'sk-from-settings-json',
      apiKey: 'sk-other',
      nonsense: true,
    });
    assert.deepEqual(picked, { model: 'gpt-4o-mini' });
  });

  test('reads through a getter (config.get) and leaves out undefined and null', () => {
    const asked: string[] = [];
    const values: Record<string, unknown> = { temperature: 0.2, model: null, models: { coder: 'gpt-4o' } };
    const picked = pickServerSettings((key) => {
      asked.push(key);
      return values[key];
    });
    assert.deepEqual(asked, [...SERVER_SETTING_KEYS]);
    assert.deepEqual(picked, { temperature: 0.2, models: { coder: 'gpt-4o' } });
  });

  test('passes wrong-typed values on for the server to validate and report', () => {
    const picked = pickServerSettings({ max_rounds: 'many', sandbox: 'docker' });
    assert.deepEqual(picked, { max_rounds: 'many', sandbox: 'docker' });
  });

  test('returns JSON copies: later changes to the source do not leak in', () => {
    const models: Record<string, string> = { coder: 'a' };
    const picked = pickServerSettings({ models });
    models.coder = 'b';
    assert.deepEqual(picked.models, { coder: 'a' });
    assert.deepEqual(pickServerSettings({ temperature: Number.NaN, models: { coder: 'x', f: () => 1 } }), {
      models: { coder: 'x' },
    });
  });

  test('an empty or missing section gives no settings', () => {
    assert.deepEqual(pickServerSettings(undefined), {});
    assert.deepEqual(pickServerSettings(null), {});
    assert.deepEqual(pickServerSettings({}), {});
  });
});

describe('initializationOptions', () => {
  test('nests the settings under "codeteam"', () => {
    const options = initializationOptions({ base_url: 'http://127.0.0.1:11434/v1', max_rounds: 5, server: { python: 'x' } });
    assert.deepEqual(options, {
      [SECTION]: { base_url: 'http://127.0.0.1:11434/v1', max_rounds: 5 },
      client: { shows_run_messages: true },
    });
  });

  test('never carries an API key, whatever the section holds', () => {
    const secret = 'sk-test-secret-0123456789';
    const options = initializationOptions({ ...vscodeSection, api_key: secret, models: { coder: 'm' } });
    assert.ok(!JSON.stringify(options).includes(secret));
    assert.ok(!('api_key' in options.codeteam));
  });
});

describe('filterConfigurationAnswer', () => {
  test('filters the codeteam section, keeps other sections, blanks client-only and whole-config items', () => {
    const items = [
      { section: 'codeteam' },
      { section: 'codeteam.max_rounds' },
      { section: 'codeteam.server' },
      { section: 'python' },
      {},
      { section: 'codeteam.api_key' },
    ];
    const answer = [vscodeSection, 4, { command: ['x'] }, { pythonPath: 'py' }, { everything: true }, 'sk-secret'];
    const filtered = filterConfigurationAnswer(items, answer);
    assert.deepEqual(filtered[0], pickServerSettings(vscodeSection));
    assert.equal(filtered[1], 4);
    assert.equal(filtered[2], null);
    assert.deepEqual(filtered[3], { pythonPath: 'py' });
    assert.equal(filtered[4], null);
    assert.equal(filtered[5], null);
  });

  test('a codeteam section that is not an object becomes an empty settings object', () => {
    assert.deepEqual(filterConfigurationAnswer([{ section: 'codeteam' }], [null]), [{}]);
  });
});

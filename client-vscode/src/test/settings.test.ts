import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  configurationItemsForVscode,
  filterConfigurationAnswer,
  initializationOptions,
  legacySettings,
  pickServerSettings,
  SECTION,
  SERVER_SETTING_KEYS,
  serverKeyOf,
  VSCODE_SETTING_KEYS,
  vscodeKey,
} from '../settings';

/** What VS Code's getConfiguration('codeteam') holds by default (package.json defaults). */
const vscodeSection = {
  server: { command: [], python: '' },
  trace: { server: 'off' },
  baseUrl: '',
  model: '',
  models: {},
  temperature: 0,
  seed: 1234,
  maxRounds: 3,
  timeoutS: 120,
  maxRetries: 2,
  maxTokens: 1024,
  sandbox: 'bwrap',
  testTimeoutS: 10,
  sandboxNiceness: 0,
  preview: 'auto',
  applyTimeoutS: 30,
  generatePipeline: 'team',
  aiTests: 5,
  maxCalls: 15,
  promptsDir: '',
  python: '',
  contextTokens: 1500,
  candidates: 3,
  prices: {},
  tokenBudget: 0,
  planCandidate: true,
};

describe('VS Code ids and server keys', () => {
  test('the VS Code id is the camelCase form of the server key', () => {
    assert.equal(vscodeKey('base_url'), 'baseUrl');
    assert.equal(vscodeKey('max_rounds'), 'maxRounds');
    assert.equal(vscodeKey('test_timeout_s'), 'testTimeoutS');
    assert.equal(vscodeKey('context_tokens'), 'contextTokens');
    assert.equal(vscodeKey('model'), 'model');
    assert.equal(vscodeKey('python'), 'python');
    assert.deepEqual(VSCODE_SETTING_KEYS, Object.keys(vscodeSection).filter((key) => key !== 'server' && key !== 'trace'));
  });

  test('every id maps back to its server key, and nothing else does', () => {
    for (const key of SERVER_SETTING_KEYS) {
      assert.equal(serverKeyOf(vscodeKey(key)), key);
    }
    assert.equal(serverKeyOf('max_rounds'), undefined);
    assert.equal(serverKeyOf('server'), undefined);
    assert.equal(serverKeyOf('apiKey'), undefined);
    assert.equal(new Set(VSCODE_SETTING_KEYS).size, SERVER_SETTING_KEYS.length);
  });
});

describe('pickServerSettings', () => {
  test('translates the camelCase ids to the server keys and drops the client-only ones', () => {
    const picked = pickServerSettings(vscodeSection);
    assert.deepEqual(Object.keys(picked), [...SERVER_SETTING_KEYS]);
    assert.equal(picked.max_rounds, 3);
    assert.equal(picked.timeout_s, 120);
    assert.equal(picked.test_timeout_s, 10);
    assert.equal(picked.base_url, '');
    assert.equal(picked.context_tokens, 1500);
    assert.equal(picked.candidates, 3);
    assert.equal(picked.sandbox, 'bwrap');
    assert.ok(!('server' in picked));
    assert.ok(!('trace' in picked));
    assert.ok(!('maxRounds' in picked));
  });

  test('drops unknown keys, snake_case ids left in settings.json and an API key', () => {
    const picked = pickServerSettings({
      model: 'gpt-4o-mini',
      maxRounds: 7,
      max_rounds: 2,
      api_key: 'sk-from-settings-json',
      apiKey: 'sk-other',
      nonsense: true,
    });
    assert.deepEqual(picked, { model: 'gpt-4o-mini', max_rounds: 7 });
  });

  test('reads through a getter (config.get) by VS Code id and leaves out undefined and null', () => {
    const asked: string[] = [];
    const values: Record<string, unknown> = { temperature: 0.2, model: null, models: { coder: 'gpt-4o' }, aiTests: 0 };
    const picked = pickServerSettings((key) => {
      asked.push(key);
      return values[key];
    });
    assert.deepEqual(asked, [...VSCODE_SETTING_KEYS]);
    assert.deepEqual(picked, { temperature: 0.2, models: { coder: 'gpt-4o' }, ai_tests: 0 });
  });

  test('passes wrong-typed values on for the server to validate and report', () => {
    const picked = pickServerSettings({ maxRounds: 'many', sandbox: 'docker' });
    assert.deepEqual(picked, { max_rounds: 'many', sandbox: 'docker' });
  });

  test('the roles inside codeteam.models keep their names', () => {
    assert.deepEqual(pickServerSettings({ models: { coder: 'a', tester: 'b' } }), { models: { coder: 'a', tester: 'b' } });
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

describe('legacySettings', () => {
  test('names the snake_case ids still set, with their new ids', () => {
    assert.deepEqual(legacySettings({ max_rounds: 5, baseUrl: 'x', test_timeout_s: null, model: 'm' }), [
      { old: 'codeteam.max_rounds', now: 'codeteam.maxRounds' },
    ]);
    assert.deepEqual(legacySettings(vscodeSection), []);
  });
});

describe('initializationOptions', () => {
  test('nests the settings under "codeteam", with the server keys', () => {
    const options = initializationOptions({ baseUrl: 'http://127.0.0.1:11434/v1', maxRounds: 5, server: { python: 'x' } });
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

  test('a one-key item asks VS Code for the camelCase id; the answer goes back as it is', () => {
    const items = [{ section: 'codeteam.max_rounds' }, { section: 'codeteam' }, { section: 'codeteam.model' }, { section: 'codeteam.server' }, { section: 'python' }];
    assert.deepEqual(
      configurationItemsForVscode(items).map((item) => item.section),
      ['codeteam.maxRounds', 'codeteam', 'codeteam.model', 'codeteam.server', 'python'],
    );
    const answer = [6, { testTimeoutS: 4 }, 'm', { python: 'p' }, {}];
    assert.deepEqual(filterConfigurationAnswer(items, answer), [6, { test_timeout_s: 4 }, 'm', null, {}]);
    // The scope travels along.
    assert.deepEqual(configurationItemsForVscode([{ section: 'codeteam.ai_tests', scopeUri: 'file:///w' }]), [
      { section: 'codeteam.aiTests', scopeUri: 'file:///w' },
    ]);
  });

  test('a codeteam section that is not an object becomes an empty settings object', () => {
    assert.deepEqual(filterConfigurationAnswer([{ section: 'codeteam' }], [null]), [{}]);
  });
});

/**
 * package.json's settings against the server's own Settings model (server/codeteam/settings.py),
 * so that a default, range or key changed on one side fails here. package.json holds the
 * camelCase VS Code id of each server key (`max_rounds` -> `codeteam.maxRounds`). Runs where a Python with
 * codeteam importable is found (the repository's .venv after scripts/setup.sh, as in .ci/run, or
 * $CODETEAM_PYTHON); skipped elsewhere.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { SECTION, SERVER_SETTING_KEYS, vscodeKey } from '../settings';

const root = join(__dirname, '..', '..');
/** Server settings deliberately not in the VS Code UI: the key has its own command, the seed stays fixed. */
const NOT_IN_VSCODE = ['api_key'];
/**
 * Server keys the client already sends whose server side lands on other branches at the same
 * time (python: exec; context_tokens: context; candidates: cand). Each must be absent from the
 * server here; once the server has it, this test fails until the key is removed from the list,
 * and from then on it is checked like every other key.
 */
const PENDING_ON_SERVER: readonly string[] = [];
const CONSTRAINTS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum'] as const;

const DUMP = `
import json
from codeteam.settings import EMBEDDED_DEFAULTS, Settings
schema = Settings.model_json_schema()["properties"]
print(json.dumps({
    name: {"default": field.get_default(call_default_factory=True), "schema": schema[name],
           "model_dependent": name in EMBEDDED_DEFAULTS}
    for name, field in Settings.model_fields.items()
}))
`;

interface ServerField {
  default: unknown;
  schema: Record<string, unknown>;
  /** The default differs for the embedded model (EMBEDDED_DEFAULTS): VS Code must leave the
   * key unset (null), or it would send the field default and override the server's choice. */
  model_dependent: boolean;
}

function serverSettings(): Record<string, ServerField> | string {
  const python = process.env.CODETEAM_PYTHON ?? join(root, '..', '.venv', 'bin', 'python');
  if (!existsSync(python)) {
    return `no ${python} (run scripts/setup.sh, or set CODETEAM_PYTHON)`;
  }
  const result = spawnSync(python, ['-c', DUMP], {
    cwd: join(root, '..'),
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, PYTHONPATH: join(root, '..', 'server') },
  });
  if (result.status !== 0) {
    return `${python} cannot import codeteam.settings: ${(result.stderr || String(result.error)).trim().split('\n').pop()}`;
  }
  return JSON.parse(result.stdout) as Record<string, ServerField>;
}

test('package.json settings match the server Settings model (keys, defaults, ranges, enums)', (t) => {
  const found = serverSettings();
  if (typeof found === 'string') {
    t.skip(found);
    return;
  }
  const server: Record<string, ServerField> = found;
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, Record<string, unknown>> } };
  };
  const properties = manifest.contributes.configuration.properties;

  for (const key of PENDING_ON_SERVER) {
    assert.ok(!(key in server), `the server now has "${key}": remove it from PENDING_ON_SERVER`);
  }
  const serverKeys = Object.keys(server).filter((key) => !NOT_IN_VSCODE.includes(key)).sort();
  const checked = SERVER_SETTING_KEYS.filter((key) => !PENDING_ON_SERVER.includes(key));
  assert.deepEqual([...checked].sort(), serverKeys, 'the server keys the client sends');

  for (const key of checked) {
    const property = properties[`${SECTION}.${vscodeKey(key)}`];
    const field = server[key];
    // The server's "not set" (None) is VS Code's empty string.
    const expectedDefault = field.model_dependent ? null : field.default === null ? '' : field.default;
    assert.deepEqual(property.default, expectedDefault, `${key}: default`);
    for (const constraint of CONSTRAINTS) {
      assert.deepEqual(property[constraint], field.schema[constraint], `${key}: ${constraint}`);
    }
    if (field.schema.type === 'integer') {
      assert.deepEqual(property.type, field.model_dependent ? ['integer', 'null'] : 'integer', `${key}: type`);
    }
  }
});

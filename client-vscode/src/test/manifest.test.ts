/**
 * package.json against the code: the settings the server knows, the commands and menus, and
 * the rule that the pure modules run without VS Code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import { CLIENT_COMMANDS, SERVER_COMMANDS } from '../commands';
import { ROLES, SECTION, SERVER_SETTING_KEYS, vscodeKey } from '../settings';

const root = join(__dirname, '..', '..');

interface Property {
  type?: string | string[];
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  description?: string;
  markdownDescription?: string;
  properties?: Record<string, unknown>;
}

interface Manifest {
  name: string;
  version: string;
  publisher: string;
  license: string;
  main: string;
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  engines: { vscode: string };
  activationEvents: string[];
  repository: unknown;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    configuration: { properties: Record<string, Property> };
  };
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const properties = manifest.contributes.configuration.properties;
const CLIENT_ONLY = ['codeteam.server.command', 'codeteam.server.python', 'codeteam.trace.server'];

/** The server's defaults (server/codeteam/settings.py), as VS Code must show them. */
const SERVER_DEFAULTS: Record<string, unknown> = {
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
  sandbox_niceness: 10,
  preview: 'auto',
  apply_timeout_s: 30,
  generate_pipeline: 'team',
  // Not set: the server's default depends on the model (EMBEDDED_DEFAULTS in settings.py).
  ai_tests: null,
  max_calls: 15,
  prompts_dir: '',
  python: '',
  context_tokens: 1500,
  candidates: null,
  prices: {},
  token_budget: 0,
  plan_candidate: null,
};

/** The package.json property of a server key (`max_rounds` -> `codeteam.maxRounds`). */
const p = (key: string): Property => properties[`${SECTION}.${vscodeKey(key)}`];

describe('package.json settings', () => {
  test('declares exactly the server keys (as camelCase ids) plus the client-only ones', () => {
    const declared = Object.keys(properties).sort();
    const expected = [...SERVER_SETTING_KEYS.map((key) => `${SECTION}.${vscodeKey(key)}`), ...CLIENT_ONLY].sort();
    assert.deepEqual(declared, expected);
    assert.ok(declared.includes('codeteam.baseUrl') && declared.includes('codeteam.maxRounds'));
  });

  test('no setting id has an underscore (VS Code ids are camelCase)', () => {
    for (const key of Object.keys(properties)) {
      assert.doesNotMatch(key, /_/, key);
    }
  });

  test('the untrusted-workspace restrictions name declared settings', () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const key of restricted) {
      assert.ok(key in properties, key);
    }
    for (const key of ['codeteam.server.command', 'codeteam.server.python', 'codeteam.baseUrl', 'codeteam.sandbox', 'codeteam.promptsDir', 'codeteam.python']) {
      assert.ok(restricted.includes(key), key);
    }
  });

  test('descriptions refer to settings by their declared ids', () => {
    for (const [key, property] of Object.entries(properties)) {
      const text = `${property.markdownDescription ?? ''} ${property.description ?? ''}`;
      for (const [, id] of text.matchAll(/#(codeteam\.[A-Za-z.]+)#/g)) {
        assert.ok(id in properties, `${key} links to ${id}`);
      }
    }
  });

  test('has no API key setting', () => {
    for (const key of Object.keys(properties)) {
      assert.doesNotMatch(key, /api_?key|secret|password|\.token$/i);
    }
  });

  test('defaults match the server defaults, and every setting is described', () => {
    for (const key of SERVER_SETTING_KEYS) {
      const property = p(key);
      assert.deepEqual(property.default, SERVER_DEFAULTS[key], key);
      const text = property.markdownDescription ?? property.description ?? '';
      assert.ok(text.length > 20, `${key} needs a description`);
    }
    for (const key of CLIENT_ONLY) {
      assert.ok((properties[key].markdownDescription ?? properties[key].description ?? '').length > 20, key);
    }
    assert.deepEqual(properties['codeteam.server.command'].default, []);
    // Empty: the extension looks for an interpreter in which codeteam works (interpreter.ts).
    assert.equal(properties['codeteam.server.python'].default, '');
  });

  test('ranges, enums and units', () => {
    assert.deepEqual([p('temperature').minimum, p('temperature').maximum], [0, 2]);
    assert.deepEqual([p('max_rounds').type, p('max_rounds').minimum, p('max_rounds').maximum], ['integer', 1, 20]);
    assert.deepEqual([p('ai_tests').type, p('ai_tests').minimum, p('ai_tests').maximum], [['integer', 'null'], 0, 30]);
    assert.deepEqual(p('sandbox').enum, ['bwrap', 'none']);
    assert.match(p('sandbox').markdownDescription ?? '', /warning/i);
    assert.deepEqual(p('generate_pipeline').enum, ['team', 'flow']);
    assert.deepEqual(Object.keys(p('models').properties ?? {}), [...ROLES]);
    for (const key of ['timeout_s', 'test_timeout_s']) {
      assert.match(p(key).description ?? '', /seconds/i, key);
    }
    assert.match(p('max_tokens').description ?? '', /tokens/i);
    assert.match(p('context_tokens').description ?? '', /tokens/i);
    assert.deepEqual([p('context_tokens').type, p('candidates').type], ['integer', ['integer', 'null']]);
  });
});

describe('package.json commands and menus', () => {
  test('contributes exactly the client commands, none with a server command id', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(contributed, Object.values(CLIENT_COMMANDS).sort());
    const server = new Set<string>(Object.values(SERVER_COMMANDS));
    assert.ok(contributed.every((id) => !server.has(id)));
  });

  test('the three runs carry the code action titles', () => {
    const title = (id: string): string | undefined => manifest.contributes.commands.find((c) => c.command === id)?.title;
    assert.equal(title(CLIENT_COMMANDS.plan), 'Plan this docstring');
    assert.equal(title(CLIENT_COMMANDS.generate), 'Generate with team');
    assert.equal(title(CLIENT_COMMANDS.review), 'Review with tester');
  });

  test('every command has the category codeteam, and no title repeats it', () => {
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'codeteam', command.command);
      assert.doesNotMatch(command.title, /^codeteam\b/i, command.command);
    }
  });

  test('editor context menu: the three runs, Python only, in one group, in order', () => {
    const menu = manifest.contributes.menus['editor/context'];
    assert.deepEqual(
      menu.map((m) => m.command),
      [CLIENT_COMMANDS.plan, CLIENT_COMMANDS.generate, CLIENT_COMMANDS.review],
    );
    const groups = new Set(menu.map((m) => m.group?.split('@')[0]));
    assert.equal(groups.size, 1);
    assert.ok(menu.every((m) => m.when === 'editorLangId == python'));
  });

  test('command palette hides the runs outside Python files', () => {
    const palette = manifest.contributes.menus.commandPalette;
    for (const id of [CLIENT_COMMANDS.plan, CLIENT_COMMANDS.generate, CLIENT_COMMANDS.review]) {
      assert.equal(palette.find((m) => m.command === id)?.when, 'editorLangId == python', id);
    }
  });
});

describe('package.json packaging', () => {
  test('activation, entry point, identity and the languageclient major version', () => {
    assert.deepEqual(manifest.activationEvents, ['onLanguage:python']);
    assert.equal(manifest.main, './out/extension.js');
    assert.equal(manifest.name, 'codeteam');
    assert.ok(manifest.publisher);
    assert.equal(manifest.license, 'Apache-2.0');
    // Not published anywhere: no repository URL to claim (vsce packages without one).
    assert.equal(manifest.repository, undefined);
    assert.match(manifest.dependencies['vscode-languageclient'], /^\^?9\./);
    assert.deepEqual(Object.keys(manifest.dependencies), ['vscode-languageclient']);
    // @types/vscode must not be newer than the engine (vsce refuses to package otherwise).
    assert.equal(manifest.engines.vscode.replace(/^\^/, ''), manifest.devDependencies['@types/vscode'].replace(/^\^/, ''));
    for (const script of ['compile', 'lint', 'test', 'package']) {
      assert.ok(manifest.scripts[script], script);
    }
  });
});

describe('pure modules', () => {
  test('only extension.js loads vscode or vscode-languageclient', () => {
    const out = join(root, 'out');
    const files = readdirSync(out).filter((name) => name.endsWith('.js'));
    assert.ok(files.includes('extension.js'));
    for (const name of files) {
      const text = readFileSync(join(out, name), 'utf8');
      const loadsVscode = /require\("vscode(-languageclient[^"]*)?"\)/.test(text);
      assert.equal(loadsVscode, name === 'extension.js', name);
    }
  });
});

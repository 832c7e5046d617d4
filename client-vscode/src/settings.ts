/**
 * The server's settings as VS Code holds them, and what the server receives.
 *
 * Pure: no `vscode` import, so it runs under plain Node for the unit tests.
 *
 * VS Code's setting ids are camelCase (`codeteam.baseUrl`, `codeteam.maxRounds`), VS Code's own
 * convention; the server (server/codeteam/settings.py) reads snake_case keys (`base_url`,
 * `max_rounds`) from the LSP initializationOptions (`{"codeteam": {...}}`) and from
 * `workspace/configuration` section `codeteam`, as every other client sends them, and it
 * reports every key it does not know as a problem to the user. This module translates: the
 * VS Code id of a server key is its mechanical camelCase form ({@link vscodeKey}), and
 * everything sent to the server goes through {@link pickServerSettings}, which also drops the
 * client-only keys of the section (`server.command`, `server.python`, `trace.server`).
 *
 * There is deliberately no `api_key` here: the key lives in VS Code's SecretStorage and reaches
 * the server only as the environment variable CODETEAM_API_KEY (see serverLaunch.ts).
 */

/** Configuration section, in VS Code and on the wire. */
export const SECTION = 'codeteam';

/** The server's keys (snake_case, as on the wire), in the order package.json documents them. */
export const SERVER_SETTING_KEYS = [
  'base_url',
  'model',
  'models',
  'temperature',
  'seed',
  'max_rounds',
  'timeout_s',
  'max_retries',
  'max_tokens',
  'sandbox',
  'test_timeout_s',
  'sandbox_niceness',
  'preview',
  'apply_timeout_s',
  'generate_pipeline',
  'ai_tests',
  'max_calls',
  'prompts_dir',
  'python',
  'context_tokens',
  'candidates',
  'prices',
  'token_budget',
  'plan_candidate',
] as const;

export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];

/**
 * The VS Code id (after `codeteam.`) of a server key: its camelCase form, `max_rounds` ->
 * `maxRounds`, `test_timeout_s` -> `testTimeoutS`; one-word keys (`model`, `python`) are
 * unchanged.
 */
export function vscodeKey(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The VS Code ids of the server keys, in {@link SERVER_SETTING_KEYS} order. */
export const VSCODE_SETTING_KEYS: readonly string[] = SERVER_SETTING_KEYS.map(vscodeKey);

/** The server key behind a VS Code id (`maxRounds` -> `max_rounds`), or undefined. */
export function serverKeyOf(id: string): ServerSettingKey | undefined {
  const index = VSCODE_SETTING_KEYS.indexOf(id);
  return index < 0 ? undefined : SERVER_SETTING_KEYS[index];
}

/** JSON values only: what survives the trip to the server. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export type ServerSettings = Partial<Record<ServerSettingKey, Json>>;

/** Roles that `codeteam.models` may override. */
export const ROLES = ['analyst', 'planner', 'coder', 'tester'] as const;

/** Either a plain object (a `workspace/configuration` answer) or a getter (`config.get`). */
export type SettingsSource = ((key: string) => unknown) | Record<string, unknown> | null | undefined;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON copy of `value`, or undefined when it is not JSON (functions, NaN, cycles...). */
function toJson(value: unknown, seen: Set<unknown> = new Set()): Json | undefined {
  if (value === null) {
    return null;
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : undefined;
    case 'object': {
      if (seen.has(value)) {
        return undefined;
      }
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          const items: Json[] = [];
          for (const item of value) {
            const copy = toJson(item, seen);
            if (copy !== undefined) {
              items.push(copy);
            }
          }
          return items;
        }
        const result: { [key: string]: Json } = {};
        for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
          const copy = toJson(item, seen);
          if (copy !== undefined) {
            result[key] = copy;
          }
        }
        return result;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return undefined;
  }
}

function getter(source: SettingsSource): (key: string) => unknown {
  return typeof source === 'function'
    ? source
    : (key: string): unknown => (isPlainObject(source) ? source[key] : undefined);
}

/**
 * The server's settings from `source` (VS Code's section `codeteam`, read by camelCase id):
 * exactly the known keys, renamed to the server's snake_case keys, as JSON copies. Unknown
 * keys (including the client's own `server` and `trace`, snake_case ids left in settings.json,
 * and any `api_key` someone typed there) are dropped; `undefined` and `null` values are left
 * out, so the server keeps its own default for them. Values are not validated here: the
 * server validates them and tells the user what it kept.
 */
export function pickServerSettings(source: SettingsSource): ServerSettings {
  const get = getter(source);
  const result: ServerSettings = {};
  for (const key of SERVER_SETTING_KEYS) {
    const value = toJson(get(vscodeKey(key)));
    if (value !== undefined && value !== null) {
      result[key] = value;
    }
  }
  return result;
}

/**
 * The snake_case ids set in `source` that VS Code no longer reads (`codeteam.max_rounds` from
 * before the camelCase ids), each with its new id, for a message to the user.
 */
export function legacySettings(source: SettingsSource): { old: string; now: string }[] {
  const get = getter(source);
  return SERVER_SETTING_KEYS.filter((key) => vscodeKey(key) !== key)
    .filter((key) => {
      const value = get(key);
      return value !== undefined && value !== null;
    })
    .map((key) => ({ old: `${SECTION}.${key}`, now: `${SECTION}.${vscodeKey(key)}` }));
}

/** What the extension tells the server about itself in initializationOptions. */
export interface ClientOptions {
  /** The extension shows each run's answer `{status, message}` (with an "Open transcript"
   * button), so the server sends no window/showMessage for run results. */
  shows_run_messages: boolean;
}

/**
 * The LSP initializationOptions: `{"codeteam": {...settings}, "client": {...}}`. Never holds
 * an API key.
 */
export function initializationOptions(
  source: SettingsSource,
): { codeteam: ServerSettings; client: ClientOptions } {
  return { codeteam: pickServerSettings(source), client: { shows_run_messages: true } };
}

/** One item of a `workspace/configuration` request. */
export interface ConfigurationItem {
  scopeUri?: string | null;
  section?: string | null;
}

/**
 * The items of a `workspace/configuration` request as VS Code must be asked: an item for one
 * server key (`codeteam.max_rounds`) asks for its VS Code id (`codeteam.maxRounds`); the
 * others are unchanged. {@link filterConfigurationAnswer} then reads the answer.
 */
export function configurationItemsForVscode<T extends ConfigurationItem>(items: readonly T[]): T[] {
  return items.map((item) => {
    const section = item.section ?? '';
    if (!section.startsWith(`${SECTION}.`)) {
      return item;
    }
    const key = section.slice(SECTION.length + 1);
    return (SERVER_SETTING_KEYS as readonly string[]).includes(key) ? { ...item, section: `${SECTION}.${vscodeKey(key)}` } : item;
  });
}

/**
 * Filters VS Code's answer to a `workspace/configuration` request (`items` are the server's
 * items, before {@link configurationItemsForVscode}): the item for section `codeteam` becomes
 * {@link pickServerSettings} of it (snake_case keys), an item for one server key (e.g.
 * `codeteam.max_rounds`) is kept, an item for a client-only key (`codeteam.server`), for a
 * camelCase id or for the whole configuration (no section) gets `null`, and items for other
 * sections pass unchanged.
 */
export function filterConfigurationAnswer(items: readonly ConfigurationItem[], answer: readonly unknown[]): unknown[] {
  return items.map((item, index) => {
    const value = answer[index];
    const section = item.section ?? undefined;
    if (section === undefined || section === '') {
      return null;
    }
    if (section === SECTION) {
      return pickServerSettings(isPlainObject(value) ? value : undefined);
    }
    if (section.startsWith(`${SECTION}.`)) {
      const key = section.slice(SECTION.length + 1);
      return (SERVER_SETTING_KEYS as readonly string[]).includes(key) ? (toJson(value) ?? null) : null;
    }
    return value;
  });
}

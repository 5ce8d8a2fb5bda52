/**
 * The sections beside `triggers`: `version`, `agents`, `default_agent`, `runtime`, `env`, and the check
 * that no other top-level key is present. Each returns its normalized value and pushes issues; a bad
 * section never stops the others from being read.
 */
import { posix } from 'node:path';
import type { Issue } from '../errors.js';
import {
  AGENT_KEYS,
  AGENT_NAME_PATTERN,
  DEFAULT_RUNTIME_CONFIG_DIR,
  ENV_ENTRY_KEYS,
  ENV_NAME_PATTERN,
  MANIFEST_TOP_LEVEL_KEYS,
  MODEL_PATTERN,
  RESERVED_ENV_PREFIX,
  RUNTIME_KEYS,
  type NormalizedAgent,
  type NormalizedEnvEntry,
  type NormalizedManifest,
} from './manifest-schema.js';
import type { ManifestFormat } from './read-document.js';
import { jsonPointer } from '../json-pointer.js';
import { describeValue, didYouMean, expectedText, isRecord, listWords, quote } from './wording.js';
import { findUnknownKeys } from './unknown-keys.js';

const agentNamePattern = new RegExp(AGENT_NAME_PATTERN);
const envNamePattern = new RegExp(ENV_NAME_PATTERN);
const modelPattern = new RegExp(MODEL_PATTERN);

/** Reports keys of `mapping` outside `known`, each with a "did you mean" when one is close. */
export function reportUnknownKeys(
  mapping: Record<string, unknown>,
  known: readonly string[],
  basePath: string,
  describeUnknown: (key: string) => string,
  issues: Issue[],
): void {
  const { reported, more } = findUnknownKeys(mapping, known);
  for (const { key, hint } of reported) {
    issues.push({ path: basePath + jsonPointer(key), message: `${describeUnknown(key)}${hint}` });
  }
  if (more > 0) {
    issues.push({ path: basePath, message: `${more} more unknown keys here; the known ones are ${listWords(known)}` });
  }
}

export function checkTopLevelKeys(document: Record<string, unknown>, issues: Issue[]): void {
  reportUnknownKeys(
    document,
    MANIFEST_TOP_LEVEL_KEYS,
    '',
    (key) => `${quote(key)} is not a manifest section; the manifest knows ${listWords(MANIFEST_TOP_LEVEL_KEYS)}`,
    issues,
  );
  if (Object.hasOwn(document, 'version') && document['version'] !== 1) {
    issues.push({ path: '/version', message: `version must be 1 (the only manifest version), got ${describeValue(document['version'])}` });
  }
}

export interface AgentsSection {
  agents: NormalizedManifest['agents'];
  /** Every well-formed name under `agents:`, even when its settings have problems; null when none. */
  declared: ReadonlySet<string> | null;
}

export function checkAgents(value: unknown, format: ManifestFormat, issues: Issue[]): AgentsSection {
  const agents: Record<string, NormalizedAgent> = {};
  if (value === undefined || value === null) return { agents, declared: null };
  if (!isRecord(value)) {
    const example = format === 'toml' ? '[agents.reviewer] with model = "anthropic/claude-sonnet-4"' : 'agents: { reviewer: { model: anthropic/claude-sonnet-4 } }';
    issues.push({ path: '/agents', message: `agents must be a mapping of agent name to settings, e.g. ${example}; got ${describeValue(value)}` });
    return { agents, declared: null };
  }
  const declared = new Set<string>();
  for (const [name, settings] of Object.entries(value)) {
    const path = jsonPointer('agents', name);
    if (!agentNamePattern.test(name)) {
      issues.push({ path, message: `agent name ${quote(name)} must be 1-64 letters, digits, ".", "-" or "_", starting with a letter or digit` });
      continue;
    }
    declared.add(name);
    const agent = checkAgentSettings(name, settings, path, issues);
    if (agent) agents[name] = agent;
  }
  return { agents, declared: declared.size > 0 ? declared : null };
}

function checkAgentSettings(name: string, settings: unknown, path: string, issues: Issue[]): NormalizedAgent | null {
  const agent: NormalizedAgent = { description: null, model: null, prompt: null };
  // `reviewer:` with nothing under it declares the agent with no settings of its own.
  if (settings === null) return agent;
  if (!isRecord(settings)) {
    issues.push({ path, message: `agent ${quote(name)} must be a mapping of settings (${listWords(AGENT_KEYS)}), got ${describeValue(settings)}` });
    return null;
  }
  const before = issues.length;
  reportUnknownKeys(
    settings,
    AGENT_KEYS,
    path,
    (key) =>
      `agent ${quote(name)}: ${quote(key)} is not an agent setting (known: ${listWords(AGENT_KEYS)}); ` +
      `settings specific to the agent runtime belong in its own config under runtime.config_dir`,
    issues,
  );
  for (const key of ['description', 'prompt'] as const) {
    if (!Object.hasOwn(settings, key)) continue;
    const value = settings[key];
    if (typeof value === 'string') agent[key] = value;
    else issues.push({ path: path + jsonPointer(key), message: `agent ${quote(name)}: ${expectedText(key, value)}` });
  }
  if (Object.hasOwn(settings, 'model')) {
    const model = settings['model'];
    if (typeof model === 'string' && modelPattern.test(model)) agent.model = model;
    else if (typeof model === 'string') {
      issues.push({ path: path + '/model', message: `agent ${quote(name)}: model ${quote(model)} must be written <provider>/<model>, e.g. "anthropic/claude-sonnet-4"` });
    } else issues.push({ path: path + '/model', message: `agent ${quote(name)}: ${expectedText('model', model)}` });
  }
  return issues.length === before ? agent : null;
}

export function checkDefaultAgent(value: unknown, declared: ReadonlySet<string> | null, issues: Issue[]): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') {
    issues.push({ path: '/default_agent', message: value === null ? 'default_agent is empty; name an agent or remove it' : expectedText('default_agent', value) });
    return null;
  }
  if (!agentNamePattern.test(value)) {
    issues.push({ path: '/default_agent', message: `default_agent ${quote(value)} is not an agent name (letters, digits, ".", "-" and "_")` });
    return null;
  }
  if (declared && !declared.has(value)) {
    const names = [...declared];
    issues.push({
      path: '/default_agent',
      message: `default_agent ${quote(value)} is not declared under agents (declared: ${listWords(names)})${didYouMean(value, names)}`,
    });
    return null;
  }
  return value;
}

export function checkRuntime(value: unknown, format: ManifestFormat, issues: Issue[]): NormalizedManifest['runtime'] {
  const runtime = { config_dir: DEFAULT_RUNTIME_CONFIG_DIR };
  if (value === undefined || value === null) return runtime;
  if (!isRecord(value)) {
    const example = format === 'toml' ? '[runtime] with config_dir = ".svc/runtime"' : 'runtime: { config_dir: .svc/runtime }';
    issues.push({ path: '/runtime', message: `runtime must be a mapping, e.g. ${example}; got ${describeValue(value)}` });
    return runtime;
  }
  reportUnknownKeys(value, RUNTIME_KEYS, '/runtime', (key) => `${quote(key)} is not a runtime setting (known: ${listWords(RUNTIME_KEYS)})`, issues);
  if (!Object.hasOwn(value, 'config_dir')) return runtime;
  const configDir = value['config_dir'];
  if (typeof configDir !== 'string') {
    issues.push({ path: '/runtime/config_dir', message: expectedText('runtime.config_dir', configDir) });
    return runtime;
  }
  const checked = checkRepositoryPath(configDir);
  if (checked.ok) return { config_dir: checked.path };
  issues.push({ path: '/runtime/config_dir', message: `runtime.config_dir ${quote(configDir)} ${checked.reason}` });
  return runtime;
}

export type RepositoryPathCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The daemon resolves config_dir inside the cloned repository, so it must stay there: no absolute path,
 * no `..` that climbs out. Returned normalized (`./a//b/` → `a/b`) so equal paths compare equal.
 */
export function checkRepositoryPath(raw: string, example: string = DEFAULT_RUNTIME_CONFIG_DIR): RepositoryPathCheck {
  const relativeExample = `a path relative to the repository root such as "${example}"`;
  if (raw.trim() === '') return { ok: false, reason: `is empty; write ${relativeExample}` };
  // Control characters (NUL above all) cut or bend paths in the tools that read them.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: 'contains control characters' };
  if (raw.includes('\\')) return { ok: false, reason: 'uses "\\"; separate folders with "/"' };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return { ok: false, reason: `is absolute; write ${relativeExample}` };
  if (raw.startsWith('~')) return { ok: false, reason: `starts with "~", which is not expanded; write ${relativeExample}` };
  const normalized = posix.normalize(raw).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    return { ok: false, reason: `leaves the repository through ".."; write ${relativeExample}` };
  }
  return { ok: true, path: normalized === '' ? '.' : normalized };
}

export function checkEnv(value: unknown, format: ManifestFormat, issues: Issue[]): NormalizedEnvEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    const advice =
      format === 'toml'
        ? 'declare each variable with [[env]] (double brackets) and name = "GITHUB_TOKEN"'
        : 'write one entry per variable, e.g. "- name: GITHUB_TOKEN" or "- GITHUB_TOKEN"';
    issues.push({ path: '/env', message: `env must be a list; ${advice}; got ${describeValue(value)}` });
    return [];
  }
  const entries: NormalizedEnvEntry[] = [];
  const firstIndexOfName = new Map<string, number>();
  value.forEach((item: unknown, index) => {
    const path = jsonPointer('env', index);
    const entry = readEnvEntry(item, path, issues);
    if (!entry) return;
    const nameLabel = quote(entry.name);
    if (!envNamePattern.test(entry.name)) {
      issues.push({ path: entry.namePath, message: `env entry ${index + 1}: ${nameLabel} must be an environment variable name: uppercase letters, digits and "_", not starting with a digit` });
      return;
    }
    if (entry.name.startsWith(RESERVED_ENV_PREFIX)) {
      issues.push({ path: entry.namePath, message: `env entry ${index + 1}: ${nameLabel} uses the reserved prefix ${RESERVED_ENV_PREFIX}, which svc keeps for the variables it injects; pick another name` });
      return;
    }
    const earlier = firstIndexOfName.get(entry.name);
    if (earlier !== undefined) {
      issues.push({ path: entry.namePath, message: `env entry ${index + 1}: ${nameLabel} is already declared by entry ${earlier + 1}; declare each variable once` });
      return;
    }
    firstIndexOfName.set(entry.name, index);
    if (entry.valid) entries.push({ name: entry.name, required: entry.required, description: entry.description });
  });
  return entries;
}

interface EnvEntryRead {
  name: string;
  namePath: string;
  required: boolean;
  description: string | null;
  /** False when a setting other than the name has a problem (already reported). */
  valid: boolean;
}

function readEnvEntry(item: unknown, path: string, issues: Issue[]): EnvEntryRead | null {
  const entryNumber = Number(path.split('/').pop()) + 1;
  if (typeof item === 'string') return { name: item, namePath: path, required: false, description: null, valid: true };
  if (!isRecord(item)) {
    issues.push({ path, message: `env entry ${entryNumber} must be a variable name or a mapping with name, required, description; got ${describeValue(item)}` });
    return null;
  }
  const before = issues.length;
  reportUnknownKeys(item, ENV_ENTRY_KEYS, path, (key) => `env entry ${entryNumber}: ${quote(key)} is not an env setting (known: ${listWords(ENV_ENTRY_KEYS)})`, issues);
  const name = item['name'];
  if (typeof name !== 'string') {
    issues.push({
      path: path + '/name',
      message: name === undefined ? `env entry ${entryNumber} needs a name, e.g. name: GITHUB_TOKEN` : `env entry ${entryNumber}: ${expectedText('name', name)}`,
    });
    return null;
  }
  let required = false;
  if (Object.hasOwn(item, 'required')) {
    if (typeof item['required'] === 'boolean') required = item['required'];
    else issues.push({ path: path + '/required', message: `env entry ${entryNumber}: required must be true or false, got ${describeValue(item['required'])}` });
  }
  let description: string | null = null;
  if (Object.hasOwn(item, 'description')) {
    if (typeof item['description'] === 'string') description = item['description'];
    else issues.push({ path: path + '/description', message: `env entry ${entryNumber}: ${expectedText('description', item['description'])}` });
  }
  return { name, namePath: path + '/name', required, description, valid: issues.length === before };
}

/**
 * One `triggers` entry: aliases resolved, every rule of spec 3 checked, defaults applied. Each problem is
 * reported (not only the first) so one push can fix them all. Rules that need every entry at once
 * (unique slugs) are the caller's.
 */
import Mustache from 'mustache';
import {
  AGENT_NAME_PATTERN,
  COMMON_TRIGGER_KEYS,
  CRON_ONLY_TRIGGER_KEYS,
  DEFAULT_AGENT_NAME,
  DEFAULT_SESSION_MODE,
  DEFAULT_TIMEZONE,
  ENV_NAME_PATTERN,
  MODEL_PATTERN,
  RESERVED_ENV_PREFIX,
  SESSION_ID_PATTERN,
  SESSION_MODES,
  TRIGGER_FIELD_ALIASES,
  TRIGGER_SLUG_PATTERN,
  TRIGGER_TYPES,
  WEBHOOK_ONLY_TRIGGER_KEYS,
  type NormalizedTrigger,
  type SessionMode,
  type TriggerType,
} from './manifest-schema.js';
import { checkCronExpression, type CronCheck } from './cron-expression.js';
import { checkRunAt } from './run-at.js';
import { checkTimezone, type TimezoneCheck } from './timezone.js';
import { jsonPointer } from '../json-pointer.js';
import { findUnknownKeys } from './unknown-keys.js';
import { describeValue, didYouMean, expectedText, isRecord, listWords, quote } from './wording.js';

const slugPattern = new RegExp(TRIGGER_SLUG_PATTERN);
const envNamePattern = new RegExp(ENV_NAME_PATTERN);
const modelPattern = new RegExp(MODEL_PATTERN);
const agentNamePattern = new RegExp(AGENT_NAME_PATTERN);
const sessionIdPattern = new RegExp(SESSION_ID_PATTERN);

const ALL_TRIGGER_KEYS: readonly string[] = [...COMMON_TRIGGER_KEYS, ...CRON_ONLY_TRIGGER_KEYS, ...WEBHOOK_ONLY_TRIGGER_KEYS];
const ALIAS_OF_CANONICAL: ReadonlyMap<string, string> = new Map(
  Object.entries(TRIGGER_FIELD_ALIASES).map(([alias, canonical]) => [canonical, alias]),
);

/** Work shared by all entries of one manifest: thousands of triggers usually repeat a few schedules. */
export interface TriggerCheckCache {
  cron: Map<string, CronCheck>;
  timezone: Map<string, TimezoneCheck>;
}

export function newTriggerCheckCache(): TriggerCheckCache {
  return { cron: new Map(), timezone: new Map() };
}

export interface TriggerEntryContext {
  index: number;
  /** Names declared under `agents:`, or null when the manifest declares none (any agent name then). */
  declaredAgents: ReadonlySet<string> | null;
  defaultAgent: string | null;
  cache: TriggerCheckCache;
}

export interface TriggerProblem {
  path: string;
  /** A sentence without the "trigger … (entry n):" prefix, which the caller adds once. */
  reason: string;
}

export interface TriggerEntryResult {
  /** Null when the entry has at least one problem. */
  trigger: NormalizedTrigger | null;
  /** The slug as written when it is text (even an invalid one, so the listing can show it), else null. */
  slug: string | null;
  problems: TriggerProblem[];
}

/** A field read from the entry, remembering which spelling (canonical or alias) the author used. */
interface Present {
  key: string;
  value: unknown;
}

export function checkTriggerEntry(entry: unknown, context: TriggerEntryContext): TriggerEntryResult {
  const entryPath = jsonPointer('triggers', context.index);
  if (!isRecord(entry)) {
    return {
      trigger: null,
      slug: null,
      problems: [{ path: entryPath, reason: `must be a mapping of fields (slug, type, prompt, …), got ${describeValue(entry)}` }],
    };
  }

  const problems: TriggerProblem[] = [];
  const pathOf = (key: string) => entryPath + jsonPointer(key);
  const report = (key: string | null, reason: string) => problems.push({ path: key === null ? entryPath : pathOf(key), reason });

  const unknown = findUnknownKeys(entry, ALL_TRIGGER_KEYS);
  for (const { key, hint } of unknown.reported) report(key, `${quote(key)} is not a trigger field${hint}`);
  if (unknown.more > 0) report(null, `${unknown.more} more fields that triggers do not have; the fields are ${listWords(ALL_TRIGGER_KEYS)}`);

  /** The canonical field or its alias; both at once is a problem, and the canonical spelling wins. */
  const read = (canonical: string): Present | undefined => {
    const alias = ALIAS_OF_CANONICAL.get(canonical);
    const hasCanonical = Object.hasOwn(entry, canonical);
    const hasAlias = alias !== undefined && Object.hasOwn(entry, alias);
    if (hasCanonical && hasAlias) {
      report(alias, `${canonical} is given twice, as ${canonical} and as its alias ${alias}; keep only one`);
    }
    if (hasCanonical) return { key: canonical, value: entry[canonical] };
    if (hasAlias) return { key: alias, value: entry[alias] };
    return undefined;
  };

  /** Text value of a present field; reports and returns undefined otherwise. */
  const text = (field: Present): string | undefined => {
    if (typeof field.value === 'string') return field.value;
    report(field.key, field.value === null ? `${field.key} is empty; give it a value or remove it` : expectedText(field.key, field.value));
    return undefined;
  };

  const rawSlug = entry['slug'];
  const slug = checkSlug(read('slug'), text, report);
  const type = checkType(read('type'), text, report);
  const prompt = checkPrompt(read('prompt'), text, report);

  const nameField = read('name');
  let name: string | undefined;
  if (nameField) {
    const value = text(nameField);
    if (value !== undefined && value.trim() === '') report(nameField.key, 'name is empty; remove it to use the slug, or write a label');
    else name = value;
  }

  const agent = checkAgent(read('agent'), text, report, context);
  const model = checkModel(read('model'), text, report);
  const session = checkSession(read('session_mode'), read('session_id'), text, report);

  const enabledField = read('enabled');
  let enabled = true;
  if (enabledField) {
    if (typeof enabledField.value === 'boolean') enabled = enabledField.value;
    else report(enabledField.key, `enabled must be true or false, got ${describeValue(enabledField.value)}`);
  }

  let typeSpecific: TypeSpecificFields | undefined;
  if (type === 'cron') {
    for (const key of WEBHOOK_ONLY_TRIGGER_KEYS) {
      if (Object.hasOwn(entry, key)) report(key, `${key} applies to webhook triggers only; remove it from this cron trigger`);
    }
    typeSpecific = checkCronFields(read('cron'), read('run_at'), read('timezone'), text, report, context.cache);
  } else if (type === 'webhook') {
    for (const key of CRON_ONLY_TRIGGER_KEYS) {
      if (Object.hasOwn(entry, key)) report(key, `${key} applies to cron triggers only; remove it from this webhook trigger`);
    }
    typeSpecific = checkWebhookFields(read('secret_env'), text, report);
  }

  const slugAsWritten = typeof rawSlug === 'string' ? rawSlug : null;
  if (problems.length > 0 || slug === undefined || prompt === undefined || session === undefined || !typeSpecific) {
    return { trigger: null, slug: slugAsWritten, problems };
  }
  const common = {
    slug,
    name: name ?? slug,
    enabled,
    prompt,
    agent: agent ?? context.defaultAgent ?? DEFAULT_AGENT_NAME,
    model: model ?? null,
    session_mode: session.mode,
    session_id: session.id,
  };
  const trigger: NormalizedTrigger =
    typeSpecific.type === 'cron'
      ? { ...common, type: 'cron', cron: typeSpecific.cron, run_at: typeSpecific.run_at, timezone: typeSpecific.timezone }
      : { ...common, type: 'webhook', secret_env: typeSpecific.secret_env };
  return { trigger, slug: slugAsWritten, problems };
}

type Report = (key: string | null, reason: string) => void;
type ReadText = (field: Present) => string | undefined;
type TypeSpecificFields =
  | { type: 'cron'; cron: string | null; run_at: string | null; timezone: string }
  | { type: 'webhook'; secret_env: string };

const SLUG_RULE = '1-128 characters of lowercase letters, digits, "-" and "_", starting with a letter or digit';

function checkSlug(field: Present | undefined, text: ReadText, report: Report): string | undefined {
  if (!field) {
    report('slug', `slug is required: ${SLUG_RULE}, e.g. "nightly-report"`);
    return undefined;
  }
  const value = text(field);
  if (value === undefined) return undefined;
  if (slugPattern.test(value)) return value;
  const suggestion = value
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 128);
  const hint = slugPattern.test(suggestion) ? `; for example ${quote(suggestion)}` : '';
  report(field.key, `slug ${quote(value)} must be ${SLUG_RULE}${hint}`);
  return undefined;
}

function checkType(field: Present | undefined, text: ReadText, report: Report): TriggerType | undefined {
  if (!field) {
    report('type', 'type is required: cron (on a schedule) or webhook (on a signed HTTP POST)');
    return undefined;
  }
  const value = text(field);
  if (value === undefined) return undefined;
  const known = TRIGGER_TYPES.find((type) => type === value);
  if (!known) report(field.key, `type ${quote(value)} is not a trigger type; use cron or webhook`);
  return known;
}

function checkPrompt(field: Present | undefined, text: ReadText, report: Report): string | undefined {
  if (!field) {
    report('prompt', 'prompt is required: the first message of the session the trigger starts (alias prompt_template)');
    return undefined;
  }
  const value = text(field);
  if (value === undefined) return undefined;
  if (value.trim() === '') {
    report(field.key, `${field.key} is empty; write the first message of the session the trigger starts`);
    return undefined;
  }
  const templateProblem = mustacheProblem(value);
  if (templateProblem) {
    report(field.key, `${field.key} is not a valid template: ${templateProblem}`);
    return undefined;
  }
  return value;
}

/**
 * The prompt is rendered with mustache at fire time; a template mustache cannot parse would fail every
 * fire, so it is caught at merge. A fresh Writer keeps the library's global template cache untouched.
 * Mustache reports where it gave up (often the end of the text); the message points at the tag to fix.
 */
function mustacheProblem(template: string): string | null {
  try {
    new Mustache.Writer().parse(template);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = (offset: number) => {
      const before = template.slice(0, offset);
      return `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')} of the prompt`;
    };
    const unclosedSection = /^Unclosed section "(.*)" at (\d+)$/.exec(message);
    if (unclosedSection) {
      const name = (unclosedSection[1] ?? '').slice(0, 80);
      const opening = lastOpeningOfSection(template, name);
      return `the section {{#${name}}} at ${at(opening ?? Number(unclosedSection[2]))} is never closed with {{/${name}}}`;
    }
    const unopenedSection = /^Unopened section "(.*)" at (\d+)$/.exec(message);
    if (unopenedSection) {
      const name = (unopenedSection[1] ?? '').slice(0, 80);
      return `{{/${name}}} at ${at(Number(unopenedSection[2]))} closes a section that was never opened with {{#${name}}}`;
    }
    if (/^Unclosed tag at \d+$/.test(message)) {
      // Everything after the unclosed "{{" was swallowed looking for "}}", so it is the first "{{" after the last "}}".
      const opening = template.indexOf('{{', template.lastIndexOf('}}') + 1);
      if (opening >= 0) return `the "{{" at ${at(opening)} has no closing "}}"`;
    }
    return message;
  }
}

function lastOpeningOfSection(template: string, name: string): number | null {
  let found: number | null = null;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const match of template.matchAll(new RegExp(`\\{\\{\\s*[#^]\\s*${escaped}\\s*\\}\\}`, 'g'))) found = match.index;
  return found;
}

function checkAgent(
  field: Present | undefined,
  text: ReadText,
  report: Report,
  context: TriggerEntryContext,
): string | undefined {
  if (!field) return undefined;
  const value = text(field);
  if (value === undefined) return undefined;
  if (!agentNamePattern.test(value)) {
    report(field.key, `${field.key} ${quote(value)} is not an agent name (letters, digits, ".", "-" and "_")`);
    return undefined;
  }
  if (context.declaredAgents && !context.declaredAgents.has(value)) {
    const declared = [...context.declaredAgents];
    report(
      field.key,
      `${field.key} ${quote(value)} is not declared under agents (declared: ${listWords(declared)})${didYouMean(value, declared)}; ` +
        'name one of them or remove the field to use default_agent',
    );
    return undefined;
  }
  return value;
}

function checkModel(field: Present | undefined, text: ReadText, report: Report): string | undefined {
  if (!field) return undefined;
  const value = text(field);
  if (value === undefined) return undefined;
  if (modelPattern.test(value)) return value;
  report(field.key, `model ${quote(value)} must be written <provider>/<model>, e.g. "anthropic/claude-sonnet-4"`);
  return undefined;
}

function checkSession(
  modeField: Present | undefined,
  idField: Present | undefined,
  text: ReadText,
  report: Report,
): { mode: SessionMode; id: string | null } | undefined {
  let mode: SessionMode | undefined = DEFAULT_SESSION_MODE;
  if (modeField) {
    const value = text(modeField);
    mode = value === undefined ? undefined : SESSION_MODES.find((known) => known === value.trim().toLowerCase());
    if (value !== undefined && !mode) {
      report(modeField.key, `${modeField.key} ${quote(value)} is not one of ${listWords(SESSION_MODES)}`);
    }
  }
  let id: string | null = null;
  if (idField) {
    const value = text(idField);
    if (value !== undefined && !sessionIdPattern.test(value.trim())) {
      report(idField.key, `${idField.key} ${quote(value)} is not a session id (a UUID such as "3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c")`);
    } else if (value !== undefined) {
      id = value.trim().toLowerCase();
    }
  }
  if (mode === 'pinned' && !idField) {
    report('session_id', 'session_mode pinned needs session_id: the id of the session to re-prompt');
    return undefined;
  }
  if (mode && mode !== 'pinned' && idField) {
    report(idField.key, `${idField.key} is only used when session_mode is pinned; set session_mode: pinned or remove ${idField.key}`);
    return undefined;
  }
  return mode ? { mode, id } : undefined;
}

function checkCronFields(
  cronField: Present | undefined,
  runAtField: Present | undefined,
  timezoneField: Present | undefined,
  text: ReadText,
  report: Report,
  cache: TriggerCheckCache,
): TypeSpecificFields | undefined {
  if (!cronField && !runAtField) {
    report(
      null,
      'a cron trigger needs cron (six fields: second minute hour day month weekday, e.g. "0 0 9 * * 1-5") ' +
        'or run_at (one date and time, e.g. "2025-07-01T09:00:00Z")',
    );
    return undefined;
  }
  if (cronField && runAtField) {
    report(runAtField.key, `${cronField.key} and ${runAtField.key} exclude each other; keep ${cronField.key} to repeat or ${runAtField.key} to run once`);
    return undefined;
  }

  let cron: string | null = null;
  let runAt: string | null = null;
  let valid = true;
  if (cronField) {
    const value = text(cronField);
    if (value === undefined) valid = false;
    else {
      const cacheKey = `${cronField.key}\u0000${value}`;
      const check = cache.cron.get(cacheKey) ?? checkCronExpression(value, cronField.key);
      cache.cron.set(cacheKey, check);
      if (check.ok) cron = check.expression;
      else {
        report(cronField.key, check.reason);
        valid = false;
      }
    }
  }
  if (runAtField) {
    // TOML has a date-time type: an unquoted run_at arrives as a Date that knows whether it had an offset.
    const value = runAtField.value instanceof Date ? runAtField.value.toISOString() : text(runAtField);
    if (value === undefined) valid = false;
    else {
      const check = checkRunAt(value, runAtField.key);
      if (check.ok) runAt = check.instant;
      else {
        report(runAtField.key, check.reason);
        valid = false;
      }
    }
  }

  let timezone = DEFAULT_TIMEZONE;
  if (timezoneField) {
    const value = text(timezoneField);
    if (value === undefined) valid = false;
    else {
      const check = cache.timezone.get(value) ?? checkTimezone(value);
      cache.timezone.set(value, check);
      if (check.ok) timezone = value;
      else {
        report(timezoneField.key, check.reason);
        valid = false;
      }
    }
  }
  return valid ? { type: 'cron', cron, run_at: runAt, timezone } : undefined;
}

function checkWebhookFields(field: Present | undefined, text: ReadText, report: Report): TypeSpecificFields | undefined {
  if (!field) {
    report(
      'secret_env',
      'a webhook trigger needs secret_env: the name of the project secret that holds its HMAC secret, e.g. secret_env: GITHUB_WEBHOOK_SECRET',
    );
    return undefined;
  }
  const value = text(field);
  if (value === undefined) return undefined;
  if (!envNamePattern.test(value)) {
    const upper = value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
    const hint = envNamePattern.test(upper) && !upper.startsWith(RESERVED_ENV_PREFIX) ? `, e.g. ${quote(upper)}` : '';
    report(field.key, `${field.key} ${quote(value)} must be a secret name: uppercase letters, digits and "_", not starting with a digit${hint}`);
    return undefined;
  }
  if (value.startsWith(RESERVED_ENV_PREFIX)) {
    report(field.key, `${field.key} ${quote(value)} uses the reserved prefix ${RESERVED_ENV_PREFIX}, which project secrets cannot have; pick another name`);
    return undefined;
  }
  return { type: 'webhook', secret_env: value };
}

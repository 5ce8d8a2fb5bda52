/**
 * Prompts are mustache templates (contract §7): `{{ dotted.path }}`, nothing HTML-escaped, a missing value
 * renders empty, objects and arrays render as JSON, in `{{ }}` and `{{{ }}}` alike.
 */
import Mustache from 'mustache';

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    // Nested deeper than the stack allows (a hostile webhook body): the placeholder stays empty.
    return '';
  }
}

type Token = [string, string, number, number, Token[]?, ...unknown[]];

/** `{{{ x }}}` and `{{& x }}` become `{{ x }}`: with escaping off they differ only in how objects would print. */
function asNameTokens(tokens: Token[]): Token[] {
  return tokens.map((token) => {
    const [kind, value, start, end, children, ...rest] = token;
    if (kind === '&' || kind === '{') return ['name', value, start, end];
    return children ? [kind, value, start, end, asNameTokens(children), ...rest] : token;
  });
}

/**
 * NUL and unpaired surrogates, which a JSON body can hold as escapes (`\u0000`, `\ud800`), each become U+FFFD:
 * PostgreSQL's text holds neither, so a prompt with one could not be recorded, and a sender would be answered 500
 * for every delivery of that body.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const writer = new Mustache.Writer();
const parsed = new Map<string, Token[]>();
const MAX_CACHED_TEMPLATES = 10_000;

export function renderPrompt(template: string, view: Record<string, unknown>): string {
  let tokens = parsed.get(template);
  if (!tokens) {
    if (parsed.size >= MAX_CACHED_TEMPLATES) parsed.clear();
    tokens = asNameTokens(writer.parse(template) as Token[]);
    parsed.set(template, tokens);
  }
  return writer.renderTokens(tokens as unknown as string[][], new Mustache.Context(view), {}, template, { escape: asText }).replace(UNSTORABLE, '\uFFFD');
}

/** Whether the template shows the variable at dotted `path`: by its name, an object holding it, or inside a section over one. */
export function templateShows(template: string, path: string): boolean {
  const shown = (tokens: Token[], prefix: string): boolean =>
    tokens.some(([kind, value, , , children]) => {
      const name = prefix && value !== '.' ? `${prefix}.${value}` : prefix || value;
      if (kind === 'name' || kind === '&' || kind === '{') return name === path || path.startsWith(`${name}.`);
      if ((kind === '#' || kind === '^') && children) return shown(children, kind === '#' ? name : prefix);
      return false;
    });
  return shown(writer.parse(template) as Token[], '');
}

export interface TriggerVariables {
  slug: string;
  type: 'cron' | 'webhook';
}

/** On every fire (spec 3): the trigger's slug and type, and its kind, which is always `git`. */
function triggerView(trigger: TriggerVariables) {
  return { slug: trigger.slug, type: trigger.type, kind: 'git' };
}

export function cronView(trigger: TriggerVariables, cron: { schedule: string; timezone: string; firedAt: string; lastFiredAt: string | null }) {
  return {
    trigger: triggerView(trigger),
    cron: { schedule: cron.schedule, timezone: cron.timezone, fired_at: cron.firedAt, last_fired_at: cron.lastFiredAt ?? '' },
  };
}

export function webhookView(trigger: TriggerVariables, webhook: { firedAt: string; rawBody: Buffer; headers: Record<string, string | string[] | undefined> }) {
  const text = webhook.rawBody.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = { raw: text };
  }
  const header = (name: string) => {
    const value = webhook.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  return {
    trigger: triggerView(trigger),
    fired_at: webhook.firedAt,
    body,
    headers: { content_type: header('content-type'), user_agent: header('user-agent'), forwarded_for: header('x-forwarded-for') },
  };
}

export function manualView(trigger: TriggerVariables, manual: { firedAt: string; actor: string; message: string | null; messageSource: string }) {
  return {
    trigger: triggerView(trigger),
    fired_at: manual.firedAt,
    source: 'manual',
    actor: manual.actor,
    message: { text: manual.message ?? '', source: manual.messageSource },
  };
}

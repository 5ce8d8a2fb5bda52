import { describe, expect, test } from 'vitest';
import { parseManifest, type NormalizedCronTrigger, type ParsedManifest } from './index.js';

const yaml = (text: string) => parseManifest({ filename: 'svc.yaml', text });
const toml = (text: string) => parseManifest({ filename: 'svc.toml', text });

/** The single issue at `path`; fails loudly when there is none or several. */
function issueAt(result: ParsedManifest, path: string): string {
  const found = result.issues.filter((issue) => issue.path === path);
  expect(found, `issues at ${path} in ${JSON.stringify(result.issues, null, 2)}`).toHaveLength(1);
  return found[0]?.message ?? '';
}

/** The first trigger, which the test expects to be a valid cron trigger. */
function firstCron(result: ParsedManifest): NormalizedCronTrigger {
  const trigger = result.triggers[0];
  if (trigger?.type !== 'cron') throw new Error(`expected a cron trigger, got ${JSON.stringify(result, null, 2)}`);
  return trigger;
}

/** A cron trigger that passes every rule, with `extra` lines appended. */
function cronTrigger(extra = '', slug = 'nightly'): string {
  return `triggers:\n  - slug: ${slug}\n    type: cron\n    cron: "0 0 3 * * *"\n    prompt: Summarize\n${extra}`;
}

function webhookTrigger(extra = '', slug = 'on-push'): string {
  return `triggers:\n  - slug: ${slug}\n    type: webhook\n    secret_env: GH_SECRET\n    prompt: Review\n${extra}`;
}

describe('both formats', () => {
  test('a YAML manifest with a cron and a webhook trigger normalizes with defaults applied', () => {
    const result = yaml(`
triggers:
  - slug: nightly-report
    type: cron
    cron: "0 30 2 * * 1-5"
    prompt: |
      Write the nightly report for {{ cron.fired_at }}.
      Keep it short.
  - slug: github
    type: webhook
    secret_env: GITHUB_WEBHOOK_SECRET
    prompt: "Triage {{ body.issue.title }}"
`);
    expect(result.issues).toEqual([]);
    expect(result.errors).toEqual([]);
    expect(result.triggers).toEqual([
      {
        slug: 'nightly-report',
        name: 'nightly-report',
        type: 'cron',
        enabled: true,
        prompt: 'Write the nightly report for {{ cron.fired_at }}.\nKeep it short.\n',
        agent: 'default',
        model: null,
        session_mode: 'fresh',
        session_id: null,
        cron: '0 30 2 * * 1-5',
        run_at: null,
        timezone: 'UTC',
      },
      {
        slug: 'github',
        name: 'github',
        type: 'webhook',
        enabled: true,
        prompt: 'Triage {{ body.issue.title }}',
        agent: 'default',
        model: null,
        session_mode: 'fresh',
        session_id: null,
        secret_env: 'GITHUB_WEBHOOK_SECRET',
      },
    ]);
    expect(result.manifest).toEqual({
      triggers: result.triggers,
      agents: {},
      default_agent: null,
      runtime: { config_dir: '.svc/runtime' },
      env: [],
      sandbox: { memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null },
    });
  });

  test('a legacy TOML manifest with [[triggers]] reads the same fields', () => {
    const result = toml(`
[[triggers]]
slug = "nightly"
type = "cron"
cron = "0 0 3 * * *"
timezone = "Europe/Paris"
prompt = """
Nightly run.
"""

[[triggers]]
slug = "hook"
type = "webhook"
secret_env = "HOOK_SECRET"
prompt = "Hook fired"
agent = "build"
enabled = false
`);
    expect(result.issues).toEqual([]);
    expect(result.triggers.map((trigger) => [trigger.slug, trigger.type, trigger.enabled, trigger.agent])).toEqual([
      ['nightly', 'cron', true, 'default'],
      ['hook', 'webhook', false, 'build'],
    ]);
    expect(result.triggers[0]).toMatchObject({ timezone: 'Europe/Paris', prompt: 'Nightly run.\n' });
  });

  test('svc.yml is read as YAML', () => {
    const result = parseManifest({ filename: 'svc.yml', text: cronTrigger() });
    expect(result.issues).toEqual([]);
    expect(result.triggers).toHaveLength(1);
  });

  test('the same manifest written in YAML and in TOML normalizes identically', () => {
    const fromYaml = yaml(`
version: 1
default_agent: writer
agents:
  writer:
    description: Writes reports
    model: anthropic/claude-sonnet-4
    prompt: You write concise reports.
  reviewer: {}
runtime:
  config_dir: ./config/agents/
env:
  - name: GITHUB_TOKEN
    required: true
    description: Reads issues
  - HOOK_SECRET
triggers:
  - slug: nightly
    name: Nightly report
    type: cron
    schedule: "0  0 3 * * *"
    timezone: Europe/Berlin
    prompt: |
      Line one
      Line two
    model: openai/gpt-5
    sessionMode: Reuse
  - slug: once
    type: cron
    runAt: "2030-01-02T03:04:05+02:00"
    prompt: Once
    agent_name: reviewer
  - slug: hook
    type: webhook
    secretEnv: HOOK_SECRET
    prompt_template: "{{ body.action }}"
    session_mode: pinned
    session_id: 3F2B8C1E-9D4A-4E6B-8A7C-1D2E3F4A5B6C
    enabled: false
`);
    const fromToml = toml(`
version = 1
default_agent = "writer"

[agents.writer]
description = "Writes reports"
model = "anthropic/claude-sonnet-4"
prompt = "You write concise reports."

[agents.reviewer]

[runtime]
config_dir = "./config/agents/"

[[env]]
name = "GITHUB_TOKEN"
required = true
description = "Reads issues"

[[env]]
name = "HOOK_SECRET"

[[triggers]]
slug = "nightly"
name = "Nightly report"
type = "cron"
schedule = "0  0 3 * * *"
timezone = "Europe/Berlin"
prompt = """
Line one
Line two
"""
model = "openai/gpt-5"
sessionMode = "Reuse"

[[triggers]]
slug = "once"
type = "cron"
runAt = 2030-01-02T03:04:05+02:00
prompt = "Once"
agent_name = "reviewer"

[[triggers]]
slug = "hook"
type = "webhook"
secretEnv = "HOOK_SECRET"
prompt_template = "{{ body.action }}"
session_mode = "pinned"
session_id = "3F2B8C1E-9D4A-4E6B-8A7C-1D2E3F4A5B6C"
enabled = false
`);
    expect(fromYaml.issues).toEqual([]);
    expect(fromToml.issues).toEqual([]);
    expect(fromToml.manifest).toEqual(fromYaml.manifest);
    expect(JSON.stringify(fromToml.manifest)).toBe(JSON.stringify(fromYaml.manifest));
    expect(fromYaml.manifest).toEqual({
      default_agent: 'writer',
      agents: {
        writer: { description: 'Writes reports', model: 'anthropic/claude-sonnet-4', prompt: 'You write concise reports.' },
        reviewer: { description: null, model: null, prompt: null },
      },
      runtime: { config_dir: 'config/agents' },
      sandbox: { memory_bytes: null, cpus: null, pids: null, disk_bytes: null, dockerfile: null },
      env: [
        { name: 'GITHUB_TOKEN', required: true, description: 'Reads issues' },
        { name: 'HOOK_SECRET', required: false, description: null },
      ],
      triggers: [
        {
          slug: 'nightly',
          name: 'Nightly report',
          type: 'cron',
          enabled: true,
          prompt: 'Line one\nLine two\n',
          agent: 'writer',
          model: 'openai/gpt-5',
          session_mode: 'reuse',
          session_id: null,
          cron: '0 0 3 * * *',
          run_at: null,
          timezone: 'Europe/Berlin',
        },
        {
          slug: 'once',
          name: 'once',
          type: 'cron',
          enabled: true,
          prompt: 'Once',
          agent: 'reviewer',
          model: null,
          session_mode: 'fresh',
          session_id: null,
          cron: null,
          run_at: '2030-01-02T01:04:05.000Z',
          timezone: 'UTC',
        },
        {
          slug: 'hook',
          name: 'hook',
          type: 'webhook',
          enabled: false,
          prompt: '{{ body.action }}',
          agent: 'writer',
          model: null,
          session_mode: 'pinned',
          session_id: '3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c',
          secret_env: 'HOOK_SECRET',
        },
      ],
    });
  });
});

describe('aliases', () => {
  test.each([
    ['prompt_template', 'prompt', `triggers:\n  - slug: a\n    type: cron\n    cron: "0 0 0 * * *"\n    prompt_template: Hi`, 'Hi'],
    ['agent_name', 'agent', `${cronTrigger('    agent_name: builder\n')}`, 'builder'],
    ['sessionMode', 'session_mode', `${cronTrigger('    sessionMode: reuse\n')}`, 'reuse'],
    ['schedule', 'cron', `triggers:\n  - slug: a\n    type: cron\n    schedule: "0 0 0 * * *"\n    prompt: Hi`, '0 0 0 * * *'],
    ['runAt', 'run_at', `triggers:\n  - slug: a\n    type: cron\n    runAt: "2031-05-06T07:08:09Z"\n    prompt: Hi`, '2031-05-06T07:08:09.000Z'],
    ['secretEnv', 'secret_env', `triggers:\n  - slug: a\n    type: webhook\n    secretEnv: MY_SECRET\n    prompt: Hi`, 'MY_SECRET'],
  ])('%s is read as %s', (_alias, canonical, text, expected) => {
    const result = yaml(text);
    expect(result.issues).toEqual([]);
    expect(result.triggers[0]).toHaveProperty(canonical, expected);
  });

  test('sessionId is read as session_id', () => {
    const result = yaml(cronTrigger('    session_mode: pinned\n    sessionId: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c\n'));
    expect(result.issues).toEqual([]);
    expect(result.triggers[0]).toMatchObject({ session_mode: 'pinned', session_id: '3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c' });
  });

  test.each([
    ['prompt', 'prompt_template', cronTrigger('    prompt_template: Other\n')],
    ['agent', 'agent_name', cronTrigger('    agent: a\n    agent_name: b\n')],
    ['session_mode', 'sessionMode', cronTrigger('    session_mode: fresh\n    sessionMode: fresh\n')],
    ['cron', 'schedule', cronTrigger('    schedule: "0 0 4 * * *"\n')],
    ['secret_env', 'secretEnv', webhookTrigger('    secretEnv: OTHER\n')],
  ])('%s given both as itself and as %s is an issue at the alias', (canonical, alias, text) => {
    const result = yaml(text);
    expect(issueAt(result, `/triggers/0/${alias}`)).toBe(
      `trigger "${canonical === 'secret_env' ? 'on-push' : 'nightly'}" (entry 1): ${canonical} is given twice, as ${canonical} and as its alias ${alias}; keep only one`,
    );
    expect(result.triggers).toEqual([]);
  });

  test('run_at and runAt together, and session_id and sessionId together, are issues too', () => {
    const runAt = yaml(`triggers:\n  - slug: a\n    type: cron\n    run_at: "2031-01-01T00:00:00Z"\n    runAt: "2031-01-01T00:00:00Z"\n    prompt: Hi\n`);
    expect(issueAt(runAt, '/triggers/0/runAt')).toContain('run_at is given twice');
    const sessionId = yaml(
      cronTrigger('    session_mode: pinned\n    session_id: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c\n    sessionId: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c\n'),
    );
    expect(issueAt(sessionId, '/triggers/0/sessionId')).toContain('session_id is given twice');
  });

  test('session_mode is read without regard to case and normalized to lower case', () => {
    for (const spelling of ['FRESH', 'Reuse', 'pInNeD']) {
      const extra = spelling === 'pInNeD' ? '    session_id: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c\n' : '';
      const result = yaml(cronTrigger(`    session_mode: ${spelling}\n${extra}`));
      expect(result.issues).toEqual([]);
      expect(result.triggers[0]?.session_mode).toBe(spelling.toLowerCase());
    }
  });
});

describe('defaults', () => {
  test('name is the slug, agent is default, session_mode fresh, enabled true, timezone UTC, model null', () => {
    const result = yaml(cronTrigger());
    expect(result.triggers[0]).toMatchObject({
      name: 'nightly',
      agent: 'default',
      session_mode: 'fresh',
      session_id: null,
      enabled: true,
      timezone: 'UTC',
      model: null,
    });
  });

  test('agent falls back to default_agent when the entry names none', () => {
    const result = yaml(`agents:\n  ops: {}\n  dev: {}\ndefault_agent: ops\n${cronTrigger('  - slug: other\n    type: cron\n    cron: "0 0 0 * * *"\n    prompt: x\n    agent: dev\n')}`);
    expect(result.issues).toEqual([]);
    expect(result.triggers.map((trigger) => trigger.agent)).toEqual(['ops', 'dev']);
  });

  test('runtime.config_dir defaults to .svc/runtime', () => {
    expect(yaml('').manifest.runtime).toEqual({ config_dir: '.svc/runtime' });
    expect(yaml('runtime: {}').manifest.runtime).toEqual({ config_dir: '.svc/runtime' });
  });
});

describe('trigger rules', () => {
  test('slug is required', () => {
    const result = yaml('triggers:\n  - type: cron\n    cron: "0 0 0 * * *"\n    prompt: x\n');
    expect(issueAt(result, '/triggers/0/slug')).toBe(
      'trigger entry 1: slug is required: 1-128 characters of lowercase letters, digits, "-" and "_", starting with a letter or digit, e.g. "nightly-report"',
    );
    expect(result.errors).toEqual([{ index: 0, slug: null, message: expect.stringContaining('slug is required') }]);
  });

  test.each(['Nightly', 'with space', '-leading', '_leading', 'a'.repeat(129), 'ünïcode', 'dot.ted'])('slug %s is refused', (slug) => {
    const result = yaml(cronTrigger('', JSON.stringify(slug)));
    expect(issueAt(result, '/triggers/0/slug')).toMatch(/slug ".*" must be 1-128 characters of lowercase letters/);
  });

  test('an invalid slug comes with a usable suggestion', () => {
    const result = yaml(cronTrigger('', '"Nightly Report"'));
    expect(issueAt(result, '/triggers/0/slug')).toContain('for example "nightly-report"');
  });

  test.each(['a', '0', 'a'.repeat(128), 'nightly_report-2'])('slug %s is accepted', (slug) => {
    expect(yaml(cronTrigger('', JSON.stringify(slug))).issues).toEqual([]);
  });

  test('a slug written as a number asks for quotes', () => {
    const result = yaml(cronTrigger('', '2024'));
    expect(issueAt(result, '/triggers/0/slug')).toBe('trigger entry 1: slug must be text, got the number 2024 (put it in quotes: "2024")');
  });

  test('duplicate slugs: the first entry is kept, later ones are errors naming the first', () => {
    const result = yaml(`
triggers:
  - { slug: same, type: cron, cron: "0 0 0 * * *", prompt: a }
  - { slug: other, type: cron, cron: "0 0 0 * * *", prompt: b }
  - { slug: same, type: webhook, secret_env: S, prompt: c }
`);
    expect(result.triggers.map((trigger) => trigger.slug)).toEqual(['same', 'other']);
    expect(issueAt(result, '/triggers/2/slug')).toBe(
      'trigger "same" (entry 3): slug "same" is already used by entry 1; slugs must be unique',
    );
    expect(result.errors).toEqual([{ index: 2, slug: 'same', message: expect.stringContaining('already used by entry 1') }]);
  });

  test('an entry with several problems lists each of them, numbered, in its one error', () => {
    const result = yaml('triggers:\n  - slug: bad slug\n    type: webhook\n    prompt: x\n');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]?.message).toMatch(
      /^trigger "bad slug" \(entry 1\): 2 problems: \(1\) slug "bad slug" must be .*for example "bad-slug"; \(2\) a webhook trigger needs secret_env: /,
    );
  });

  test('type is required and must be cron or webhook', () => {
    expect(issueAt(yaml('triggers:\n  - slug: a\n    prompt: x\n'), '/triggers/0/type')).toBe(
      'trigger "a" (entry 1): type is required: cron (on a schedule) or webhook (on a signed HTTP POST)',
    );
    expect(issueAt(yaml('triggers:\n  - slug: a\n    type: email\n    prompt: x\n'), '/triggers/0/type')).toBe(
      'trigger "a" (entry 1): type "email" is not a trigger type; use cron or webhook',
    );
  });

  test('prompt is required, not empty, and a template mustache can parse', () => {
    expect(issueAt(yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n'), '/triggers/0/prompt')).toContain(
      'prompt is required',
    );
    expect(issueAt(yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt: "  "\n'), '/triggers/0/prompt')).toContain(
      'prompt is empty',
    );
    expect(issueAt(yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt:\n'), '/triggers/0/prompt')).toContain(
      'prompt is empty; give it a value or remove it',
    );
    const unclosed = yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt: |\n      Hello\n      {{ body.name\n');
    expect(issueAt(unclosed, '/triggers/0/prompt')).toBe(
      'trigger "a" (entry 1): prompt is not a valid template: the "{{" at line 2, column 1 of the prompt has no closing "}}"',
    );
    const section = yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt_template: "Hi {{#items}} x"\n');
    expect(issueAt(section, '/triggers/0/prompt_template')).toBe(
      'trigger "a" (entry 1): prompt_template is not a valid template: the section {{#items}} at line 1, column 4 of the prompt is never closed with {{/items}}',
    );
    const unopened = yaml('triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt: "x\\n {{/items}}"\n');
    expect(issueAt(unopened, '/triggers/0/prompt')).toContain(
      'prompt is not a valid template: {{/items}} at line 2, column 2 of the prompt closes a section that was never opened with {{#items}}',
    );
  });

  test('a multi-line prompt is kept as written', () => {
    const result = yaml(`triggers:\n  - slug: a\n    type: webhook\n    secret_env: S\n    prompt: |\n      one\n\n      three {{ body.x }}\n`);
    expect(result.triggers[0]?.prompt).toBe('one\n\nthree {{ body.x }}\n');
  });

  test('a cron trigger needs cron or run_at, and not both', () => {
    const neither = yaml('triggers:\n  - slug: a\n    type: cron\n    prompt: x\n');
    expect(issueAt(neither, '/triggers/0')).toBe(
      'trigger "a" (entry 1): a cron trigger needs cron (six fields: second minute hour day month weekday, e.g. "0 0 9 * * 1-5") or run_at (one date and time, e.g. "2025-07-01T09:00:00Z")',
    );
    const both = yaml(cronTrigger('    run_at: "2030-01-01T00:00:00Z"\n'));
    expect(issueAt(both, '/triggers/0/run_at')).toBe(
      'trigger "nightly" (entry 1): cron and run_at exclude each other; keep cron to repeat or run_at to run once',
    );
  });

  test('cron is a valid 6-field expression', () => {
    const withCron = (cron: string) => yaml(`triggers:\n  - slug: nightly\n    type: cron\n    cron: ${JSON.stringify(cron)}\n    prompt: x\n`);
    expect(issueAt(withCron('61 * * * * *'), '/triggers/0/cron')).toBe(
      'trigger "nightly" (entry 1): cron "61 * * * * *" is not a valid 6-field cron expression (second minute hour day month weekday): Invalid value for second: 61',
    );
    expect(issueAt(withCron('0 9 * * 1'), '/triggers/0/cron')).toBe(
      'trigger "nightly" (entry 1): cron "0 9 * * 1" has 5 fields, but svc reads 6 (second minute hour day month weekday); to run at second 0 write "0 0 9 * * 1"',
    );
    expect(issueAt(withCron('0 0 0 * * * 2030'), '/triggers/0/cron')).toContain('has 7 fields; write exactly 6');
    expect(issueAt(withCron('@daily'), '/triggers/0/cron')).toContain('write the six fields "0 0 0 * * *"');
    expect(issueAt(withCron('0 0 0 30 2 *'), '/triggers/0/cron')).toContain('never fires');
    expect(issueAt(withCron(''), '/triggers/0/cron')).toContain('cron is empty');
    expect(issueAt(withCron('0 0 25 * * *'), '/triggers/0/cron')).toContain('is not a valid 6-field cron expression');
    for (const valid of ['* * * * * *', '0 */5 * * * *', '0 0 9 * * MON-FRI', '0 0 0 L * *', '0 0 0 29 2 *', '30 15 10 1,15 * ?']) {
      expect(withCron(valid).issues, valid).toEqual([]);
    }
  });

  test('the cron message uses the key the author wrote', () => {
    const result = yaml('triggers:\n  - slug: a\n    type: cron\n    schedule: "0 0 * * *"\n    prompt: x\n');
    expect(issueAt(result, '/triggers/0/schedule')).toContain('schedule "0 0 * * *" has 5 fields');
  });

  test('run_at is an ISO-8601 date and time with Z or an offset', () => {
    const withRunAt = (value: string) => yaml(`triggers:\n  - slug: once\n    type: cron\n    run_at: ${JSON.stringify(value)}\n    prompt: x\n`);
    expect(withRunAt('2030-06-01T09:00:00Z').triggers[0]).toMatchObject({ run_at: '2030-06-01T09:00:00.000Z', cron: null });
    expect(firstCron(withRunAt('2030-06-01T09:00:00.5-05:30')).run_at).toBe('2030-06-01T14:30:00.500Z');
    expect(firstCron(withRunAt('2030-06-01 09:00+0100')).run_at).toBe('2030-06-01T08:00:00.000Z');
    expect(issueAt(withRunAt('2030-06-01T09:00:00'), '/triggers/0/run_at')).toBe(
      'trigger "once" (entry 1): run_at "2030-06-01T09:00:00" has no UTC offset, so the instant is ambiguous; add Z for UTC or an offset, e.g. 2030-06-01T09:00:00Z or 2030-06-01T09:00:00+02:00',
    );
    expect(issueAt(withRunAt('2030-06-01'), '/triggers/0/run_at')).toContain('has no time of day');
    expect(issueAt(withRunAt('tomorrow'), '/triggers/0/run_at')).toContain('is not an ISO-8601 date and time');
    expect(issueAt(withRunAt('2030-02-30T00:00:00Z'), '/triggers/0/run_at')).toContain('names a day that does not exist');
    expect(issueAt(withRunAt('2030-01-01T24:00:00Z'), '/triggers/0/run_at')).toContain('time of day that does not exist');
  });

  test('an unquoted TOML date-time is accepted for run_at only when it has an offset', () => {
    const offset = toml('[[triggers]]\nslug = "a"\ntype = "cron"\nrun_at = 2030-06-01T09:00:00+02:00\nprompt = "x"\n');
    expect(firstCron(offset).run_at).toBe('2030-06-01T07:00:00.000Z');
    const local = toml('[[triggers]]\nslug = "a"\ntype = "cron"\nrun_at = 2030-06-01T09:00:00\nprompt = "x"\n');
    expect(issueAt(local, '/triggers/0/run_at')).toContain('has no UTC offset');
    const dateOnly = toml('[[triggers]]\nslug = "a"\ntype = "cron"\nrun_at = 2030-06-01\nprompt = "x"\n');
    expect(issueAt(dateOnly, '/triggers/0/run_at')).toContain('has no time of day');
  });

  test('timezone is an IANA zone name', () => {
    expect(firstCron(yaml(cronTrigger('    timezone: America/New_York\n'))).timezone).toBe('America/New_York');
    expect(issueAt(yaml(cronTrigger('    timezone: Mars/Olympus\n')), '/triggers/0/timezone')).toBe(
      'trigger "nightly" (entry 1): timezone "Mars/Olympus" is not an IANA time zone name; use a name such as "UTC", "Europe/Paris" or "America/New_York"',
    );
    expect(issueAt(yaml(cronTrigger('    timezone: "+02:00"\n')), '/triggers/0/timezone')).toContain('(UTC offsets are not zone names)');
  });

  test('a webhook needs secret_env, a valid name outside the SVC_ prefix', () => {
    const missing = yaml('triggers:\n  - slug: hook\n    type: webhook\n    prompt: x\n');
    expect(issueAt(missing, '/triggers/0/secret_env')).toBe(
      'trigger "hook" (entry 1): a webhook trigger needs secret_env: the name of the project secret that holds its HMAC secret, e.g. secret_env: GITHUB_WEBHOOK_SECRET',
    );
    expect(issueAt(yaml(webhookTrigger('', 'hook').replace('GH_SECRET', 'gh-secret')), '/triggers/0/secret_env')).toBe(
      'trigger "hook" (entry 1): secret_env "gh-secret" must be a secret name: uppercase letters, digits and "_", not starting with a digit, e.g. "GH_SECRET"',
    );
    expect(issueAt(yaml(webhookTrigger().replace('GH_SECRET', '1ABC')), '/triggers/0/secret_env')).toContain('must be a secret name');
    expect(issueAt(yaml(webhookTrigger().replace('GH_SECRET', 'SVC_HOOK')), '/triggers/0/secret_env')).toContain(
      'uses the reserved prefix SVC_',
    );
  });

  test('cron-only fields on a webhook and webhook-only fields on a cron are issues', () => {
    const webhook = yaml(webhookTrigger('    cron: "0 0 0 * * *"\n    timezone: UTC\n    runAt: "2030-01-01T00:00:00Z"\n'));
    expect(issueAt(webhook, '/triggers/0/cron')).toBe(
      'trigger "on-push" (entry 1): cron applies to cron triggers only; remove it from this webhook trigger',
    );
    expect(issueAt(webhook, '/triggers/0/timezone')).toContain('timezone applies to cron triggers only');
    expect(issueAt(webhook, '/triggers/0/runAt')).toContain('runAt applies to cron triggers only');
    const cron = yaml(cronTrigger('    secretEnv: X\n'));
    expect(issueAt(cron, '/triggers/0/secretEnv')).toBe(
      'trigger "nightly" (entry 1): secretEnv applies to webhook triggers only; remove it from this cron trigger',
    );
  });

  test('session_mode pinned requires session_id; session_id needs pinned', () => {
    expect(issueAt(yaml(cronTrigger('    session_mode: pinned\n')), '/triggers/0/session_id')).toBe(
      'trigger "nightly" (entry 1): session_mode pinned needs session_id: the id of the session to re-prompt',
    );
    expect(issueAt(yaml(cronTrigger('    sessionId: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c\n')), '/triggers/0/sessionId')).toBe(
      'trigger "nightly" (entry 1): sessionId is only used when session_mode is pinned; set session_mode: pinned or remove sessionId',
    );
    expect(issueAt(yaml(cronTrigger('    session_mode: pinned\n    session_id: abc\n')), '/triggers/0/session_id')).toContain(
      'is not a session id (a UUID',
    );
    expect(issueAt(yaml(cronTrigger('    session_mode: always\n')), '/triggers/0/session_mode')).toBe(
      'trigger "nightly" (entry 1): session_mode "always" is not one of fresh, reuse, pinned',
    );
  });

  test('model is <provider>/<model>', () => {
    expect(yaml(cronTrigger('    model: openrouter/anthropic/claude-3.5\n')).triggers[0]?.model).toBe('openrouter/anthropic/claude-3.5');
    for (const bad of ['gpt-4', 'openai/', '/gpt', 'open ai/gpt']) {
      expect(issueAt(yaml(cronTrigger(`    model: ${JSON.stringify(bad)}\n`)), '/triggers/0/model')).toBe(
        `trigger "nightly" (entry 1): model ${JSON.stringify(bad)} must be written <provider>/<model>, e.g. "anthropic/claude-sonnet-4"`,
      );
    }
  });

  test('agent must name a declared agent when agents exist', () => {
    const result = yaml(`agents:\n  reviewer: {}\n  writer: {}\n${cronTrigger('    agent: reviwer\n')}`);
    expect(issueAt(result, '/triggers/0/agent')).toBe(
      'trigger "nightly" (entry 1): agent "reviwer" is not declared under agents (declared: reviewer, writer) (did you mean reviewer?); name one of them or remove the field to use default_agent',
    );
  });

  test('agent may be any name when no agents are declared (legacy discovery), in either format', () => {
    expect(yaml(cronTrigger('    agent: anything\n')).triggers[0]?.agent).toBe('anything');
    const legacy = toml('[[triggers]]\nslug = "a"\ntype = "cron"\ncron = "0 0 0 * * *"\nprompt = "x"\nagent_name = "build"\n');
    expect(legacy.issues).toEqual([]);
    expect(legacy.triggers[0]?.agent).toBe('build');
  });

  test('enabled is a boolean; YAML 1.1 words are not', () => {
    expect(yaml(cronTrigger('    enabled: false\n')).triggers[0]?.enabled).toBe(false);
    expect(issueAt(yaml(cronTrigger('    enabled: "no"\n')), '/triggers/0/enabled')).toBe(
      'trigger "nightly" (entry 1): enabled must be true or false, got the text "no"',
    );
    expect(issueAt(yaml(cronTrigger('    enabled: yes\n')), '/triggers/0/enabled')).toContain('got the text "yes"');
  });

  test('name, when given, is a non-empty label', () => {
    expect(yaml(cronTrigger('    name: Nightly report\n')).triggers[0]?.name).toBe('Nightly report');
    expect(issueAt(yaml(cronTrigger('    name: ""\n')), '/triggers/0/name')).toContain('name is empty');
  });

  test('an unknown trigger field is an issue with a suggestion', () => {
    const result = yaml(cronTrigger('    secret-env: X\n    timzone: UTC\n    colour: red\n'));
    expect(issueAt(result, '/triggers/0/secret-env')).toBe('trigger "nightly" (entry 1): "secret-env" is not a trigger field (did you mean secret_env?)');
    expect(issueAt(result, '/triggers/0/timzone')).toContain('(did you mean timezone?)');
    expect(issueAt(result, '/triggers/0/colour')).toBe('trigger "nightly" (entry 1): "colour" is not a trigger field');
  });

  test('a trigger entry that is not a mapping is an error', () => {
    const result = yaml('triggers:\n  - just a string\n  - 42\n');
    expect(issueAt(result, '/triggers/0')).toBe('trigger entry 1: must be a mapping of fields (slug, type, prompt, …), got the text "just a string"');
    expect(issueAt(result, '/triggers/1')).toContain('got the number 42');
  });

  test('a key in a path is escaped as a JSON pointer', () => {
    const result = yaml(cronTrigger('    "a/b~c": 1\n'));
    expect(issueAt(result, '/triggers/0/a~1b~0c')).toContain('"a/b~c" is not a trigger field');
  });
});

describe('mixed good and bad entries', () => {
  test('good entries are listed; each bad entry is one error with its index, slug and every problem', () => {
    const result = yaml(`
triggers:
  - { slug: first, type: cron, cron: "0 0 1 * * *", prompt: one }
  - { slug: broken, type: cron, cron: "61 * * * * *", timezone: Nowhere/Land, prompt: two }
  - { slug: third, type: webhook, secret_env: HOOK, prompt: three }
  - { type: webhook, prompt: four }
  - { slug: nightly, type: cron, cron: "0 0 3 * * *", prompt: five, agent: "bad name" }
`);
    expect(result.triggers.map((trigger) => trigger.slug)).toEqual(['first', 'third']);
    expect(result.errors).toEqual([
      {
        index: 1,
        slug: 'broken',
        message:
          'trigger "broken" (entry 2): 2 problems: (1) cron "61 * * * * *" is not a valid 6-field cron expression (second minute hour day month weekday): ' +
          'Invalid value for second: 61; (2) timezone "Nowhere/Land" is not an IANA time zone name; use a name such as "UTC", "Europe/Paris" or "America/New_York"',
      },
      {
        index: 3,
        slug: null,
        message:
          'trigger entry 4: 2 problems: (1) slug is required: 1-128 characters of lowercase letters, digits, "-" and "_", starting with a letter or digit, e.g. "nightly-report"; ' +
          '(2) a webhook trigger needs secret_env: the name of the project secret that holds its HMAC secret, e.g. secret_env: GITHUB_WEBHOOK_SECRET',
      },
      {
        index: 4,
        slug: 'nightly',
        message: 'trigger "nightly" (entry 5): agent "bad name" is not an agent name (letters, digits, ".", "-" and "_")',
      },
    ]);
    expect(result.issues.map((issue) => issue.path)).toEqual([
      '/triggers/1/cron',
      '/triggers/1/timezone',
      '/triggers/3/slug',
      '/triggers/3/secret_env',
      '/triggers/4/agent',
    ]);
  });
});

describe('document-level problems', () => {
  test('an empty file is a valid, empty manifest', () => {
    for (const text of ['', '   \n', '# only a comment\n', '---\n']) {
      const result = yaml(text);
      expect(result.issues, JSON.stringify(text)).toEqual([]);
      expect(result.triggers).toEqual([]);
    }
    expect(toml('').issues).toEqual([]);
    expect(toml('# nothing\n').triggers).toEqual([]);
  });

  test('a manifest with only agents is valid and has no triggers', () => {
    const result = yaml('agents:\n  reviewer:\n    description: Reviews CRs\n  builder:\ndefault_agent: builder\n');
    expect(result.issues).toEqual([]);
    expect(result.triggers).toEqual([]);
    expect(result.manifest.agents).toEqual({
      reviewer: { description: 'Reviews CRs', model: null, prompt: null },
      builder: { description: null, model: null, prompt: null },
    });
    expect(result.manifest.default_agent).toBe('builder');
  });

  test('triggers: with no value is an empty list', () => {
    expect(yaml('triggers:\n').issues).toEqual([]);
  });

  test('YAML syntax errors name the file, line and column, and stop validation', () => {
    const result = yaml('triggers:\n  - slug: a\n    type: [cron\n');
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]?.path).toBe('');
    expect(result.issues[0]?.message).toMatch(/^svc\.yaml line \d+, column \d+: /);
    expect(result.errors).toEqual([{ index: null, slug: null, message: result.issues[0]?.message }]);
    expect(result.triggers).toEqual([]);
  });

  test('an unquoted cron starting with * is explained', () => {
    const result = yaml('triggers:\n  - slug: a\n    type: cron\n    cron: * * * * * *\n    prompt: x\n');
    expect(result.issues[0]?.message).toBe(
      'svc.yaml line 4, column 11: Alias cannot be an empty string. A value that starts with "*" must be quoted, e.g. cron: "0 */5 * * * *"',
    );
  });

  test('duplicate YAML keys and multiple documents are syntax errors with positions', () => {
    expect(yaml('triggers: []\ntriggers: []\n').issues[0]?.message).toBe(
      'svc.yaml line 2, column 1: the key "triggers" appears twice in the same mapping; keep one',
    );
    expect(yaml('triggers:\n  - slug: a\n    type: cron\n    slug: b\n').issues[0]?.message).toBe(
      'svc.yaml line 4, column 5: the key "slug" appears twice in the same mapping; keep one',
    );
    expect(yaml('a: {1: x, "1": y}\n').issues[0]?.message).toContain('the key "1" appears twice');
    expect(yaml('triggers: []\n---\nagents: {}\n').issues[0]?.message).toMatch(/^svc\.yaml line 2, column 1: the file holds more than one YAML document/);
  });

  test('TOML syntax errors name the file, line and column', () => {
    const result = toml('[[triggers]]\nslug = "a"\ntype = cron\n');
    expect(result.issues).toEqual([{ path: '', message: expect.stringMatching(/^svc\.toml line 3, column \d+: /) }]);
  });

  test('the legacy [triggers] single-bracket table is refused with the fix', () => {
    const one = toml('[triggers]\nslug = "a"\ntype = "cron"\ncron = "0 0 0 * * *"\nprompt = "x"\n');
    expect(one.issues).toEqual([
      {
        path: '/triggers',
        message:
          'svc.toml declares [triggers] with single brackets, which makes one table instead of a list; write [[triggers]] (double brackets) above each trigger',
      },
    ]);
    expect(one.errors).toEqual([{ index: null, slug: null, message: one.issues[0]?.message }]);
    // Two single-bracket tables do not even parse; the parser error still carries the fix.
    const two = toml('[triggers]\nslug = "a"\n\n[triggers]\nslug = "b"\n');
    expect(two.issues[0]?.message).toMatch(/^svc\.toml line 4, column \d+: .*Declare each trigger with \[\[triggers\]\] \(double brackets\), not \[triggers\]$/);
  });

  test('triggers written as a YAML mapping is refused with the fix', () => {
    const result = yaml('triggers:\n  nightly:\n    type: cron\n');
    expect(issueAt(result, '/triggers')).toBe('triggers must be a list; start each trigger with "- ", e.g. "- slug: nightly"; got a mapping');
  });

  test('a document that is not a mapping is refused', () => {
    expect(yaml('- slug: a\n').issues).toEqual([
      { path: '', message: 'svc.yaml must be a mapping with sections such as triggers, agents and env; it holds a list' },
    ]);
    expect(yaml('just text').issues[0]?.message).toContain('it holds the text "just text"');
  });

  test('unknown top-level keys are issues; version 1 is accepted', () => {
    const result = yaml('version: 1\ntrigger: []\nagent: {}\nfoo: 1\n');
    expect(issueAt(result, '/trigger')).toBe(
      '"trigger" is not a manifest section; the manifest knows version, triggers, agents, default_agent, runtime, sandbox, env (did you mean triggers?)',
    );
    expect(issueAt(result, '/agent')).toContain('(did you mean agents?)');
    expect(issueAt(result, '/foo')).not.toContain('did you mean');
    expect(issueAt(yaml('version: 2\n'), '/version')).toBe('version must be 1 (the only manifest version), got the number 2');
  });

  test('a byte-order mark at the start is ignored', () => {
    expect(yaml(`\uFEFF${cronTrigger()}`).issues).toEqual([]);
  });

  test('YAML anchors and merge keys can share settings between entries', () => {
    const result = yaml(`
triggers:
  - &base { slug: a, type: cron, cron: "0 0 0 * * *", prompt: shared, timezone: Europe/Paris }
  - { <<: *base, slug: b }
`);
    expect(result.issues).toEqual([]);
    expect(result.triggers.map((trigger) => [trigger.slug, trigger.type === 'cron' ? trigger.timezone : null])).toEqual([
      ['a', 'Europe/Paris'],
      ['b', 'Europe/Paris'],
    ]);
  });
});

describe('agents, default_agent, runtime, env', () => {
  test('agents must be a mapping with known, typed settings', () => {
    expect(issueAt(yaml('agents: [a, b]\n'), '/agents')).toContain('agents must be a mapping of agent name to settings');
    const result = yaml('agents:\n  writer:\n    model: gpt4\n    temperature: 0.2\n    description: 3\n  "bad name": {}\n  ok: text\n');
    expect(issueAt(result, '/agents/writer/model')).toBe('agent "writer": model "gpt4" must be written <provider>/<model>, e.g. "anthropic/claude-sonnet-4"');
    expect(issueAt(result, '/agents/writer/temperature')).toContain(
      '"temperature" is not an agent setting (known: description, model, prompt); settings specific to the agent runtime belong in its own config under runtime.config_dir',
    );
    expect(issueAt(result, '/agents/writer/description')).toBe('agent "writer": description must be text, got the number 3 (put it in quotes: "3")');
    expect(issueAt(result, '/agents/bad name')).toContain('agent name "bad name" must be 1-64 letters');
    expect(issueAt(result, '/agents/ok')).toContain('agent "ok" must be a mapping of settings');
    expect(result.manifest.agents).toEqual({});
  });

  test('a trigger may name an agent whose settings have problems (the agent issue is reported once)', () => {
    const result = yaml(`agents:\n  writer:\n    model: bad\n${cronTrigger('    agent: writer\n')}`);
    expect(result.issues.map((issue) => issue.path)).toEqual(['/agents/writer/model']);
    expect(result.triggers[0]?.agent).toBe('writer');
  });

  test('default_agent must name a declared agent when agents exist', () => {
    expect(issueAt(yaml('agents:\n  writer: {}\ndefault_agent: writter\n'), '/default_agent')).toBe(
      'default_agent "writter" is not declared under agents (declared: writer) (did you mean writer?)',
    );
    expect(yaml('default_agent: build\n').manifest.default_agent).toBe('build');
    expect(issueAt(yaml('default_agent: 3\n'), '/default_agent')).toContain('default_agent must be text');
  });

  test('agent names that are Object.prototype keys are ordinary names', () => {
    const result = yaml(`agents:\n  constructor: {}\n${cronTrigger('    agent: toString\n')}`);
    expect(issueAt(result, '/triggers/0/agent')).toContain('agent "toString" is not declared under agents (declared: constructor)');
  });

  test('runtime.config_dir stays inside the repository and is normalized', () => {
    const configDir = (value: string) => yaml(`runtime:\n  config_dir: ${JSON.stringify(value)}\n`);
    expect(configDir('agents/config/').manifest.runtime.config_dir).toBe('agents/config');
    expect(configDir('./a//b/../c').manifest.runtime.config_dir).toBe('a/c');
    expect(configDir('.').manifest.runtime.config_dir).toBe('.');
    expect(issueAt(configDir('/etc/svc'), '/runtime/config_dir')).toBe(
      'runtime.config_dir "/etc/svc" is absolute; write a path relative to the repository root such as ".svc/runtime"',
    );
    expect(issueAt(configDir('../outside'), '/runtime/config_dir')).toContain('leaves the repository through ".."');
    expect(issueAt(configDir('a/../../outside'), '/runtime/config_dir')).toContain('leaves the repository');
    expect(issueAt(configDir('C:/x'), '/runtime/config_dir')).toContain('is absolute');
    expect(issueAt(configDir('a\\b'), '/runtime/config_dir')).toContain('separate folders with "/"');
    expect(issueAt(configDir('~/cfg'), '/runtime/config_dir')).toContain('not expanded');
    expect(issueAt(configDir(''), '/runtime/config_dir')).toContain('is empty');
    expect(issueAt(configDir('a\u0000b'), '/runtime/config_dir')).toContain('control characters');
    expect(configDir('../x').manifest.runtime.config_dir).toBe('.svc/runtime');
    expect(issueAt(yaml('runtime:\n  config-dir: x\n'), '/runtime/config-dir')).toContain('(did you mean config_dir?)');
    expect(issueAt(yaml('runtime: x\n'), '/runtime')).toContain('runtime must be a mapping');
  });

  test('runtime in TOML is a [runtime] table', () => {
    expect(toml('[runtime]\nconfig_dir = ".agents"\n').manifest.runtime).toEqual({ config_dir: '.agents' });
  });

  test('env entries: names, SVC_ reserved, duplicates, shapes', () => {
    const result = yaml(`
env:
  - GITHUB_TOKEN
  - name: GITHUB_TOKEN
  - name: lower_case
  - name: SVC_TOKEN
  - name: OK_ONE
    required: "yes"
  - name: OK_TWO
    secret: true
  - 3
  - description: no name
`);
    expect(issueAt(result, '/env/1/name')).toBe('env entry 2: "GITHUB_TOKEN" is already declared by entry 1; declare each variable once');
    expect(issueAt(result, '/env/2/name')).toContain('must be an environment variable name');
    expect(issueAt(result, '/env/3/name')).toBe(
      'env entry 4: "SVC_TOKEN" uses the reserved prefix SVC_, which svc keeps for the variables it injects; pick another name',
    );
    expect(issueAt(result, '/env/4/required')).toBe('env entry 5: required must be true or false, got the text "yes"');
    expect(issueAt(result, '/env/5/secret')).toContain('"secret" is not an env setting');
    expect(issueAt(result, '/env/6')).toContain('env entry 7 must be a variable name or a mapping');
    expect(issueAt(result, '/env/7/name')).toBe('env entry 8 needs a name, e.g. name: GITHUB_TOKEN');
    expect(result.manifest.env).toEqual([{ name: 'GITHUB_TOKEN', required: false, description: null }]);
  });

  test('env as a mapping is refused with the list form to use', () => {
    expect(issueAt(yaml('env:\n  GITHUB_TOKEN: {}\n'), '/env')).toContain('env must be a list; write one entry per variable');
    expect(issueAt(toml('[env]\nname = "X"\n'), '/env')).toContain('declare each variable with [[env]]');
  });
});

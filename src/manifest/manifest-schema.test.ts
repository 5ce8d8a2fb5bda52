/**
 * The TypeBox schemas are the contract other domains and editors read; these tests keep them true to
 * what the parser accepts and returns.
 */
import { describe, expect, test } from 'vitest';
import { Ajv } from 'ajv';
import { parseDocument } from 'yaml';
import { Value } from 'typebox/value';
import {
  ManifestDocumentSchema,
  NormalizedManifestSchema,
  SESSION_MODES,
  TRIGGER_FIELD_ALIASES,
  parseManifest,
  type SessionMode,
  type NormalizedTrigger,
} from './index.js';

const validYaml = `
version: 1
agents:
  writer: { model: anthropic/claude-sonnet-4, description: Writes }
  reviewer:
default_agent: writer
runtime: { config_dir: .svc/runtime }
env:
  - GITHUB_TOKEN
  - { name: HOOK_SECRET, required: false, description: HMAC secret }
triggers:
  - { slug: nightly, type: cron, schedule: "0 0 3 * * *", timezone: Europe/Paris, prompt: Run, sessionMode: REUSE }
  - { slug: once, type: cron, runAt: "2030-01-01T00:00:00Z", prompt_template: Once, agent_name: reviewer }
  - { slug: hook, type: webhook, secretEnv: HOOK_SECRET, prompt: "{{ body.x }}", session_mode: pinned, sessionId: 3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c, model: openai/gpt-5, enabled: false, name: Hook }
`;

const ajv = new Ajv({ strict: false, allErrors: true });

describe('the document schema', () => {
  const validateDocument = ajv.compile(ManifestDocumentSchema);

  test('compiles as JSON Schema and accepts a manifest the parser accepts', () => {
    expect(parseManifest({ filename: 'svc.yaml', text: validYaml }).issues).toEqual([]);
    const document: unknown = parseDocument(validYaml).toJS();
    expect(validateDocument(document), JSON.stringify(validateDocument.errors)).toBe(true);
  });

  test.each([
    ['an unknown top-level key', { trigger: [] }],
    ['an unknown trigger field', { triggers: [{ slug: 'a', type: 'cron', cron: '* * * * * *', prompt: 'p', colour: 1 }] }],
    ['secret_env on a cron trigger', { triggers: [{ slug: 'a', type: 'cron', cron: '* * * * * *', prompt: 'p', secret_env: 'X' }] }],
    ['a bad slug', { triggers: [{ slug: 'A', type: 'webhook', secret_env: 'X', prompt: 'p' }] }],
    ['a bad session mode', { triggers: [{ slug: 'a', type: 'webhook', secret_env: 'X', prompt: 'p', session_mode: 'sometimes' }] }],
    ['a model without provider', { agents: { a: { model: 'gpt' } } }],
    ['an unknown agent setting', { agents: { a: { temperature: 1 } } }],
    ['env as a mapping', { env: { X: {} } }],
    ['version 2', { version: 2 }],
  ])('rejects %s, as the parser does', (_what, document) => {
    expect(validateDocument(document)).toBe(false);
  });

  test('knows every alias as a trigger property', () => {
    const [cron, webhook] = ManifestDocumentSchema.properties.triggers.anyOf[0].items.anyOf;
    const properties = new Set([...Object.keys(cron.properties), ...Object.keys(webhook.properties)]);
    for (const [alias, canonical] of Object.entries(TRIGGER_FIELD_ALIASES)) {
      expect(properties.has(alias), alias).toBe(true);
      expect(properties.has(canonical), canonical).toBe(true);
    }
  });

  test('session_mode matches any case in JSON Schema too', () => {
    for (const mode of ['fresh', 'REUSE', 'Pinned']) {
      const document = { triggers: [{ slug: 'a', type: 'webhook', secret_env: 'X', prompt: 'p', session_mode: mode }] };
      expect(validateDocument(document), mode).toBe(true);
    }
  });
});

describe('the normalized schema', () => {
  test('describes exactly what parseManifest returns', () => {
    for (const [filename, text] of [
      ['svc.yaml', validYaml],
      ['svc.yaml', ''],
      ['svc.toml', '[[triggers]]\nslug = "a"\ntype = "webhook"\nsecret_env = "S"\nprompt = "p"\n'],
      ['svc.yaml', 'triggers:\n  - { slug: bad, type: cron, prompt: p }\n  - { slug: good, type: cron, run_at: "2030-01-01T00:00:00+01:00", prompt: p }\n'],
    ] as const) {
      const { manifest } = parseManifest({ filename, text });
      expect(Value.Check(NormalizedManifestSchema, manifest), `${filename}: ${text}`).toBe(true);
      expect(ajv.validate(NormalizedManifestSchema, manifest), JSON.stringify(ajv.errors)).toBe(true);
    }
  });

  test('a normalized trigger narrows on its type', () => {
    const { triggers } = parseManifest({ filename: 'svc.yaml', text: validYaml });
    const describe = (trigger: NormalizedTrigger) => (trigger.type === 'cron' ? trigger.cron ?? trigger.run_at : trigger.secret_env);
    expect(triggers.map(describe)).toEqual(['0 0 3 * * *', '2030-01-01T00:00:00.000Z', 'HOOK_SECRET']);
  });

  test('the session modes constant and the schema literal union agree', () => {
    const modes: readonly SessionMode[] = SESSION_MODES;
    const fromSchema: SessionMode[] = ['fresh', 'reuse', 'pinned'];
    expect([...modes]).toEqual(fromSchema);
  });
});
